CREATE TABLE namespaces (id bytea NOT NULL PRIMARY KEY, name varchar(255) NOT NULL UNIQUE);
