use weft_sdk::testing::DirSource;
use weft_sdk::{BuildPlan, ErrorKind, PluginError, RepoFacts};

use crate::files::Repo;

/// A repository of `files` in a temporary directory.
pub(crate) fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    dir
}

pub(crate) fn facts(overrides: &[(&str, &str)]) -> RepoFacts {
    RepoFacts {
        app: "shop".into(),
        commit: "0123456789abcdef0123456789abcdef01234567".into(),
        overrides: overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

fn plan_with(files: &[(&str, &str)], overrides: &[(&str, &str)]) -> Result<BuildPlan, PluginError> {
    let dir = repo(files);
    super::plan(&facts(overrides), Repo::new(&DirSource::new(dir.path())))
}

fn plan(files: &[(&str, &str)]) -> BuildPlan {
    plan_with(files, &[]).unwrap()
}

fn env(plan: &BuildPlan, key: &str) -> Option<String> {
    plan.env_value(key).map(str::to_string)
}

#[test]
fn an_existing_dockerfile_is_used_as_is() {
    let text = "FROM rust:1.80 AS build\nRUN cargo build --release\nFROM debian:bookworm-slim\nEXPOSE 9000/tcp\nENTRYPOINT [\"/usr/local/bin/shop\"]\nCMD [\"--serve\"]\n";
    let got = plan(&[
        ("Dockerfile", text),
        ("Cargo.toml", "[package]\nname = \"shop\"\n"),
    ]);
    assert_eq!(got.kind, "dockerfile");
    assert_eq!(got.dockerfile, text);
    assert_eq!(got.base_image, "debian:bookworm-slim");
    assert_eq!(got.port, Some(9000));
    assert_eq!(got.start.as_deref(), Some("/usr/local/bin/shop --serve"));
    assert!(got.install.is_empty() && got.build.is_empty());
}

#[test]
fn a_dockerfile_elsewhere_is_named_by_an_override() {
    let got = plan_with(
        &[
            (
                "deploy/app.Dockerfile",
                "FROM base AS b\nFROM b\nCMD serve\n",
            ),
            ("package.json", "{}"),
        ],
        &[("dockerfile", "deploy/app.Dockerfile"), ("port", "81")],
    )
    .unwrap();
    assert_eq!(got.kind, "dockerfile");
    // A stage FROM an earlier stage runs on that stage's image.
    assert_eq!(got.base_image, "base");
    assert_eq!(got.start.as_deref(), Some("serve"));
    assert_eq!(got.port, Some(81));
    let error = plan_with(&[("Dockerfile", "FROM x\n")], &[("base-image", "y")]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidInput);
    assert!(error.message.contains("used as is"), "{error}");
    let error = plan_with(&[], &[("dockerfile", "nope/Dockerfile")]).unwrap_err();
    assert!(error.message.contains("nope/Dockerfile"), "{error}");
}

#[test]
fn rust_pins_the_toolchain_file_and_takes_rust_version_as_a_minimum() {
    let cargo = "[package]\nname = \"shop\"\nrust-version = \"1.78\"\n";
    let got = plan(&[("Cargo.toml", cargo), ("src/main.rs", "fn main() {}")]);
    assert_eq!(got.kind, "rust");
    assert_eq!(got.base_image, "base/rust-build:1");
    assert_eq!(got.install, ["cargo fetch"]);
    assert_eq!(
        got.build,
        [
            "cargo build --release",
            "install -D target/release/shop /out/shop"
        ]
    );
    assert_eq!(got.start.as_deref(), Some("/app/shop"));
    assert_eq!(got.port, Some(8080));
    assert_eq!(env(&got, "PORT").as_deref(), Some("8080"));
    // One package with only src/main.rs: its manifest is fetched from before the source is copied.
    assert!(
        got.dockerfile
            .contains("COPY Cargo.toml ./\nRUN mkdir -p src"),
        "{}",
        got.dockerfile
    );
    assert!(
        got.dockerfile.contains("FROM base/cc:bookworm\n"),
        "{}",
        got.dockerfile
    );

    let got = plan(&[
        ("Cargo.toml", cargo),
        ("Cargo.lock", "[[package]]\nname = \"openssl-sys\"\n"),
        ("rust-toolchain.toml", "[toolchain]\nchannel = \"1.82.0\"\n"),
        ("src/main.rs", "fn main() {}"),
    ]);
    assert_eq!(got.base_image, "base/rust-build:1.82");
    assert_eq!(got.install, ["cargo fetch --locked"]);
    assert_eq!(got.build[0], "cargo build --release --locked");
    assert_eq!(got.system_packages, ["pkg-config", "libssl-dev"]);
    // Linked against the system's OpenSSL: it runs where its library is installed.
    assert!(
        got.dockerfile.contains("COPY Cargo.toml Cargo.lock ./\n"),
        "{}",
        got.dockerfile
    );
    assert!(
        got.dockerfile
            .contains("FROM base/debian:bookworm\nRUN apt-get update && apt-get install -y --no-install-recommends libssl3"),
        "{}",
        got.dockerfile
    );

    let got = plan(&[
        ("Cargo.toml", cargo),
        ("rust-toolchain", "nightly-2024-05-01\n"),
    ]);
    assert_eq!(got.base_image, "base/rust-build:nightly");
    // A library has nothing to start.
    assert_eq!(got.start, None);
    let got = plan(&[("Cargo.toml", cargo), ("rust-toolchain", "stable\n")]);
    assert_eq!(got.base_image, "base/rust-build:1");
}

#[test]
fn rust_binaries_come_from_bin_tables_and_workspaces() {
    let got = plan(&[(
        "Cargo.toml",
        "[package]\nname = \"shop\"\n[[bin]]\nname = \"shop-server\"\npath = \"src/server.rs\"\n",
    )]);
    assert_eq!(got.start.as_deref(), Some("/app/shop-server"));
    // Targets named in the manifest: the whole source before the fetch.
    assert!(
        got.dockerfile
            .contains("WORKDIR /src\nENV PORT=8080\nCOPY . .\nRUN cargo fetch\n"),
        "{}",
        got.dockerfile
    );
    let got = plan(&[
        ("Cargo.toml", "[package]\nname = \"shop\"\n"),
        ("src/bin/api.rs", "fn main() {}"),
    ]);
    assert_eq!(got.start.as_deref(), Some("/app/api"));
    let got = plan(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"crates/core\", \"crates/server\"]\n[workspace.package]\nrust-version = \"1.81\"\n",
        ),
        ("crates/core/Cargo.toml", "[package]\nname = \"core\"\n"),
        (
            "crates/server/Cargo.toml",
            "[package]\nname = \"shop-api\"\n",
        ),
        ("crates/server/src/main.rs", "fn main() {}"),
    ]);
    assert_eq!(got.base_image, "base/rust-build:1");
    assert_eq!(got.start.as_deref(), Some("/app/shop-api"));
    assert!(
        got.dockerfile.contains("COPY . .\nRUN cargo fetch\n"),
        "{}",
        got.dockerfile
    );
    // A path dependency is in the source: fetched after it is copied.
    let got = plan(&[
        (
            "Cargo.toml",
            "[package]\nname = \"shop\"\n[dependencies]\nutil = { path = \"util\" }\n",
        ),
        ("src/main.rs", "fn main() {}"),
    ]);
    assert!(
        got.dockerfile.contains("COPY . .\nRUN cargo fetch\n"),
        "{}",
        got.dockerfile
    );
}

