//! Flattening `List` objects (`v1/List`, `ConfigMapList`, ...) into their items, as `kubectl` and Argo CD do.

use serde_json::Value;

/// An object out of a document, and where it sat when it came out of a `List` (`""` for the document itself).
#[derive(Debug, Clone, PartialEq)]
pub struct Flattened {
    pub place: String,
    pub value: Value,
}

/// Whether an object is a list: its kind ends in `List` and its `items` is an array (or `null`, an empty list).
pub fn is_list(value: &Value) -> bool {
    let kind_is_list = value
        .get("kind")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind.ends_with("List"));
    kind_is_list && matches!(value.get("items"), Some(Value::Array(_) | Value::Null))
}

/// The objects a document stands for: its items, recursively, when it is a list, else itself.
pub fn flatten_lists(value: Value) -> Vec<Flattened> {
    let mut out = Vec::new();
    flatten_into(value, String::new(), &mut out);
    out
}

fn flatten_into(value: Value, place: String, out: &mut Vec<Flattened>) {
    if !is_list(&value) {
        out.push(Flattened { place, value });
        return;
    }
    let Value::Object(mut object) = value else {
        return;
    };
    let Some(Value::Array(items)) = object.remove("items") else {
        return;
    };
    for (i, item) in items.into_iter().enumerate() {
        let item_place = if place.is_empty() {
            format!("List item {}", i + 1)
        } else {
            format!("{place}, item {}", i + 1)
        };
        flatten_into(item, item_place, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_flatten_recursively_with_places() {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": [
            {"kind": "A"},
            {"apiVersion": "v1", "kind": "ConfigMapList", "items": [{"kind": "B"}, {"kind": "C"}]},
        ]});
        let flat = flatten_lists(list);
        let places: Vec<&str> = flat.iter().map(|f| f.place.as_str()).collect();
        assert_eq!(
            places,
            ["List item 1", "List item 2, item 1", "List item 2, item 2"]
        );
        assert_eq!(flat[2].value, json!({"kind": "C"}));
    }

    #[test]
    fn null_items_is_an_empty_list_and_other_objects_pass() {
        assert!(flatten_lists(json!({"kind": "ConfigMapList", "items": null})).is_empty());
        let object = json!({"kind": "Deployment", "items": [1]});
        assert_eq!(
            flatten_lists(object.clone()),
            [Flattened {
                place: String::new(),
                value: object
            }]
        );
        let no_items = json!({"kind": "List"});
        assert_eq!(flatten_lists(no_items).len(), 1);
    }
}
