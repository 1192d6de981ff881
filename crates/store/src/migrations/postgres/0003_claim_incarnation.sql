-- A claim names the replica and the start of it that holds the operation (its incarnation), so a replica restarted
-- under the same name neither renews nor finishes what its predecessor held. Keep in step with the other backend's
-- 0003.
ALTER TABLE operations ADD COLUMN claim_incarnation TEXT;
