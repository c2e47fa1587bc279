# Runs the README's commands: `npm ci` (without development dependencies), then the routekeeper CLI.
FROM node:20-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY bin ./bin
COPY src ./src
COPY config ./config
RUN mkdir -p /data && chown node:node /data
USER node
ENV ROUTEKEEPER_DATA_DIR=/data
VOLUME ["/data"]
ENTRYPOINT ["node", "bin/routekeeper.js"]
CMD ["devnet"]
