//! What a build is of: an app's source resolved to a commit (never a moving ref), and the directory of that commit
//! the build reads as its context.

use std::path::PathBuf;

use super::steering::BuildError;
use weft_render::{AppSource, split_values_revision, tree_digest};
use weft_source::GitSources;

/// Resolves the source to the revision it is at now: a ref to its commit, a local directory to the digest of its
/// files.
pub fn resolve(git: &GitSources, source: &AppSource) -> Result<String, BuildError> {
    match source {
        AppSource::Local { path, .. } => tree_digest(path)
            .map(|digest| format!("sha256:{digest}"))
            .map_err(|e| BuildError::Source(format!("{}: {e}", path.display()))),
        AppSource::Git {
            repository,
            reference,
            ..
        } => git
            .resolve(repository, reference)
            .map_err(|e| BuildError::Source(e.to_string())),
        AppSource::Chart { .. } => Err(chart_is_no_build_context()),
        AppSource::WithValues { main, .. } => resolve(git, main),
    }
}

fn chart_is_no_build_context() -> BuildError {
    BuildError::Source(
        "an app whose source is a chart from a chart repository has no source tree to build an image from".into(),
    )
}

/// The build context for `revision`: the app's directory in the checkout of that commit (a local directory is
/// read as it is).
pub fn context(
    git: &GitSources,
    source: &AppSource,
    revision: &str,
) -> Result<PathBuf, BuildError> {
    let dir = match source {
        AppSource::Chart { .. } => return Err(chart_is_no_build_context()),
        // The image is built from the app's own tree; the values repository has no part in it.
        AppSource::WithValues { main, .. } => {
            let revision = split_values_revision(revision).map_or(revision, |(main, _)| main);
            return context(git, main, revision);
        }
        AppSource::Local { path, .. } => path.clone(),
        AppSource::Git {
            repository, path, ..
        } => {
            let checkout = git
                .checkout(repository, revision)
                .map_err(|e| BuildError::Source(e.to_string()))?;
            let inside = weft_sdk::source::normalize(path).ok_or_else(|| {
                BuildError::Source(format!("{path:?} is not a path inside the repository"))
            })?;
            checkout.join(inside)
        }
    };
    if !dir.is_dir() {
        return Err(BuildError::Source(format!(
            "{}: not a directory",
            dir.display()
        )));
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_source::Repository;

    /// Runs git in `dir`, asserting that it succeeded.
    fn git(dir: &std::path::Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn a_branch_is_built_at_the_commit_it_resolved_to() {
        let repo = tempfile::tempdir().unwrap();
        git(repo.path(), &["init", "-q", "-b", "main"]);
        git(repo.path(), &["config", "user.email", "t@weft.invalid"]);
        git(repo.path(), &["config", "user.name", "t"]);
        std::fs::create_dir_all(repo.path().join("app")).unwrap();
        std::fs::write(repo.path().join("app/index.html"), "one").unwrap();
        git(repo.path(), &["add", "-A"]);
        git(repo.path(), &["commit", "-q", "-m", "one"]);
        let cache = tempfile::tempdir().unwrap();
        let sources = GitSources::new(cache.path(), 1 << 30);
        let source = AppSource::Git {
            repository: Repository::new(repo.path().to_string_lossy()),
            reference: "main".into(),
            path: "app".into(),
        };
        let first = resolve(&sources, &source).unwrap();
        assert_eq!(first.len(), 40);
        std::fs::write(repo.path().join("app/index.html"), "two").unwrap();
        git(repo.path(), &["commit", "-q", "-am", "two"]);
        // The pinned commit's files, although the branch moved on.
        let dir = context(&sources, &source, &first).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("index.html")).unwrap(),
            "one"
        );
        let second = resolve(&sources, &source).unwrap();
        assert_ne!(first, second);
        let dir = context(&sources, &source, &second).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("index.html")).unwrap(),
            "two"
        );
        // A ref is never a build context.
        assert!(context(&sources, &source, "main").is_err());
    }

    #[test]
    fn a_local_directory_is_pinned_by_its_digest() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("index.html"), "one").unwrap();
        let sources = GitSources::new(dir.path().join("cache"), 1 << 30);
        let source = AppSource::Local {
            path: dir.path().to_path_buf(),
            root: None,
        };
        let first = resolve(&sources, &source).unwrap();
        assert!(first.starts_with("sha256:tree-"), "{first}");
        std::fs::write(dir.path().join("index.html"), "two").unwrap();
        assert_ne!(resolve(&sources, &source).unwrap(), first);
        assert_eq!(context(&sources, &source, &first).unwrap(), dir.path());
    }
}
