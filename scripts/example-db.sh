#!/usr/bin/env bash
# Builds the example database that the README's inspect and race sql examples
# use: the example migration tree (testdata/examples/payments) applied in
# order with psql, then the rows those examples count.
#
#   scripts/example-db.sh                                        # postgres://postgres@127.0.0.1/payments
#   scripts/example-db.sh 'postgres://me@db.local:5433/payments_demo?sslmode=disable'
#
# The database named in the URL is created through the server's "postgres"
# database, so the user must be allowed to create databases. A database of
# that name that this script built before is dropped and built again; any
# other database of that name is left alone, and the script stops.
set -euo pipefail
cd "$(dirname "$0")/.."

url=${1:-postgres://postgres@127.0.0.1/payments}
base=${url%%\?*}
query=${url#"$base"}
db=${base##*/}
if [ -z "$db" ] || [ "$db" = "$base" ]; then
  echo "example-db: $url names no database (want postgres://user@host/NAME)" >&2
  exit 2
fi
admin="${base%/*}/postgres$query"
marker='idemcheck example database (scripts/example-db.sh)'

state=$(psql "$admin" -X -Atq -v ON_ERROR_STOP=1 -v db="$db" -v marker="$marker" <<'SQL'
SELECT CASE WHEN shobj_description(oid, 'pg_database') = :'marker' THEN 'ours' ELSE 'other' END
FROM pg_database WHERE datname = :'db'
SQL
) || { echo "example-db: cannot reach the server through $admin" >&2; exit 2; }
case "$state" in
  other)
    echo "example-db: database $db exists and was not built by this script; name another, for example ${base%/*}/payments_example" >&2
    exit 1 ;;
  ours)
    psql "$admin" -X -q -v ON_ERROR_STOP=1 -v db="$db" >/dev/null <<'SQL'
SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :'db' AND pid <> pg_backend_pid();
DROP DATABASE :"db";
SQL
    ;;
esac
psql "$admin" -X -q -v ON_ERROR_STOP=1 -v db="$db" -v marker="$marker" <<'SQL'
CREATE DATABASE :"db";
COMMENT ON DATABASE :"db" IS :'marker';
SQL

for migration in testdata/examples/payments/migrations/*.up.sql; do
  psql "$url" -X -q -v ON_ERROR_STOP=1 -f "$migration" >/dev/null
done

# The rows the README's examples count: one account without an email, and
# three charge claims without a namespace, two of them the same charge.
# Account 1 is the one race sql claims for.
psql "$url" -X -q -v ON_ERROR_STOP=1 <<'SQL'
INSERT INTO accounts (name, email) VALUES ('api-only merchant', NULL), ('shop', 'shop@example.com');
INSERT INTO charge_claims (account_id, kind, address, namespace) VALUES
    (1, 'charge', 'order-7', NULL),
    (1, 'charge', 'order-7', NULL),
    (1, 'charge', 'order-8', NULL);
SQL
echo "example-db: built $db from testdata/examples/payments/migrations (16 migrations, 2 accounts, 3 charge claims)"
