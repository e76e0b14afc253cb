#!/usr/bin/env bash
# Installs (if needed) dnsmasq from Debian, for the DNS verification tests of custom domains; the tests run their own
# on 127.0.0.1 (dnsmasq-base: the program only, no system service).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
command -v dnsmasq >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends dnsmasq-base >/dev/null; }
dnsmasq --version | sed -n 1p
