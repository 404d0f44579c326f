CREATE VIEW active_charges AS SELECT 1 AS one;
