//! Python projects: the installer from the files present (uv with `uv.lock`, Poetry with `poetry.lock` or
//! `[tool.poetry]`, pip with `requirements.txt` or a `pyproject.toml`); the Python version from `.python-version`,
//! `requires-python` or Poetry's `python` dependency; the start command from a `Procfile`, the project's scripts, or
//! the usual entry files.

use weft_sdk::{BuildPlan, PluginError};

use crate::files::{Repo, first_line, toml_str};
use crate::version::{self, Constraint};

/// The Python used when the project names none.
const DEFAULT_VERSION: [u32; 2] = [3, 12];
/// The port a Python service is assumed to listen on when nothing says otherwise.
const DEFAULT_PORT: u16 = 8000;
/// Entry files tried, in order, when the project declares no start command.
const ENTRY_FILES: [&str; 4] = ["app.py", "main.py", "server.py", "run.py"];

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
    let install = match installer {
        Installer::Uv => vec![
            "pip install --no-cache-dir uv".to_string(),
            "uv sync --frozen --no-dev".to_string(),
        ],
        Installer::Poetry => vec![
            "pip install --no-cache-dir poetry".to_string(),
            "poetry config virtualenvs.create false".to_string(),
            "poetry install --no-interaction --only main".to_string(),
        ],
        Installer::Requirements => {
            vec!["pip install --no-cache-dir -r requirements.txt".to_string()]
        }
        Installer::Project => vec!["pip install --no-cache-dir .".to_string()],
    };
    let start = declared_start(repo, pyproject.as_ref(), installer)?
        .or(start_candidates(repo)?.into_iter().next());
    Ok(Some(BuildPlan {
        kind: "python".into(),
        base_image: format!("python:{}-slim", python_version(repo, pyproject.as_ref())?),
        install,
        start,
        port: Some(DEFAULT_PORT),
        env: vec![("PYTHONUNBUFFERED".into(), "1".into())],
        ..BuildPlan::default()
    }))
}

/// Start commands from the usual entry files, in order (run through `uv run` when the project uses uv).
pub fn start_candidates(repo: Repo<'_>) -> Result<Vec<String>, PluginError> {
    let runner = if repo.has_file("uv.lock") {
        "uv run python"
    } else {
        "python"
    };
    Ok(ENTRY_FILES
        .iter()
        .filter(|f| repo.has_file(f))
        .map(|f| format!("{runner} {f}"))
        .collect())
}

/// What the project declares: a `Procfile`'s `web` process, else its first script (by name; TOML tables are
/// read sorted).
fn declared_start(
    repo: Repo<'_>,
    pyproject: Option<&toml::Table>,
    installer: Installer,
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
    Ok(script.map(|name| {
        if installer == Installer::Uv {
            format!("uv run {name}")
        } else {
            name
        }
    }))
}

/// The Python image tag: `.python-version`, else `requires-python`, else Poetry's `python`, else the default.
fn python_version(repo: Repo<'_>, pyproject: Option<&toml::Table>) -> Result<String, PluginError> {
    if let Some(text) = repo.text(".python-version")?
        && let Some(v) = first_line(&text).and_then(version::parse)
    {
        return Ok(version::render(&v, 2));
    }
    let declared = pyproject.and_then(|p| {
        toml_str(p, "project.requires-python")
            .or_else(|| toml_str(p, "tool.poetry.dependencies.python"))
    });
    if let Some(v) = declared
        .and_then(Constraint::parse)
        .and_then(|c| c.choose(&DEFAULT_VERSION, 2))
    {
        return Ok(version::render(&v, 2));
    }
    Ok(version::render(&DEFAULT_VERSION, 2))
}