#[test]
fn go_builds_a_static_binary_of_the_main_package_that_runs_alone() {
    let gomod = "module example.com/acme/shop\n\ngo 1.22.3\n\nrequire example.com/x v1.0.0\n";
    let got = plan(&[
        ("go.mod", gomod),
        ("go.sum", ""),
        ("main.go", "package main\n\nfunc main() {}\n"),
    ]);
    assert_eq!(got.kind, "go");
    // The go directive is a minimum: any Go 1 first (a log naming a newer one moves the base).
    assert_eq!(got.base_image, "base/go-build:1");
    assert_eq!(got.install, ["go mod download"]);
    assert_eq!(
        got.build,
        ["go build -trimpath -ldflags=\"-s -w\" -o /out/shop ."]
    );
    assert_eq!(got.start.as_deref(), Some("/app/shop"));
    assert_eq!(env(&got, "CGO_ENABLED").as_deref(), Some("0"));
    assert!(
        got.dockerfile
            .contains("COPY go.mod go.sum ./\nRUN --mount=type=cache"),
        "{}",
        got.dockerfile
    );
    assert!(
        got.dockerfile.contains("FROM base/static:bookworm\n"),
        "{}",
        got.dockerfile
    );

    let got = plan(&[
        ("go.mod", "module shop\nreplace example.com/x => ./x\n"),
        ("lib.go", "package shop\n"),
        ("cmd/api/main.go", "package main\n"),
        ("cmd/api/main_test.go", "package main\n"),
    ]);
    assert_eq!(
        got.build,
        ["go build -trimpath -ldflags=\"-s -w\" -o /out/api ./cmd/api"]
    );
    assert_eq!(got.start.as_deref(), Some("/app/api"));
    // A module replaced by a directory of the repository needs the source before the download.
    assert!(
        got.dockerfile.contains("COPY . .\nRUN --mount=type=cache"),
        "{}",
        got.dockerfile
    );
}

