# routekeeper: `npm ci` without development dependencies, then `routekeeper run` (the README's commands).
FROM node:20-slim
WORKDIR /app
# better-sqlite3 is built from source by `npm ci`.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY bin ./bin
COPY src ./src
COPY config ./config
RUN mkdir -p /data && chown node:node /data
USER node
ENV ROUTEKEEPER_DATA_DIR=/data \
    METRICS_PORT=9464 \
    METRICS_HOST=0.0.0.0
VOLUME ["/data"]
EXPOSE 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.METRICS_PORT || 9464) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["node", "bin/routekeeper.js"]
CMD ["run"]
