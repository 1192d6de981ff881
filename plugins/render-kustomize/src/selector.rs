//! Patch targets: which objects a `target` selects (anchored regular expressions over gvk, name and namespace,
//! and Kubernetes label selector syntax over labels and annotations).

use regex::Regex;
use serde::Deserialize;
use weft_k8s::selector::LabelSelector;

use crate::resource::Resource;

/// A patch target selector; every field but the gvk is a regular expression.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TargetSelector {
    /// Group.
    #[serde(default)]
    pub group: String,
    /// Version.
    #[serde(default)]
    pub version: String,
    /// Kind.
    #[serde(default)]
    pub kind: String,
    /// Name.
    #[serde(default)]
    pub name: String,
    /// Namespace.
    #[serde(default)]
    pub namespace: String,
    /// A Kubernetes label selector.
    #[serde(default)]
    pub label_selector: String,
    /// The same syntax, over annotations.
    #[serde(default)]
    pub annotation_selector: String,
}

/// A compiled target selector.
#[derive(Debug)]
pub struct Target {
    group: Option<Regex>,
    version: Option<Regex>,
    kind: Option<Regex>,
    name: Option<Regex>,
    namespace: Option<Regex>,
    labels: LabelSelector,
    annotations: LabelSelector,
}

fn anchored(pattern: &str) -> Result<Option<Regex>, String> {
    if pattern.is_empty() {
        return Ok(None);
    }
    Regex::new(&format!("^(?:{pattern})$"))
        .map(Some)
        .map_err(|e| format!("invalid target pattern '{pattern}': {e}"))
}

fn matches(pattern: &Option<Regex>, value: &str) -> bool {
    pattern.as_ref().is_none_or(|re| re.is_match(value))
}

impl Target {
    /// Compiles a selector.
    pub fn compile(selector: &TargetSelector) -> Result<Target, String> {
        Ok(Target {
            group: anchored(&selector.group)?,
            version: anchored(&selector.version)?,
            kind: anchored(&selector.kind)?,
            name: anchored(&selector.name)?,
            namespace: anchored(&selector.namespace)?,
            labels: label_selector(&selector.label_selector)?,
            annotations: label_selector(&selector.annotation_selector)?,
        })
    }

    /// Whether the target selects `resource`: its original or current namespace and name, its gvk, labels and
    /// annotations.
    pub fn selects(&self, resource: &Resource) -> bool {
        let original = resource.original_id();
        let current = resource.current_id();
        if !matches(&self.namespace, original.effective_namespace())
            && !matches(&self.namespace, current.effective_namespace())
        {
            return false;
        }
        if !matches(&self.name, &original.name) && !matches(&self.name, &current.name) {
            return false;
        }
        let gvk = resource.gvk();
        if !matches(&self.group, &gvk.group)
            || !matches(&self.version, &gvk.version)
            || !matches(&self.kind, &gvk.kind)
        {
            return false;
        }
        let labels = resource.string_map("labels");
        let annotations = resource.string_map("annotations");
        self.labels.matches_json(&labels) && self.annotations.matches_json(&annotations)
    }
}

/// Whether `resource`'s labels and annotations satisfy the two selectors (Kubernetes label selector syntax;
/// empty selects everything).
pub fn labels_and_annotations_match(
    resource: &Resource,
    labels: &str,
    annotations: &str,
) -> Result<bool, String> {
    Ok(
        label_selector(labels)?.matches_json(&resource.string_map("labels"))
            && label_selector(annotations)?.matches_json(&resource.string_map("annotations")),
    )
}

/// A target's `labelSelector` or `annotationSelector`, in Kubernetes label selector syntax.
fn label_selector(text: &str) -> Result<LabelSelector, String> {
    LabelSelector::parse(text).map_err(|e| format!("invalid label selector '{text}': {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use weft_k8s::selector::LabelRequirement;

    fn resource() -> Resource {
        Resource::new(
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "web-api", "labels": {"tier": "backend", "env": "prod"},
                                "annotations": {"team": "a"}}}),
            None,
        )
    }

    #[test]
    fn parses_label_selectors() {
        let selector = label_selector("a=b, c!=d,e in (x, y),f notin (z),g,!h").unwrap();
        let reqs = selector.requirements();
        assert_eq!(reqs.len(), 6);
        assert_eq!(
            reqs[2],
            LabelRequirement::In("e".into(), vec!["x".into(), "y".into()])
        );
        assert_eq!(reqs[5], LabelRequirement::DoesNotExist("h".into()));
    }

    #[test]
    fn selects_by_anchored_patterns_and_labels() {
        let select = |sel: TargetSelector| Target::compile(&sel).unwrap().selects(&resource());
        assert!(select(TargetSelector {
            kind: "Deployment".into(),
            name: "web-.*".into(),
            ..Default::default()
        }));
        assert!(!select(TargetSelector {
            name: "web".into(),
            ..Default::default()
        }));
        assert!(select(TargetSelector {
            label_selector: "tier in (backend,frontend),env!=dev".into(),
            annotation_selector: "team=a".into(),
            ..Default::default()
        }));
        assert!(select(TargetSelector {
            namespace: "default".into(),
            group: "apps".into(),
            ..Default::default()
        }));
        assert!(!select(TargetSelector {
            label_selector: "!tier".into(),
            ..Default::default()
        }));
    }
}
