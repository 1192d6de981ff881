//! Images pinned by digest: before a sync every container image of the render that names no digest is resolved
//! through its registry (or taken from what the app's deploys recorded, so a redeploy and a rollback run the same
//! bytes after a tag moved), the objects are applied as `image@sha256:…`, and the digests are recorded. The pure
//! parts (which references, how pins are written, which recorded digest a sync reuses) are separate from the
//! registry calls.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use weft_source::images::{ImageError, ImageReference, ImageResolver};

use weft_core::short::short_digest;

/// Reference as rendered → `sha256:…`.
pub type Digests = BTreeMap<String, String>;

/// The image references of `objects`' pod specs that name no digest, sorted.
pub fn unpinned_references(objects: &[Value]) -> BTreeSet<String> {
    let mut references = BTreeSet::new();
    for object in objects {
        let Some(spec) = weft_sdk::pods::pod_spec(object) else {
            continue;
        };
        for container in weft_sdk::pods::containers(spec) {
            if let Some(image) = container.image()
                && !image.contains('@')
            {
                references.insert(image.to_string());
            }
        }
    }
    references
}

/// Rewrites every image of `objects` that `digests` has a digest for as its pinned form (the name as written, a
/// written tag kept for readability: `web:1.4.2@sha256:…`); how many images it rewrote.
pub fn apply_pins(objects: &mut [Value], digests: &Digests) -> usize {
    if digests.is_empty() {
        return 0;
    }
    objects
        .iter_mut()
        .map(|object| {
            weft_sdk::pods::rewrite_images(object, |image| {
                let digest = digests.get(image)?;
                ImageReference::parse(image)
                    .ok()
                    .map(|reference| reference.pinned(digest))
            })
        })
        .sum()
}

/// Where a sync's digests come from for references it already knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    /// Resolve every reference (a new revision, or a sync asked to refresh images).
    Nothing,
    /// Reuse the digests the app runs (a redeploy of the revision it runs: the same bytes after a tag moved).
    Running,
    /// Reuse a history entry's digests (a rollback: the bytes that ran then).
    Recorded,
}

/// The digests a sync starts from: those of `known` that `reuse` allows, for `references`.
pub fn reused(references: &BTreeSet<String>, known: &Digests, reuse: Reuse) -> Digests {
    match reuse {
        Reuse::Nothing => Digests::new(),
        Reuse::Running | Reuse::Recorded => known
            .iter()
            .filter(|(reference, _)| references.contains(*reference))
            .map(|(reference, digest)| (reference.clone(), digest.clone()))
            .collect(),
    }
}

/// Why a sync's images could not be pinned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unresolved {
    /// A reference did not resolve.
    #[error("image {reference} could not be resolved to a digest: {source}")]
    Image {
        /// The reference as rendered.
        reference: String,
        /// Why.
        source: ImageError,
    },
    /// The resolving task itself failed (the server is stopping, or it panicked).
    #[error("the images could not be resolved: {0}")]
    Interrupted(String),
}

/// Resolves every reference not in `digests` (through the resolver's cache, or past it when `fresh`), adding
/// them; the first that does not resolve stops it. Blocking (registry calls): run it on a blocking thread.
pub fn resolve_missing(
    resolver: &ImageResolver,
    references: &BTreeSet<String>,
    digests: &mut Digests,
    org: Option<&str>,
    fresh: bool,
) -> Result<(), Unresolved> {
    for reference in references {
        if digests.contains_key(reference) {
            continue;
        }
        let unresolved = |source| Unresolved::Image {
            reference: reference.clone(),
            source,
        };
        let parsed = ImageReference::parse(reference).map_err(unresolved)?;
        let resolved = if fresh {
            resolver.resolve_fresh(&parsed, org)
        } else {
            resolver.resolve(&parsed, org)
        }
        .map_err(unresolved)?;
        digests.insert(reference.clone(), resolved.digest);
    }
    Ok(())
}

/// One tag that now points elsewhere than what runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagMove {
    /// The reference as rendered.
    pub reference: String,
    /// The digest that runs.
    pub running: String,
    /// The digest the tag points to now.
    pub now: String,
}

impl std::fmt::Display for TagMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} now points to a different digest ({}) than what runs ({}); a sync with refreshed images deploys it",
            self.reference,
            short_digest(&self.now),
            short_digest(&self.running)
        )
    }
}

/// The tags of `running` that resolve (through the resolver's cache, so at most once per lifetime) to another
/// digest now. References that do not resolve are left out: the view reports moves, not registry outages.
/// Blocking.
pub fn tag_moves(resolver: &ImageResolver, running: &Digests, org: Option<&str>) -> Vec<TagMove> {
    running
        .iter()
        .filter_map(|(reference, digest)| {
            let parsed = ImageReference::parse(reference).ok()?;
            let now = resolver.resolve(&parsed, org).ok()?.digest;
            (now != *digest).then(|| TagMove {
                reference: reference.clone(),
                running: digest.clone(),
                now,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const A: &str = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    fn deployment(images: &[&str]) -> Value {
        let containers: Vec<Value> = images
            .iter()
            .enumerate()
            .map(|(i, image)| json!({"name": format!("c{i}"), "image": image}))
            .collect();
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
               "spec": {"template": {"spec": {"containers": containers}}}})
    }

    #[test]
    fn only_references_without_a_digest_are_resolved() {
        let objects = [
            deployment(&["registry.example/shop/web:1.4.2", &format!("proxy@{A}")]),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"image": "not/a:container"}}),
        ];
        assert_eq!(
            unpinned_references(&objects),
            BTreeSet::from(["registry.example/shop/web:1.4.2".to_string()])
        );
    }

    #[test]
    fn pins_keep_the_written_name_and_tag_and_leave_other_images_alone() {
        let mut objects = [deployment(&["registry.example/shop/web:1.4.2", "nginx"])];
        let digests = Digests::from([
            ("registry.example/shop/web:1.4.2".to_string(), A.to_string()),
            ("nginx".to_string(), B.to_string()),
        ]);
        assert_eq!(apply_pins(&mut objects, &digests), 2);
        let containers = &objects[0]["spec"]["template"]["spec"]["containers"];
        assert_eq!(
            containers[0]["image"],
            format!("registry.example/shop/web:1.4.2@{A}")
        );
        assert_eq!(containers[1]["image"], format!("nginx@{B}"));
        // Pinned already: nothing more to do.
        assert_eq!(apply_pins(&mut objects, &digests), 0);
    }

    #[test]
    fn a_redeploy_and_a_rollback_reuse_recorded_digests_and_a_new_revision_resolves_again() {
        let references = BTreeSet::from(["web:1".to_string(), "api:2".to_string()]);
        let known = Digests::from([
            ("web:1".to_string(), A.to_string()),
            ("gone:3".to_string(), B.to_string()),
        ]);
        assert_eq!(
            reused(&references, &known, Reuse::Running),
            Digests::from([("web:1".to_string(), A.to_string())])
        );
        assert_eq!(
            reused(&references, &known, Reuse::Recorded),
            reused(&references, &known, Reuse::Running)
        );
        assert!(reused(&references, &known, Reuse::Nothing).is_empty());
    }

    #[test]
    fn a_tag_move_names_the_reference_and_both_digests() {
        let moved = TagMove {
            reference: "web:1.4.2".into(),
            running: A.into(),
            now: B.into(),
        };
        assert_eq!(
            moved.to_string(),
            "web:1.4.2 now points to a different digest (sha256:bbbbbbbbbbbb) than what runs (sha256:aaaaaaaaaaaa); \
             a sync with refreshed images deploys it"
        );
    }
}
