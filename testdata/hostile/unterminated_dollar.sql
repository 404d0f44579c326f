CREATE TABLE ok (id int);

CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  RETURN NEW;
END;
