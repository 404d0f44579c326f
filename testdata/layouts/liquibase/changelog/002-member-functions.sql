--liquibase formatted sql

--changeset bob:3 splitStatements:false
CREATE FUNCTION member_count() RETURNS bigint LANGUAGE plpgsql AS '
BEGIN
    RETURN (SELECT count(*) FROM members);
END;
';
--rollback DROP FUNCTION member_count();

--changeset bob:4 runInTransaction:false
CREATE INDEX CONCURRENTLY members_club ON members (club_id);
--rollback DROP INDEX members_club;
