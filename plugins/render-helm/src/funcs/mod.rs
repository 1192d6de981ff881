//! The functions templates call: Go's builtins, Sprig's (random values, keys, certificates, bcrypt salts and AES IVs
//! drawn from the app's render seed, the clock and certificates' validity from the revision's time; no DNS, as in
//! Helm without `--enable-dns`),
//! and Helm's own (`toYaml`, `toToml`, `required`, `fail`, ...). `include`, `tpl` and `lookup` live in the evaluator, which they need.

mod bcrypt;
mod case;
mod certs;
mod clock;
mod collections;
mod convert;
mod decimal;
mod duration;
mod encoding;
pub mod entropy;
mod go;
mod helm;
mod keys;
mod layout;
pub mod lookup;
mod math;
mod password;
mod paths;
mod pem;
mod random;
mod regex;
pub mod semver;
mod strings;
mod symmetric;
mod text;
mod toml;
mod url;

pub use convert::{strval, to_f64, to_i64};

use crate::template::{FunctionTable, Value};

/// Every function, by name.
pub fn table() -> FunctionTable {
    let mut table = FunctionTable::default();
    go::register(&mut table);
    strings::register(&mut table);
    collections::register(&mut table);
    math::register(&mut table);
    encoding::register(&mut table);
    semver::register(&mut table);
    helm::register(&mut table);
    paths::register(&mut table);
    text::register(&mut table);
    duration::register(&mut table);
    url::register(&mut table);
    toml::register(&mut table);
    must_variants(&mut table);
    regex::register(&mut table);
    random::register(&mut table);
    clock::register(&mut table);
    password::register(&mut table);
    keys::register(&mut table);
    certs::register(&mut table);
    bcrypt::register(&mut table);
    symmetric::register(&mut table);
    table
}

/// Sprig's `must*` functions: the same function, failing the render where the plain one would (in Go the plain
/// one panics, which the template engine turns into the same error).
fn must_variants(table: &mut FunctionTable) {
    const PAIRS: [(&str, &str); 24] = [
        ("mustAppend", "append"),
        ("mustPush", "push"),
        ("mustPrepend", "prepend"),
        ("mustFirst", "first"),
        ("mustRest", "rest"),
        ("mustLast", "last"),
        ("mustInitial", "initial"),
        ("mustReverse", "reverse"),
        ("mustUniq", "uniq"),
        ("mustWithout", "without"),
        ("mustHas", "has"),
        ("mustSlice", "slice"),
        ("mustCompact", "compact"),
        ("mustChunk", "chunk"),
        ("mustDeepCopy", "deepCopy"),
        ("mustMerge", "merge"),
        ("mustMergeOverwrite", "mergeOverwrite"),
        ("mustToPrettyJson", "toPrettyJson"),
        ("mustToRawJson", "toRawJson"),
        ("mustRegexMatch", "regexMatch"),
        ("mustRegexFindAll", "regexFindAll"),
        ("mustRegexFind", "regexFind"),
        ("mustRegexReplaceAll", "regexReplaceAll"),
        ("mustRegexReplaceAllLiteral", "regexReplaceAllLiteral"),
    ];
    for (must, plain) in PAIRS {
        if let Some(function) = table.get(plain).copied() {
            table.insert(must, function);
        }
    }
    for (must, plain) in [("mustRegexSplit", "regexSplit"), ("mustToToml", "toToml")] {
        if let Some(function) = table.get(plain).copied() {
            table.insert(must, function);
        }
    }
    table.insert("mustFromJson", |_, a| {
        arity("mustFromJson", &a, 1)?;
        crate::json::from_json(string_arg(&a, 0)?)
    });
}

/// Fails unless there are exactly `want` arguments (Go's wording).
pub(crate) fn arity(name: &str, args: &[Value], want: usize) -> Result<(), String> {
    if args.len() == want {
        Ok(())
    } else {
        Err(format!(
            "wrong number of args for {name}: want {want} got {}",
            args.len()
        ))
    }
}

/// Fails unless there are at least `want` arguments.
pub(crate) fn at_least(name: &str, args: &[Value], want: usize) -> Result<(), String> {
    if args.len() >= want {
        Ok(())
    } else {
        Err(format!(
            "wrong number of args for {name}: want at least {want} got {}",
            args.len()
        ))
    }
}

/// A `string` parameter: Go refuses anything else.
pub(crate) fn string_arg(args: &[Value], index: usize) -> Result<&str, String> {
    match args.get(index) {
        Some(Value::String(s)) => Ok(s),
        Some(Value::Nil) | None => Err("invalid value; expected string".into()),
        Some(other) => Err(format!(
            "wrong type for value; expected string; got {}",
            other.type_name()
        )),
    }
}

/// An `int` parameter: Go refuses floats and strings.
pub(crate) fn int_arg(args: &[Value], index: usize) -> Result<i64, String> {
    match args.get(index) {
        Some(Value::Int(i)) => Ok(*i),
        Some(Value::Nil) | None => Err("invalid value; expected int".into()),
        Some(other) => Err(format!(
            "wrong type for value; expected int; got {}",
            other.type_name()
        )),
    }
}

/// A `map[string]interface{}` parameter.
pub(crate) fn map_arg(
    args: &[Value],
    index: usize,
) -> Result<crate::template::value::SharedMap, String> {
    match args.get(index) {
        Some(Value::Map(map)) => Ok(map.clone()),
        Some(Value::Nil) | None => Err("invalid value; expected map[string]interface {}".into()),
        Some(other) => Err(format!(
            "wrong type for value; expected map[string]interface {{}}; got {}",
            other.type_name()
        )),
    }
}

/// Sprig's `empty`: nil, false, 0, "" and empty collections.
pub(crate) fn is_empty(value: &Value) -> bool {
    !value.is_truthy()
}

#[cfg(test)]
pub(crate) mod testing {
    //! Calls functions by name in unit tests.
    use super::*;
    use crate::template::Budget;

    /// Calls `name` with `args`.
    pub fn call(name: &str, args: Vec<Value>) -> Result<Value, String> {
        let table = table();
        let function = table
            .get(name)
            .ok_or_else(|| format!("no function {name}"))?;
        function(&mut Budget::new(1_000_000), args)
    }

    /// A string value.
    pub fn s(text: &str) -> Value {
        Value::string(text)
    }

    /// Calls `name` with `args` in a render seeded for app `app`, from a template `c/templates/secret.yaml`.
    pub fn call_seeded(name: &str, args: Vec<Value>) -> Result<Value, String> {
        super::entropy::with_render_context(
            Some(weft_sdk::testing::render_seed("app")),
            None,
            || {
                super::entropy::begin_template("c/templates/secret.yaml");
                call(name, args)
            },
        )
    }

    /// The text of a string result.
    pub fn text(value: Result<Value, String>) -> String {
        match value.unwrap() {
            Value::String(s) => s.to_string(),
            other => panic!("not a string: {other:?}"),
        }
    }
}
