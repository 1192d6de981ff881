//! Values as Helm computes them: user documents merged in order, then coalesced with the chart's defaults
//! (a user `null` deletes a default), subchart sections filled from each subchart's own defaults, and `global`
//! copied down to every subchart (the parent wins).

use crate::template::{Map, Value};

/// Merges `overlay` into `base`, recursing into maps; the overlay wins (Helm's `mergeMaps` for `-f` files).
pub fn merge_maps(base: &mut Map, overlay: &Map) {
    for (key, value) in overlay {
        if let (Some(Value::Map(existing)), Value::Map(incoming)) = (base.get(key), value) {
            let mut merged = existing.borrow().clone();
            merge_maps(&mut merged, &incoming.borrow());
            base.insert(key.clone(), Value::map(merged));
            continue;
        }
        base.insert(key.clone(), value.clone());
    }
}

/// A chart's defaults and subcharts, as coalescing needs them.
#[derive(Debug, Clone)]
pub struct ValuesTree {
    /// The name the chart is used under (its alias, if any).
    pub name: String,
    /// Its `values.yaml`.
    pub defaults: Map,
    /// Its enabled subcharts.
    pub subcharts: Vec<ValuesTree>,
    /// What its parent imports from it.
    pub imports: Vec<Import>,
}

/// One `import-values` entry of a dependency: the child's table at `child` goes to the parent's `parent` (`.` is
/// the root).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Import {
    /// A dotted path in the child's values (`exports.data` for the short form).
    pub child: String,
    /// A dotted path in the parent's values, or `.`.
    pub parent: String,
}

/// Applies `import-values`, deepest charts first, as Helm's `processDependencyImportValues` does: each chart's
/// defaults become its values coalesced with its subcharts' (no user values), with the imported tables added where
/// the chart sets nothing itself — a parent's own values win over what it imports, and an earlier import over a
/// later one. A child path that is not a table is skipped, as Helm warns and skips it.
pub fn import_values(tree: &mut ValuesTree) {
    for subchart in &mut tree.subcharts {
        import_values(subchart);
    }
    if tree.subcharts.iter().all(|s| s.imports.is_empty()) {
        return;
    }
    let values = coalesce(tree, Map::new());
    let mut imported = Map::new();
    for subchart in &tree.subcharts {
        for import in &subchart.imports {
            let path = format!("{}.{}", subchart.name, import.child);
            let Some(Value::Map(table)) = lookup_path(&values, &path) else {
                continue;
            };
            let table = table.borrow().clone();
            coalesce_tables(&mut imported, &path_to_map(&import.parent, table));
        }
    }
    let mut defaults = values;
    coalesce_tables(&mut defaults, &imported);
    tree.defaults = defaults;
}

/// `data` nested under a dotted `path` (`.` is the root).
fn path_to_map(path: &str, data: Map) -> Map {
    if path == "." {
        return data;
    }
    let mut current = data;
    for key in path.split('.').rev() {
        let mut outer = Map::new();
        outer.insert(key.to_string(), Value::map(current));
        current = outer;
    }
    current
}

/// Coalesces user values with a chart's defaults, recursively (Helm's `CoalesceValues`).
pub fn coalesce(tree: &ValuesTree, user: Map) -> Map {
    let mut values = user;
    coalesce_defaults(&mut values, &tree.defaults);
    coalesce_subcharts(&mut values, tree);
    values
}

/// Fills `values` from `defaults`: missing keys copied, nested maps coalesced, user nulls delete the key.
fn coalesce_defaults(values: &mut Map, defaults: &Map) {
    for (key, default) in defaults {
        match values.get(key) {
            Some(Value::Nil) => {
                values.remove(key);
            }
            Some(Value::Map(user)) => {
                if let Value::Map(default_map) = default {
                    let mut merged = user.borrow().clone();
                    coalesce_tables(&mut merged, &default_map.borrow());
                    values.insert(key.clone(), Value::map(merged));
                }
            }
            Some(_) => {}
            None => {
                values.insert(key.clone(), default.deep_copy());
            }
        }
    }
    remove_nulls(values);
}

/// Helm drops keys whose value ends up null.
fn remove_nulls(values: &mut Map) {
    values.retain(|_, v| !v.is_nil());
    for value in values.values_mut() {
        if let Value::Map(map) = value {
            let mut inner = map.borrow().clone();
            remove_nulls(&mut inner);
            *value = Value::map(inner);
        }
    }
}

/// `dst` wins over `src`; nested maps merge; a null in `dst` deletes the key.
fn coalesce_tables(dst: &mut Map, src: &Map) {
    for (key, value) in src {
        match dst.get(key) {
            Some(Value::Nil) => {
                dst.remove(key);
            }
            None => {
                dst.insert(key.clone(), value.deep_copy());
            }
            Some(Value::Map(existing)) => {
                if let Value::Map(incoming) = value {
                    let mut merged = existing.borrow().clone();
                    coalesce_tables(&mut merged, &incoming.borrow());
                    dst.insert(key.clone(), Value::map(merged));
                }
            }
            Some(_) => {}
        }
    }
}

fn table(values: &Map, key: &str) -> Map {
    match values.get(key) {
        Some(Value::Map(map)) => map.borrow().clone(),
        _ => Map::new(),
    }
}

