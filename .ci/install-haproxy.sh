#!/usr/bin/env bash
# Installs (if needed) HAProxy from Debian, for the fleet test (apps/server/test/fleet.test.ts).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
command -v haproxy >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends haproxy >/dev/null; }
# The Debian package starts a default instance; the test runs its own.
systemctl disable --now haproxy >/dev/null 2>&1 || service haproxy stop >/dev/null 2>&1 || true
haproxy -v | head -n 1
