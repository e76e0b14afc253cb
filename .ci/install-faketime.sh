#!/usr/bin/env bash
# Installs (if needed) libfaketime from Debian, for the tests that move the wall clock of the server processes they
# start (processClock of @petstore/testing) instead of waiting for a fresh minute.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
ls /usr/lib/*/faketime/libfaketime.so.1 >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq --no-install-recommends faketime >/dev/null; }
ls /usr/lib/*/faketime/libfaketime.so.1
