CREATE TABLE café (id int);