#[test]
fn node_picks_the_manager_by_lockfile() {
    let package = r#"{"name": "shop", "scripts": {"build": "tsc", "start": "node dist/server.js"}, "engines": {"node": ">=20"}}"#;
    let got = plan(&[("package.json", package), ("package-lock.json", "{}")]);
    assert_eq!(got.kind, "node");
    // The preferred major when the range allows it.
    assert_eq!(got.base_image, "node:22-slim");
    assert_eq!(got.install, ["npm ci"]);
    assert_eq!(got.build, ["npm run build"]);
    assert_eq!(got.start.as_deref(), Some("npm start"));
    assert_eq!(got.port, Some(3000));

    let got = plan(&[("package.json", package), ("pnpm-lock.yaml", "")]);
    assert_eq!(
        got.install,
        ["corepack enable", "pnpm install --frozen-lockfile"]
    );
    assert_eq!(got.build, ["pnpm run build"]);
    assert_eq!(got.start.as_deref(), Some("pnpm start"));

    let got = plan(&[("package.json", package), ("yarn.lock", "")]);
    assert_eq!(
        got.install,
        ["corepack enable", "yarn install --frozen-lockfile"]
    );
    let got = plan(&[
        ("package.json", package),
        ("yarn.lock", ""),
        (".yarnrc.yml", ""),
    ]);
    assert_eq!(got.install[1], "yarn install --immutable");

    // No lockfile: packageManager decides, and the install cannot be frozen.
    let got = plan(&[(
        "package.json",
        r#"{"packageManager": "pnpm@9.1.0", "scripts": {"start": "node ."}}"#,
    )]);
    assert_eq!(got.install, ["corepack enable", "pnpm install"]);
    let got = plan(&[("package.json", "{}"), ("index.js", "")]);
    assert_eq!(got.install, ["npm install"]);
    assert!(got.build.is_empty());
}

