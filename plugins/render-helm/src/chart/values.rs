//! Values as Helm computes them: user documents merged in order, then coalesced with the chart's defaults and each
//! subchart's (Helm's `CoalesceValues`), `global` copied down to every subchart (the parent wins), after each chart
//! with dependencies took its `import-values` (Helm's `processImportValues`, which merges with nulls kept).
//!
//! Nulls follow Helm 4's rules: a user null deletes the default it meets — in the chart that holds it, so a null
//! under a subchart's section travels down to that subchart first — and stays (as a nil) where it meets none;
//! nulls among a chart's own defaults are dropped rather than copied.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use crate::template::value::SharedMap;
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
#[derive(Debug, Clone, Default)]
pub struct ValuesTree {
    /// The name the chart is used under (its alias, if any).
    pub name: String,
    /// Its `values.yaml`.
    pub defaults: Map,
    /// Its enabled subcharts.
    pub subcharts: Vec<ValuesTree>,
    /// What its parent imports from it.
    pub imports: Vec<Import>,
    /// Whether its parent's `Chart.yaml` declares it (a subchart in `charts/` may also be undeclared).
    pub declared: bool,
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

/// Applies `import-values`, deepest charts first, as Helm's `processDependencyImportValues` does: every chart with
/// a declared (enabled) dependency gets as defaults its values merged with its subcharts' (Helm's `MergeValues`:
/// nulls kept), with the imported tables added where the chart sets nothing itself — a parent's own values win over
/// what it imports, and an earlier import over a later one. A child path that is not a table is skipped, as Helm
/// warns and skips it.
pub fn import_values(tree: &mut ValuesTree) {
    for subchart in &mut tree.subcharts {
        import_values(subchart);
    }
    if !tree.subcharts.iter().any(|s| s.declared) {
        return;
    }
    let values = shared(Map::new());
    coalesce_chart(tree, &values, true);
    let imported = shared(Map::new());
    for subchart in tree.subcharts.iter().filter(|s| s.declared) {
        for import in &subchart.imports {
            let path = format!("{}.{}", subchart.name, import.child);
            let Some(Value::Map(table)) = lookup_path(&values.borrow(), &path) else {
                continue;
            };
            coalesce_tables(&imported, &path_to_map(&import.parent, table), true);
        }
    }
    let defaults = shared(deep_copy_map(&values.borrow()));
    coalesce_tables(&defaults, &imported, true);
    tree.defaults = unshare(defaults);
}

/// `data` nested under a dotted `path` (`.` is the root).
fn path_to_map(path: &str, data: SharedMap) -> SharedMap {
    if path == "." {
        return data;
    }
    let mut current = data;
    for key in path.split('.').rev() {
        current = shared(Map::from([(key.to_string(), Value::Map(current))]));
    }
    current
}

fn shared(map: Map) -> SharedMap {
    Rc::new(RefCell::new(map))
}

fn unshare(map: SharedMap) -> Map {
    Rc::try_unwrap(map)
        .map(RefCell::into_inner)
        .unwrap_or_else(|map| map.borrow().clone())
}

fn deep_copy_map(map: &Map) -> Map {
    map.iter()
        .map(|(key, value)| (key.clone(), value.deep_copy()))
        .collect()
}

/// A map's entries, so that it is not borrowed while they are worked on.
fn entries(map: &SharedMap) -> Vec<(String, Value)> {
    map.borrow()
        .iter()
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

fn get(map: &SharedMap, key: &str) -> Option<Value> {
    map.borrow().get(key).cloned()
}

/// Coalesces user values with a chart's defaults, recursively (Helm's `CoalesceValues`).
///
/// Tables are worked on in place and shared where Helm's Go maps are: `global` tables are copied only one level
/// deep before a subchart's defaults are coalesced into them, so (as in Helm) a subchart's defaults for a table
/// nested two levels under `global` reach the parent's globals and the subcharts coalesced after it.
pub fn coalesce(tree: &ValuesTree, user: Map) -> Map {
    let values = shared(deep_copy_map(&user));
    coalesce_chart(tree, &values, false);
    unshare(values)
}

/// Helm's `coalesce`: the chart's defaults into `dest`, then each subchart's section. With `merge` (Helm's
/// `MergeValues`), nulls are kept rather than deleting what they meet.
fn coalesce_chart(tree: &ValuesTree, dest: &SharedMap, merge: bool) {
    coalesce_values(tree, dest, merge);
    for subchart in &tree.subcharts {
        // Helm refuses a section that is not a table; here it is replaced by an empty one.
        let section = match get(dest, &subchart.name) {
            Some(Value::Map(map)) => map,
            _ => {
                let map = shared(Map::new());
                dest.borrow_mut()
                    .insert(subchart.name.clone(), Value::Map(map.clone()));
                map
            }
        };
        coalesce_globals(&section, dest);
        coalesce_chart(subchart, &section, merge);
    }
}

/// Helm's `coalesceValues`: fills `values` from (a deep copy of) the chart's defaults. A null meeting a default
/// deletes the key (unless merging); a table coalesces with the default table — keeping its nulls when the key is a
/// subchart's section, whose own defaults they are meant for; defaults missing from `values` are copied without
/// their nulls.
fn coalesce_values(tree: &ValuesTree, values: &SharedMap, merge: bool) {
    for (key, default) in &tree.defaults {
        let default = default.deep_copy();
        match get(values, key) {
            Some(Value::Nil) if !merge => {
                values.borrow_mut().remove(key);
            }
            Some(Value::Map(dest)) => {
                if let Value::Map(src) = default {
                    let merge = merge || tree.subcharts.iter().any(|s| &s.name == key);
                    if !merge {
                        clean_nils(&src);
                    }
                    coalesce_tables(&dest, &src, merge);
                }
            }
            Some(_) => {}
            None => {
                if !merge {
                    match &default {
                        Value::Nil => continue,
                        Value::Map(map) => clean_nils(map),
                        _ => {}
                    }
                }
                values.borrow_mut().insert(key.clone(), default);
            }
        }
    }
}

/// Removes null entries, recursively and in place (Helm's `cleanNilValues`).
fn clean_nils(map: &SharedMap) {
    map.borrow_mut().retain(|_, value| !value.is_nil());
    for (_, value) in entries(map) {
        if let Value::Map(inner) = value {
            clean_nils(&inner);
        }
    }
}

/// Helm's `coalesceTablesFullKey`, in place: `dst` wins over `src`; nested tables coalesce; what `dst` lacks it
/// gets from `src` (shared, not copied). A null in `dst` deletes the key when `src` had a value for it (unless
/// merging), and stays a null otherwise; like Helm, this writes those nulls into `src` too.
fn coalesce_tables(dst: &SharedMap, src: &SharedMap, merge: bool) {
    if Rc::ptr_eq(dst, src) {
        return;
    }
    let had_value: BTreeSet<String> = src
        .borrow()
        .iter()
        .filter(|(_, value)| !value.is_nil())
        .map(|(key, _)| key.clone())
        .collect();
    for (key, value) in entries(dst) {
        if value.is_nil() {
            src.borrow_mut().insert(key, Value::Nil);
        }
    }
    for (key, value) in entries(src) {
        match get(dst, &key) {
            Some(Value::Nil) if !merge && had_value.contains(&key) => {
                dst.borrow_mut().remove(&key);
            }
            None => {
                dst.borrow_mut().insert(key, value);
            }
            Some(Value::Map(existing)) => {
                if let Value::Map(incoming) = value {
                    coalesce_tables(&existing, &incoming, merge);
                }
            }
            Some(_) => {}
        }
    }
}

/// Helm's `coalesceGlobals`: the parent's `global` copied into a subchart's section, the parent winning (tables
/// merge; a table never replaces a scalar nor the reverse). A table is copied one level deep, as Helm does.
fn coalesce_globals(section: &SharedMap, parent: &SharedMap) {
    let globals = match get(section, "global") {
        None => shared(Map::new()),
        Some(Value::Map(map)) => map,
        Some(_) => return,
    };
    let parent_globals = match get(parent, "global") {
        None => shared(Map::new()),
        Some(Value::Map(map)) => map,
        Some(_) => return,
    };
    for (key, value) in entries(&parent_globals) {
        match (&value, get(&globals, &key)) {
            (Value::Map(incoming), existing) => {
                let table = shared(incoming.borrow().clone());
                match existing {
                    None => {
                        globals.borrow_mut().insert(key, Value::Map(table));
                    }
                    Some(Value::Map(own)) => {
                        coalesce_tables(&table, &own, true);
                        globals.borrow_mut().insert(key, Value::Map(table));
                    }
                    Some(_) => {}
                }
            }
            (_, Some(Value::Map(_))) => {}
            _ => {
                globals.borrow_mut().insert(key, value);
            }
        }
    }
    section
        .borrow_mut()
        .insert("global".into(), Value::Map(globals));
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
                declared: true,
            }],
            imports: Vec::new(),
            declared: false,
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
    fn a_null_travels_down_to_the_chart_whose_default_it_deletes() {
        let leaf = |name: &str, defaults: &str, subcharts: Vec<ValuesTree>| ValuesTree {
            name: name.into(),
            defaults: map(defaults),
            subcharts,
            imports: Vec::new(),
            declared: true,
        };
        let tree = leaf(
            "parent",
            "child: {removed: null, grandchild: {depth: null}}",
            vec![leaf(
                "child",
                "removed: 2\nkept: 1\ngrandchild: {engine: postgres, params: {a: 1, b: 2}}",
                vec![leaf(
                    "grandchild",
                    "depth: 3\nengine: mysql\nport: 5432\nparams: {c: 3}",
                    Vec::new(),
                )],
            )],
        );
        let at = |values: &Map, path: &str| lookup_path(values, path);
        // User nulls three levels down delete the defaults of the child and of the grandchild alike.
        let values = coalesce(
            &tree,
            map(
                "child: {grandchild: {engine: null, port: null, params: {a: null, c: null}, extra: null}}\nown: null",
            ),
        );
        assert_eq!(at(&values, "child.grandchild.engine"), None);
        assert_eq!(at(&values, "child.grandchild.port"), None);
        assert_eq!(at(&values, "child.grandchild.params.c"), None);
        // ... but a null over what the child sets for its grandchild only replaces it: the grandchild holds no such
        // default to delete, so a nil stays (as in Helm).
        assert_eq!(at(&values, "child.grandchild.params.a"), Some(Value::Nil));
        assert_eq!(
            at(&values, "child.grandchild.params.b"),
            Some(Value::Int(2))
        );
        // A null that meets no default stays, as a nil.
        assert_eq!(at(&values, "child.grandchild.extra"), Some(Value::Nil));
        assert_eq!(at(&values, "own"), Some(Value::Nil));
        // The parent's own nulls for its subchart reach it only along with a user section (Helm 4 drops a
        // chart's default nulls when it copies a table the user did not give).
        let values = coalesce(&tree, Map::new());
        assert_eq!(at(&values, "child.removed"), Some(Value::Int(2)));
        assert_eq!(at(&values, "child.grandchild.depth"), Some(Value::Int(3)));
        let values = coalesce(&tree, map("child: {kept: 5}"));
        assert_eq!(at(&values, "child.removed"), None);
        assert_eq!(at(&values, "child.kept"), Some(Value::Int(5)));
        assert_eq!(at(&values, "child.grandchild.depth"), None);
    }

