#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: a plain process in a folder of its own, on 127.0.0.1
# and a free port, trust authentication for the user `postgres`. Nothing of the machine's own
# PostgreSQL (service, cluster, config) is used or touched.
#
#   postgres.sh start DIR            make the cluster in DIR if it is not there (initdb), start it, make
#                                    the database seek_test; prints one line, its URL:
#                                    postgres://postgres@127.0.0.1:PORT/seek_test
#                                    Starting a cluster DIR already holds reuses its port.
#   postgres.sh stop DIR [MODE]      pg_ctl stop -m MODE (fast, default; smart; immediate). Stopping a
#                                    cluster that is not running is not an error.
#   postgres.sh url DIR              prints the URL of seek_test again
#   postgres.sh createdb DIR NAME    makes the database NAME (if absent) and prints its URL
#
# As root, the server runs as the user `postgres` (initdb refuses root) and DIR is handed to it;
# as any other user, as that user. Other output goes to stderr; the server's log is DIR/log.
# PG_BIN names the folder of initdb/pg_ctl/postgres (default: the newest /usr/lib/postgresql/*/bin).
# POSTGRES_OPTIONS adds server options, e.g. "-c fsync=off".
set -euo pipefail

usage() {
  echo "usage: $0 start DIR | stop DIR [fast|smart|immediate] | url DIR | createdb DIR NAME" >&2
  exit 64
}

command="${1:-}"
dir="${2:-}"
[ -n "$command" ] && [ -n "$dir" ] || usage

case "$dir" in
  *[[:space:]\'\"\\]*) echo "postgres.sh: DIR must not contain spaces or quotes: $dir" >&2; exit 64 ;;
esac

pg_bin() {
  if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
  local newest
  newest="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
  if [ -n "$newest" ] && [ -x "$newest/initdb" ]; then echo "$newest"; return; fi
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then pg_config --bindir; return; fi
  echo "postgres.sh: no PostgreSQL server binaries (initdb, pg_ctl): install the postgresql package or set PG_BIN" >&2
  exit 69
}

# Runs a command as the cluster's owner: `postgres` when we are root, else ourselves.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

url_of() {  # DIR NAME
  echo "postgres://postgres@127.0.0.1:$(cat "$1/port")/$2"
}

# psql/createdb over TCP as the user postgres (trust): any local user may run them.
client() {  # PROGRAM ARGS...
  local program="$1"; shift
  local bin; bin="$(pg_bin)"
  PGCONNECT_TIMEOUT=10 "$bin/$program" -h 127.0.0.1 -p "$(cat "$dir/port")" -U postgres "$@"
}

make_database() {  # NAME
  local name="$1" exists
  case "$name" in
    *[!A-Za-z0-9_]*|"") echo "postgres.sh: a database name is letters, digits and _ : $name" >&2; exit 64 ;;
  esac
  exists="$(client psql -d postgres -XAtqc "SELECT 1 FROM pg_database WHERE datname = '$name'")"
  if [ "$exists" != "1" ]; then
    client createdb "$name" >&2
  fi
}

running() {
  [ -f "$dir/data/postmaster.pid" ] && as_owner "$(pg_bin)/pg_ctl" -D "$dir/data" status >/dev/null 2>&1
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start() {
  local bin; bin="$(pg_bin)"
  mkdir -p "$dir"
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$dir"
    chmod 0700 "$dir"
    if ! runuser -u postgres -- test -w "$dir"; then
      echo "postgres.sh: the user postgres cannot write $dir (is a parent folder closed to it? use one under /tmp)" >&2
      exit 73
    fi
  fi
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C -N > "$dir/initdb.log" 2>&1 || {
      echo "postgres.sh: initdb failed:" >&2; cat "$dir/initdb.log" >&2; exit 1; }
  fi
  if running; then
    echo "postgres.sh: already running in $dir" >&2
  else
    local attempt reuse=0
    [ -f "$dir/port" ] && reuse=1
    for attempt in 1 2 3 4 5; do
      [ "$reuse" -eq 1 ] || free_port > "$dir/port"
      if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -t 60 -w start \
           -o "-k $dir -c listen_addresses=127.0.0.1 -p $(cat "$dir/port") ${POSTGRES_OPTIONS:-}" >&2; then
        break
      fi
      # A port taken between picking and binding: pick another (a reused port is kept: fail instead).
      if [ "$reuse" -eq 1 ] || [ "$attempt" -eq 5 ]; then
        echo "postgres.sh: the server did not start; its log ($dir/log):" >&2
        tail -n 30 "$dir/log" >&2 || true
        exit 1
      fi
    done
  fi
  make_database seek_test
  url_of "$dir" seek_test
}

stop() {
  local mode="${1:-fast}"
  case "$mode" in fast|smart|immediate) ;; *) usage ;; esac
  if [ ! -d "$dir/data" ]; then
    echo "postgres.sh: no cluster in $dir" >&2
    return 0
  fi
  if running; then
    as_owner "$(pg_bin)/pg_ctl" -D "$dir/data" -m "$mode" -w stop >&2
  else
    echo "postgres.sh: not running in $dir" >&2
  fi
}

case "$command" in
  start) [ $# -eq 2 ] || usage; start ;;
  stop) [ $# -le 3 ] || usage; stop "${3:-fast}" ;;
  url) [ $# -eq 2 ] || usage; [ -f "$dir/port" ] || { echo "postgres.sh: no cluster in $dir" >&2; exit 1; }; url_of "$dir" seek_test ;;
  createdb)
    [ $# -eq 3 ] || usage
    [ -f "$dir/port" ] || { echo "postgres.sh: no cluster in $dir" >&2; exit 1; }
    make_database "$3"
    url_of "$dir" "$3"
    ;;
  *) usage ;;
esac
