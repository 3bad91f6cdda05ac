# syntax=docker/dockerfile:1
# The Node major here is also the one CI tests on (.ci/run reads this line).
ARG NODE_MAJOR=26

# Build with the dev dependencies (TypeScript), then keep only production ones.
FROM node:${NODE_MAJOR}-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY schemas ./schemas
COPY src ./src
RUN npx tsc -p tsconfig.json
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_MAJOR}-slim
# tini is PID 1: it forwards SIGTERM to node and reaps zombies.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY schemas ./schemas
COPY examples ./examples
# The image's own "node" user (uid 1000): nothing runs as root.
USER node
EXPOSE 9090
# No curl in slim images: node's fetch probes the daemon's /healthz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9090/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/src/cli/main.js"]
CMD ["watch", "/manifests", "--listen", "0.0.0.0:9090"]
