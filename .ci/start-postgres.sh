#!/usr/bin/env bash
# Installs (if needed) and starts PostgreSQL on 127.0.0.1:5432 with user postgres/postgres and database petstore.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
# The fault tests also run throwaway clusters of their own: they need initdb/pg_ctl and runuser (util-linux).
if ! command -v pg_ctlcluster >/dev/null || ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || ! command -v runuser >/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql util-linux >/dev/null
fi
V=$(ls /usr/lib/postgresql | sort -V | tail -1)
[ -d "/etc/postgresql/$V/main" ] || pg_createcluster "$V" main >/dev/null
mkdir -p "/etc/postgresql/$V/main/conf.d"
cat > "/etc/postgresql/$V/main/conf.d/99-ci.conf" <<CONF
listen_addresses = '127.0.0.1'
max_connections = 300
CONF
pg_ctlcluster "$V" main status >/dev/null 2>&1 || pg_ctlcluster "$V" main start
until pg_isready -q -h 127.0.0.1; do sleep 0.5; done
cd /tmp
runuser -u postgres -- psql -qc "ALTER USER postgres PASSWORD 'postgres'"
runuser -u postgres -- psql -tAc "SELECT 1 FROM pg_database WHERE datname = 'petstore'" | grep -q 1 || runuser -u postgres -- createdb petstore
echo "PostgreSQL $V is up on 127.0.0.1:5432"
