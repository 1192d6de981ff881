//! Label selectors (`app=web,tier in (a,b),!legacy`, and `metav1.LabelSelector` objects) and field selectors
//! (`metadata.name=x`), as the API server reads them: what the simulator serves and what Kustomize's patch
//! targets select with.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelRequirement {
    /// The label has this value (`k=v`, `k==v`).
    Equals(String, String),
    /// The label is absent or has another value (`k!=v`).
    NotEquals(String, String),
    /// The label has one of the values (`k in (a,b)`).
    In(String, Vec<String>),
    /// The label is absent or has none of the values (`k notin (a,b)`).
    NotIn(String, Vec<String>),
    /// The label is present (`k`).
    Exists(String),
    /// The label is absent (`!k`).
    DoesNotExist(String),
}

impl LabelRequirement {
    /// Whether the requirement holds for the labels `label` looks up.
    pub fn holds<'v>(&self, label: &dyn Fn(&str) -> Option<&'v str>) -> bool {
        match self {
            Self::Equals(key, value) => label(key) == Some(value.as_str()),
            Self::NotEquals(key, value) => label(key) != Some(value.as_str()),
            Self::In(key, values) => {
                label(key).is_some_and(|actual| values.iter().any(|v| v == actual))
            }
            Self::NotIn(key, values) => {
                !label(key).is_some_and(|actual| values.iter().any(|v| v == actual))
            }
            Self::Exists(key) => label(key).is_some(),
            Self::DoesNotExist(key) => label(key).is_none(),
        }
    }
}

/// A parsed label selector: every requirement must hold. The empty selector matches everything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LabelSelector {
    requirements: Vec<LabelRequirement>,
    /// A selector that matches nothing (a `LabelSelector` object with no requirements means "everything",
    /// but a nil selector on some workloads means "nothing").
    matches_nothing: bool,
}

/// A selector string that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// A requirement had no key.
    #[error("unable to parse requirement: found '{0}', expected: identifier")]
    MissingKey(String),
    /// A term between commas was empty (`a=b,,c`, a trailing comma), as the API server refuses.
    #[error("unable to parse requirement: found ',' in '{0}', expected: identifier")]
    EmptyTerm(String),
    /// A set-based requirement was not closed with `)`.
    #[error("unable to parse requirement: missing closing ')' in '{0}'")]
    UnclosedSet(String),
    /// A field selector term used an operator other than `=`, `==` or `!=`.
    #[error("invalid selector: '{0}'; can't understand '{0}'")]
    BadFieldTerm(String),
}

impl LabelSelector {
    /// Parses a selector string as sent in `?labelSelector=`.
    pub fn parse(text: &str) -> Result<Self, SelectorError> {
        let mut requirements = Vec::new();
        for term in split_terms(text)? {
            requirements.push(parse_label_term(&term)?);
        }
        Ok(Self {
            requirements,
            matches_nothing: false,
        })
    }

    /// Builds a selector from a `metav1.LabelSelector` object (`matchLabels`, `matchExpressions`).
    pub fn from_object(selector: Option<&Value>) -> Self {
        let Some(selector) = selector.filter(|value| value.is_object()) else {
            return Self {
                requirements: Vec::new(),
                matches_nothing: true,
            };
        };
        let mut requirements = Vec::new();
        if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
            for (key, value) in labels {
                requirements.push(LabelRequirement::Equals(
                    key.clone(),
                    value.as_str().unwrap_or_default().to_owned(),
                ));
            }
        }
        for expression in selector
            .get("matchExpressions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = expression
                .get("key")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let values: Vec<String> = expression
                .get("values")
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            let requirement = match expression.get("operator").and_then(Value::as_str) {
                Some("In") => LabelRequirement::In(key, values),
                Some("NotIn") => LabelRequirement::NotIn(key, values),
                Some("Exists") => LabelRequirement::Exists(key),
                Some("DoesNotExist") => LabelRequirement::DoesNotExist(key),
                _ => continue,
            };
            requirements.push(requirement);
        }
        Self {
            requirements,
            matches_nothing: false,
        }
    }

    /// Whether the selector has no requirements (and so matches everything).
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty() && !self.matches_nothing
    }

    /// The requirements, in the order written.
    pub fn requirements(&self) -> &[LabelRequirement] {
        &self.requirements
    }

    /// Whether a set of labels satisfies the selector.
    pub fn matches_map(&self, labels: &BTreeMap<String, String>) -> bool {
        self.matches_with(&|key: &str| labels.get(key).map(String::as_str))
    }

    /// Whether a JSON map of strings (an object's `labels` or `annotations`) satisfies the selector.
    pub fn matches_json(&self, labels: &Map<String, Value>) -> bool {
        self.matches_with(&|key: &str| labels.get(key).and_then(Value::as_str))
    }

    /// Whether the `metadata.labels` of an object satisfy the selector.
    pub fn matches_object(&self, object: &Value) -> bool {
        let labels = object.pointer("/metadata/labels");
        self.matches_with(&|key: &str| {
            labels
                .and_then(|labels| labels.get(key))
                .and_then(Value::as_str)
        })
    }

    /// Whether labels given as sorted pairs satisfy the selector.
    pub fn matches_pairs(&self, labels: &[(String, String)]) -> bool {
        self.matches_with(&|key: &str| {
            labels
                .iter()
                .find(|(name, _)| name == key)
                .map(|(_, value)| value.as_str())
        })
    }

    /// Whether the labels `label` looks up satisfy the selector.
    pub fn matches_with<'v>(&self, label: &dyn Fn(&str) -> Option<&'v str>) -> bool {
        !self.matches_nothing
            && self
                .requirements
                .iter()
                .all(|requirement| requirement.holds(label))
    }
}

