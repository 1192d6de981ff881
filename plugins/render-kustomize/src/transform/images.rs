//! `images` (and the ImageTagTransformer plugin): rewriting container images (name, tag, digest) in every
//! `containers` and `initContainers` list of an object, wherever it sits, and at further field specs.

use serde_json::Value;

use crate::fieldpath::{FieldSpec, walk};
use crate::kustomization::ImageRewrite;
use crate::resource::Resource;

/// Splits an image reference into name, tag and digest (`registry:5000/app:1.0@sha256:...`).
pub fn split_image(image: &str) -> (&str, &str, &str) {
    let (rest, digest) = match image.split_once('@') {
        Some((rest, digest)) => (rest, digest),
        None => (image, ""),
    };
    let last_slash = rest.rfind('/').map_or(0, |i| i + 1);
    match rest[last_slash..].rfind(':') {
        Some(colon) => {
            let at = last_slash + colon;
            (&rest[..at], &rest[at + 1..], digest)
        }
        None => (rest, "", digest),
    }
}

/// Whether `image` names `name`: `name`, then optionally `@sha256`, `:tag` and `@sha256:digest`, in that order.
pub fn image_matches(image: &str, name: &str) -> bool {
    let tag_char = |c: char| c.is_ascii_alphanumeric() || "_.{}-".contains(c);
    let Some(mut rest) = image.strip_prefix(name) else {
        return false;
    };
    rest = rest.strip_prefix("@sha256").unwrap_or(rest);
    if let Some(tagged) = rest.strip_prefix(':') {
        let end = tagged.find(|c: char| !tag_char(c)).unwrap_or(tagged.len());
        rest = &tagged[end..];
    }
    if let Some(digest) = rest.strip_prefix("@sha256:") {
        rest = digest.trim_start_matches(tag_char);
    }
    rest.is_empty()
}

/// The image after a rewrite, or `None` when the rewrite does not apply to it.
pub fn rewrite(image: &str, rule: &ImageRewrite) -> Option<String> {
    if !image_matches(image, &rule.name) {
        return None;
    }
    let (name, tag, digest) = split_image(image);
    let mut name = name.to_string();
    let (mut tag, mut digest) = (tag.to_string(), digest.to_string());
    if !rule.new_name.is_empty() {
        name = rule.new_name.clone();
    }
    match (rule.new_tag.is_empty(), rule.digest.is_empty()) {
        (false, false) => {
            tag = rule.new_tag.clone();
            digest = rule.digest.clone();
        }
        (false, true) => {
            tag = rule.new_tag.clone();
            digest.clear();
        }
        (true, false) => {
            tag.clear();
            digest = rule.digest.clone();
        }
        (true, true) => {}
    }
    if !tag.is_empty() {
        name = format!("{name}:{tag}");
    }
    if !digest.is_empty() {
        name = format!("{name}@{digest}");
    }
    Some(name)
}

/// Applies a rewrite to every container image in `node`.
pub fn apply(node: &mut Value, rule: &ImageRewrite) {
    match node {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if (key == "containers" || key == "initContainers") && child.is_array() {
                    rewrite_containers(child, rule);
                }
                apply(child, rule);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| apply(item, rule)),
        _ => {}
    }
}

/// Applies a rewrite to the image strings at `specs` of a resource (CRDs excepted), as the ImageTagTransformer
/// plugin does besides [`apply`].
pub fn apply_at(resource: &mut Resource, rule: &ImageRewrite, specs: &[FieldSpec]) {
    let gvk = resource.gvk();
    if gvk.kind == "CustomResourceDefinition" {
        return;
    }
    for spec in specs.iter().filter(|s| gvk.is_selected_by(&s.gvk)) {
        let _ = walk::<()>(&mut resource.object, &spec.path, spec.create, &mut |node| {
            if let Some(new) = node.as_str().and_then(|current| rewrite(current, rule)) {
                *node = Value::String(new);
            }
            Ok(())
        });
    }
}

fn rewrite_containers(list: &mut Value, rule: &ImageRewrite) {
    let Value::Array(containers) = list else {
        return;
    };
    for container in containers {
        let Some(image) = container.get_mut("image") else {
            continue;
        };
        if let Some(new) = image.as_str().and_then(|current| rewrite(current, rule)) {
            *image = Value::String(new);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(name: &str, new_name: &str, tag: &str, digest: &str) -> ImageRewrite {
        ImageRewrite {
            name: name.into(),
            new_name: new_name.into(),
            new_tag: tag.into(),
            digest: digest.into(),
        }
    }

    #[test]
    fn splits_registries_tags_and_digests() {
        assert_eq!(split_image("nginx"), ("nginx", "", ""));
        assert_eq!(split_image("reg:5000/app:1.0"), ("reg:5000/app", "1.0", ""));
        assert_eq!(split_image("app@sha256:abc"), ("app", "", "sha256:abc"));
    }

    #[test]
    fn rewrites_names_tags_and_digests() {
        assert_eq!(
            rewrite("nginx:1.0", &rule("nginx", "", "1.25", "")).unwrap(),
            "nginx:1.25"
        );
        assert_eq!(
            rewrite("nginx:1.0", &rule("nginx", "mirror/nginx", "", "")).unwrap(),
            "mirror/nginx:1.0"
        );
        assert_eq!(
            rewrite("nginx:1.0", &rule("nginx", "", "", "sha256:ff")).unwrap(),
            "nginx@sha256:ff"
        );
        assert!(rewrite("nginx-extra:1.0", &rule("nginx", "", "2", "")).is_none());
        assert_eq!(
            rewrite("app:2.0@sha256:ee", &rule("app", "", "3.0", "sha256:ff")).unwrap(),
            "app:3.0@sha256:ff"
        );
    }

    #[test]
    fn reaches_containers_anywhere() {
        let mut obj = json!({"spec": {"jobTemplate": {"spec": {"template": {"spec": {
            "initContainers": [{"image": "busybox"}], "containers": [{"image": "app:1"}]}}}}}});
        apply(&mut obj, &rule("app", "", "2", ""));
        apply(&mut obj, &rule("busybox", "", "1.36", ""));
        let spec = &obj["spec"]["jobTemplate"]["spec"]["template"]["spec"];
        assert_eq!(spec["containers"][0]["image"], "app:2");
        assert_eq!(spec["initContainers"][0]["image"], "busybox:1.36");
    }

    #[test]
    fn field_specs_reach_images_outside_containers() {
        let mut r = Resource::new(
            json!({"apiVersion": "example.com/v1", "kind": "Runner", "metadata": {"name": "r"},
                   "spec": {"runner": {"image": "app:1"}, "other": {"image": "app:1"}}}),
            None,
        );
        let specs = [FieldSpec::new(
            "spec/runner/image",
            crate::resid::Gvk::selector("", "", "Runner"),
            false,
        )];
        apply_at(&mut r, &rule("app", "", "2", ""), &specs);
        assert_eq!(r.object["spec"]["runner"]["image"], "app:2");
        assert_eq!(r.object["spec"]["other"]["image"], "app:1");
    }
}
