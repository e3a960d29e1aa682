# syntax=docker/dockerfile:1
#
# One image for every process of the accounting API, on Node 24 LTS.
#
#   default (gateway):  node services/gateway/dist/main.js
#   other services:     node services/<name>/dist/main.js      e.g. node services/receivables/dist/main.js
#   migrations:         node services/<name>/dist/migrate.js   run each service's before its main.js
#                       (docker-compose.yml's `migrate` service and the Helm migrations Job do this)
#   admin CLI:          node services/gateway/dist/admin/cli.js bootstrap --json
#
# tini is PID 1 (ENTRYPOINT): it forwards SIGTERM to node and reaps zombies, so every command
# above drains on `docker stop` / pod termination. Configuration is by environment variables only
# (DATABASE_URL, NATS_URL, NATS_PREFIX, LOG_LEVEL, OPS_PORT, GATEWAY_PORT, RATE_LIMIT_RPS, ...; see
# libs/kit/src/config.ts and each service's config).
#
#   docker build -t accounting-api .
#
# test/deploy/dockerfile.test.ts checks this file offline (stages, user, entrypoint, paths).

ARG NODE_IMAGE=node:24-bookworm-slim

# ---------------------------------------------------------------------------------------------
# manifests: only the package.json files of the root and of every workspace (libs/*, services/*, tools/*, clients/*),
# so that the `npm ci` layers below are re-run only when dependencies change, and a new workspace
# needs no edit here. This stage re-runs on any source change, but its output is byte-identical
# then, so the COPY --from and `npm ci` layers of the next stages stay cached.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir -p /manifests \
 && cp package.json package-lock.json /manifests/ \
 && find libs services tools clients -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

# ---------------------------------------------------------------------------------------------
# build: every dependency, then compile all TypeScript projects.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY --from=manifests /manifests/ ./
# --ignore-scripts: the root "prepare" script runs tsc, and the sources are not copied yet
# (no dependency of the project needs an install script).
RUN npm ci --ignore-scripts --no-audit --no-fund
# Sources (.dockerignore keeps node_modules, dist, *.tsbuildinfo, .git and coverage out).
COPY . .
# Then gather every workspace's compiled dist (libs/*, services/*, and the dashboard's pages that the
# gateway serves: clients/dashboard/dist, made by Vite in `npm run build`) in /out for the runtime stage.
RUN npm run build \
 && for d in libs/* services/* clients/dashboard; do \
      [ -f "$d/package.json" ] && [ -d "$d/dist" ] || continue; \
      mkdir -p "/out/$d" && cp -a "$d/dist" "/out/$d/"; \
    done \
 && find /out -name '*.tsbuildinfo' -delete

# ---------------------------------------------------------------------------------------------
# prod-deps: production dependencies only (no TypeScript, jest, eslint...), with the workspace
# links node_modules/@acct/* -> ../../libs|services|tools/*.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# ---------------------------------------------------------------------------------------------
# runtime: compiled JavaScript + production node_modules, run as the unprivileged `node` user.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# tini as PID 1: signal forwarding and zombie reaping (the slim image has no init).
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app

# Owned by root and only readable by the process user: the application cannot rewrite its code.
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=manifests /manifests/ ./
COPY --from=build /out/ ./

# 1000:1000 is the `node` user of the official image; numeric so that Kubernetes'
# runAsNonRoot can verify it. The root filesystem may be read-only: nothing is written under /app.
USER 1000:1000

# Public API port of the gateway and the ops port (/metrics, /healthz, /readyz; 9100 gateway,
# 9101 receivables, ... set with OPS_PORT).
EXPOSE 8080 9100

# The processes handle SIGTERM themselves (readiness goes red, drain, exit); tini forwards it.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "services/gateway/dist/main.js"]
