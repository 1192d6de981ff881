-- Weft's store, SQLite. Timestamps are unix milliseconds (INTEGER); records are JSON text.
-- Keep in step with ../postgres/0001_initial.sql: the same tables, columns and indexes.

CREATE TABLE apps (
    name TEXT PRIMARY KEY NOT NULL,
    origin TEXT NOT NULL,
    spec TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE app_states (
    app TEXT PRIMARY KEY NOT NULL,
    state TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE operations (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    app TEXT NOT NULL,
    phase TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    body TEXT NOT NULL,
    request TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    finished_at INTEGER,
    claimed_by TEXT,
    lease_until INTEGER
);

-- At most one unfinished (pending or running) operation per app, whichever replica enqueues it.
CREATE UNIQUE INDEX operations_one_unfinished_per_app ON operations (app) WHERE finished = 0;
CREATE INDEX operations_by_app ON operations (app, seq);
CREATE INDEX operations_queue ON operations (seq) WHERE finished = 0 AND claimed_by IS NULL;
CREATE INDEX operations_claims ON operations (claimed_by) WHERE finished = 0;

CREATE TABLE settings (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);

CREATE TABLE tokens (
    id TEXT PRIMARY KEY NOT NULL,
    sha256_hex TEXT NOT NULL UNIQUE,
    principal TEXT NOT NULL,
    created_at TEXT NOT NULL,
    description TEXT NOT NULL
);
