#!/usr/bin/env python3
"""Generates `crates/k8s/src/schema/table.rs`: how every list field of every built-in Kubernetes kind merges, read
from the Kubernetes OpenAPI (v2) document.

    python3 crates/k8s/gen/schema_table.py /tmp/k8s-1.34-swagger.json

Source of the table checked in: Kubernetes 1.34, `api/openapi-spec/swagger.json` of kubernetes/kubernetes branch
release-1.34, in the copy kubernetes-client/python keeps of it: tag v34.1.0 (commit
5b23a44aa06010ac6ffe423d7b0e090caf7882ff; the file last changed in 4f585b3b8eb46c8afada5fa74200d9c859e2e92e,
2025-09-15, "generated API change"), file `kubernetes/swagger.json.unprocessed` (the spec as downloaded from
kubernetes/kubernetes, before the client generator's own processing); sha256
f0cb7a8eaad46df1883eeb494771d310609c859649aff668bba3d238ffcb1a6e. The kubernetes/kubernetes repository itself was
too large to copy here whole. Any later swagger.json of kubernetes/kubernetes works the same way: add its sha256 and
description to KNOWN_SOURCES so the generated header names it.

The table is by definition, not by flattened path, so it stays small and recursive schemas (JSONSchemaProps) need
nothing special:
- KINDS: (group, version, kind) -> root definition, for every definition with `x-kubernetes-group-version-kind`
  except `*List` kinds and the apimachinery meta kinds (DeleteOptions, WatchEvent, Status, APIGroup, ...). Sorted
  by group, kind, then Kubernetes version priority (stable before beta before alpha, newer first), so the first
  entry of a group/kind is its preferred version. Kinds that are request bodies rather than stored objects
  (Binding, Eviction, Scale, TokenRequest, the *Review kinds) are kept: they are built-in kinds all the same.
- DEFS: each reachable definition's fields that matter for merging: arrays (with their list type, list-map keys,
  patch strategy and patch merge key), objects and maps that lead to such fields, and fields marked with
  `x-kubernetes-patch-strategy`. Scalar fields, opaque types (Quantity, Time, RawExtension, JSON, ...) and
  definitions that lead to no list and no strategy are left out: every path into them answers `None` anyway.

Strings marked `x-kubernetes-list-type: atomic` (`format: byte`, e.g. a CertificateSigningRequest's `request`) are
strings in JSON, not lists, and are left out. The output is already as rustfmt formats it (the two tables are
`#[rustfmt::skip]`).

Standard library only. The generator stops on any shape it does not know (an array of arrays, a map of maps, an
unknown strategy or list type) rather than guess.
"""

import hashlib
import json
import os
import re
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "schema", "table.rs")
REF_PREFIX = "#/definitions/"
META_PREFIX = "io.k8s.apimachinery.pkg.apis.meta.v1."

# The source documents this generator has been run on, by sha256: what to say of them in the header.
KNOWN_SOURCES = {
    "f0cb7a8eaad46df1883eeb494771d310609c859649aff668bba3d238ffcb1a6e": (
        "Kubernetes 1.34: kubernetes/kubernetes release-1.34 `api/openapi-spec/swagger.json`, as kept in\n"
        "//! kubernetes-client/python v34.1.0 (5b23a44aa06010ac6ffe423d7b0e090caf7882ff) `kubernetes/swagger.json.unprocessed`"
    ),
}

STRATEGIES = {
    "merge": "PatchStrategy::Merge",
    "replace": "PatchStrategy::Replace",
    "retainKeys": "PatchStrategy::RetainKeys { merge: false }",
    "merge,retainKeys": "PatchStrategy::RetainKeys { merge: true }",
}
STRATEGY_NAMES = {"merge": "MERGE", "replace": "REPLACE", "retainKeys": "RETAIN", "merge,retainKeys": "MERGE_RETAIN"}
LIST_TYPES = ("atomic", "set", "map")


def fail(message):
    sys.exit("schema_table.py: " + message)


def ref_name(schema):
    ref = schema.get("$ref")
    if ref is None:
        return None
    if not ref.startswith(REF_PREFIX):
        fail("unexpected $ref " + ref)
    return ref[len(REF_PREFIX):]


def version_priority(version):
    """Sort key: stable before beta before alpha, higher major then higher minor first (as Kubernetes orders
    versions); anything else last, alphabetically."""
    m = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    if not m:
        return (3, 0, 0, version)
    stage = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    return (stage, -int(m.group(1)), -int(m.group(3) or 0), version)


def upper_snake(text):
    return re.sub(r"[^A-Za-z0-9]+", "_", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)).strip("_").upper()


def rust_str(text):
    return json.dumps(text)  # JSON string escapes are valid Rust string escapes for these names


