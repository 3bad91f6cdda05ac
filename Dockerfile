# syntax=docker/dockerfile:1
# The Node major here is also the one CI tests on (.ci/run reads this line).
ARG NODE_MAJOR=26
# The base image by digest, so a rebuild of the same commit gets the same base
# (the tag alone moves with every Node patch and Debian update). This must be
# the multi-arch index digest of node:${NODE_MAJOR}-slim (the release builds
# linux/amd64 and linux/arm64 from it). This one is node:26.8.1-slim (also
# tagged 26-slim and 26-trixie-slim then), the same digest in many public
# Dockerfiles that pin those tags; it could not be pulled where it was
# written, which reaches no image registry. Check or refresh it with
#   docker buildx imagetools inspect node:26-slim --format '{{.Manifest.Digest}}'
# and change it together with NODE_MAJOR (docs/operations.md, "Base image").
ARG NODE_IMAGE_DIGEST=sha256:c0753125a3789977aefe869cbebccf70e3cfd7ea84ca48547458f02e4f1d7146

# Build with the dev dependencies (TypeScript), then keep only production ones.
FROM node:${NODE_MAJOR}-slim@${NODE_IMAGE_DIGEST} AS build
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

FROM node:${NODE_MAJOR}-slim@${NODE_IMAGE_DIGEST}
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
