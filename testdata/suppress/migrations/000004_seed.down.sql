DROP TABLE seeds;
