DROP INDEX carts_checkout_token_key;
