//! Kustomize's keyed lists: how kyaml's merge (`merge2`, walking with `walk.Walker` and prepending the patch's
//! elements, as `kubectl kustomize` v5.5 runs it) rebuilds a list with merge keys, step for step. Every such list of
//! the destination is rebuilt, the patch's or not, so a list holding two elements with one key comes out with one:
//! at the first one's place, with the last one's value.
//!
//! The steps, over the elements' key values as text (a missing, null or empty key is `""`):
//! 1. the distinct key tuples, the patch's elements first, then the destination's; with several keys, tuples that
//!    differ only where one of them is empty are made one (a port without a protocol is the port with one);
//! 2. for each tuple, the first destination element and the first patch element it names are merged, and the result
//!    replaces the elements it names in the new list, or is appended (a deleted element is removed from the
//!    destination instead);
//! 3. the destination's elements are set into the new list again by their own keys: with one key each replaces the
//!    elements with its value (so duplicates collapse and the last wins); with several keys each is removed and
//!    appended, which keeps the destination's order for the elements it had.

use serde_json::Value;

use super::PatchError;

/// The result of merging one element.
pub(super) struct Merged {
    /// The merged element; `None` when the patch deletes it.
    pub value: Option<Value>,
    /// Whether the merge changed the destination's element in place (kyaml merges into the destination's node, so
    /// step 3 sees the merged element); false when the patch replaced it or there was none.
    pub in_place: bool,
}

/// Merges one element: the destination's (if any) with the patch's (if any).
pub(super) type MergeElement<'m> =
    dyn FnMut(Option<Value>, Option<&Value>) -> Result<Merged, PatchError> + 'm;

/// Merges `patch` into the keyed list `dest` (keys `keys`), merging a pair of elements with `merge`.
pub(super) fn merge_keyed(
    mut dest: Vec<Value>,
    patch: &[Value],
    keys: &[&str],
    merge: &mut MergeElement<'_>,
) -> Result<Vec<Value>, PatchError> {
    let mut tuples: Vec<Vec<String>> = Vec::new();
    for element in patch.iter().chain(dest.iter()) {
        let tuple = key_tuple(element, keys);
        if !tuples.contains(&tuple) {
            tuples.push(tuple);
        }
    }
    if keys.len() > 1 {
        merge_partial_tuples(&mut tuples);
    }
    let mut items: Vec<Value> = Vec::new();
    let mut valid_keys: Vec<&str> = keys.to_vec();
    for tuple in &tuples {
        let (tuple_keys, tuple_values) = valid_keys_of(&tuples, tuple, keys);
        let (lookup_keys, lookup_values) = valid_keys_of(
            std::slice::from_ref(&tuple_values),
            &tuple_values,
            &tuple_keys,
        );
        let dest_index = first_matching(&dest, &lookup_keys, &lookup_values);
        let patch_element = first_matching(patch, &lookup_keys, &lookup_values).map(|i| &patch[i]);
        let merged = merge(dest_index.map(|i| dest[i].clone()), patch_element)?;
        valid_keys.clone_from(&tuple_keys);
        let Some(mut value) = merged.value.filter(|v| !is_empty_map(v)) else {
            set_element(&mut dest, None, &tuple_keys, &tuple_values);
            continue;
        };
        if let Value::Object(map) = &mut value {
            for (key, wanted) in tuple_keys.iter().zip(&tuple_values) {
                if !map.contains_key(*key) && !wanted.is_empty() {
                    map.insert((*key).to_owned(), Value::String(wanted.clone()));
                }
            }
        }
        if merged.in_place
            && let Some(index) = dest_index
        {
            dest[index] = value.clone();
        }
        set_element(&mut items, Some(value), &tuple_keys, &tuple_values);
    }
    if !tuples.is_empty() {
        set_again(&mut items, &dest, &valid_keys);
    }
    Ok(items)
}

/// An element's key values as text, `""` where a key is missing, null or empty.
fn key_tuple(element: &Value, keys: &[&str]) -> Vec<String> {
    keys.iter()
        .map(|key| match element.get(*key) {
            Some(value) if !is_nil_or_empty(value) => node_text(value),
            _ => String::new(),
        })
        .collect()
}

