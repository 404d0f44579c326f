DROP TABLE carts;
