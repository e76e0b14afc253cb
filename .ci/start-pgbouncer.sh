#!/usr/bin/env bash
# Starts PgBouncer on 127.0.0.1:6432 (or the port given as $1) in front of the CI cluster (.ci/start-postgres.sh),
# with docs/deploying.md's pgbouncer.ini as printed there, only its addresses, port, user list and user replaced:
# postgres://postgres:postgres@127.0.0.1:6432/petstore. Idempotent: a PgBouncer already answering there is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${1:-6432}"
dir=/tmp/petstore-ci-pgbouncer-$PORT
if pg_isready -q -h 127.0.0.1 -p "$PORT" 2>/dev/null; then echo "PgBouncer is already up on 127.0.0.1:$PORT"; exit 0; fi
mkdir -p "$dir"

# The fenced block below "<!-- recipe: pgbouncer.ini -->" in the docs.
config=$(awk '$0 == "<!-- recipe: pgbouncer.ini -->" { marked = 1; next }
  marked && /^```/ { if (inside) exit; inside = 1; next }
  inside { print }' docs/deploying.md)
[ -n "$config" ] || { echo "docs/deploying.md has no pgbouncer.ini recipe" >&2; exit 1; }
# Replaces a literal of the recipe, which must be there: CI never runs what the docs no longer say.
replace() {
  grep -qF -- "$1" <<<"$config" || { echo "the pgbouncer.ini recipe no longer contains: $1" >&2; exit 1; }
  config=${config//"$1"/"$2"}
}
replace 'host=10.0.0.5 port=5432' 'host=127.0.0.1 port=5432'
replace 'listen_addr = 0.0.0.0' 'listen_addr = 127.0.0.1'
replace 'listen_port = 6432' "listen_port = $PORT"
replace '/etc/pgbouncer/userlist.txt' "$dir/userlist.txt"
replace 'stats_users = petstore' 'stats_users = postgres'
printf '%s\n' "$config" > "$dir/pgbouncer.ini"
printf '"postgres" "postgres"\n' > "$dir/userlist.txt"
chown -R postgres:postgres "$dir"
chmod 700 "$dir"
# PgBouncer refuses to run as root; in the foreground as Debian's service runs it, detached from this script.
setsid runuser -u postgres -- pgbouncer "$dir/pgbouncer.ini" >>"$dir/pgbouncer.log" 2>&1 </dev/null &
for _ in $(seq 1 100); do
  if pg_isready -q -h 127.0.0.1 -p "$PORT"; then
    echo "PgBouncer $(pgbouncer --version | sed -n '1s/PgBouncer //p') is up on 127.0.0.1:$PORT (transaction pooling, docs/deploying.md)"
    exit 0
  fi
  sleep 0.2
done
echo "PgBouncer did not start:" >&2
cat "$dir/pgbouncer.log" >&2
exit 1
