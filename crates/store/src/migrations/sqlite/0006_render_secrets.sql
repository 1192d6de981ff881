-- Each app's render secret: 32 random bytes (hex) made at its first render, from which the seed its renderer draws
-- random values, keys and certificates from is derived (docs/render-randomness.md). Never shown through the API;
-- replaced by a rotation; removed with the app. Keep in step with the other backend's 0006.
CREATE TABLE render_secrets (
    app TEXT PRIMARY KEY NOT NULL,
    secret TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
