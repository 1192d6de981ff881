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
        "engine.files"
    }

    fn kind_name(&self) -> &'static str {
        "map"
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
                let glob = glob::files_glob(pattern);
                let files = self
                    .files
                    .iter()
                    .filter(|(p, _)| glob.matches(p))
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

    fn kind_name(&self) -> &'static str {
        "slice"
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

    fn go_len(&self) -> Option<usize> {
        Some(self.versions.len())
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
    /// As given, with a leading `v` (`v1.33.4-gke.1245000`).
    version: String,
    /// Only its numbers (`v1.33.4`): what Helm prints for it and checks `kubeVersion` constraints against.
    normalized: String,
    major: String,
    minor: String,
}

impl KubeVersion {
    /// Parses a version as Helm's `ParseKubeVersion` does (Kubernetes' generic version syntax): `v1.30.2`,
    /// `1.30`, `v1.33.4-gke.1245000` (a missing `v` is added; what follows the dotted numbers is kept in
    /// `Version` but left out of the normalized version).
    pub fn parse(text: &str) -> Result<Self, String> {
        let invalid = || format!("invalid kube-version {text:?}: want vMAJOR.MINOR.PATCH");
        let body = text.strip_prefix('v').unwrap_or(text);
        let mut components: Vec<u64> = Vec::new();
        let mut rest = body;
        loop {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                break;
            }
            if components.is_empty() && digits > 1 && rest.starts_with('0') {
                return Err(invalid());
            }
            components.push(rest[..digits].parse().map_err(|_| invalid())?);
            rest = &rest[digits..];
            match rest.strip_prefix('.') {
                Some(next) if next.starts_with(|c: char| c.is_ascii_digit()) => rest = next,
                _ => break,
            }
        }
        if components.len() < 2 {
            return Err(invalid());
        }
        let numbers: Vec<String> = components.iter().map(u64::to_string).collect();
        Ok(KubeVersion {
            version: if text.starts_with('v') {
                text.to_string()
            } else {
                format!("v{text}")
            },
            normalized: format!("v{}", numbers.join(".")),
            major: numbers[0].clone(),
            minor: numbers[1].clone(),
        })
    }
}

impl KubeVersion {
    /// The version as written (`v1.30.2`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The version's numbers only (`v1.33.4` for `v1.33.4-gke.1245000`), as Helm's `KubeVersion.String()`.
    pub fn normalized(&self) -> &str {
        &self.normalized
    }
}

impl HostObject for KubeVersion {
    fn type_name(&self) -> &str {
        "common.KubeVersion"
    }

    fn kind_name(&self) -> &'static str {
        "struct"
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
        self.normalized.clone()
    }

    fn operand_display(&self) -> String {
        format!(
            "{{{} {} {} {}}}",
            self.version, self.normalized, self.major, self.minor
        )
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
        // A provider's suffix stays in Version but not in the normalized version Helm prints and checks; a function
        // operand gets a copy of Helm's struct (Version, normalized version, Major, Minor), printed as such.
        let gke = KubeVersion::parse("1.33.04-gke.1245000").unwrap();
        assert_eq!(
            gke.member("Version", &[]).unwrap(),
            Ok(Value::string("v1.33.04-gke.1245000"))
        );
        assert_eq!(gke.normalized(), "v1.33.4");
        assert_eq!(gke.display(), "v1.33.4");
        assert_eq!(gke.operand_display(), "{v1.33.04-gke.1245000 v1.33.4 1 33}");
        assert_eq!(
            KubeVersion::parse("v1.29").unwrap().operand_display(),
            "{v1.29 v1.29 1 29}"
        );
        for bad in ["1", "v1-2", "01.30.0", "x1.30", ""] {
            assert!(KubeVersion::parse(bad).is_err(), "{bad}");
        }
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
