#!/usr/bin/env bash
# Installs (if needed) Debian's Chromium, which scripts/check-docs-page.mjs drives headless through playwright-core.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
[ -x /usr/bin/chromium ] || { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
echo "Chromium: $(/usr/bin/chromium --version 2>/dev/null)"
