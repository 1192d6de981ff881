//! `values.schema.json`: the coalesced values checked against each chart's JSON Schema (the chart's own section for
//! a subchart), with Helm 4's error text (its validator's, santhosh-tekuri/jsonschema; sibling failures are listed
//! in schema order, where Helm's follow Go's random map order) — the validator's tree of `- at '/pointer': message` lines under the
//! chart's name. The keywords of drafts 4 to 2020-12 that values schemas use are checked; `format` is an
//! annotation, and `$ref` resolves within the schema only (a render never fetches a remote schema).

use serde_json::{Map, Value};

/// One failure: where in the values, what, and the failures it groups.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// A JSON pointer into the values (`""` is the root).
    pub at: String,
    /// What is wrong.
    pub message: String,
    /// The failures this one groups (`validation failed`, `'anyOf' failed`, ...).
    pub causes: Vec<Failure>,
}

impl Failure {
    fn new(at: &str, message: impl Into<String>) -> Self {
        Failure {
            at: at.to_string(),
            message: message.into(),
            causes: Vec::new(),
        }
    }

    fn write(&self, out: &mut String, depth: usize) {
        out.push_str(&"  ".repeat(depth));
        out.push_str(&format!("- at '{}': {}\n", self.at, self.message));
        for cause in &self.causes {
            cause.write(out, depth + 1);
        }
    }
}

/// Helm's text for a chart's failures: one `- at ...` line each, nested causes indented.
pub fn describe(failures: &[Failure]) -> String {
    let mut out = String::new();
    for failure in failures {
        failure.write(&mut out, 0);
    }
    out
}

/// Why a schema could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError(pub String);

/// Checks `instance` against `schema`; the failures at the root, each with its causes.
pub fn validate(schema: &Value, instance: &Value) -> Result<Vec<Failure>, SchemaError> {
    let checker = Checker { root: schema };
    checker.errors(schema, instance, "", 0)
}

/// How deep `$ref`s may chain (a schema that refers to itself without consuming the instance would never end).
const MAX_DEPTH: usize = 64;

struct Checker<'a> {
    root: &'a Value,
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "integer" => value.as_f64().is_some_and(|f| f.fract() == 0.0),
        other => type_name(value) == other,
    }
}

/// A number as the validator prints it: integral values with thousands separators, others shortest.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e21 {
        let digits = format!("{}", value.abs() as u128);
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(c);
        }
        if value < 0.0 {
            format!("-{grouped}")
        } else {
            grouped
        }
    } else {
        format!("{value}")
    }
}

/// A value in a message: strings in single quotes, numbers as [`number`], the rest as JSON.
fn display(value: &Value) -> String {
    match value {
        Value::String(s) => format!("'{s}'"),
        Value::Number(n) => number(n.as_f64().unwrap_or_default()),
        other => other.to_string(),
    }
}

