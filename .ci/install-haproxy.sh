#!/usr/bin/env bash
# Installs (if needed) HAProxy from Debian, for the fleet tests (apps/server/test/fleet*.test.ts, faults/fleet-faults.test.ts).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
command -v haproxy >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends haproxy >/dev/null; }
# The tests serve the documented HTTPS frontend with a certificate of their own, made with openssl.
command -v openssl >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends openssl >/dev/null; }
# The Debian package starts a default instance; the test runs its own.
systemctl disable --now haproxy >/dev/null 2>&1 || service haproxy stop >/dev/null 2>&1 || true
haproxy -v | sed -n 1p
