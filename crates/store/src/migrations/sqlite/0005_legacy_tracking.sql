-- Objects were tracked by an app's name alone before apps had identities (org, name, incarnation). The apps stored
-- at this upgrade keep owning what they applied that way, by name and org; any other object tracked by name alone
-- is an orphan, which only an admin may hand to an app. A claim ends when its app is deleted.
-- Keep in step with the other backend's 0005.
CREATE TABLE legacy_tracking (
    name TEXT PRIMARY KEY NOT NULL,
    org TEXT
);
INSERT INTO legacy_tracking (name, org) SELECT name, json_extract(spec, '$.org') FROM apps;
