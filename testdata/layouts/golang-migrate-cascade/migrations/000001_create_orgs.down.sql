DROP TABLE invites; DROP TABLE members; DROP TABLE orgs;
