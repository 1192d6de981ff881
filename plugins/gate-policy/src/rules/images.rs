//! `images-pinned` (every image pinned by digest, or from an allowed registry) and `no-latest` (no image that is
//! `:latest`, said or implied), over every container: init, regular and ephemeral.
//!
//! A container without an `image` field is skipped (the API server refuses it anyway); an image that is not a valid
//! reference is a finding of either rule, since it can be shown neither pinned nor versioned.

use super::{Context, Findings};
use crate::images::ImageRef;
use crate::pods::PodSpec;

/// The rule name of [`pinned`].
pub const IMAGES_PINNED: &str = "images-pinned";
/// The rule name of [`no_latest`].
pub const NO_LATEST: &str = "no-latest";

/// `images-pinned`: an image passes when its reference names a digest, when the request says it is pinned (a digest
/// in the source, or one it was resolved to; looked up by the reference as rendered), or when it comes from one of
/// the `allowed_registries`.
pub fn pinned(context: &Context, pod: &PodSpec, findings: &mut Findings) {
    for container in pod.containers() {
        let Some(reference) = container.image() else {
            continue;
        };
        match ImageRef::parse(reference) {
            Err(why) => findings.add(
                IMAGES_PINNED,
                format!(
                    "{} runs image {reference:?}, which is not a valid image reference: {why}",
                    container.describe()
                ),
            ),
            Ok(image) => {
                if image.digest.is_none()
                    && !context.is_pinned(reference)
                    && !context.is_allowed(&image)
                {
                    findings.add(
                        IMAGES_PINNED,
                        format!(
                            "{} runs image {reference:?} ({}), which is neither pinned by digest nor from an allowed registry",
                            container.describe(),
                            image.name()
                        ),
                    );
                }
            }
        }
    }
}

