-- One checkout per cart and token; a cart without a token is never deduplicated.
CREATE UNIQUE INDEX carts_checkout_token_key ON carts (shop_id, checkout_token);
