//! Patch targets: which objects a `target` selects (anchored regular expressions over gvk, name and namespace,
//! and Kubernetes label selector syntax over labels and annotations).

use regex::Regex;
use serde_json::{Map, Value};

use crate::kustomization::TargetSelector;
use crate::resource::Resource;

/// A compiled target selector.
#[derive(Debug)]
pub struct Target {
    group: Option<Regex>,
    version: Option<Regex>,
    kind: Option<Regex>,
    name: Option<Regex>,
    namespace: Option<Regex>,
    labels: Vec<Requirement>,
    annotations: Vec<Requirement>,
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
            labels: parse_label_selector(&selector.label_selector)?,
            annotations: parse_label_selector(&selector.annotation_selector)?,
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
        self.labels.iter().all(|r| r.holds(&labels))
            && self.annotations.iter().all(|r| r.holds(&annotations))
    }
}

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// `key=value` or `key==value`.
    Equals(String, String),
    /// `key!=value`.
    NotEquals(String, String),
    /// `key in (a,b)`.
    In(String, Vec<String>),
    /// `key notin (a,b)`.
    NotIn(String, Vec<String>),
    /// `key`.
    Exists(String),
    /// `!key`.
    DoesNotExist(String),
}

impl Requirement {
    /// Whether the requirement holds for a label (or annotation) map.
    pub fn holds(&self, map: &Map<String, Value>) -> bool {
        let get = |key: &str| map.get(key).and_then(Value::as_str);
        match self {
            Requirement::Equals(k, v) => get(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => get(k) != Some(v.as_str()),
            Requirement::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            Requirement::NotIn(k, vs) => get(k).is_none_or(|x| vs.iter().all(|v| v != x)),
            Requirement::Exists(k) => map.contains_key(k),
            Requirement::DoesNotExist(k) => !map.contains_key(k),
        }
    }
}

/// Splits at commas that are not inside parentheses.
fn split_requirements(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn parse_set(key: &str, rest: &str, whole: &str) -> Result<(String, Vec<String>), String> {
    let inner = rest
        .trim()
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| format!("invalid label selector '{whole}': expected a (set)"))?;
    let values = inner
        .split(',')
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect();
    Ok((key.trim().to_string(), values))
}

/// Parses a Kubernetes label selector (`a=b,c!=d,e in (x,y),f notin (z),g,!h`).
pub fn parse_label_selector(text: &str) -> Result<Vec<Requirement>, String> {
    let mut requirements = Vec::new();
    if text.trim().is_empty() {
        return Ok(requirements);
    }
    for part in split_requirements(text) {
        let part = part.trim();
        if part.is_empty() {
            return Err(format!("invalid label selector '{text}'"));
        }
        let requirement = if let Some((k, v)) = part.split_once("!=") {
            Requirement::NotEquals(k.trim().into(), v.trim().into())
        } else if let Some((k, v)) = part.split_once("==") {
            Requirement::Equals(k.trim().into(), v.trim().into())
        } else if let Some((k, v)) = part.split_once('=') {
            Requirement::Equals(k.trim().into(), v.trim().into())
        } else if let Some((k, rest)) = part.split_once(" notin ") {
            let (k, vs) = parse_set(k, rest, text)?;
            Requirement::NotIn(k, vs)
        } else if let Some((k, rest)) = part.split_once(" in ") {
            let (k, vs) = parse_set(k, rest, text)?;
            Requirement::In(k, vs)
        } else if let Some(k) = part.strip_prefix('!') {
            Requirement::DoesNotExist(k.trim().into())
        } else {
            Requirement::Exists(part.into())
        };
        requirements.push(requirement);
    }
    Ok(requirements)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        let reqs = parse_label_selector("a=b, c!=d,e in (x, y),f notin (z),g,!h").unwrap();
        assert_eq!(reqs.len(), 6);
        assert_eq!(
            reqs[2],
            Requirement::In("e".into(), vec!["x".into(), "y".into()])
        );
        assert_eq!(reqs[5], Requirement::DoesNotExist("h".into()));
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
