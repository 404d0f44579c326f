DROP TABLE customers;
DROP TABLE addresses;
