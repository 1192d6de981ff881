//! Python projects: the installer from the files present (uv with `uv.lock`, Poetry with `poetry.lock` or
//! `[tool.poetry]`, pip with `requirements.txt` or a `pyproject.toml`), always into a virtual environment at
//! `/app/.venv` that the image that runs takes with the source; the Python version from `.python-version` (a pin),
//! `requires-python` or Poetry's `python` (any Python 3 unless they bound it from above); the start command from a
//! `Procfile`, the project's scripts, the framework (FastAPI or Starlette under uvicorn, Django or Flask under
//! gunicorn), or the usual entry files.

use weft_sdk::{BuildPlan, PluginError};

use crate::files::{Repo, first_line, toml_str};
use crate::version::{self, Constraint};

/// The Python used when a constraint bounds the version from above and names none it prefers.
const DEFAULT_VERSION: [u32; 2] = [3, 12];
/// The port a Python service is assumed to listen on when nothing says otherwise.
pub const DEFAULT_PORT: u16 = 8000;
/// Entry files tried, in order, when the project declares no start command.
const ENTRY_FILES: [&str; 4] = ["app.py", "main.py", "server.py", "run.py"];
/// Where the app's virtual environment is made, in the build stage and in the image that runs.
pub const VENV: &str = "/app/.venv";
/// uv and Poetry are installed for the build alone, each in a virtual environment of its own.
/// (Its directory is on PATH after the app's environment.)
const UV_INSTALL: &str = "python3 -m venv /opt/uv && /opt/uv/bin/pip install uv==0.4.30";
const POETRY_INSTALL: &str =
    "python3 -m venv /opt/poetry && /opt/poetry/bin/pip install poetry==1.8.5";
/// The system's PATH, after the app's environment (and, while building, uv's or Poetry's).
const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The installer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Installer {
    Uv,
    Poetry,
    Requirements,
    Project,
}

/// A Python project at the root.
pub fn detect(repo: Repo<'_>) -> Result<Option<BuildPlan>, PluginError> {
    let pyproject = repo.toml("pyproject.toml")?;
    let installer = if repo.has_file("uv.lock") {
        Installer::Uv
    } else if repo.has_file("poetry.lock")
        || pyproject
            .as_ref()
            .is_some_and(|p| p.get("tool").and_then(|t| t.get("poetry")).is_some())
    {
        Installer::Poetry
    } else if repo.has_file("requirements.txt") {
        Installer::Requirements
    } else if pyproject.is_some() {
        Installer::Project
    } else {
        return Ok(None);
    };
    let venv = format!("python3 -m venv {VENV}");
    let (install, build) = match installer {
        Installer::Uv => (
            vec![
                UV_INSTALL.to_string(),
                "uv sync --locked --no-dev --no-install-project".to_string(),
            ],
            vec!["uv sync --locked --no-dev".to_string()],
        ),
        Installer::Poetry => (
            vec![
                POETRY_INSTALL.to_string(),
                "poetry install --no-interaction --only main --no-root".to_string(),
            ],
            vec!["poetry install --no-interaction --only main".to_string()],
        ),
        Installer::Requirements => (
            vec![venv, "pip install -r requirements.txt".to_string()],
            Vec::new(),
        ),
        Installer::Project => (vec![venv, "pip install .".to_string()], Vec::new()),
    };
    let mut env = vec![
        ("PYTHONUNBUFFERED".to_string(), "1".to_string()),
        ("PATH".to_string(), {
            let tool = match installer {
                Installer::Uv => "/opt/uv/bin:",
                Installer::Poetry => "/opt/poetry/bin:",
                _ => "",
            };
            format!("{VENV}/bin:{tool}{SYSTEM_PATH}")
        }),
    ];
    match installer {
        Installer::Uv => env.extend([
            ("UV_PROJECT_ENVIRONMENT".to_string(), VENV.to_string()),
            ("UV_PYTHON_DOWNLOADS".to_string(), "never".to_string()),
            ("UV_LINK_MODE".to_string(), "copy".to_string()),
            // The image's CA bundle (the operator's, a proxy's included), not uv's own copy of the web's roots.
            ("UV_NATIVE_TLS".to_string(), "1".to_string()),
        ]),
        Installer::Poetry => {
            env.push((
                "POETRY_VIRTUALENVS_IN_PROJECT".to_string(),
                "true".to_string(),
            ));
        }
        _ => {}
    }
    let start = match declared_start(repo, pyproject.as_ref())? {
        Some(start) => Some(start),
        None => framework_start(repo, DEFAULT_PORT)?,
    }
    .or(start_candidates(repo)?.into_iter().next());
    // uv and Poetry install the project itself (editable) only when the start runs one of its scripts: servers
    // import the app from the working directory, so the environment can stay the dependencies alone.
    let runs_script = start
        .as_deref()
        .and_then(|start| start.split_whitespace().next())
        .is_some_and(|program| {
            project_scripts(pyproject.as_ref())
                .iter()
                .any(|s| s == program)
        });
    let build = if runs_script { build } else { Vec::new() };
    let version = python_version(repo, pyproject.as_ref())?;
    Ok(Some(BuildPlan {
        kind: "python".into(),
        base_image: format!("base/python-build:{version}"),
        install,
        build,
        start,
        port: Some(DEFAULT_PORT),
        env,
        ..BuildPlan::default()
    }))
}

