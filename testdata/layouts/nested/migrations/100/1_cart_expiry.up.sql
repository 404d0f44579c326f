ALTER TABLE carts ADD COLUMN expires_at timestamptz;
