ALTER TABLE payments ADD COLUMN request_key TEXT;
