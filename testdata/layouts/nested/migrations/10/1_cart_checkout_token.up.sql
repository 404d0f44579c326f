ALTER TABLE carts ADD COLUMN checkout_token text;
