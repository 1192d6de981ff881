-- Tokens have names (`deploy-bot`), shown in listings and recorded as the actor of what a token does. Tokens made
-- before names existed keep an empty name and are recorded as `token:ID`. A name is unique among named tokens.
-- Keep in step with the other backend's 0007.
ALTER TABLE tokens ADD COLUMN name TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX tokens_name ON tokens (name) WHERE name <> '';
