DROP INDEX payments_customer_key;