class Generator:
    def __init__(self, definitions):
        self.defs = definitions
        self.lists = {}  # (list_type, keys, strategy, merge_key) -> const name
        self.list_fields = 0

    def list_schema(self, where, prop):
        list_type = prop.get("x-kubernetes-list-type")
        keys = prop.get("x-kubernetes-list-map-keys")
        strategy = prop.get("x-kubernetes-patch-strategy")
        merge_key = prop.get("x-kubernetes-patch-merge-key")
        if list_type is not None and list_type not in LIST_TYPES:
            fail(f"{where}: unknown list type {list_type!r}")
        if (list_type == "map") != (keys is not None):
            fail(f"{where}: list-map keys {keys!r} with list type {list_type!r}")
        if list_type == "map" and not keys:
            fail(f"{where}: a list-map without keys")
        if strategy is not None and strategy not in STRATEGIES:
            fail(f"{where}: unknown patch strategy {strategy!r}")
        key = (list_type, tuple(keys or ()), strategy, merge_key)
        if key not in self.lists:
            name = {None: "UNMARKED", "atomic": "ATOMIC", "set": "SET"}.get(list_type)
            if name is None:
                name = "MAP_" + "_".join(upper_snake(k) for k in keys)
            if strategy is not None:
                name += "_" + STRATEGY_NAMES[strategy]
            if merge_key is not None:
                name += "_BY_" + upper_snake(merge_key)
            if name in self.lists.values():
                fail(f"{where}: list schema name {name} would be used twice")
            self.lists[key] = name
        return self.lists[key]

    def field(self, where, prop):
        """What one property is: (map, target definition or None, list schema const or None, strategy or None)."""
        map_ = False
        schema = prop
        if schema.get("type") == "object" and "additionalProperties" in schema:
            map_ = True
            schema = schema["additionalProperties"]
            if not isinstance(schema, dict):
                return None
        strategy = prop.get("x-kubernetes-patch-strategy")
        if strategy is not None and strategy not in STRATEGIES:
            fail(f"{where}: unknown patch strategy {strategy!r}")
        if schema.get("type") == "array":
            items = schema.get("items", {})
            if items.get("type") in ("array", "object") and "$ref" not in items:
                fail(f"{where}: an array of {items.get('type')}s is not supported")
            list_ = self.list_schema(where, schema)
            self.list_fields += 1
            return (map_, ref_name(items), list_, None)
        if map_ and schema.get("type") == "object" and "additionalProperties" in schema:
            fail(f"{where}: a map of maps is not supported")
        if "x-kubernetes-list-type" in prop and schema.get("type") == "string":
            return None  # `format: byte` strings are marked atomic lists: a string in JSON, not a list
        return (map_, ref_name(schema), None, strategy)

    def build(self, roots):
        # Every definition reachable from the roots, with its candidate fields.
        raw = {}
        pending = list(roots)
        while pending:
            name = pending.pop()
            if name in raw:
                continue
            if name not in self.defs:
                fail(f"unknown definition {name}")
            fields = []
            for prop_name, prop in sorted(self.defs[name].get("properties", {}).items()):
                info = self.field(f"{name}.{prop_name}", prop)
                if info is None:
                    continue
                fields.append((prop_name,) + info)
                if info[1] is not None:
                    pending.append(info[1])
            raw[name] = fields
        # Keep the definitions that lead to a list or a strategy (a fixpoint, since schemas recurse).
        useful = set()
        changed = True
        while changed:
            changed = False
            for name, fields in raw.items():
                if name in useful:
                    continue
                if any(lst or strat or target in useful for _, _, target, lst, strat in fields):
                    useful.add(name)
                    changed = True
        for root in roots:
            useful.add(root)  # a kind with no list still has a (possibly empty) root, so it is known
        order = sorted(useful)
        index = {name: i for i, name in enumerate(order)}
        table = []
        for name in order:
            kept = []
            for prop_name, map_, target, lst, strat in raw[name]:
                target_index = index.get(target)
                if lst is None and strat is None and target_index is None:
                    continue
                kept.append((prop_name, map_, target_index, lst, strat))
            table.append((name, kept))
        return table, index


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: schema_table.py SWAGGER_JSON")
    path = sys.argv[1]
    with open(path, "rb") as f:
        data = f.read()
    digest = hashlib.sha256(data).hexdigest()
    doc = json.loads(data)
    definitions = doc["definitions"]

    kinds = []
    for name, schema in definitions.items():
        if name.startswith(META_PREFIX):
            continue  # DeleteOptions, WatchEvent, Status, APIGroup, APIVersions, APIResourceList, ...
        for gvk in schema.get("x-kubernetes-group-version-kind", []):
            if gvk["kind"].endswith("List"):
                continue
            kinds.append((gvk["group"], gvk["version"], gvk["kind"], name))
    kinds.sort(key=lambda k: (k[0], k[2], version_priority(k[1])))
    if len({k[:3] for k in kinds}) != len(kinds):
        fail("a group/version/kind is defined twice")

    gen = Generator(definitions)
    table, index = gen.build(sorted({k[3] for k in kinds}))
    field_count = sum(len(fields) for _, fields in table)

    out = []
    w = out.append
    w("//! Generated table of how each list field of each built-in Kubernetes kind merges (server-side apply's")
    w("//! `x-kubernetes-list-type` and list-map keys, strategic merge patch's strategy and merge key); read through")
    w("//! [`crate::schema`].")
    w("//!")
    w("//! GENERATED: do not edit by hand. Regenerate with")
    w("//! `python3 crates/k8s/gen/schema_table.py <swagger.json>` (see `crates/k8s/gen/README.md`).")
    w(f"//! Source: `{os.path.basename(path)}`, sha256 {digest}:")
    w("//! " + KNOWN_SOURCES.get(digest, "a Kubernetes OpenAPI v2 document of an unrecorded version") + ".")
    w(f"//! {len(kinds)} kinds, {len(table)} definitions, {field_count} fields of which {gen.list_fields} lists.")
    w("")
    w("use super::{Field, ListSchema, ListType, NO_DEF, PatchStrategy};")
    w("")
    w("/// An object field (or a map of objects when `map`) that leads to lists, or carries a patch strategy.")
    w("const fn o(name: &'static str, def: u16, map: bool, strategy: PatchStrategy) -> Field {")
    w("    Field {")
    w("        name,")
    w("        def,")
    w("        map,")
    w("        list: None,")
    w("        strategy,")
    w("    }")
    w("}")
    w("")
    w("/// A list field (or a map of lists when `map`) whose items are of definition `def` (or scalars: [`NO_DEF`]).")
    w("const fn l(name: &'static str, def: u16, map: bool, list: ListSchema) -> Field {")
    w("    Field {")
    w("        name,")
    w("        def,")
    w("        map,")
    w("        list: Some(list),")
    w("        strategy: PatchStrategy::Default,")
    w("    }")
    w("}")
    w("")
    w("/// No patch strategy.")
    w("const D: PatchStrategy = PatchStrategy::Default;")
    w("")
    for (list_type, keys, strategy, merge_key), const in sorted(gen.lists.items(), key=lambda kv: kv[1]):
        lt = {
            None: "None",
            "atomic": "Some(ListType::Atomic)",
            "set": "Some(ListType::Set)",
            "map": "Some(ListType::Map(&[" + ", ".join(rust_str(k) for k in keys) + "]))",
        }[list_type]
        ps = STRATEGIES[strategy] if strategy else "PatchStrategy::Default"
        mk = f"Some({rust_str(merge_key)})" if merge_key else "None"
        doc = {
            None: "Unmarked (atomic for server-side apply)",
            "atomic": "`atomic`",
            "set": "`set`",
            "map": "`map` keyed by " + ", ".join(f"`{k}`" for k in keys),
        }[list_type]
        doc += f"; patch strategy `{strategy}`" if strategy else "; no patch strategy"
        doc += f", merge key `{merge_key}`." if merge_key else "."
        w(f"/// {doc}")
        w(f"const {const}: ListSchema = ListSchema {{")
        w(f"    list_type: {lt},")
        w(f"    patch_strategy: {ps},")
        w(f"    patch_merge_key: {mk},")
        w("};")
    w("")
    w("/// The built-in kinds: (group, version, kind, root definition in [`DEFS`]), by group, kind, then version")
    w("/// priority (stable before beta before alpha, newer first): a group/kind's first entry is its preferred version.")
    w("#[rustfmt::skip]")
    w("pub(crate) static KINDS: &[(&str, &str, &str, u16)] = &[")
    for group, version, kind, name in kinds:
        w(f"    ({rust_str(group)}, {rust_str(version)}, {rust_str(kind)}, {index[name]}),")
    w("];")
    w("")
    w("/// The definitions, by index: each one's fields that matter for merging, by name.")
    w("#[rustfmt::skip]")
    w("pub(crate) static DEFS: &[&[Field]] = &[")
    for i, (name, fields) in enumerate(table):
        w(f"    // {i}: {name}")
        if not fields:
            w("    &[],")
            continue
        w("    &[")
        for prop_name, map_, target, lst, strat in fields:
            target_s = "NO_DEF" if target is None else str(target)
            map_s = "true" if map_ else "false"
            if lst is not None:
                w(f"        l({rust_str(prop_name)}, {target_s}, {map_s}, {lst}),")
            else:
                strat_s = STRATEGIES[strat] if strat else "D"
                w(f"        o({rust_str(prop_name)}, {target_s}, {map_s}, {strat_s}),")
        w("    ],")
    w("];")
    if len(table) >= 0xFFFF:
        fail("too many definitions for a u16 index")

    with open(OUT, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"{os.path.normpath(OUT)}: {len(kinds)} kinds, {len(table)} definitions, {field_count} fields, "
          f"{gen.list_fields} list fields, {len(gen.lists)} list schemas")


if __name__ == "__main__":
    main()
