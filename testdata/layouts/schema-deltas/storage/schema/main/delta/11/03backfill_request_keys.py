# A Python delta: the runner imports it and calls run_upgrade.
def run_upgrade(cur, database_engine, config):
    cur.execute("UPDATE payments SET request_key = payment_id WHERE request_key IS NULL")