#[test]
fn node_versions_come_from_engines_then_nvmrc() {
    let got = plan(&[("package.json", r#"{"engines": {"node": "^18.17.0"}}"#)]);
    assert_eq!(got.base_image, "node:18-slim");
    let got = plan(&[("package.json", "{}"), (".nvmrc", "v20.11.1\n")]);
    assert_eq!(got.base_image, "node:20-slim");
    let got = plan(&[("package.json", "{}"), (".nvmrc", "lts/iron\n")]);
    assert_eq!(got.base_image, "node:lts-slim");
    let got = plan(&[("package.json", "{}"), (".node-version", "21\n")]);
    assert_eq!(got.base_image, "node:21-slim");
    let got = plan(&[("package.json", "{}")]);
    assert_eq!(got.base_image, "node:22-slim");
}

#[test]
fn node_start_falls_back_to_main_then_entry_files() {
    let got = plan(&[
        ("package.json", r#"{"main": "./lib/run.js"}"#),
        ("lib/run.js", ""),
        ("server.js", ""),
    ]);
    assert_eq!(got.start.as_deref(), Some("node lib/run.js"));
    let got = plan(&[("package.json", "{}"), ("app.js", "")]);
    assert_eq!(got.start.as_deref(), Some("node app.js"));
    let got = plan(&[("package.json", "{}")]);
    assert_eq!(got.start, None);
}

#[test]
fn python_installs_into_a_virtual_environment_the_running_image_takes() {
    let got = plan(&[("requirements.txt", "flask\n"), ("app.py", "")]);
    assert_eq!(got.kind, "python");
    // No version named: any Python 3.
    assert_eq!(got.base_image, "base/python-build:3");
    assert_eq!(
        got.install,
        [
            "python3 -m venv /app/.venv",
            "pip install -r requirements.txt"
        ]
    );
    assert_eq!(got.start.as_deref(), Some("python app.py"));
    assert_eq!(got.port, Some(8000));
    assert_eq!(env(&got, "PYTHONUNBUFFERED").as_deref(), Some("1"));
    assert!(env(&got, "PATH").unwrap().starts_with("/app/.venv/bin:"));
    let text = &got.dockerfile;
    assert!(
        text.contains("COPY requirements.txt ./\nRUN --mount=type=cache"),
        "{text}"
    );
    assert!(
        text.contains(
            "FROM base/python:3\nWORKDIR /app\nCOPY --from=deps /app/.venv /app/.venv\nCOPY . /app/\n"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("USER 65532:65532\nENTRYPOINT [\"/usr/bin/tini\", \"--\"]\nCMD [\"python\", \"app.py\"]\n"),
        "{text}"
    );

    let pyproject = "[tool.poetry]\nname = \"shop\"\n[tool.poetry.dependencies]\npython = \"^3.10\"\n[tool.poetry.scripts]\nshop = \"shop.main:run\"\n";
    let got = plan(&[("pyproject.toml", pyproject), ("poetry.lock", "")]);
    // ^3.10 is a minimum within Python 3.
    assert_eq!(got.base_image, "base/python-build:3");
    assert_eq!(
        got.install[1],
        "poetry install --no-interaction --only main --no-root"
    );
    // The start runs the project's script: the project is installed too, and the runtime takes /app whole.
    assert_eq!(got.build, ["poetry install --no-interaction --only main"]);
    assert_eq!(got.start.as_deref(), Some("shop"));
    assert!(
        got.dockerfile.contains("COPY --from=build /app /app\n"),
        "{}",
        got.dockerfile
    );
    assert!(
        got.dockerfile
            .contains("COPY pyproject.toml poetry.lock ./\n"),
        "{}",
        got.dockerfile
    );

    let pyproject = "[project]\nname = \"shop\"\nrequires-python = \">=3.9,<3.12\"\n[project.scripts]\nshop-api = \"shop:main\"\n";
    let got = plan(&[("pyproject.toml", pyproject), ("uv.lock", "")]);
    // Bounded from above: the preferred version it allows.
    assert_eq!(got.base_image, "base/python-build:3.11");
    assert_eq!(
        got.install[1],
        "uv sync --locked --no-dev --no-install-project"
    );
    assert_eq!(got.build, ["uv sync --locked --no-dev"]);
    assert_eq!(got.start.as_deref(), Some("shop-api"));
    assert_eq!(
        env(&got, "UV_PROJECT_ENVIRONMENT").as_deref(),
        Some("/app/.venv")
    );

    let got = plan(&[
        ("pyproject.toml", "[project]\nname = \"shop\"\n"),
        (".python-version", "3.13.1\n"),
        ("Procfile", "web: gunicorn shop.wsgi --bind 0.0.0.0:8000\n"),
    ]);
    assert_eq!(got.base_image, "base/python-build:3.13");
    assert_eq!(got.install, ["python3 -m venv /app/.venv", "pip install ."]);
    // Installed from its source: the source first.
    assert!(
        got.dockerfile.contains("COPY . .\nRUN --mount=type=cache"),
        "{}",
        got.dockerfile
    );
    assert_eq!(
        got.start.as_deref(),
        Some("gunicorn shop.wsgi --bind 0.0.0.0:8000")
    );
}

#[test]
fn python_web_frameworks_start_under_their_servers_on_the_port() {
    let got = plan(&[
        (
            "requirements.txt",
            "fastapi==0.111.0\nuvicorn[standard]==0.30.1\n",
        ),
        (
            "main.py",
            "from fastapi import FastAPI\n\napp = FastAPI()\n",
        ),
    ]);
    assert_eq!(
        got.start.as_deref(),
        Some("uvicorn main:app --host 0.0.0.0 --port 8000")
    );
    let got = plan_with(
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"api\"\ndependencies = [\"starlette>=0.37\", \"uvicorn\"]\n",
            ),
            ("uv.lock", ""),
            (
                "app/main.py",
                "from starlette.applications import Starlette\napp = Starlette()\n",
            ),
        ],
        &[("port", "9000")],
    )
    .unwrap();
    assert_eq!(
        got.start.as_deref(),
        Some("uvicorn app.main:app --host 0.0.0.0 --port 9000")
    );
    // The server imports the app from /app: the environment holds the dependencies alone, a layer of its own.
    assert!(got.build.is_empty(), "{:?}", got.build);
    assert!(
        got.dockerfile
            .contains("COPY --from=deps /app/.venv /app/.venv\nCOPY . /app/\n"),
        "{}",
        got.dockerfile
    );
    let got = plan(&[
        ("requirements.txt", "Django==5.0.6\ngunicorn==22.0.0\n"),
        ("manage.py", ""),
        ("shop/wsgi.py", "application = None\n"),
    ]);
    assert_eq!(
        got.start.as_deref(),
        Some("gunicorn --bind 0.0.0.0:8000 shop.wsgi:application")
    );
    let got = plan(&[
        ("requirements.txt", "flask==3.0.3\ngunicorn==22.0.0\n"),
        ("app.py", "from flask import Flask\napp = Flask(__name__)\n"),
    ]);
    assert_eq!(
        got.start.as_deref(),
        Some("gunicorn --bind 0.0.0.0:8000 app:app")
    );
    // Flask without gunicorn, or a name that only starts like one: the entry file.
    let got = plan(&[
        ("requirements.txt", "flask\nflask-gunicornish\n"),
        ("app.py", "app = Flask(__name__)\n"),
    ]);
    assert_eq!(got.start.as_deref(), Some("python app.py"));
}

#[test]
fn static_sites_are_served_from_their_directory_by_caddy_as_a_non_root_user() {
    let got = plan(&[("index.html", "<h1>hi</h1>")]);
    assert_eq!(got.kind, "static");
    assert_eq!(got.base_image, "base/caddy:2");
    assert_eq!(got.port, Some(8080));
    assert_eq!(
        got.start.as_deref(),
        Some("caddy file-server --root /site --listen :8080")
    );
    assert!(
        got.dockerfile.contains("COPY . /site/\n"),
        "{}",
        got.dockerfile
    );
    // Caddy is told its port on its command line, not through PORT.
    assert_eq!(env(&got, "PORT"), None);
    let got = plan(&[("README.md", ""), ("dist/index.html", "")]);
    assert!(
        got.dockerfile.contains("COPY dist/ /site/\n"),
        "{}",
        got.dockerfile
    );
    // Another port moves the command with it.
    let got = plan_with(&[("index.html", "")], &[("port", "9000")]).unwrap();
    assert_eq!(
        got.start.as_deref(),
        Some("caddy file-server --root /site --listen :9000")
    );
    assert!(
        got.dockerfile.contains("EXPOSE 9000\n"),
        "{}",
        got.dockerfile
    );
}

#[test]
fn detection_order_and_forced_kinds() {
    // Python wins over a package.json for assets; node over an index.html.
    let got = plan(&[("requirements.txt", ""), ("package.json", "{}")]);
    assert_eq!(got.kind, "python");
    let got = plan(&[("package.json", "{}"), ("index.html", "")]);
    assert_eq!(got.kind, "node");
    let got = plan_with(
        &[("package.json", "{}"), ("index.html", "")],
        &[("kind", "static")],
    )
    .unwrap();
    assert_eq!(got.kind, "static");
    let error = plan_with(&[("index.html", "")], &[("kind", "go")]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidInput);
    assert!(error.message.contains("go.mod"), "{error}");
    let error = plan_with(&[("index.html", "")], &[("kind", "cobol")]).unwrap_err();
    assert!(error.message.contains("cobol"), "{error}");
    let error = plan_with(&[("README.md", "")], &[]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Unsupported);
    assert!(error.message.contains("Dockerfile"), "{error}");
}

#[test]
fn overrides_are_kept_and_the_dockerfile_follows_them() {
    let got = plan_with(
        &[(
            "package.json",
            r#"{"scripts": {"start": "node server.js"}}"#,
        )],
        &[
            ("base-image", "node:20-bookworm"),
            ("system-packages", "git"),
            ("start", "node --enable-source-maps server.js"),
            ("port", "8081"),
            ("jobs", "3"),
            ("env.PORT", "9999"),
        ],
    )
    .unwrap();
    assert_eq!(got.base_image, "node:20-bookworm");
    assert_eq!(got.system_packages, ["git"]);
    assert_eq!(
        got.start.as_deref(),
        Some("node --enable-source-maps server.js")
    );
    assert_eq!(got.port, Some(8081));
    assert_eq!(got.jobs, Some(3));
    // An environment override wins over what the port implies.
    assert_eq!(env(&got, "PORT").as_deref(), Some("9999"));
    assert_eq!(env(&got, "JOBS").as_deref(), Some("3"));
    for line in [
        "FROM node:20-bookworm\n",
        "apt-get install -y --no-install-recommends git ",
        "ENV PORT=9999\n",
        "EXPOSE 8081\n",
        "CMD [\"sh\", \"-c\", \"node --enable-source-maps server.js\"]\n",
    ] {
        assert!(
            got.dockerfile.contains(line),
            "{line:?} in\n{}",
            got.dockerfile
        );
    }
    assert_eq!(
        weft_sdk::steer::overridden_field(&got, &facts(&[("port", "8081")])),
        None
    );
}
