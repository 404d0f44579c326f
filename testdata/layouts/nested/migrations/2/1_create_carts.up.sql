-- Major version 2 adds carts; version 10 keys them, so 2 must run before 10.
CREATE TABLE carts (id bigint PRIMARY KEY, shop_id bigint NOT NULL REFERENCES shops);
