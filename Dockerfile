# syntax=docker/dockerfile:1
#
# One image for every process of the accounting API.
#
#   default (gateway):  node services/gateway/dist/main.js
#   other services:     node services/<name>/dist/main.js      e.g. node services/receivables/dist/main.js
#   migrations:         node services/<name>/dist/migrate.js   run each service's before its main.js
#                       (docker-compose.yml's `migrate` service and the Helm migrations Job do this)
#   admin CLI:          node services/gateway/dist/admin/cli.js bootstrap --json
#
# Configuration is by environment variables only (DATABASE_URL, NATS_URL, NATS_PREFIX, LOG_LEVEL,
# OPS_PORT, GATEWAY_PORT, RATE_LIMIT_RPS, ...; see libs/kit/src/config.ts and each service's config).
#
#   docker build -t accounting-api .

ARG NODE_IMAGE=node:24-bookworm-slim

# ---------------------------------------------------------------------------------------------
# manifests: only the package.json files of the root and of every workspace (libs/*, services/*, tools/*),
# so that `npm ci` below is re-run only when dependencies change, and a new workspace needs no
# edit here. This stage re-runs on any source change, but its output is byte-identical then, so
# the build stage's COPY --from and `npm ci` layers stay cached.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir -p /manifests \
 && cp package.json package-lock.json /manifests/ \
 && find libs services tools -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

# ---------------------------------------------------------------------------------------------
# build: install every dependency, compile all TypeScript projects, then drop dev dependencies.
FROM ${NODE_IMAGE} AS build
WORKDIR /app

COPY --from=manifests /manifests/ ./
# --ignore-scripts: the root "prepare" script runs tsc, and the sources are not copied yet
# (no dependency of the project needs an install script).
RUN npm ci --ignore-scripts --no-audit --no-fund

# Sources (.dockerignore keeps node_modules, dist, *.tsbuildinfo, .git and coverage out).
COPY . .
RUN npm run build

# Production dependencies only, then gather what the runtime stage needs in /out:
# node_modules (with the workspace links node_modules/@acct/* -> ../../libs|services/*),
# the package.json files and each workspace package's compiled dist.
RUN npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && mkdir -p /out \
 && cp -a package.json package-lock.json node_modules /out/ \
 && for d in libs/* services/*; do \
      [ -f "$d/package.json" ] || continue; \
      mkdir -p "/out/$d" && cp -a "$d/package.json" "/out/$d/"; \
      if [ -d "$d/dist" ]; then cp -a "$d/dist" "/out/$d/"; fi; \
    done \
 && find /out/libs /out/services -name '*.tsbuildinfo' -delete

# ---------------------------------------------------------------------------------------------
# runtime: compiled JavaScript + production node_modules, run as the unprivileged `node` user.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app

# Owned by root and only readable by the process user: the application cannot rewrite its code.
COPY --from=build /out /app

# 1000:1000 is the `node` user of the official image; numeric so that Kubernetes'
# runAsNonRoot can verify it.
USER 1000:1000

# Public API port of the gateway and the ops port (/metrics, /healthz, /readyz; 9100 gateway,
# 9101 receivables, ... set with OPS_PORT).
EXPOSE 8080 9100

# The processes handle SIGTERM themselves (readiness goes red, drain, exit).
STOPSIGNAL SIGTERM
CMD ["node", "services/gateway/dist/main.js"]
