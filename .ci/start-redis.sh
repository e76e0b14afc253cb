#!/usr/bin/env bash
# Installs (if needed) and starts Redis on 127.0.0.1:6379 (or the port given as $1), keeping nothing on disk.
# Idempotent: a server already answering there is left as it is.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
PORT="${1:-6379}"
command -v redis-server >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends redis-server >/dev/null; }
if ! redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null | grep -q PONG; then
  mkdir -p /var/lib/redis-ci
  # Debian's package may have started its own service on 6379 already; the ping above then found it.
  redis-server --port "$PORT" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no \
    --dir /var/lib/redis-ci --pidfile "/var/lib/redis-ci/redis-$PORT.pid" --logfile "/var/lib/redis-ci/redis-$PORT.log"
fi
for _ in $(seq 1 50); do
  redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null | grep -q PONG && { echo "Redis is up on 127.0.0.1:$PORT"; exit 0; }
  sleep 0.2
done
echo "Redis did not answer on 127.0.0.1:$PORT" >&2
exit 1
