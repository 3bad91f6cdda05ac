# syntax=docker/dockerfile:1
# The Node major here is also the one CI tests on (.ci/run reads this line);
# it must be the major of the base image's tag below (test/watch/dockerfile.test.ts).
ARG NODE_MAJOR=26
# The base image by tag and digest, written in FROM itself so that Dependabot
# (.github/dependabot.yml, docker) follows it: a rebuild of the same commit
# gets the same base, and an update is a pull request that runs the tests.
# The digest is the multi-arch index of node:26.8.1-slim (also tagged
# 26-slim and 26-trixie-slim then; the release builds linux/amd64 and
# linux/arm64 from it), the same digest in many public Dockerfiles that pin
# those tags; it could not be pulled where it was written, which reaches no
# image registry. Check it with
#   docker buildx imagetools inspect node:26.8.1-slim --format '{{.Manifest.Digest}}'
# Both stages use the same line; a new major changes NODE_MAJOR with it.

# Build with the dev dependencies (TypeScript), then keep only production ones.
FROM node:26.8.1-slim@sha256:c0753125a3789977aefe869cbebccf70e3cfd7ea84ca48547458f02e4f1d7146 AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY schemas ./schemas
COPY src ./src
COPY scripts/bundle-cli.mjs ./scripts/
# The CLI is the bundle of the compiled sources (dist/cli: fewer files to load at each start).
RUN npx tsc -p tsconfig.json && node scripts/bundle-cli.mjs
RUN npm prune --omit=dev --omit=optional --no-audit --no-fund

FROM node:26.8.1-slim@sha256:c0753125a3789977aefe869cbebccf70e3cfd7ea84ca48547458f02e4f1d7146
# tini is PID 1: it forwards SIGTERM to node and reaps zombies.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/cli ./dist/cli
COPY schemas ./schemas
# No examples/ here: it holds a sample secret and is not needed to run.
# The image's own "node" user, numerically, so that Kubernetes' runAsNonRoot
# can verify it: nothing runs as root.
USER 1000:1000
EXPOSE 9090
# No HEALTHCHECK: the same image runs one-shot `plan`/`apply`/`validate`,
# which serve no /healthz and would be reported unhealthy. Kubernetes uses
# the Deployments' probes (it ignores HEALTHCHECK); `docker run` and Compose
# users of `watch` add the health check given in docs/operations.md.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/cli/main.js"]
CMD ["watch", "/manifests", "--listen", "0.0.0.0:9090"]
