#!/usr/bin/env bash
# Installs (if needed) PgBouncer from Debian, for the tests behind it (apps/server/test/fleet-pgbouncer.test.ts) and the
# run of the PostgreSQL tests through it (.ci/start-pgbouncer.sh).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
command -v pgbouncer >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends pgbouncer >/dev/null; }
# The Debian package starts a default instance on 6432; CI runs its own there (.ci/start-pgbouncer.sh).
systemctl disable --now pgbouncer >/dev/null 2>&1 || service pgbouncer stop >/dev/null 2>&1 || true
pgbouncer --version | sed -n 1p