fn is_nil_or_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

fn is_empty_map(value: &Value) -> bool {
    value.as_object().is_some_and(serde_json::Map::is_empty)
}

/// A node's text as YAML holds it: a scalar's text, nothing for null, a map or a list.
fn node_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        Value::Bool(flag) => flag.to_string(),
        Value::Null | Value::Object(_) | Value::Array(_) => String::new(),
    }
}

/// Tuples that share a value and differ only where one of them is empty become one, the empty places filled
/// (kyaml's `mergeValues`, including how its loops see their own updates).
fn merge_partial_tuples(tuples: &mut [Vec<String>]) {
    for i in 0..tuples.len() {
        let first = tuples[i].clone();
        for j in 0..tuples.len() {
            if let Some(joined) = joined_tuple(&first, &tuples[j]) {
                tuples[i].clone_from(&joined);
                tuples[j] = joined;
            }
        }
    }
}

fn joined_tuple(a: &[String], b: &[String]) -> Option<Vec<String>> {
    if a.len() != b.len() {
        return None;
    }
    let mut common = false;
    let mut joined = Vec::with_capacity(a.len());
    for (x, y) in a.iter().zip(b) {
        if x == y {
            common = true;
            joined.push(x.clone());
        } else if !x.is_empty() && !y.is_empty() {
            return None;
        } else if x.is_empty() {
            joined.push(y.clone());
        } else {
            joined.push(x.clone());
        }
    }
    common.then_some(joined)
}

/// The keys some tuple of `tuples` gives a value for, with `tuple`'s values for them; every key when none does
/// (kyaml's `validateKeys`).
fn valid_keys_of<'k>(
    tuples: &[Vec<String>],
    tuple: &[String],
    keys: &[&'k str],
) -> (Vec<&'k str>, Vec<String>) {
    let given = |index: usize| {
        tuples
            .iter()
            .any(|t| t.get(index).is_some_and(|v| !v.is_empty()))
    };
    if !(0..keys.len()).any(given) {
        return (keys.to_vec(), tuple.to_vec());
    }
    (0..keys.len())
        .filter(|&index| given(index))
        .map(|index| (keys[index], tuple.get(index).cloned().unwrap_or_default()))
        .unzip()
}

/// The first map element whose every key has exactly the value's text (kyaml's `ElementList`).
fn first_matching(list: &[Value], keys: &[&str], values: &[String]) -> Option<usize> {
    list.iter().position(|element| {
        element.is_object()
            && keys.iter().zip(values).all(|(key, wanted)| {
                element
                    .get(*key)
                    .is_some_and(|value| node_text(value) == *wanted)
            })
    })
}

/// Whether `element` has `key` with the text `wanted`; an empty `wanted` asks only that the key is there.
fn has_field(element: &Value, key: &str, wanted: &str) -> bool {
    element
        .get(key)
        .is_some_and(|value| wanted.is_empty() || node_text(value) == wanted)
}

/// kyaml's `ElementSetter`: every element named by the first `values.len()` keys is replaced by `element` (removed
/// when there is none), null and empty elements are dropped, and `element` is appended when nothing matched. With
/// no values nothing matches and only `element` is left.
fn set_element(list: &mut Vec<Value>, element: Option<Value>, keys: &[&str], values: &[String]) {
    let mapping_setter = values.first().is_some_and(|v| !v.is_empty());
    let mut matched = false;
    let mut kept = Vec::with_capacity(list.len() + 1);
    for item in list.drain(..) {
        if item.is_null() || is_empty_map(&item) {
            continue;
        }
        if !item.is_object() && mapping_setter {
            kept.push(item);
            continue;
        }
        let named = !values.is_empty()
            && keys
                .iter()
                .zip(values)
                .all(|(key, wanted)| has_field(&item, key, wanted));
        if !named {
            if !values.is_empty() {
                kept.push(item);
            }
            continue;
        }
        matched = true;
        if let Some(element) = &element {
            kept.push(element.clone());
        }
    }
    *list = kept;
    if let Some(element) = element
        && !matched
    {
        list.push(element);
    }
}