fn quoted_list<'s>(items: impl Iterator<Item = &'s str>) -> String {
    items
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn pointer(base: &str, token: &str) -> String {
    format!("{base}/{}", token.replace('~', "~0").replace('/', "~1"))
}

/// The failures of one subschema as one: none, the single one, or a `validation failed` group.
fn grouped(at: &str, mut failures: Vec<Failure>) -> Option<Failure> {
    match failures.len() {
        0 => None,
        1 => failures.pop(),
        _ => Some(Failure {
            at: at.to_string(),
            message: "validation failed".into(),
            causes: failures,
        }),
    }
}

impl Checker<'_> {
    fn resolve(&self, reference: &str) -> Result<&Value, SchemaError> {
        let Some(fragment) = reference.strip_prefix('#') else {
            return Err(SchemaError(format!(
                "$ref {reference:?}: only references within values.schema.json (#/...) are followed"
            )));
        };
        let decoded = fragment.replace("%25", "%").replace("%22", "\"");
        self.root
            .pointer(&decoded)
            .ok_or_else(|| SchemaError(format!("$ref {reference:?} points at nothing")))
    }

    /// A subschema's failures as one grouped failure (or none).
    fn sub(
        &self,
        schema: &Value,
        instance: &Value,
        at: &str,
        depth: usize,
    ) -> Result<Option<Failure>, SchemaError> {
        Ok(grouped(at, self.errors(schema, instance, at, depth + 1)?))
    }

    fn errors(
        &self,
        schema: &Value,
        instance: &Value,
        at: &str,
        depth: usize,
    ) -> Result<Vec<Failure>, SchemaError> {
        if depth > MAX_DEPTH {
            return Err(SchemaError(format!(
                "$ref chains deeper than {MAX_DEPTH} at '{at}'"
            )));
        }
        let schema = match schema {
            Value::Bool(true) => return Ok(Vec::new()),
            Value::Bool(false) => return Ok(vec![Failure::new(at, "false schema")]),
            Value::Object(map) => map,
            _ => return Ok(Vec::new()),
        };
        let mut out = Vec::new();
        if let Some(Value::String(reference)) = schema.get("$ref") {
            let target = self.resolve(reference)?;
            out.extend(self.errors(target, instance, at, depth + 1)?);
        }
        self.check_any(schema, instance, at, &mut out);
        match instance {
            Value::Number(n) => check_number(schema, n.as_f64().unwrap_or_default(), at, &mut out),
            Value::String(s) => check_string(schema, s, at, &mut out)?,
            Value::Array(items) => self.check_array(schema, items, at, depth, &mut out)?,
            Value::Object(map) => self.check_object(schema, map, at, depth, &mut out)?,
            _ => {}
        }
        self.check_combinators(schema, instance, at, depth, &mut out)?;
        Ok(out)
    }

    fn check_any(
        &self,
        schema: &Map<String, Value>,
        instance: &Value,
        at: &str,
        out: &mut Vec<Failure>,
    ) {
        let wanted: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !wanted.is_empty() && !wanted.iter().any(|t| is_type(instance, t)) {
            const ORDER: [&str; 7] = [
                "null", "boolean", "number", "integer", "string", "array", "object",
            ];
            let mut sorted = wanted.clone();
            sorted.sort_by_key(|t| ORDER.iter().position(|o| o == t).unwrap_or(ORDER.len()));
            out.push(Failure::new(
                at,
                format!("got {}, want {}", type_name(instance), sorted.join(" or ")),
            ));
        }
        if let Some(Value::Array(choices)) = schema.get("enum")
            && !choices.iter().any(|c| equal(c, instance))
        {
            let message = if choices.len() == 1 {
                format!("value must be {}", display(&choices[0]))
            } else {
                let shown: Vec<String> = choices.iter().map(display).collect();
                format!("value must be one of {}", shown.join(", "))
            };
            out.push(Failure::new(at, message));
        }
        if let Some(constant) = schema.get("const")
            && !equal(constant, instance)
        {
            out.push(Failure::new(
                at,
                format!("value must be {}", display(constant)),
            ));
        }
    }

    fn check_array(
        &self,
        schema: &Map<String, Value>,
        items: &[Value],
        at: &str,
        depth: usize,
        out: &mut Vec<Failure>,
    ) -> Result<(), SchemaError> {
        let count = items.len() as f64;
        bound(schema, "minItems", count, at, out, |got, want| got < want);
        bound(schema, "maxItems", count, at, out, |got, want| got > want);
        if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
            'outer: for i in 0..items.len() {
                for j in i + 1..items.len() {
                    if equal(&items[i], &items[j]) {
                        out.push(Failure::new(at, format!("items at {i} and {j} are equal")));
                        break 'outer;
                    }
                }
            }
        }
        // `prefixItems` (2020-12) or an array `items` (earlier drafts) check by position; the rest go to `items`
        // (2020-12) or `additionalItems`.
        let (positional, rest) = match (schema.get("prefixItems"), schema.get("items")) {
            (Some(Value::Array(prefix)), rest) => (prefix.as_slice(), rest),
            (None, Some(Value::Array(prefix))) => {
                (prefix.as_slice(), schema.get("additionalItems"))
            }
            (_, rest) => (&[][..], rest),
        };
        for (index, item) in items.iter().enumerate() {
            let item_at = pointer(at, &index.to_string());
            let subschema = match positional.get(index) {
                Some(s) => s,
                None => match rest {
                    Some(s) => s,
                    None => continue,
                },
            };
            if positional.len() <= index && subschema == &Value::Bool(false) {
                out.push(Failure::new(
                    at,
                    format!("additional items at index {index} not allowed"),
                ));
                break;
            }
            out.extend(self.sub(subschema, item, &item_at, depth)?);
        }
        if let Some(contains) = schema.get("contains") {
            let mut matched = 0;
            for (index, item) in items.iter().enumerate() {
                let item_at = pointer(at, &index.to_string());
                if self.errors(contains, item, &item_at, depth + 1)?.is_empty() {
                    matched += 1;
                }
            }
            if matched == 0 {
                out.push(Failure::new(at, "no items match contains schema"));
            }
        }
        Ok(())
    }

    fn check_object(
        &self,
        schema: &Map<String, Value>,
        map: &Map<String, Value>,
        at: &str,
        depth: usize,
        out: &mut Vec<Failure>,
    ) -> Result<(), SchemaError> {
        let count = map.len() as f64;
        bound(schema, "minProperties", count, at, out, |got, want| {
            got < want
        });
        bound(schema, "maxProperties", count, at, out, |got, want| {
            got > want
        });
        if let Some(Value::Array(required)) = schema.get("required") {
            let missing: Vec<&str> = required
                .iter()
                .filter_map(Value::as_str)
                .filter(|name| !map.contains_key(*name))
                .collect();
            match missing.len() {
                0 => {}
                1 => out.push(Failure::new(
                    at,
                    format!("missing property '{}'", missing[0]),
                )),
                _ => out.push(Failure::new(
                    at,
                    format!("missing properties {}", quoted_list(missing.into_iter())),
                )),
            }
        }
        let dependent = schema
            .get("dependentRequired")
            .or_else(|| schema.get("dependencies"));
        if let Some(Value::Object(dependencies)) = dependent {
            for (name, needs) in dependencies {
                if !map.contains_key(name) {
                    continue;
                }
                match needs {
                    Value::Array(names) => {
                        let missing: Vec<&str> = names
                            .iter()
                            .filter_map(Value::as_str)
                            .filter(|n| !map.contains_key(*n))
                            .collect();
                        if !missing.is_empty() {
                            out.push(Failure::new(
                                at,
                                format!(
                                    "properties {} required, if '{name}' exists",
                                    quoted_list(missing.into_iter())
                                ),
                            ));
                        }
                    }
                    subschema => out.extend(self.errors(
                        subschema,
                        &Value::Object(map.clone()),
                        at,
                        depth + 1,
                    )?),
                }
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        let patterns: Vec<(regex::Regex, &Value)> = match schema.get("patternProperties") {
            Some(Value::Object(patterns)) => patterns
                .iter()
                .map(|(p, s)| {
                    regex::Regex::new(p)
                        .map(|r| (r, s))
                        .map_err(|e| SchemaError(format!("patternProperties {p:?}: {e}")))
                })
                .collect::<Result<_, _>>()?,
            _ => Vec::new(),
        };
        let mut additional = Vec::new();
        let mut names: Vec<&String> = map.keys().collect();
        names.sort();
        for name in names {
            let value = &map[name];
            let value_at = pointer(at, name);
            let mut known = false;
            if let Some(subschema) = properties.and_then(|p| p.get(name)) {
                known = true;
                out.extend(self.sub(subschema, value, &value_at, depth)?);
            }
            for (pattern, subschema) in &patterns {
                if pattern.is_match(name) {
                    known = true;
                    out.extend(self.sub(subschema, value, &value_at, depth)?);
                }
            }
            if !known {
                match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => additional.push(name.as_str()),
                    Some(subschema @ Value::Object(_)) => {
                        out.extend(self.sub(subschema, value, &value_at, depth)?)
                    }
                    _ => {}
                }
            }
            if let Some(names_schema) = schema.get("propertyNames")
                && !self
                    .errors(names_schema, &Value::String(name.clone()), at, depth + 1)?
                    .is_empty()
            {
                out.push(Failure::new(at, format!("invalid propertyName '{name}'")));
            }
        }
        if !additional.is_empty() {
            out.push(Failure::new(
                at,
                format!(
                    "additional properties {} not allowed",
                    quoted_list(additional.into_iter())
                ),
            ));
        }
        Ok(())
    }

    fn check_combinators(
        &self,
        schema: &Map<String, Value>,
        instance: &Value,
        at: &str,
        depth: usize,
        out: &mut Vec<Failure>,
    ) -> Result<(), SchemaError> {
        if let Some(Value::Array(all)) = schema.get("allOf") {
            let mut causes = Vec::new();
            for subschema in all {
                causes.extend(self.sub(subschema, instance, at, depth)?);
            }
            if !causes.is_empty() {
                out.push(Failure {
                    at: at.to_string(),
                    message: "'allOf' failed".into(),
                    causes,
                });
            }
        }
        if let Some(Value::Array(any)) = schema.get("anyOf") {
            let mut causes = Vec::new();
            for subschema in any {
                match self.sub(subschema, instance, at, depth)? {
                    Some(failure) => causes.push(failure),
                    None => {
                        causes.clear();
                        break;
                    }
                }
            }
            if causes.len() == any.len() && !any.is_empty() {
                out.push(Failure {
                    at: at.to_string(),
                    message: "'anyOf' failed".into(),
                    causes,
                });
            }
        }
        if let Some(Value::Array(one)) = schema.get("oneOf") {
            let mut matched = Vec::new();
            let mut causes = Vec::new();
            for (index, subschema) in one.iter().enumerate() {
                match self.sub(subschema, instance, at, depth)? {
                    Some(failure) => causes.push(failure),
                    None => matched.push(index.to_string()),
                }
            }
            match matched.len() {
                1 => {}
                0 => out.push(Failure {
                    at: at.to_string(),
                    message: "'oneOf' failed, none matched".into(),
                    causes,
                }),
                _ => out.push(Failure::new(
                    at,
                    format!("'oneOf' failed, subschemas {} matched", matched.join(", ")),
                )),
            }
        }
        if let Some(not) = schema.get("not")
            && self.errors(not, instance, at, depth + 1)?.is_empty()
        {
            out.push(Failure::new(at, "'not' failed"));
        }
        if let Some(condition) = schema.get("if") {
            let branch = if self.errors(condition, instance, at, depth + 1)?.is_empty() {
                schema.get("then")
            } else {
                schema.get("else")
            };
            if let Some(branch) = branch {
                out.extend(self.errors(branch, instance, at, depth + 1)?);
            }
        }
        Ok(())
    }
}

