//! Reading, removing and printing the value at a field path (`f:spec`, `k:{"name":"app"}`, `v:"x"`, `i:0`).

use serde_json::{Map, Value};

use super::PathElement;
use crate::lists::item_key;

/// One parsed path element.
enum Step {
    Field(String),
    Key(Map<String, Value>),
    SetValue(Value),
    Index(usize),
}

fn parse_step(element: &str) -> Option<Step> {
    if let Some(name) = element.strip_prefix("f:") {
        return Some(Step::Field(name.to_owned()));
    }
    if let Some(key) = element.strip_prefix("k:") {
        return match serde_json::from_str(key).ok()? {
            Value::Object(map) => Some(Step::Key(map)),
            _ => None,
        };
    }
    if let Some(value) = element.strip_prefix("v:") {
        return serde_json::from_str(value).ok().map(Step::SetValue);
    }
    if let Some(index) = element.strip_prefix("i:") {
        return index.parse().ok().map(Step::Index);
    }
    None
}

fn keyed_position(items: &[Value], identity: &Map<String, Value>) -> Option<usize> {
    let keys: Vec<&str> = identity.keys().map(String::as_str).collect();
    items
        .iter()
        .position(|item| item.is_object() && &item_key(item, &keys) == identity)
}

/// The value at a path, if the object has one there.
pub fn value_at<'a>(object: &'a Value, path: &[PathElement]) -> Option<&'a Value> {
    let mut current = object;
    for element in path {
        current = match parse_step(element)? {
            Step::Field(name) => current.get(&name)?,
            Step::Key(identity) => {
                let items = current.as_array()?;
                &items[keyed_position(items, &identity)?]
            }
            Step::SetValue(value) => current.as_array()?.iter().find(|item| **item == value)?,
            Step::Index(index) => current.as_array()?.get(index)?,
        };
    }
    Some(current)
}

/// Removes the value at a path; returns whether anything was removed.
pub fn remove_at(object: &mut Value, path: &[PathElement]) -> bool {
    let Some((last, parent_path)) = path.split_last() else {
        return false;
    };
    let Some(parent) = value_at_mut(object, parent_path) else {
        return false;
    };
    match parse_step(last) {
        Some(Step::Field(name)) => parent
            .as_object_mut()
            .and_then(|map| map.remove(&name))
            .is_some(),
        Some(Step::Key(identity)) => {
            let Some(items) = parent.as_array_mut() else {
                return false;
            };
            match keyed_position(items, &identity) {
                Some(index) => {
                    items.remove(index);
                    true
                }
                None => false,
            }
        }
        Some(Step::SetValue(value)) => {
            let Some(items) = parent.as_array_mut() else {
                return false;
            };
            let before = items.len();
            items.retain(|item| *item != value);
            items.len() != before
        }
        Some(Step::Index(index)) => match parent.as_array_mut() {
            Some(items) if index < items.len() => {
                items.remove(index);
                true
            }
            _ => false,
        },
        None => false,
    }
}

fn value_at_mut<'a>(object: &'a mut Value, path: &[PathElement]) -> Option<&'a mut Value> {
    let mut current = object;
    for element in path {
        current = match parse_step(element)? {
            Step::Field(name) => current.get_mut(&name)?,
            Step::Key(identity) => {
                let items = current.as_array_mut()?;
                let index = keyed_position(items, &identity)?;
                &mut items[index]
            }
            Step::SetValue(value) => current
                .as_array_mut()?
                .iter_mut()
                .find(|item| **item == value)?,
            Step::Index(index) => current.as_array_mut()?.get_mut(index)?,
        };
    }
    Some(current)
}

/// Prints a path as kube-apiserver does in conflict messages: `.spec.containers[name="app"].image`.
pub fn display_path(path: &[PathElement]) -> String {
    let mut text = String::new();
    for element in path {
        match parse_step(element) {
            Some(Step::Field(name)) => {
                text.push('.');
                text.push_str(&name);
            }
            Some(Step::Key(identity)) => {
                let parts: Vec<String> = identity
                    .iter()
                    .map(|(key, value)| format!("{key}={value}"))
                    .collect();
                text.push('[');
                text.push_str(&parts.join(","));
                text.push(']');
            }
            Some(Step::SetValue(value)) => text.push_str(&format!("[{value}]")),
            Some(Step::Index(index)) => text.push_str(&format!("[{index}]")),
            None => text.push_str(element),
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn path(elements: &[&str]) -> Vec<String> {
        elements
            .iter()
            .map(|element| (*element).to_owned())
            .collect()
    }

    #[test]
    fn reads_through_keyed_lists_and_sets() {
        let object = json!({
            "metadata": {"finalizers": ["x"]},
            "spec": {"containers": [{"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}]}
        });
        let image = path(&["f:spec", "f:containers", "k:{\"name\":\"b\"}", "f:image"]);
        assert_eq!(value_at(&object, &image), Some(&json!("b:1")));
        assert_eq!(
            value_at(&object, &path(&["f:metadata", "f:finalizers", "v:\"x\""])),
            Some(&json!("x"))
        );
        assert_eq!(display_path(&image), ".spec.containers[name=\"b\"].image");
        let by_index = path(&["f:spec", "f:containers", "i:1", "f:name"]);
        assert_eq!(value_at(&object, &by_index), Some(&json!("b")));
        assert_eq!(display_path(&by_index), ".spec.containers[1].name");
    }

    #[test]
    fn removes_fields_items_and_set_values() {
        let mut object = json!({
            "metadata": {"finalizers": ["x", "y"]},
            "spec": {"replicas": 2, "containers": [{"name": "a"}, {"name": "b"}]}
        });
        assert!(remove_at(&mut object, &path(&["f:spec", "f:replicas"])));
        assert!(remove_at(
            &mut object,
            &path(&["f:spec", "f:containers", "k:{\"name\":\"a\"}"])
        ));
        assert!(remove_at(
            &mut object,
            &path(&["f:metadata", "f:finalizers", "v:\"x\""])
        ));
        assert!(!remove_at(&mut object, &path(&["f:spec", "f:missing"])));
        assert_eq!(
            object,
            json!({"metadata": {"finalizers": ["y"]}, "spec": {"containers": [{"name": "b"}]}})
        );
    }
}
