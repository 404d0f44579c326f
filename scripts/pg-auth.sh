#!/usr/bin/env bash
# Makes the local PostgreSQL ask the role idemcheck_secret for a password
# (scram-sha-256) on 127.0.0.1 and ::1, so that the secrets test can prove a
# wrong password fails. Every other role keeps the server's own rules (CI and
# development servers trust local connections). Safe to run again: the lines
# are added once, at the top of pg_hba.conf, where they take precedence.
#
#   scripts/pg-auth.sh            # as a user who can write pg_hba.conf (root in CI)
#   PGURL=postgres://postgres@127.0.0.1:5432/postgres scripts/pg-auth.sh
set -euo pipefail
url=${PGURL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
marker='# idemcheck secrets test: password required for idemcheck_secret'
hba=$(psql "$url" -Atc 'SHOW hba_file')
if ! grep -qF "$marker" "$hba"; then
  tmp=$(mktemp)
  {
    echo "$marker"
    echo "host all idemcheck_secret 127.0.0.1/32 scram-sha-256"
    echo "host all idemcheck_secret ::1/128 scram-sha-256"
    cat "$hba"
  } > "$tmp"
  cat "$tmp" > "$hba" # keeps the file's owner and mode
  rm -f "$tmp"
fi
psql "$url" -Atc 'SELECT pg_reload_conf()' >/dev/null
echo "pg_hba.conf ($hba): idemcheck_secret needs a password on 127.0.0.1 and ::1"