/// A `min*`/`max*` count keyword.
fn bound(
    schema: &Map<String, Value>,
    keyword: &str,
    got: f64,
    at: &str,
    out: &mut Vec<Failure>,
    fails: impl Fn(f64, f64) -> bool,
) {
    if let Some(want) = schema.get(keyword).and_then(Value::as_f64)
        && fails(got, want)
    {
        out.push(Failure::new(
            at,
            format!("{keyword}: got {}, want {}", number(got), number(want)),
        ));
    }
}

fn check_number(schema: &Map<String, Value>, value: f64, at: &str, out: &mut Vec<Failure>) {
    // Draft 4 writes exclusive bounds as booleans beside `minimum`/`maximum`.
    let exclusive = |key: &str| schema.get(key) == Some(&Value::Bool(true));
    if let Some(want) = schema.get("minimum").and_then(Value::as_f64) {
        if exclusive("exclusiveMinimum") {
            if value <= want {
                out.push(Failure::new(
                    at,
                    format!(
                        "exclusiveMinimum: got {}, want {}",
                        number(value),
                        number(want)
                    ),
                ));
            }
        } else if value < want {
            out.push(Failure::new(
                at,
                format!("minimum: got {}, want {}", number(value), number(want)),
            ));
        }
    }
    if let Some(want) = schema.get("maximum").and_then(Value::as_f64) {
        if exclusive("exclusiveMaximum") {
            if value >= want {
                out.push(Failure::new(
                    at,
                    format!(
                        "exclusiveMaximum: got {}, want {}",
                        number(value),
                        number(want)
                    ),
                ));
            }
        } else if value > want {
            out.push(Failure::new(
                at,
                format!("maximum: got {}, want {}", number(value), number(want)),
            ));
        }
    }
    bound(schema, "exclusiveMinimum", value, at, out, |got, want| {
        got <= want
    });
    bound(schema, "exclusiveMaximum", value, at, out, |got, want| {
        got >= want
    });
    if let Some(divisor) = schema.get("multipleOf").and_then(Value::as_f64)
        && divisor > 0.0
    {
        let quotient = value / divisor;
        if (quotient - quotient.round()).abs() > 1e-9 {
            out.push(Failure::new(
                at,
                format!(
                    "multipleOf: got {}, want {}",
                    number(value),
                    number(divisor)
                ),
            ));
        }
    }
}