/// Splits on commas that are not inside parentheses.
fn split_terms(text: &str) -> Result<Vec<String>, SelectorError> {
    let mut terms = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for character in text.chars() {
        match character {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                terms.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(character);
    }
    if depth > 0 {
        return Err(SelectorError::UnclosedSet(text.to_owned()));
    }
    terms.push(current);
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let terms: Vec<String> = terms
        .into_iter()
        .map(|term| term.trim().to_owned())
        .collect();
    if terms.iter().any(String::is_empty) {
        return Err(SelectorError::EmptyTerm(text.to_owned()));
    }
    Ok(terms)
}

fn parse_label_term(term: &str) -> Result<LabelRequirement, SelectorError> {
    if let Some(key) = term.strip_prefix('!') {
        return non_empty_key(key.trim(), term).map(LabelRequirement::DoesNotExist);
    }
    if let Some((key, value)) = term.split_once("!=") {
        return Ok(LabelRequirement::NotEquals(
            non_empty_key(key.trim(), term)?,
            value.trim().to_owned(),
        ));
    }
    if let Some((key, value)) = term.split_once("==").or_else(|| term.split_once('=')) {
        return Ok(LabelRequirement::Equals(
            non_empty_key(key.trim(), term)?,
            value.trim().to_owned(),
        ));
    }
    for (operator, is_in) in [(" notin ", false), (" in ", true)] {
        if let Some((key, rest)) = term.split_once(operator) {
            let values = parse_set(rest.trim(), term)?;
            let key = non_empty_key(key.trim(), term)?;
            return Ok(if is_in {
                LabelRequirement::In(key, values)
            } else {
                LabelRequirement::NotIn(key, values)
            });
        }
    }
    non_empty_key(term, term).map(LabelRequirement::Exists)
}

fn parse_set(text: &str, term: &str) -> Result<Vec<String>, SelectorError> {
    let inner = text
        .strip_prefix('(')
        .and_then(|rest| rest.strip_suffix(')'))
        .ok_or_else(|| SelectorError::UnclosedSet(term.to_owned()))?;
    Ok(inner
        .split(',')
        .map(|value| value.trim().to_owned())
        .filter(|value| !value.is_empty())
        .collect())
}

fn non_empty_key(key: &str, term: &str) -> Result<String, SelectorError> {
    if key.is_empty() {
        Err(SelectorError::MissingKey(term.to_owned()))
    } else {
        Ok(key.to_owned())
    }
}

/// One term of a field selector.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FieldTerm {
    path: String,
    value: String,
    negated: bool,
}

/// A parsed field selector such as `metadata.name=web,status.phase!=Running`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FieldSelector {
    terms: Vec<FieldTerm>,
}

impl FieldSelector {
    /// Parses a selector string as sent in `?fieldSelector=`.
    pub fn parse(text: &str) -> Result<Self, SelectorError> {
        let mut terms = Vec::new();
        for term in split_terms(text)? {
            let (path, value, negated) = if let Some((path, value)) = term.split_once("!=") {
                (path, value, true)
            } else if let Some((path, value)) =
                term.split_once("==").or_else(|| term.split_once('='))
            {
                (path, value, false)
            } else {
                return Err(SelectorError::BadFieldTerm(term));
            };
            terms.push(FieldTerm {
                path: path.trim().to_owned(),
                value: value.trim().to_owned(),
                negated,
            });
        }
        Ok(Self { terms })
    }