/// Each subchart's section: its own defaults coalesced in, and the parent's globals copied down.
fn coalesce_subcharts(values: &mut Map, tree: &ValuesTree) {
    for subchart in &tree.subcharts {
        let mut section = table(values, &subchart.name);
        // Globals: the parent's win over the subchart's section.
        let parent_globals = table(values, "global");
        let mut globals = table(&section, "global");
        for (key, value) in parent_globals {
            match (globals.get(&key), &value) {
                (Some(Value::Map(existing)), Value::Map(incoming)) => {
                    let mut merged = incoming.borrow().clone();
                    coalesce_tables(&mut merged, &existing.borrow());
                    globals.insert(key, Value::map(merged));
                }
                _ => {
                    globals.insert(key, value);
                }
            }
        }
        section.insert("global".into(), Value::map(globals));
        let section = coalesce(subchart, section);
        values.insert(subchart.name.clone(), Value::map(section));
    }
}

/// Reads a dotted path (`a.b.c`) in values.
pub fn lookup_path(values: &Map, path: &str) -> Option<Value> {
    let mut parts = path.split('.');
    let mut current = values.get(parts.next()?)?.clone();
    for part in parts {
        current = current.get(part)?;
    }
    Some(current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_document;

    fn map(text: &str) -> Map {
        match parse_document(text).unwrap() {
            Value::Map(m) => m.borrow().clone(),
            _ => Map::new(),
        }
    }

    #[test]
    fn coalesces_like_helm() {
        let tree = ValuesTree {
            name: "parent".into(),
            defaults: map(
                "n1: null\nnested: {b: null, c: 1, d: {e: null}}\nglobal: {g: parent, gm: {a: 1}}\nsub: {x: parent}\nover: {a: 1}",
            ),
            subcharts: vec![ValuesTree {
                name: "sub".into(),
                defaults: map("x: 1\nz: subdefault\nglobal: {g: sub, gm: {b: 2}, own: 1}"),
                subcharts: Vec::new(),
                imports: Vec::new(),
            }],
            imports: Vec::new(),
        };
        let values = coalesce(&tree, map("over: null\nnested: {c: null}"));
        let value = Value::map(values);
        assert_eq!(value.get("over"), None);
        assert_eq!(value.get("n1"), None);
        assert_eq!(value.get("nested").map(|n| n.map_entries().len()), Some(1));
        let sub = value.get("sub").unwrap();
        assert_eq!(sub.get("x"), Some(Value::string("parent")));
        assert_eq!(sub.get("z"), Some(Value::string("subdefault")));
        let globals = sub.get("global").unwrap();
        assert_eq!(globals.get("g"), Some(Value::string("parent")));
        assert_eq!(globals.get("own"), Some(Value::Int(1)));
        assert_eq!(
            globals.get("gm").and_then(|g| g.get("b")),
            Some(Value::Int(2))
        );
        assert_eq!(
            globals.get("gm").and_then(|g| g.get("a")),
            Some(Value::Int(1))
        );
    }

    #[test]
    fn imported_tables_fill_in_under_the_parents_own_values() {
        let mut tree = ValuesTree {
            name: "parent".into(),
            defaults: map("myimports: {own: parent, shared: parent}\nkept: 1"),
            subcharts: vec![ValuesTree {
                name: "child".into(),
                defaults: map(
                    "exports: {data: {exported: yes-string, kept: 2}}\ndefault: {data: {shared: child, new: child}}\nscalar: 3",
                ),
                subcharts: Vec::new(),
                imports: vec![
                    Import {
                        child: "exports.data".into(),
                        parent: ".".into(),
                    },
                    Import {
                        child: "default.data".into(),
                        parent: "myimports".into(),
                    },
                    Import {
                        child: "scalar".into(),
                        parent: "nowhere".into(),
                    },
                ],
            }],
            imports: Vec::new(),
        };
        import_values(&mut tree);
        let values = Value::map(coalesce(&tree, Map::new()));
        assert_eq!(values.get("exported"), Some(Value::string("yes-string")));
        assert_eq!(
            values.get("kept"),
            Some(Value::Int(1)),
            "the parent's own value wins"
        );
        let mine = values.get("myimports").unwrap();
        assert_eq!(mine.get("own"), Some(Value::string("parent")));
        assert_eq!(mine.get("shared"), Some(Value::string("parent")));
        assert_eq!(mine.get("new"), Some(Value::string("child")));
        assert_eq!(values.get("nowhere"), None, "a scalar is not a table");
    }

    #[test]
    fn merges_user_documents_in_order() {
        let mut base = map("a: {b: 1, c: 2}\nl: [1]");
        merge_maps(&mut base, &map("a: {c: 3}\nl: [2]"));
        let value = Value::map(base);
        assert_eq!(value.get("a").and_then(|a| a.get("b")), Some(Value::Int(1)));
        assert_eq!(value.get("a").and_then(|a| a.get("c")), Some(Value::Int(3)));
        assert_eq!(value.get("l"), Some(Value::list(vec![Value::Int(2)])));
        assert_eq!(
            lookup_path(&map("a: {b: true}"), "a.b"),
            Some(Value::Bool(true))
        );
    }
}
