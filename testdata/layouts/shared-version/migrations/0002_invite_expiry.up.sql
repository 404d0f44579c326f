ALTER TABLE invites ADD COLUMN expires_at timestamptz;
