#!/usr/bin/env bash
# Installs (if needed) Caddy from Debian, for the on-demand TLS test of custom domains (the test runs its own).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
command -v caddy >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends caddy >/dev/null; }
# The Debian package starts a default instance; the test runs its own.
systemctl disable --now caddy >/dev/null 2>&1 || service caddy stop >/dev/null 2>&1 || true
caddy version
