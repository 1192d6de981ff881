//! The renderer's parameters, parsed and checked before anything is evaluated.

use weft_sdk::source::normalize;

/// The entry point when `main` is not given.
pub const DEFAULT_MAIN: &str = "main.jsonnet";

/// The call-stack depth when `maxStack` is not given (go-jsonnet's and rsjsonnet's default).
pub const DEFAULT_MAX_STACK: usize = 500;

/// The largest `maxStack` accepted: deep enough for any real template, small enough to fail fast on a runaway.
pub const MAX_MAX_STACK: usize = 100_000;

/// A value handed to the program: text (a Jsonnet string) or Jsonnet code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// `extVar.<name>` / `tla.<name>`: the value is a string.
    Text(String),
    /// `extCode.<name>` / `tlaCode.<name>`: the value is Jsonnet source, evaluated.
    Code(String),
}

/// Everything the parameters say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonnetOptions {
    /// The file evaluated, relative to the app root.
    pub main: String,
    /// Extra import directories, relative to the app's directory (they may climb to the repository's root),
    /// searched first.
    pub jpath: Vec<String>,
    /// Import directories relative to the repository's root (Argo CD's `libs`), searched after `jpath`.
    pub libs: Vec<String>,
    /// External variables (`std.extVar`), one per name, in the order first given.
    pub ext_vars: Vec<(String, Input)>,
    /// Top-level arguments, passed by name when the program evaluates to a function.
    pub tlas: Vec<(String, Input)>,
    /// The deepest call stack evaluation may reach.
    pub max_stack: usize,
}

impl Default for JsonnetOptions {
    fn default() -> Self {
        JsonnetOptions {
            main: DEFAULT_MAIN.to_string(),
            jpath: Vec::new(),
            libs: Vec::new(),
            ext_vars: Vec::new(),
            tlas: Vec::new(),
            max_stack: DEFAULT_MAX_STACK,
        }
    }
}

impl JsonnetOptions {
    /// Reads the options from the request's parameters, in order: for a key given twice (or a name given as both
    /// text and code) the last one wins. Any other key is an error, so a misspelt option is not silently ignored.
    pub fn from_parameters(parameters: &[(String, String)]) -> Result<JsonnetOptions, String> {
        let mut options = JsonnetOptions::default();
        for (key, value) in parameters {
            match key.as_str() {
                "main" => options.main = tree_path(key, value)?,
                "jpath" => {
                    for dir in value.split(',').map(str::trim).filter(|d| !d.is_empty()) {
                        options.jpath.push(search_dir(key, dir)?);
                    }
                }
                "libs" => {
                    for dir in value.split(',').map(str::trim).filter(|d| !d.is_empty()) {
                        let dir = search_dir(key, dir)?;
                        if dir.starts_with("..") {
                            return Err(format!(
                                "not allowed: parameter `libs` = {dir:?} climbs above the repository's root \
                                 (libs are relative to it)"
                            ));
                        }
                        options.libs.push(dir);
                    }
                }
                "maxStack" => options.max_stack = parse_max_stack(value)?,
                _ => {
                    let (kind, name) = key.split_once('.').ok_or_else(|| unknown(key))?;
                    if name.is_empty() {
                        return Err(format!("parameter `{key}` names no variable"));
                    }
                    let (list, input) = match kind {
                        "extVar" => (&mut options.ext_vars, Input::Text(value.clone())),
                        "extCode" => (&mut options.ext_vars, Input::Code(value.clone())),
                        "tla" => (&mut options.tlas, Input::Text(value.clone())),
                        "tlaCode" => (&mut options.tlas, Input::Code(value.clone())),
                        _ => return Err(unknown(key)),
                    };
                    set(list, name, input);
                }
            }
        }
        Ok(options)
    }
}

/// Sets a named input, replacing an earlier one of the same name in place.
fn set(list: &mut Vec<(String, Input)>, name: &str, input: Input) {
    match list.iter_mut().find(|(n, _)| n == name) {
        Some(slot) => slot.1 = input,
        None => list.push((name.to_string(), input)),
    }
}

