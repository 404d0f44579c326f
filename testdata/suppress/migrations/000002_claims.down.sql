DROP TABLE claims;
