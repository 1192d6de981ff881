//! Helm's objects with methods: `.Files` (`Get`, `GetBytes`, `Glob`, `Lines`, `AsConfig`, `AsSecrets`),
//! `.Capabilities.APIVersions` (`Has`) and `.Capabilities.KubeVersion` (printed as its version).

use std::rc::Rc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::glob;
use crate::template::{HostObject, Map, Value};
use crate::yaml::to_yaml;

/// A chart's non-template files (`.Files`), or a `Glob` of them.
#[derive(Debug, Clone, Default)]
pub struct Files {
    files: Vec<(String, Rc<[u8]>)>,
}

impl Files {
    /// Files from `(path, bytes)` pairs.
    pub fn new(files: &[(String, Vec<u8>)]) -> Self {
        Files {
            files: files
                .iter()
                .map(|(p, b)| (p.clone(), Rc::from(b.as_slice())))
                .collect(),
        }
    }

    fn get(&self, path: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, b)| b.as_ref())
    }

    fn text(&self, path: &str) -> String {
        self.get(path)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    }

    /// The files as `{basename: transform(content)}` in YAML.
    fn as_yaml(&self, transform: fn(&[u8]) -> String) -> String {
        let map: Map = self
            .files
            .iter()
            .map(|(path, bytes)| {
                let name = path.rsplit('/').next().unwrap_or(path).to_string();
                (name, Value::string(transform(bytes)))
            })
            .collect();
        if map.is_empty() {
            return String::new();
        }
        let text = to_yaml(&Value::map(map));
        text.strip_suffix('\n').unwrap_or(&text).to_string()
    }
}

fn single_string<'a>(args: &'a [Value], method: &str) -> Result<&'a str, String> {
    match args {
        [Value::String(s)] => Ok(s),
        _ => Err(format!(
            "wrong number or type of args for {method}: want 1 string"
        )),
    }
}

impl HostObject for Files {
    fn type_name(&self) -> &str {
        "common.Files"
    }

    fn is_method(&self, name: &str) -> bool {
        matches!(
            name,
            "Get" | "GetBytes" | "Glob" | "Lines" | "AsConfig" | "AsSecrets"
        )
    }

    fn member(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
        Some(match name {
            "Get" => single_string(args, "Get").map(|path| Value::string(self.text(path))),
            "GetBytes" => single_string(args, "GetBytes").map(|path| {
                Value::list(
                    self.get(path)
                        .unwrap_or_default()
                        .iter()
                        .map(|b| Value::Int(i64::from(*b)))
                        .collect(),
                )
            }),
            "Glob" => single_string(args, "Glob").map(|pattern| {
                let files = self
                    .files
                    .iter()
                    .filter(|(p, _)| glob::matches(pattern, p))
                    .cloned()
                    .collect();
                Value::Object(Rc::new(Files { files }))
            }),
            "Lines" => single_string(args, "Lines").map(|path| {
                let text = self.text(path);
                let text = text.strip_suffix('\n').unwrap_or(&text);
                if self.get(path).is_none_or(<[u8]>::is_empty) {
                    return Value::list(Vec::new());
                }
                Value::list(text.split('\n').map(Value::string).collect())
            }),
            "AsConfig" => Ok(Value::string(
                self.as_yaml(|b| String::from_utf8_lossy(b).into_owned()),
            )),
            "AsSecrets" => Ok(Value::string(self.as_yaml(|b| STANDARD.encode(b)))),
            _ => return None,
        })
    }

    fn display(&self) -> String {
        let parts: Vec<String> = self
            .files
            .iter()
            .map(|(p, b)| {
                let bytes: Vec<String> = b.iter().map(u8::to_string).collect();
                format!("{p}:[{}]", bytes.join(" "))
            })
            .collect();
        format!("map[{}]", parts.join(" "))
    }

    fn to_data(&self) -> Value {
        Value::map(
            self.files
                .iter()
                .map(|(p, b)| (p.clone(), Value::string(STANDARD.encode(b))))
                .collect(),
        )
    }

    fn entries(&self) -> Option<Vec<(String, Value)>> {
        let mut entries: Vec<(String, Value)> = self
            .files
            .iter()
            .map(|(p, b)| {
                (
                    p.clone(),
                    Value::string(String::from_utf8_lossy(b).into_owned()),
                )
            })
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        Some(entries)
    }
}

/// `.Capabilities.APIVersions`.
#[derive(Debug, Clone)]
pub struct ApiVersions {
    versions: Vec<String>,
}

impl ApiVersions {
    /// A set holding `versions`.
    pub fn new(versions: Vec<String>) -> Self {
        ApiVersions { versions }
    }
}

