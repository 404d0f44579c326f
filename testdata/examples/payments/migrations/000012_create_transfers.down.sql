DROP TABLE transfers;
