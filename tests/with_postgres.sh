#!/usr/bin/env bash
# Run a command beside a throw-away PostgreSQL on loopback (installed from Debian if missing).
# Exports CURSO_TEST_POSTGRES_URL, so the suite runs its database tests on PostgreSQL too.
set -euo pipefail
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "Instalando o PostgreSQL do Debian..."
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
fi
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
DIR=$(mktemp -d /tmp/curso-pg.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres: "$DIR"
as_pg "$PGBIN/initdb" -D "$DIR/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -o \
  "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null
stop() { as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$DIR"; }
trap stop EXIT
export CURSO_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:$PORT/postgres"
echo "PostgreSQL de teste em 127.0.0.1:$PORT"
"$@"
