DROP TABLE invites;