/// `no-latest`: an image passes when its reference names a digest, or a tag other than `latest`. An image the host
/// pinned is judged as the source wrote it: `web:latest` pinned by Weft is still `:latest`.
pub fn no_latest(context: &Context, pod: &PodSpec, findings: &mut Findings) {
    for container in pod.containers() {
        let Some(reference) = container.image() else {
            continue;
        };
        let reference = context.as_written(reference);
        match ImageRef::parse(reference) {
            Err(why) => findings.add(
                NO_LATEST,
                format!(
                    "{} runs image {reference:?}, which is not a valid image reference: {why}",
                    container.describe()
                ),
            ),
            Ok(image) if image.digest.is_some() => {}
            Ok(image) => match image.tag.as_deref() {
                None => findings.add(
                    NO_LATEST,
                    format!(
                        "{} runs image {reference:?} with neither tag nor digest, which means :latest",
                        container.describe()
                    ),
                ),
                Some("latest") => findings.add(
                    NO_LATEST,
                    format!(
                        "{} runs image {reference:?}, tagged latest",
                        container.describe()
                    ),
                ),
                Some(_) => {}
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::testing::{deployment, findings_with, image, messages, pod};

    const SHA: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn one(image: &str) -> serde_json::Value {
        deployment(json!({"containers": [{"name": "web", "image": image}]}))
    }

    fn pinned(manifest: serde_json::Value, images: Vec<weft_sdk::gate::Image>) -> Vec<String> {
        findings_with(&["images-pinned"], manifest, images)
            .into_iter()
            .map(|(_, message)| message)
            .collect()
    }

    #[test]
    fn an_unpinned_image_from_docker_hub_is_named_with_its_container_and_path() {
        assert_eq!(
            pinned(one("nginx:1.25"), vec![]),
            [
                "container \"web\" (spec.template.spec.containers[0]) runs image \"nginx:1.25\" (docker.io/library/nginx), which is neither pinned by digest nor from an allowed registry"
            ]
        );
    }

    #[test]
    fn an_image_with_a_digest_in_its_reference_is_pinned() {
        assert!(pinned(one(&format!("nginx:1.25@{SHA}")), vec![]).is_empty());
    }

    #[test]
    fn an_image_the_request_resolved_to_a_digest_is_pinned() {
        assert!(
            pinned(
                one("nginx:1.25"),
                vec![image("nginx:1.25", Some(SHA), false)]
            )
            .is_empty()
        );
        assert!(pinned(one("nginx:1.25"), vec![image("nginx:1.25", None, true)]).is_empty());
    }

    #[test]
    fn image_facts_are_looked_up_by_the_exact_reference() {
        let facts = vec![
            image("nginx:1.26", Some(SHA), false),
            image("nginx:1.25", None, false),
        ];
        assert_eq!(pinned(one("nginx:1.25"), facts).len(), 1);
        assert_eq!(
            pinned(
                one("nginx:1.25"),
                vec![image("nginx:1.25", Some(""), false)]
            )
            .len(),
            1
        );
    }

    #[test]
    fn images_from_an_allowed_registry_or_path_need_no_digest() {
        assert!(pinned(one("registry.example.com/team/app:1.0"), vec![]).is_empty());
        assert!(pinned(one("ghcr.io/acme/web:2"), vec![]).is_empty());
        assert_eq!(pinned(one("ghcr.io/acmecorp/web:2"), vec![]).len(), 1);
        assert_eq!(
            pinned(one("registry.example.com.evil.io/app:1"), vec![]).len(),
            1
        );
    }

    #[test]
    fn init_and_ephemeral_containers_are_checked_too() {
        let manifest = pod(json!({
            "initContainers": [{"name": "setup", "image": "busybox:1.36"}],
            "containers": [{"name": "web", "image": "ghcr.io/acme/web:1"}],
            "ephemeralContainers": [{"name": "debug", "image": "alpine:3"}],
        }));
        let found = pinned(manifest, vec![]);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("container \"debug\" (spec.ephemeralContainers[0])"));
        assert!(found[1].starts_with("container \"setup\" (spec.initContainers[0])"));
    }

    #[test]
    fn an_invalid_reference_is_a_finding_not_an_error() {
        let found = pinned(one("Not An Image"), vec![]);
        assert_eq!(found.len(), 1);
        assert!(
            found[0].contains("not a valid image reference"),
            "{found:?}"
        );
    }

    #[test]
    fn a_latest_tag_is_refused() {
        assert_eq!(
            messages("no-latest", one("nginx:latest")),
            [
                "container \"web\" (spec.template.spec.containers[0]) runs image \"nginx:latest\", tagged latest"
            ]
        );
    }

    #[test]
    fn an_image_without_tag_or_digest_is_an_implicit_latest() {
        let found = messages("no-latest", one("ghcr.io/acme/web"));
        assert_eq!(found.len(), 1);
        assert!(found[0].contains("neither tag nor digest"), "{found:?}");
        assert_eq!(messages("no-latest", one("localhost:5000/web")).len(), 1);
    }

    #[test]
    fn a_digest_excuses_a_latest_tag() {
        assert!(messages("no-latest", one(&format!("nginx:latest@{SHA}"))).is_empty());
        assert!(messages("no-latest", one(&format!("nginx@{SHA}"))).is_empty());
    }

    #[test]
    fn versioned_tags_pass_no_latest() {
        for image in [
            "nginx:1.25",
            "nginx:latest-alpine",
            "localhost:5000/web:v1",
            "nginx:Latest",
        ] {
            assert!(messages("no-latest", one(image)).is_empty(), "{image}");
        }
    }

    #[test]
    fn a_container_without_an_image_is_skipped() {
        let manifest = deployment(json!({"containers": [{"name": "web"}]}));
        assert!(messages("no-latest", manifest.clone()).is_empty());
        assert!(messages("images-pinned", manifest).is_empty());
    }

    #[test]
    fn an_image_the_host_pinned_is_still_latest_when_the_source_said_latest() {
        let reasons = findings_with(
            &["no-latest"],
            one(&format!("shop/web:latest@{SHA}")),
            vec![image("shop/web:latest", Some(SHA), false)],
        );
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert!(
            reasons[0].1.contains("\"shop/web:latest\", tagged latest"),
            "{reasons:?}"
        );
        // Pinned in the source itself: the author chose the digest.
        assert!(
            findings_with(
                &["no-latest"],
                one(&format!("shop/web:latest@{SHA}")),
                vec![image(&format!("shop/web:latest@{SHA}"), Some(SHA), true)],
            )
            .is_empty()
        );
    }

    #[test]
    fn an_image_the_host_pinned_counts_as_pinned() {
        assert!(
            pinned(
                one(&format!("nginx:1.25@{SHA}")),
                vec![image("nginx:1.25", Some(SHA), false)]
            )
            .is_empty()
        );
    }
}