    #[test]
    fn globals_are_copied_one_level_deep_as_helm_copies_them() {
        let leaf = |name: &str, defaults: &str| ValuesTree {
            name: name.into(),
            defaults: map(defaults),
            declared: true,
            ..ValuesTree::default()
        };
        let tree = ValuesTree {
            name: "parent".into(),
            defaults: map("global: {compat: {openshift: {adapt: auto}}, flat: {a: 1}}"),
            subcharts: vec![
                leaf("first", "x: 1"),
                leaf(
                    "db",
                    "global: {compat: {openshift: {adapt: disabled, nonRoot: true}}, flat: {b: 2}}",
                ),
                leaf("last", "y: 1"),
            ],
            ..ValuesTree::default()
        };
        let values = coalesce(&tree, Map::new());
        let at = |path: &str| lookup_path(&values, path);
        assert_eq!(
            at("db.global.compat.openshift.adapt"),
            Some(Value::string("auto"))
        );
        // A table two levels under `global` is one table shared by the parent and every subchart, so the
        // subchart's default reaches them all...
        for path in ["global", "first.global", "db.global", "last.global"] {
            assert_eq!(
                at(&format!("{path}.compat.openshift.nonRoot")),
                Some(Value::Bool(true)),
                "{path}"
            );
        }
        // ... while a table one level under `global` is the subchart's own copy.
        assert_eq!(at("db.global.flat.b"), Some(Value::Int(2)));
        assert_eq!(at("global.flat.b"), None);
        assert_eq!(at("last.global.flat.b"), None);
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
                declared: true,
            }],
            imports: Vec::new(),
            declared: false,
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
