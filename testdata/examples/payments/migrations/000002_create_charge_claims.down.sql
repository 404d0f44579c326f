DROP TABLE charge_claims;
