# routekeeper in a container. Two stages: the first installs everything and compiles (better-sqlite3 from
# source, TypeScript to dist/); the second holds only what runs: Node, tini, production node_modules, dist.
# Node 22 is an LTS line supported until April 2027 (Node 20's support ended in April 2026).
FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
# `npm ci` builds dist/ in its prepare step (the README's install); then the development tools go.
RUN npm ci && npm prune --omit=dev && npm cache clean --force

FROM node:22-bookworm-slim
# tini is PID 1: it forwards SIGTERM to routekeeper and reaps the anvil child of a devnet or fork.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY config ./config
COPY schema ./schema
COPY web ./web
RUN mkdir -p /data && chown node:node /data
USER node
# Without RPC_URL the container refuses to start instead of trading on a throw-away devnet; `run --devnet`
# asks for the devnet explicitly.
# The status port listens on every interface of the container, so it needs ROUTEKEEPER_STATUS_TOKEN (or
# ROUTEKEEPER_STATUS_OPEN=true, on purpose); publish it on 127.0.0.1 (-p 127.0.0.1:9464:9464) unless others must reach it.
# NODE_OPTIONS caps V8's old space: the daemon's live heap at 10,000 strategies fits in 192 MB, and left to its
# default sizing V8 lets garbage grow the heap past 350 MB. Raise it with -e NODE_OPTIONS=--max-old-space-size=<MB>.
ENV NODE_ENV=production \
    ROUTEKEEPER_DATA_DIR=/data \
    ROUTEKEEPER_REQUIRE_RPC_URL=true \
    METRICS_PORT=9464 \
    METRICS_HOST=0.0.0.0 \
    NODE_OPTIONS=--max-old-space-size=256
VOLUME ["/data"]
EXPOSE 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.METRICS_PORT || 9464) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--", "node", "bin/routekeeper.js"]
CMD ["run"]
