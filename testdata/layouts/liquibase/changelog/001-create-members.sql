--liquibase formatted sql

--changeset alice:1
CREATE TABLE members (
    id bigint PRIMARY KEY,
    club_id bigint NOT NULL,
    card_number text
);
--rollback DROP TABLE members;

--changeset alice:2
CREATE UNIQUE INDEX members_club_card ON members (club_id, card_number);
--rollback DROP INDEX members_club_card;