    /// Whether the selector has no terms.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The exact name required by a `metadata.name=` term, if there is one.
    pub fn required_name(&self) -> Option<&str> {
        self.terms
            .iter()
            .find(|term| term.path == "metadata.name" && !term.negated)
            .map(|term| term.value.as_str())
    }

    /// Whether the selector only looks at the name and namespace (and so needs no parsed object).
    pub fn only_metadata(&self) -> bool {
        self.terms
            .iter()
            .all(|term| term.path == "metadata.name" || term.path == "metadata.namespace")
    }

    /// Whether an object with this name and namespace satisfies the selector's metadata terms.
    pub fn matches_name(&self, namespace: &str, name: &str) -> bool {
        self.terms.iter().all(|term| {
            let actual = match term.path.as_str() {
                "metadata.name" => name,
                "metadata.namespace" => namespace,
                _ => return true,
            };
            (actual == term.value) != term.negated
        })
    }

    /// Whether an object satisfies the selector; missing fields compare as the empty string.
    pub fn matches_object(&self, object: &Value) -> bool {
        self.terms.iter().all(|term| {
            let mut current = Some(object);
            for segment in term.path.split('.') {
                current = current.and_then(|value| value.get(segment));
            }
            let actual = match current {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Bool(flag)) => flag.to_string(),
                Some(Value::Number(number)) => number.to_string(),
                _ => String::new(),
            };
            (actual == term.value) != term.negated
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn equality_and_set_requirements() {
        let selector = LabelSelector::parse("app=web, tier in (front, back),!legacy,env!=prod")
            .expect("parses");
        assert!(selector.matches_map(&labels(&[("app", "web"), ("tier", "front")])));
        assert!(!selector.matches_map(&labels(&[("app", "web"), ("tier", "db")])));
        assert!(!selector.matches_map(&labels(&[
            ("app", "web"),
            ("tier", "front"),
            ("legacy", "1")
        ])));
        assert!(!selector.matches_map(&labels(&[
            ("app", "web"),
            ("tier", "back"),
            ("env", "prod")
        ])));
    }

    #[test]
    fn notin_and_exists() {
        let selector = LabelSelector::parse("tier notin (db),app").expect("parses");
        assert!(selector.matches_map(&labels(&[("app", "x")])));
        assert!(!selector.matches_map(&labels(&[("app", "x"), ("tier", "db")])));
        assert!(!selector.matches_map(&labels(&[("tier", "web")])));
    }

    #[test]
    fn unclosed_set_is_an_error() {
        assert!(LabelSelector::parse("tier in (a,b").is_err());
        assert!(LabelSelector::parse("=x").is_err());
        assert_eq!(
            LabelSelector::parse("a=b,,c"),
            Err(SelectorError::EmptyTerm("a=b,,c".into()))
        );
        assert!(LabelSelector::parse("a=b,").is_err());
        assert!(LabelSelector::parse("  ").unwrap().is_empty());
    }

    #[test]
    fn empty_selector_matches_everything_but_a_nil_object_selector_matches_nothing() {
        assert!(
            LabelSelector::parse("")
                .expect("parses")
                .matches_map(&BTreeMap::new())
        );
        assert!(!LabelSelector::from_object(None).matches_map(&BTreeMap::new()));
        assert!(LabelSelector::from_object(Some(&json!({}))).matches_map(&BTreeMap::new()));
    }

    #[test]
    fn object_selectors_use_match_labels_and_expressions() {
        let selector = LabelSelector::from_object(Some(&json!({
            "matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]
        })));
        assert!(
            selector.matches_object(&json!({"metadata": {"labels": {"app": "web", "tier": "a"}}}))
        );
        assert!(!selector.matches_object(&json!({"metadata": {"labels": {"app": "web"}}})));
    }

    #[test]
    fn field_selectors_read_nested_fields() {
        let selector =
            FieldSelector::parse("metadata.name=web-1,status.phase!=Failed").expect("parses");
        assert_eq!(selector.required_name(), Some("web-1"));
        assert!(!selector.only_metadata());
        let pod = json!({"metadata": {"name": "web-1"}, "status": {"phase": "Running"}});
        assert!(selector.matches_object(&pod));
        let failed = json!({"metadata": {"name": "web-1"}, "status": {"phase": "Failed"}});
        assert!(!selector.matches_object(&failed));
        assert!(FieldSelector::parse("metadata.name").is_err());
    }
}
