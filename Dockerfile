# syntax=docker/dockerfile:1
# The Node major here is also the one CI tests on (.ci/run reads this line).
ARG NODE_MAJOR=26

FROM node:${NODE_MAJOR}-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY bench ./bench
COPY test ./test
RUN npm run build && npm prune --omit=dev

FROM node:${NODE_MAJOR}-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY schemas ./schemas
COPY examples ./examples
USER node
ENTRYPOINT ["node", "/app/dist/src/cli/main.js"]