/// The files the dependency install reads, copied before the source: `pyproject.toml` with `uv.lock` or
/// `poetry.lock`, else `requirements.txt` (unless it names other files or the project itself); none for a project
/// installed from its source (`pip install .`).
pub fn dependency_files(repo: Repo<'_>) -> Result<Vec<String>, PluginError> {
    if let Some(lock) = ["uv.lock", "poetry.lock"]
        .into_iter()
        .find(|lock| repo.has_file(lock))
    {
        return Ok(vec!["pyproject.toml".into(), lock.into()]);
    }
    if let Some(requirements) = repo.text("requirements.txt")? {
        let local = requirements.lines().map(str::trim).any(|line| {
            line.starts_with("-r")
                || line.starts_with("-c")
                || line.starts_with("-e")
                || line.starts_with('.')
                || line.contains("file:")
        });
        if !local {
            return Ok(vec!["requirements.txt".into()]);
        }
    }
    Ok(Vec::new())
}

/// The start command a web framework needs on `port`, found from the dependencies and the app's module: FastAPI
/// or Starlette (`app = FastAPI(` / `Starlette(`) under uvicorn, Flask (`app = Flask(`) under gunicorn when it is
/// a dependency, Django (`manage.py` and a `wsgi.py`) under gunicorn.
pub fn framework_start(repo: Repo<'_>, port: u16) -> Result<Option<String>, PluginError> {
    let dependencies = dependency_text(repo)?.to_ascii_lowercase();
    let has = |name: &str| {
        dependencies.lines().any(|line| {
            let line = line.trim().trim_start_matches(['"', '\'']);
            line.starts_with(name)
                && line[name.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_ascii_alphanumeric() && c != '-' && c != '_')
        })
    };
    let modules = [
        "main.py",
        "app.py",
        "app/main.py",
        "src/main.py",
        "server.py",
        "api.py",
    ];
    let find = |markers: &[&str]| -> Result<Option<String>, PluginError> {
        for file in modules {
            if let Some(text) = repo.text(file)?
                && markers.iter().any(|m| text.contains(m))
            {
                return Ok(Some(file.trim_end_matches(".py").replace('/', ".")));
            }
        }
        Ok(None)
    };
    if (has("uvicorn") || has("fastapi") || has("starlette"))
        && let Some(module) = find(&["app = FastAPI(", "app = Starlette(", "app=FastAPI("])?
    {
        return Ok(Some(format!(
            "uvicorn {module}:app --host 0.0.0.0 --port {port}"
        )));
    }
    if has("django") && repo.has_file("manage.py") && has("gunicorn") {
        let project = repo
            .dirs_in("")
            .into_iter()
            .find(|dir| repo.has_file(&format!("{dir}/wsgi.py")));
        if let Some(project) = project {
            return Ok(Some(format!(
                "gunicorn --bind 0.0.0.0:{port} {project}.wsgi:application"
            )));
        }
    }
    if has("flask")
        && has("gunicorn")
        && let Some(module) = find(&["app = Flask(", "app=Flask("])?
    {
        return Ok(Some(format!("gunicorn --bind 0.0.0.0:{port} {module}:app")));
    }
    Ok(None)
}

