//! The Go parameter types of the template functions, as far as Go's argument check needs them: a nil that a chain
//! of fields looked up (`.Values.missing`) is an `interface {}`, which Go passes to `interface{}` parameters only
//! and refuses elsewhere with "wrong type for value; expected T; got interface {}".

const MAP: &str = "map[string]interface {}";
const STRING: &str = "string";
const INT: &str = "int";

const MAP_PARAMETER: Option<&str> = Some(MAP);
const STRING_PARAMETER: Option<&str> = Some(STRING);
const INT_PARAMETER: Option<&str> = Some(INT);

/// A function's parameter types; the last one repeats when `variadic`. `None` stands for `interface{}`.
struct Signature {
    parameters: &'static [Option<&'static str>],
    variadic: bool,
}

const fn fixed(parameters: &'static [Option<&'static str>]) -> Signature {
    Signature {
        parameters,
        variadic: false,
    }
}

const fn variadic(parameters: &'static [Option<&'static str>]) -> Signature {
    Signature {
        parameters,
        variadic: true,
    }
}

fn signature(name: &str) -> Option<Signature> {
    Some(match name {
        // Helm's.
        "include" | "tpl" | "required" => fixed(&[STRING_PARAMETER, None]),
        "fail" | "fromYaml" | "fromYamlArray" | "fromJson" | "fromJsonArray" | "fromToml" => {
            fixed(&[STRING_PARAMETER])
        }
        // Maps.
        "hasKey" | "get" | "unset" => fixed(&[MAP_PARAMETER, STRING_PARAMETER]),
        "set" => fixed(&[MAP_PARAMETER, STRING_PARAMETER, None]),
        "keys" => variadic(&[MAP_PARAMETER]),
        "values" => fixed(&[MAP_PARAMETER]),
        "pick" | "omit" => variadic(&[MAP_PARAMETER, STRING_PARAMETER]),
        "merge" | "mustMerge" | "mergeOverwrite" | "mustMergeOverwrite" => {
            variadic(&[MAP_PARAMETER, None])
        }
        // Strings.
        "upper" | "lower" | "title" | "untitle" | "trim" | "nospace" | "initials" | "snakecase"
        | "camelcase" | "kebabcase" | "swapcase" | "b64enc" | "b64dec" | "b32enc" | "b32dec"
        | "sha1sum" | "sha256sum" | "sha512sum" | "adler32sum" | "regexQuoteMeta" | "base"
        | "dir" | "ext" | "clean" | "isAbs" | "osBase" | "osDir" | "osExt" | "osClean"
        | "osIsAbs" | "urlParse" | "semver" => fixed(&[STRING_PARAMETER]),
        "trimAll" | "trimall" | "trimPrefix" | "trimSuffix" | "contains" | "hasPrefix"
        | "hasSuffix" | "regexMatch" | "mustRegexMatch" | "regexFind" | "mustRegexFind"
        | "semverCompare" | "split" | "splitList" => fixed(&[STRING_PARAMETER, STRING_PARAMETER]),
        "replace" => fixed(&[STRING_PARAMETER, STRING_PARAMETER, STRING_PARAMETER]),
        "regexReplaceAll"
        | "mustRegexReplaceAll"
        | "regexReplaceAllLiteral"
        | "mustRegexReplaceAllLiteral" => {
            fixed(&[STRING_PARAMETER, STRING_PARAMETER, STRING_PARAMETER])
        }
        "regexFindAll" | "mustRegexFindAll" | "regexSplit" | "mustRegexSplit" => {
            fixed(&[STRING_PARAMETER, STRING_PARAMETER, INT_PARAMETER])
        }
        "splitn" => fixed(&[STRING_PARAMETER, INT_PARAMETER, STRING_PARAMETER]),
        "repeat" | "indent" | "nindent" | "trunc" | "abbrev" | "wrap" => {
            fixed(&[INT_PARAMETER, STRING_PARAMETER])
        }
        "abbrevboth" | "substr" => fixed(&[INT_PARAMETER, INT_PARAMETER, STRING_PARAMETER]),
        "wrapWith" => fixed(&[INT_PARAMETER, STRING_PARAMETER, STRING_PARAMETER]),
        "join" => fixed(&[STRING_PARAMETER, None]),
        "plural" => fixed(&[STRING_PARAMETER, STRING_PARAMETER, INT_PARAMETER]),
        _ => return None,
    })
}

/// The Go type of parameter `index` of `name`, when it is not `interface{}` and the function is known.
pub fn parameter(name: &str, index: usize) -> Option<&'static str> {
    let signature = signature(name)?;
    let position = if signature.variadic {
        index.min(signature.parameters.len().saturating_sub(1))
    } else {
        index
    };
    signature.parameters.get(position).copied().flatten()
}

#[cfg(test)]
mod tests {
    use super::parameter;

    #[test]
    fn typed_parameters_are_named_as_go_names_them() {
        assert_eq!(parameter("hasKey", 0), Some("map[string]interface {}"));
        assert_eq!(parameter("hasKey", 1), Some("string"));
        assert_eq!(parameter("tpl", 1), None);
        assert_eq!(parameter("keys", 3), Some("map[string]interface {}"));
        assert_eq!(parameter("toYaml", 0), None);
        assert_eq!(parameter("nosuch", 0), None);
    }
}
