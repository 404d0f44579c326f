# The Flask app of the real-server bench (go run ./bench/race -tables real):
# Debian's python3-flask and python3-psycopg2, served by Debian's waitress
# (python3-waitress: `waitress-serve --port P app:app`), a pool of worker
# threads behind one I/O thread. POST /claims reads the body, looks the key
# up and inserts a charge when it is absent: a read-then-insert with no
# unique constraint, one database connection per request. GET /effects?key=K
# is the bench's count. DATABASE_URL names the database.
import os

import psycopg2
from flask import Flask, jsonify, request

DSN = os.environ["DATABASE_URL"]
app = Flask(__name__)


def connect():
    conn = psycopg2.connect(DSN)
    conn.autocommit = True
    return conn


with connect() as c, c.cursor() as cur:
    cur.execute("CREATE TABLE IF NOT EXISTS flask_charges (id bigserial PRIMARY KEY, idempotency_key text NOT NULL)")


@app.post("/claims")
def claim():
    request.get_data()
    key = request.headers.get("Idempotency-Key", "")
    if not key:
        return jsonify(error="missing Idempotency-Key"), 400
    conn = connect()
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT id FROM flask_charges WHERE idempotency_key = %s", (key,))
            if cur.fetchone():
                return jsonify(error="key already used"), 409
            cur.execute("INSERT INTO flask_charges (idempotency_key) VALUES (%s) RETURNING id", (key,))
            return jsonify(status="charged", id=cur.fetchone()[0]), 201
    finally:
        conn.close()


@app.get("/effects")
def effects():
    conn = connect()
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT count(*) FROM flask_charges WHERE idempotency_key = %s", (request.args.get("key", ""),))
            return f"{cur.fetchone()[0]}\n", 200, {"Content-Type": "text/plain"}
    finally:
        conn.close()