/// The text that lists the dependencies: `requirements.txt`, then `pyproject.toml`, one entry a line.
fn dependency_text(repo: Repo<'_>) -> Result<String, PluginError> {
    let mut text = repo.text("requirements.txt")?.unwrap_or_default();
    if let Some(pyproject) = repo.text("pyproject.toml")? {
        text.push('\n');
        // `"fastapi>=0.110",` in a list, or `fastapi = "^0.110"` in Poetry's table: one name a line either way.
        text.push_str(&pyproject.replace(',', "\n"));
    }
    Ok(text)
}

/// Start commands from the usual entry files, in order (the virtual environment is first on PATH).
pub fn start_candidates(repo: Repo<'_>) -> Result<Vec<String>, PluginError> {
    Ok(ENTRY_FILES
        .iter()
        .filter(|f| repo.has_file(f))
        .map(|f| format!("python {f}"))
        .collect())
}

/// The scripts `[project.scripts]` and `[tool.poetry.scripts]` declare.
fn project_scripts(pyproject: Option<&toml::Table>) -> Vec<String> {
    let Some(pyproject) = pyproject else {
        return Vec::new();
    };
    [("project", None), ("tool", Some("poetry"))]
        .iter()
        .filter_map(|(top, sub)| {
            let table = pyproject.get(*top)?;
            let table = match sub {
                Some(sub) => table.get(*sub)?,
                None => table,
            };
            table.get("scripts")?.as_table()
        })
        .flat_map(|scripts| scripts.keys().cloned())
        .collect()
}

/// What the project declares: a `Procfile`'s `web` process, else its first script (by name; TOML tables are
/// read sorted).
fn declared_start(
    repo: Repo<'_>,
    pyproject: Option<&toml::Table>,
) -> Result<Option<String>, PluginError> {
    if let Some(procfile) = repo.text("Procfile")?
        && let Some(web) = procfile.lines().find_map(|l| l.trim().strip_prefix("web:"))
    {
        return Ok(Some(web.trim().to_string()));
    }
    let script = pyproject.and_then(|p| {
        ["project", "tool.poetry"].iter().find_map(|section| {
            let mut table = Some(p);
            for part in section.split('.') {
                table = table.and_then(|t| t.get(part)).and_then(|v| v.as_table());
            }
            table
                .and_then(|t| t.get("scripts"))
                .and_then(|s| s.as_table())
                .and_then(|s| s.keys().next().cloned())
        })
    });
    Ok(script)
}

/// The Python version of the base: `.python-version` (a pin), else what `requires-python` or Poetry's `python`
/// allows — any Python 3 (`3`) when they only set a minimum (a log saying the version is too old moves the base to
/// the one it names), the preferred one they allow when they bound it from above — else any Python 3.
fn python_version(repo: Repo<'_>, pyproject: Option<&toml::Table>) -> Result<String, PluginError> {
    if let Some(text) = repo.text(".python-version")?
        && let Some(v) = first_line(&text).and_then(version::parse)
    {
        return Ok(version::render(&v, 2));
    }
    let declared = pyproject
        .and_then(|p| {
            toml_str(p, "project.requires-python")
                .or_else(|| toml_str(p, "tool.poetry.dependencies.python"))
        })
        .and_then(Constraint::parse);
    if let Some(constraint) = declared
        && !constraint.allows(&[3, 99])
        && let Some(v) = constraint.choose(&DEFAULT_VERSION, 2)
    {
        return Ok(version::render(&v, 2));
    }
    Ok("3".to_string())
}
