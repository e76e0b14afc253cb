#!/usr/bin/env bash
# Starts PgBouncer on 127.0.0.1:6432 in transaction pooling in front of the CI cluster (.ci/start-postgres.sh), any
# database on it, as docs/deploying.md configures it: postgres://postgres:postgres@127.0.0.1:6432/petstore.
set -euo pipefail
dir=/tmp/petstore-ci-pgbouncer
if pg_isready -q -h 127.0.0.1 -p 6432 2>/dev/null; then echo "PgBouncer is already up on 127.0.0.1:6432"; exit 0; fi
mkdir -p "$dir"
cat > "$dir/userlist.txt" <<'USERS'
"postgres" "postgres"
USERS
cat > "$dir/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=5432 user=postgres password=postgres
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = 6432
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = transaction
default_pool_size = 20
# A request waits at most 5 s for a server connection, then fails (503), as with a direct pool: never a hang.
query_wait_timeout = 5
max_client_conn = 2000
ignore_startup_parameters = extra_float_digits
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
chown -R postgres:postgres "$dir"
chmod 700 "$dir"
# PgBouncer refuses to run as root.
runuser -u postgres -- pgbouncer -d "$dir/pgbouncer.ini"
until pg_isready -q -h 127.0.0.1 -p 6432; do sleep 0.2; done
echo "PgBouncer $(pgbouncer --version | sed -n '1s/PgBouncer //p') is up on 127.0.0.1:6432 (transaction pooling)"