/// kyaml's `appendListNode`: the destination's elements set into `items` again by their own keys; an element
/// lacking a key is appended as it is first.
fn set_again(items: &mut Vec<Value>, dest: &[Value], keys: &[&str]) {
    for element in dest {
        let mut values = Vec::with_capacity(keys.len());
        for key in keys {
            match element.get(*key) {
                Some(value) => values.push(node_text(value)),
                None => items.push(element.clone()),
            }
        }
        if keys.len() > 1 {
            set_element(items, None, keys, &values);
        }
        set_element(items, Some(element.clone()), keys, &values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keep_or_merge(dest: Option<Value>, patch: Option<&Value>) -> Result<Merged, PatchError> {
        Ok(match (dest, patch) {
            (Some(Value::Object(mut d)), Some(Value::Object(p))) => {
                for (k, v) in p {
                    d.insert(k.clone(), v.clone());
                }
                Merged {
                    value: Some(Value::Object(d)),
                    in_place: true,
                }
            }
            (Some(d), None) => Merged {
                value: Some(d),
                in_place: true,
            },
            (_, p) => Merged {
                value: p.cloned(),
                in_place: false,
            },
        })
    }

    fn merged(dest: Value, patch: Value, keys: &[&str]) -> Value {
        let dest = dest.as_array().cloned().unwrap_or_default();
        let patch = patch.as_array().cloned().unwrap_or_default();
        Value::Array(merge_keyed(dest, &patch, keys, &mut keep_or_merge).expect("merges"))
    }

    #[test]
    fn duplicate_names_collapse_at_the_first_place_with_the_last_value() {
        let env = json!([{"name": "A", "value": "1"}, {"name": "B"}, {"name": "A", "value": "2"}]);
        assert_eq!(
            merged(env, json!([]), &["name"]),
            json!([{"name": "A", "value": "2"}, {"name": "B"}])
        );
    }

    #[test]
    fn new_patch_elements_go_first_and_merged_ones_take_the_patch_place() {
        let env = json!([{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]);
        let patch = json!([{"name": "C", "value": "3"}, {"name": "B", "value": "9"}]);
        assert_eq!(
            merged(env, patch, &["name"]),
            json!([{"name": "C", "value": "3"}, {"name": "B", "value": "9"}, {"name": "A", "value": "1"}])
        );
    }

    #[test]
    fn with_two_keys_existing_elements_keep_their_order_after_the_new_ones() {
        let ports = json!([{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 80, "protocol": "UDP"},
                           {"containerPort": 90}]);
        let patch = json!([{"containerPort": 81, "name": "new"},
                           {"containerPort": 80, "protocol": "UDP", "name": "u"}]);
        assert_eq!(
            merged(ports, patch, &["containerPort", "protocol"]),
            json!([{"containerPort": 81, "name": "new"}, {"containerPort": 80, "protocol": "TCP"},
                   {"containerPort": 80, "protocol": "UDP", "name": "u"}, {"containerPort": 90}])
        );
    }

    #[test]
    fn a_tuple_missing_a_key_joins_the_one_that_gives_it() {
        let mut tuples = vec![
            vec!["80".to_owned(), String::new()],
            vec!["80".to_owned(), "TCP".to_owned()],
            vec!["90".to_owned(), String::new()],
        ];
        merge_partial_tuples(&mut tuples);
        assert_eq!(tuples[0], ["80", "TCP"]);
        assert_eq!(tuples[1], ["80", "TCP"]);
        assert_eq!(tuples[2], ["90", ""]);
    }

    #[test]
    fn the_element_setter_replaces_every_named_element_and_drops_empty_ones() {
        let mut list = vec![
            json!({"name": "A", "v": 1}),
            json!({}),
            json!({"name": "A", "v": 2}),
            json!({"name": "B"}),
        ];
        set_element(
            &mut list,
            Some(json!({"name": "A", "v": 3})),
            &["name"],
            &["A".to_owned()],
        );
        assert_eq!(
            list,
            [
                json!({"name": "A", "v": 3}),
                json!({"name": "A", "v": 3}),
                json!({"name": "B"})
            ]
        );
        set_element(&mut list, None, &["name"], &["A".to_owned()]);
        assert_eq!(list, [json!({"name": "B"})]);
    }
}
