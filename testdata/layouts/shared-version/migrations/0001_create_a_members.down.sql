DROP TABLE members;
