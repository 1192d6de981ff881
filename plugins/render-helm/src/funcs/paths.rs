//! Sprig's path functions (`base`, `dir`, `clean`, `ext`, `isAbs`, Go's `path` package) and their `os*` twins
//! (`path/filepath`, which on Linux reads paths the same way).

use super::{arity, string_arg};
use crate::template::{FunctionTable, Value};

pub fn register(table: &mut FunctionTable) {
    for (name, os_name) in [
        ("base", "osBase"),
        ("dir", "osDir"),
        ("clean", "osClean"),
        ("ext", "osExt"),
    ] {
        let function: crate::template::Function = match name {
            "base" => |_, a| one_path(&a, base),
            "dir" => |_, a| one_path(&a, dir),
            "clean" => |_, a| one_path(&a, clean),
            _ => |_, a| one_path(&a, ext),
        };
        table.insert(name, function);
        table.insert(os_name, function);
    }
    table.insert("isAbs", is_abs);
    table.insert("osIsAbs", is_abs);
}

fn is_abs(_: &mut crate::template::Budget, args: Vec<Value>) -> Result<Value, String> {
    arity("isAbs", &args, 1)?;
    Ok(Value::Bool(string_arg(&args, 0)?.starts_with('/')))
}

fn one_path(args: &[Value], f: fn(&str) -> String) -> Result<Value, String> {
    arity("path function", args, 1)?;
    Ok(Value::string(f(string_arg(args, 0)?)))
}

/// Go's `path.Clean`: one slash between segments, `.` dropped, `..` resolved (kept at the start of a relative
/// path, dropped at the root), `"."` for nothing.
pub fn clean(path: &str) -> String {
    if path.is_empty() {
        return ".".into();
    }
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|last| *last != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

/// Go's `path.Base`: the last element, trailing slashes dropped; `.` for nothing, `/` for the root.
fn base(path: &str) -> String {
    if path.is_empty() {
        return ".".into();
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".into();
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_string()
}

/// Go's `path.Dir`: everything but the last element, cleaned.
fn dir(path: &str) -> String {
    let cut = path.rfind('/').map(|i| i + 1).unwrap_or(0);
    clean(&path[..cut])
}

/// Go's `path.Ext`: the suffix from the last dot of the last element.
fn ext(path: &str) -> String {
    for (i, c) in path.char_indices().rev() {
        match c {
            '/' => break,
            '.' => return path[i..].to_string(),
            _ => {}
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_as_gos_path_package() {
        assert_eq!(
            clean("/etc/app/config.d/../main.conf"),
            "/etc/app/main.conf"
        );
        assert_eq!(clean("a/b/../c/./d.txt"), "a/c/d.txt");
        assert_eq!(clean("../../x/.."), "../..");
        assert_eq!(clean("/../x"), "/x");
        assert_eq!(clean(""), ".");
        assert_eq!(base("/a/b.yaml/"), "b.yaml");
        assert_eq!(base("///"), "/");
        assert_eq!(dir("/etc/app/x"), "/etc/app");
        assert_eq!(dir("x"), ".");
        assert_eq!(dir(""), ".");
        assert_eq!(ext("a/b.tar.gz"), ".gz");
        assert_eq!(ext("a.d/b"), "");
    }
}
