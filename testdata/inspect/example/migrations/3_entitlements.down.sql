DROP TABLE entitlements;
