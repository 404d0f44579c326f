CREATE TABLE {{ .Name }} (id bigint PRIMARY KEY, a int, b text NOT NULL);
CREATE UNIQUE INDEX {{ .Name }}_ab ON {{ .Name }} (a, b);
