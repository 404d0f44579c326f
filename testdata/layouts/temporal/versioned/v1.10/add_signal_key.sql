CREATE UNIQUE INDEX signals_request_key ON signals (namespace_id, workflow_id, run_id, request_id);
