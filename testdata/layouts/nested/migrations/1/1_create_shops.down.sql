DROP TABLE shops;
