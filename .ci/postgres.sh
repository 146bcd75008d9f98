#!/usr/bin/env bash
# Start a real PostgreSQL on 127.0.0.1 for the leaderboard store tests; print its URL.
# Idempotent: installs the server from Debian if missing, reuses a running cluster.
set -euo pipefail
PORT=${ROBUSTCALL_PG_PORT:-54329}
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2 \
    || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2; }
fi
VER=$(ls /usr/lib/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | awk '{print $2}' | grep -qx robustcall; then
  pg_createcluster "$VER" robustcall --port "$PORT" -- --auth-host=scram-sha-256 >&2
fi
pg_ctlcluster "$VER" robustcall start >&2 || true  # already running is fine
for _ in $(seq 50); do
  su postgres -c "psql -p $PORT -h 127.0.0.1 -c 'select 1' postgres" >/dev/null 2>&1 && break || sleep 0.2
  su postgres -c "psql -p $PORT -c 'select 1' postgres" >/dev/null 2>&1 && break || sleep 0.2
done
su postgres -c "psql -q -p $PORT postgres" >&2 <<'SQL'
SELECT 'CREATE ROLE robustcall LOGIN PASSWORD ''robustcall'''
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'robustcall')\gexec
SELECT 'CREATE DATABASE robustcall_test OWNER robustcall'
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'robustcall_test')\gexec
SQL
echo "postgresql+psycopg://robustcall:robustcall@127.0.0.1:$PORT/robustcall_test"