impl HostObject for ApiVersions {
    fn type_name(&self) -> &str {
        "common.VersionSet"
    }

    fn is_method(&self, name: &str) -> bool {
        name == "Has"
    }

    fn member(&self, name: &str, args: &[Value]) -> Option<Result<Value, String>> {
        match name {
            "Has" => Some(
                single_string(args, "Has")
                    .map(|v| Value::Bool(self.versions.iter().any(|k| k == v))),
            ),
            _ => None,
        }
    }

    fn display(&self) -> String {
        format!("[{}]", self.versions.join(" "))
    }

    fn to_data(&self) -> Value {
        Value::list(
            self.versions
                .iter()
                .map(|v| Value::string(v.as_str()))
                .collect(),
        )
    }
}

/// `.Capabilities.KubeVersion`.
#[derive(Debug, Clone)]
pub struct KubeVersion {
    version: String,
    major: String,
    minor: String,
}

impl KubeVersion {
    /// Parses `v1.30.2` (a missing `v` is added).
    pub fn parse(text: &str) -> Result<Self, String> {
        let version = if text.starts_with('v') {
            text.to_string()
        } else {
            format!("v{text}")
        };
        let mut parts = version[1..].split(['.', '-', '+']);
        let major = parts.next().filter(|p| p.parse::<u32>().is_ok());
        let minor = parts.next().filter(|p| p.parse::<u32>().is_ok());
        match (major, minor) {
            (Some(major), Some(minor)) => Ok(KubeVersion {
                major: major.to_string(),
                minor: minor.to_string(),
                version,
            }),
            _ => Err(format!(
                "invalid kube-version {text:?}: want vMAJOR.MINOR.PATCH"
            )),
        }
    }
}

impl KubeVersion {
    /// The version as written (`v1.30.2`).
    pub fn version(&self) -> &str {
        &self.version
    }
}

impl HostObject for KubeVersion {
    fn type_name(&self) -> &str {
        "*common.KubeVersion"
    }

    fn is_method(&self, _name: &str) -> bool {
        false
    }

    fn member(&self, name: &str, _args: &[Value]) -> Option<Result<Value, String>> {
        let value = match name {
            "Version" | "GitVersion" => &self.version,
            "Major" => &self.major,
            "Minor" => &self.minor,
            _ => return None,
        };
        Some(Ok(Value::string(value.as_str())))
    }

    fn display(&self) -> String {
        self.version.clone()
    }

    fn to_data(&self) -> Value {
        let mut map = Map::new();
        map.insert("Version".into(), Value::string(self.version.as_str()));
        map.insert("Major".into(), Value::string(self.major.as_str()));
        map.insert("Minor".into(), Value::string(self.minor.as_str()));
        Value::map(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Files {
        Files::new(&[
            ("files/a.conf".into(), b"x=1\ny=2\n".to_vec()),
            ("files/b.conf".into(), b"z".to_vec()),
            ("other/c.txt".into(), b"c".to_vec()),
        ])
    }

    #[test]
    fn files_methods() {
        let files = files();
        let call = |name: &str, args: &[Value]| files.member(name, args).unwrap().unwrap();
        assert_eq!(call("Get", &["files/b.conf".into()]), Value::string("z"));
        assert_eq!(call("Get", &["missing".into()]), Value::string(""));
        assert_eq!(
            call("Lines", &["files/a.conf".into()]),
            Value::list(vec!["x=1".into(), "y=2".into()])
        );
        let Value::Object(globbed) = call("Glob", &["files/*".into()]) else {
            panic!("not an object")
        };
        let config = globbed.member("AsConfig", &[]).unwrap().unwrap();
        assert_eq!(config, Value::string("a.conf: |\n  x=1\n  y=2\nb.conf: z"));
        let secrets = globbed.member("AsSecrets", &[]).unwrap().unwrap();
        assert_eq!(secrets, Value::string("a.conf: eD0xCnk9Mgo=\nb.conf: eg=="));
        assert_eq!(globbed.entries().map(|e| e.len()), Some(2));
    }

    #[test]
    fn capabilities_objects() {
        let kube = KubeVersion::parse("v1.30.2").unwrap();
        assert_eq!(kube.display(), "v1.30.2");
        assert_eq!(kube.member("Minor", &[]).unwrap(), Ok(Value::string("30")));
        assert!(KubeVersion::parse("banana").is_err());
        let apis = ApiVersions::new(vec!["apps/v1".into()]);
        assert_eq!(
            apis.member("Has", &["apps/v1".into()]).unwrap(),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            apis.member("Has", &["x/v1".into()]).unwrap(),
            Ok(Value::Bool(false))
        );
    }
}
