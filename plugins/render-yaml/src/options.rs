//! The renderer's parameters (`recurse`, `include`, `exclude`), parsed and checked before any file is read.

use weft_sdk::glob::Glob;

/// Which files of the tree are rendered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirectoryOptions {
    /// Descend into subdirectories (Argo CD's `directory.recurse`; off by default, as there).
    pub recurse: bool,
    /// When not empty, only paths matching one of these are rendered.
    pub include: Vec<Glob>,
    /// Paths matching one of these are never rendered; exclusion wins over inclusion.
    pub exclude: Vec<Glob>,
}

impl DirectoryOptions {
    /// Reads the options from the request's parameters. `include` and `exclude` may repeat and each value may hold
    /// several comma-separated patterns (commas inside `{...}` belong to the pattern); `recurse` is `true` or
    /// `false`, the last one given wins. Any other key is an error, so a misspelt option is not silently ignored.
    pub fn from_parameters(parameters: &[(String, String)]) -> Result<DirectoryOptions, String> {
        let mut options = DirectoryOptions::default();
        for (key, value) in parameters {
            match key.as_str() {
                "recurse" => options.recurse = parse_bool(key, value)?,
                "include" => options.include.extend(parse_patterns(key, value)?),
                "exclude" => options.exclude.extend(parse_patterns(key, value)?),
                other => {
                    return Err(format!(
                        "unknown parameter `{other}`: the yaml renderer takes `recurse`, `include` and `exclude`"
                    ));
                }
            }
        }
        Ok(options)
    }

    /// Whether a file (path relative to the app root) passes the include and exclude patterns.
    pub fn selects(&self, path: &str) -> bool {
        if self.exclude.iter().any(|glob| glob.matches(path)) {
            return false;
        }
        self.include.is_empty() || self.include.iter().any(|glob| glob.matches(path))
    }
}

fn parse_bool(key: &str, value: &str) -> Result<bool, String> {
    match value.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err(format!(
            "parameter `{key}` must be `true` or `false`, not {other:?}"
        )),
    }
}

fn parse_patterns(key: &str, value: &str) -> Result<Vec<Glob>, String> {
    split_top_level_commas(value)
        .into_iter()
        .map(str::trim)
        .filter(|pattern| !pattern.is_empty())
        .map(|pattern| Glob::new(pattern).map_err(|e| format!("parameter `{key}`: {e}")))
        .collect()
}

/// Splits a list of patterns at the commas that are outside `{...}` and not escaped.
fn split_top_level_commas(value: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut escaped = false;
    for (i, c) in value.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&value[start..]);
    parts
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
    fn defaults_to_the_top_directory_and_every_file() {
        let options = DirectoryOptions::from_parameters(&[]).unwrap();
        assert!(!options.recurse);
        assert!(options.selects("a.yaml") && options.selects("x/b.json"));
    }

    #[test]
    fn patterns_split_at_top_level_commas_and_repeat() {
        let options = DirectoryOptions::from_parameters(&params(&[
            ("include", "{*.yml,*.yaml}, extra/*.json"),
            ("include", "other.json"),
            ("exclude", "*-test.yaml"),
            ("recurse", "true"),
        ]))
        .unwrap();
        assert!(options.recurse);
        let include: Vec<&str> = options.include.iter().map(Glob::as_str).collect();
        assert_eq!(include, ["{*.yml,*.yaml}", "extra/*.json", "other.json"]);
        assert!(options.selects("a/b.yml"));
        assert!(options.selects("other.json"));
        assert!(!options.selects("x.json"));
        assert!(!options.selects("app-test.yaml"));
    }

    #[test]
    fn bad_parameters_are_errors() {
        let err = DirectoryOptions::from_parameters(&params(&[("recurse", "yes")])).unwrap_err();
        assert!(err.contains("`recurse` must be `true` or `false`"), "{err}");
        let err = DirectoryOptions::from_parameters(&params(&[("recursive", "true")])).unwrap_err();
        assert!(err.contains("unknown parameter `recursive`"), "{err}");
        let err = DirectoryOptions::from_parameters(&params(&[("include", "{a,b")])).unwrap_err();
        assert!(err.contains("parameter `include`: invalid glob"), "{err}");
    }

    #[test]
    fn escaped_commas_stay_in_the_pattern() {
        assert_eq!(split_top_level_commas(r"a\,b,c"), [r"a\,b", "c"]);
        assert_eq!(split_top_level_commas("{a,b},c"), ["{a,b}", "c"]);
    }
}
