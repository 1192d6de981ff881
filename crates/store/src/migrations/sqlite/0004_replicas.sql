-- Replicas sharing the store: each one's membership, renewed by a heartbeat and lasting a lease (unix ms), and the
-- views each publishes of the apps it reconciles, for the others' APIs. Keep in step with the other backend's 0004.
CREATE TABLE replicas (
    name TEXT PRIMARY KEY,
    incarnation TEXT NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE TABLE app_views (
    app TEXT PRIMARY KEY,
    replica TEXT NOT NULL,
    view TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX app_views_updated ON app_views (updated_at);