/// A search directory: relative, cleaned; it may climb above the app's directory (the host refuses what leaves the
/// repository).
fn search_dir(key: &str, value: &str) -> Result<String, String> {
    weft_sdk::source::clean(value.trim())
        .ok_or_else(|| format!("not allowed: parameter `{key}` = {value:?} is not a relative path"))
}

/// A path parameter, normalized; it may not leave the app's directory.
fn tree_path(key: &str, value: &str) -> Result<String, String> {
    match normalize(value.trim()) {
        Some(path) if !path.is_empty() || key == "jpath" => Ok(path),
        Some(_) => Err(format!("parameter `{key}` is empty")),
        None => Err(format!(
            "not allowed: parameter `{key}` = {value:?} leaves the app root (paths are relative to it)"
        )),
    }
}

fn parse_max_stack(value: &str) -> Result<usize, String> {
    match value.trim().parse::<usize>() {
        Ok(depth) if (1..=MAX_MAX_STACK).contains(&depth) => Ok(depth),
        _ => Err(format!(
            "parameter `maxStack` must be a whole number from 1 to {MAX_MAX_STACK}, not {value:?}"
        )),
    }
}

fn unknown(key: &str) -> String {
    format!(
        "unknown parameter `{key}`: the jsonnet renderer takes `main`, `jpath`, `libs`, `maxStack`, `extVar.<name>`, \
         `extCode.<name>`, `tla.<name>` and `tlaCode.<name>`"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults() {
        assert_eq!(
            JsonnetOptions::from_parameters(&[]).unwrap(),
            JsonnetOptions::default()
        );
        assert_eq!(JsonnetOptions::default().main, "main.jsonnet");
    }

    #[test]
    fn variables_and_arguments_by_name_last_wins() {
        let options = JsonnetOptions::from_parameters(&params(&[
            ("extVar.env", "prod"),
            ("extCode.replicas", "1 + 2"),
            ("extVar.replicas", "3"),
            ("tla.name", "web"),
            ("tlaCode.ports", "[80]"),
            ("main", "./env/prod/main.jsonnet"),
            ("jpath", "shared, third_party"),
            ("maxStack", "200"),
        ]))
        .unwrap();
        assert_eq!(
            options.ext_vars,
            [
                ("env".to_string(), Input::Text("prod".into())),
                ("replicas".to_string(), Input::Text("3".into())),
            ]
        );
        assert_eq!(
            options.tlas,
            [
                ("name".to_string(), Input::Text("web".into())),
                ("ports".to_string(), Input::Code("[80]".into())),
            ]
        );
        assert_eq!(options.main, "env/prod/main.jsonnet");
        assert_eq!(options.jpath, ["shared", "third_party"]);
        assert_eq!(options.max_stack, 200);
    }

    #[test]
    fn paths_may_not_leave_their_boundaries() {
        for (key, value) in [
            ("main", "../x.jsonnet"),
            ("main", "/etc/passwd"),
            ("jpath", "lib,/usr/share/jsonnet"),
            ("libs", "../vendor"),
        ] {
            let err = JsonnetOptions::from_parameters(&params(&[(key, value)])).unwrap_err();
            assert!(err.starts_with("not allowed:"), "{err}");
        }
    }

    #[test]
    fn bad_parameters_are_errors() {
        let cases = [
            ("extvar.x", "unknown parameter `extvar.x`"),
            ("values", "unknown parameter `values`"),
            ("tla.", "names no variable"),
        ];
        for (key, expected) in cases {
            let err = JsonnetOptions::from_parameters(&params(&[(key, "v")])).unwrap_err();
            assert!(err.contains(expected), "{key}: {err}");
        }
        for depth in ["0", "-1", "many", "100001"] {
            let err = JsonnetOptions::from_parameters(&params(&[("maxStack", depth)])).unwrap_err();
            assert!(err.contains("`maxStack`"), "{err}");
        }
    }
}
