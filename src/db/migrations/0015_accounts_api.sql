-- Accounts managed through the API (issue 11 §2): an account is deactivated rather than deleted
-- (a user owns campaigns, CDRs and payments that must stay), and a deactivated user cannot
-- authenticate, by password or token. The users_changed trigger (0007) announces the change,
-- so every API process's user cache drops the row at once.
ALTER TABLE users ADD COLUMN is_active boolean NOT NULL DEFAULT true;
