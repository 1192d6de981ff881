//! Remote bases and components (`github.com/org/repo//path?ref=v1`, `https://host/repo.git//path`): the renderer
//! never fetches them. The host does, with the app's credentials and its org's rules, and lays the repository over
//! the source view where [`weft_sdk::remote::dir_of`] says; a base the host did not lay there is an error saying
//! so.

use weft_sdk::EntryKind;

use crate::tree::Tree;

/// The path from the tree's root of a `resources` or `components` entry of the kustomization in `dir`: a remote
/// base's directory as the host laid it, or the entry resolved against `dir`.
pub fn resolve_entry(tree: &Tree<'_>, dir: &str, entry: &str) -> Result<String, String> {
    if !weft_sdk::remote::is_remote(entry) {
        return Tree::resolve(dir, entry);
    }
    let path =
        weft_sdk::remote::dir_of(entry).map_err(|e| format!("remote resources and bases: {e}"))?;
    match tree.kind_of(&path) {
        Some(EntryKind::Directory) => Ok(path),
        _ => Err(format!(
            "remote base '{entry}' was not fetched by the host (the renderer never reaches a network; the host \
             fetches remote bases from git repositories the app's org allows, when it renders with network)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_sdk::source::MemorySource;

    #[test]
    fn a_remote_base_is_found_where_the_host_laid_it_and_is_an_error_otherwise() {
        let entry = "github.com/org/repo//deploy/base?ref=v1";
        let mut source = MemorySource::new();
        let dir = weft_sdk::remote::dir_of(entry).unwrap();
        source.insert(
            &format!("{dir}/kustomization.yaml"),
            b"resources: []\n".to_vec(),
        );
        let tree = Tree::new(&source);
        assert_eq!(resolve_entry(&tree, "overlay", entry).unwrap(), dir);
        assert_eq!(resolve_entry(&tree, "overlay", "../base").unwrap(), "base");
        let missing = resolve_entry(&tree, "", "github.com/org/other//x").unwrap_err();
        assert!(missing.contains("was not fetched by the host"), "{missing}");
        let file = resolve_entry(&tree, "", "https://raw.example.com/x/deploy.yaml").unwrap_err();
        assert!(file.contains("files over HTTP are not fetched"), "{file}");
    }
}
