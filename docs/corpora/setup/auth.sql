-- Supabase Auth's migrations create their tables in a schema that its
-- deployment creates beforehand (the Namespace option, "auth" by default);
-- they never create it themselves.
CREATE SCHEMA IF NOT EXISTS auth;
