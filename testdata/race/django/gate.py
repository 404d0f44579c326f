# Charge views on Django (Debian's python3-django) and PostgreSQL
# (python3-psycopg2), for the race probe's ground-truth suite. Each view
# counts its own effect, a row of its own charges table, which
# GET /<view>/effects?key=K and GET /<view>/doubled report.
#
#   effect-first  charges, works, then claims the key in a table whose
#                 primary key it is: an IntegrityError answers 409, after
#                 the charge (broken, even for a retry in sequence).
#   one-tx        claims and charges in one transaction.atomic(): a racing
#                 duplicate's INSERT waits on the winner's uncommitted key
#                 and gets the IntegrityError once the winner commits (409,
#                 sound; its losers take as long as its winners).
#   in-flight     claims with INSERT ... ON CONFLICT DO NOTHING, charges,
#                 then stores the answer: a duplicate while the first is at
#                 work gets 202 {"status":"processing"}, one after it the
#                 stored answer marked Idempotent-Replayed: true (sound).
#
# Usage: python3 gate.py DATABASE_URL. It creates its tables, prints the
# port it listens on (127.0.0.1, one thread per request, Django's own
# threaded server), then serves until killed.
import json
import os
import sys
import time
import urllib.parse

import django
from django.conf import settings

# Seconds of work per charge, as an API call to a payment provider would take
# (GATE_WORK_MS, default 6).
WORK = float(os.environ.get("GATE_WORK_MS", "6")) / 1000

url = urllib.parse.urlparse(sys.argv[1])
settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    SECRET_KEY="race-target",
    MIDDLEWARE=[],
    DATABASES={
        "default": {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": url.path.lstrip("/"),
            "USER": url.username or "",
            "PASSWORD": url.password or "",
            "HOST": url.hostname or "",
            "PORT": str(url.port or ""),
        }
    },
)
django.setup()

from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.db import IntegrityError, connection, transaction  # noqa: E402
from django.http import HttpResponse, JsonResponse  # noqa: E402
from django.urls import path  # noqa: E402
from django.views.decorators.csrf import csrf_exempt  # noqa: E402

VIEWS = ["effect_first", "one_tx", "in_flight"]


def create_tables():
    with connection.cursor() as c:
        for v in VIEWS:
            c.execute(f"CREATE TABLE IF NOT EXISTS {v}_charges (id bigserial PRIMARY KEY, idempotency_key text NOT NULL)")
        c.execute("CREATE TABLE IF NOT EXISTS effect_first_claims (idempotency_key text PRIMARY KEY)")
        c.execute("CREATE TABLE IF NOT EXISTS one_tx_claims (idempotency_key text PRIMARY KEY)")
        c.execute(
            "CREATE TABLE IF NOT EXISTS in_flight_claims (idempotency_key text PRIMARY KEY,"
            " state text NOT NULL, status int, body text)"
        )


def charge(view, key):
    with connection.cursor() as c:
        c.execute(f"INSERT INTO {view}_charges (idempotency_key) VALUES (%s)", [key])
    time.sleep(WORK)


def key_of(request):
    return request.headers.get("Idempotency-Key", "")


@csrf_exempt
def effect_first(request):
    key = key_of(request)
    charge("effect_first", key)
    try:
        with connection.cursor() as c:
            c.execute("INSERT INTO effect_first_claims (idempotency_key) VALUES (%s)", [key])
    except IntegrityError:
        return JsonResponse({"error": "key already used"}, status=409)
    return JsonResponse({"status": "charged"}, status=201)


@csrf_exempt
def one_tx(request):
    key = key_of(request)
    try:
        with transaction.atomic():
            with connection.cursor() as c:
                c.execute("INSERT INTO one_tx_claims (idempotency_key) VALUES (%s)", [key])
            charge("one_tx", key)
    except IntegrityError:
        return JsonResponse({"error": "key already used"}, status=409)
    return JsonResponse({"status": "charged"}, status=201)


@csrf_exempt
def in_flight(request):
    key = key_of(request)
    with connection.cursor() as c:
        c.execute(
            "INSERT INTO in_flight_claims (idempotency_key, state) VALUES (%s, 'processing')"
            " ON CONFLICT DO NOTHING RETURNING 1",
            [key],
        )
        claimed = c.fetchone() is not None
    if not claimed:
        with connection.cursor() as c:
            c.execute("SELECT state, status, body FROM in_flight_claims WHERE idempotency_key = %s", [key])
            state, status, body = c.fetchone()
        if state == "processing":
            return JsonResponse({"status": "processing"}, status=202)
        replay = HttpResponse(body, status=status, content_type="application/json")
        replay["Idempotent-Replayed"] = "true"
        return replay
    charge("in_flight", key)
    body = json.dumps({"status": "charged"})
    with connection.cursor() as c:
        c.execute(
            "UPDATE in_flight_claims SET state = 'done', status = 201, body = %s WHERE idempotency_key = %s",
            [body, key],
        )
    return HttpResponse(body, status=201, content_type="application/json")


def counts(view):
    def effects(request):
        with connection.cursor() as c:
            c.execute(f"SELECT count(*) FROM {view}_charges WHERE idempotency_key = %s", [request.GET.get("key", "")])
            return HttpResponse(str(c.fetchone()[0]))

    def doubled(request):
        with connection.cursor() as c:
            c.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM {view}_charges GROUP BY idempotency_key HAVING count(*) > 1) d"
            )
            return HttpResponse(str(c.fetchone()[0]))

    return effects, doubled


urlpatterns = []
for view, handler in [("effect_first", effect_first), ("one_tx", one_tx), ("in_flight", in_flight)]:
    effects, doubled = counts(view)
    route = view.replace("_", "-")
    urlpatterns += [
        path(f"{route}/charges", handler),
        path(f"{route}/effects", effects),
        path(f"{route}/doubled", doubled),
    ]


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


if __name__ == "__main__":
    create_tables()
    connection.close()
    server = ThreadedWSGIServer(("127.0.0.1", 0), QuietHandler)
    server.set_app(get_wsgi_application())
    print(server.server_port, flush=True)
    server.serve_forever()