fn check_string(
    schema: &Map<String, Value>,
    value: &str,
    at: &str,
    out: &mut Vec<Failure>,
) -> Result<(), SchemaError> {
    let length = value.chars().count() as f64;
    bound(schema, "minLength", length, at, out, |got, want| got < want);
    bound(schema, "maxLength", length, at, out, |got, want| got > want);
    if let Some(Value::String(pattern)) = schema.get("pattern") {
        let regex = regex::Regex::new(pattern)
            .map_err(|e| SchemaError(format!("pattern {pattern:?}: {e}")))?;
        if !regex.is_match(value) {
            out.push(Failure::new(
                at,
                format!("'{value}' does not match pattern '{pattern}'"),
            ));
        }
    }
    Ok(())
}

/// JSON equality with numbers compared by value (`1` equals `1.0`).
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(schema: Value, instance: Value) -> String {
        describe(&validate(&schema, &instance).unwrap())
    }

    #[test]
    fn messages_read_as_helm_4_prints_them() {
        let schema = json!({
            "type": "object",
            "required": ["name", "zz"],
            "definitions": {"port": {"type": "integer", "maximum": 65535}},
            "properties": {
                "replicas": {"type": ["integer", "null"], "minimum": 1},
                "name": {"type": "string", "maxLength": 5, "pattern": "^[a-z]+$"},
                "port": {"$ref": "#/definitions/port"},
                "mode": {"enum": ["a", "b"]},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
                "any": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
            },
            "additionalProperties": false
        });
        let text = lines(
            schema,
            json!({"replicas": 0.5, "name": "ABCDEFG", "port": 70000, "mode": "z",
                   "tags": [1, 1], "any": 1.5, "extra": 1, "more": 2}),
        );
        for expected in [
            "- at '': missing property 'zz'\n",
            "- at '/replicas': got number, want null or integer\n",
            "- at '/name': validation failed\n  - at '/name': maxLength: got 7, want 5\n  - at '/name': 'ABCDEFG' does not match pattern '^[a-z]+$'\n",
            "- at '/port': maximum: got 70,000, want 65,535\n",
            "- at '/mode': value must be one of 'a', 'b'\n",
            "  - at '/tags': items at 0 and 1 are equal\n",
            "  - at '/tags/0': got number, want string\n",
            "- at '/any': 'anyOf' failed\n  - at '/any': got number, want string\n  - at '/any': got number, want integer\n",
            "- at '': additional properties 'extra', 'more' not allowed\n",
        ] {
            assert!(text.contains(expected), "{expected:?} not in\n{text}");
        }
    }

    #[test]
    fn valid_values_pass_and_integral_floats_are_integers() {
        let schema =
            json!({"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 2}}});
        assert!(validate(&schema, &json!({"n": 4.0})).unwrap().is_empty());
        assert!(validate(&json!(true), &json!(1)).unwrap().is_empty());
        assert_eq!(lines(json!(false), json!(1)), "- at '': false schema\n");
    }

    #[test]
    fn remote_and_dangling_references_are_refused_clearly() {
        let remote = json!({"$ref": "https://example.com/schema.json"});
        assert!(
            validate(&remote, &json!({}))
                .unwrap_err()
                .0
                .contains("only references within")
        );
        let dangling = json!({"$ref": "#/definitions/none"});
        assert!(
            validate(&dangling, &json!({}))
                .unwrap_err()
                .0
                .contains("points at nothing")
        );
        let looping = json!({"$ref": "#"});
        assert!(
            validate(&looping, &json!({}))
                .unwrap_err()
                .0
                .contains("deeper than")
        );
    }
}
