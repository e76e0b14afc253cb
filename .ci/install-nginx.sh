#!/usr/bin/env bash
# Installs (if needed) nginx from Debian, for the test of docs/deploying.md's nginx recipe (apps/server/test/nginx.test.ts).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
command -v nginx >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends nginx >/dev/null; }
# The Debian package starts a default instance on port 80; the test runs its own.
systemctl disable --now nginx >/dev/null 2>&1 || service nginx stop >/dev/null 2>&1 || true
nginx -v 2>&1
