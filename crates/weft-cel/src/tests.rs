//! Expressions evaluated against objects, including Flux's health check idioms.

use serde_json::json;

use super::*;

fn eval(source: &str, object: &Json) -> Result<Json, EvalError> {
    Program::compile(source).unwrap().evaluate(object)
}

fn truth(source: &str, object: &Json) -> bool {
    Program::compile(source)
        .unwrap()
        .evaluate_bool(object)
        .unwrap_or_else(|e| panic!("{source}: {e}"))
}

fn widget() -> Json {
    json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "generation": 3, "labels": {"tier": "web"}},
        "spec": {"replicas": 3, "ratio": 0.5},
        "status": {
            "observedGeneration": 3,
            "readyReplicas": 3,
            "conditions": [
                {"type": "Ready", "status": "True", "message": "all good"},
                {"type": "Stalled", "status": "False", "message": ""}
            ]
        }
    })
}

#[test]
fn flux_idioms_work_with_and_without_self() {
    let w = widget();
    for source in [
        "status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'True')",
        "self.status.conditions.exists(e, e.type == 'Ready' && e.status == 'True')",
        "self.metadata.generation == self.status.observedGeneration",
        "has(status.readyReplicas) && status.readyReplicas >= spec.replicas",
        "status.conditions.exists_one(c, c.status == 'True')",
        "!status.conditions.exists(c, c.type == 'Stalled' && c.status == 'True')",
        "size(status.conditions) == 2 && status.conditions.size() == 2",
        "'tier' in metadata.labels && metadata.labels['tier'] == 'web'",
        "status.conditions.map(c, c.type) == ['Ready', 'Stalled']",
        "status.conditions.map(c, c.status == 'True', c.type) == ['Ready']",
        "kind.startsWith('Wid') && kind.endsWith('get') && kind.contains('dge') && kind.matches('^W.*t$')",
        "spec.ratio < 1 && spec.replicas == 3.0 && spec.replicas > 2u",
        "(spec.replicas > 1 ? 'many' : 'one') == 'many'",
        "string(spec.replicas) + '/' + string(status.readyReplicas) == '3/3'",
        "int('42') + 1 == 43 && double(1) / 2.0 == 0.5 && uint(3) * 2u == 6u",
        "{'a': 1}.a == 1 && [1, 2, 3][1] == 2 && 'AbC'.lowerAscii() == 'abc'",
        "r'\\d' == '\\\\d' && '''x''' == \"x\"",
        "status.conditions.filter(c, c.type == 'Ready')[0].message == 'all good'",
    ] {
        assert!(truth(source, &w), "{source}");
    }
}

#[test]
fn missing_fields_are_errors_that_has_and_logic_can_absorb() {
    let w = widget();
    assert_eq!(
        eval("status.missing", &w).unwrap_err().message,
        "no such key: missing"
    );
    assert_eq!(
        eval("nothere.x", &w).unwrap_err().message,
        "undeclared reference to 'nothere'"
    );
    assert!(!truth("has(status.missing)", &w));
    assert!(!truth("has(status.missing) && status.missing.x", &w));
    assert!(!truth("status.missing.x && false", &w));
    assert!(truth("status.missing.x || true", &w));
    assert!(eval("status.missing.x || false", &w).is_err());
    assert!(eval("status.conditions.all(c, c.missing == 1)", &w).is_err());
    assert!(truth(
        "status.conditions.exists(c, c.message == 'all good' || c.missing)",
        &w
    ));
}

#[test]
fn types_and_arithmetic_follow_cel() {
    let w = widget();
    assert!(
        eval("1 + 1.0", &w)
            .unwrap_err()
            .message
            .contains("no such overload")
    );
    assert!(eval("'a' < 1", &w).is_err());
    assert_eq!(
        eval("9223372036854775807 + 1", &w).unwrap_err().message,
        "integer overflow"
    );
    assert_eq!(eval("1 / 0", &w).unwrap_err().message, "division by zero");
    assert_eq!(eval("7 % 3", &w).unwrap(), json!(1));
    assert_eq!(eval("-7 / 2", &w).unwrap(), json!(-3));
    assert_eq!(eval("[1] + [2]", &w).unwrap(), json!([1, 2]));
    assert!(truth(
        "1 == 1.0 && 1u == 1 && 'a' != 1 && null == null && [1, 'a'] == [1.0, 'a']",
        &w
    ));
    assert!(eval("1 ? 2 : 3", &w).is_err());
    assert!(
        eval("[1][5]", &w)
            .unwrap_err()
            .message
            .contains("index out of range")
    );
    assert!(eval("{'a': 1, 'a': 2}", &w).is_err());
    assert_eq!(
        Program::compile("spec")
            .unwrap()
            .evaluate_bool(&w)
            .unwrap_err()
            .message,
        "the expression needs a bool, got map"
    );
    assert_eq!(
        Program::compile("spec.replicas")
            .unwrap()
            .evaluate_string(&w)
            .unwrap(),
        "3"
    );
}

#[test]
fn compile_errors_give_the_column() {
    let error = Program::compile("status.conditions.filter(c, c.type == )").unwrap_err();
    assert_eq!(error.column, 39, "{error}");
    assert!(error.to_string().starts_with("at column 39:"), "{error}");
    let error = Program::compile("timestamp(status.lastUpdate) > now").unwrap_err();
    assert!(
        error.message.contains("unknown function \"timestamp\""),
        "{error}"
    );
    assert!(Program::compile("é == 'x'").is_err());
    let error = Program::compile("'é' == é").unwrap_err();
    assert_eq!(error.column, 8, "{error}");
}

#[test]
fn the_strings_extension_works_in_characters() {
    let w = widget();
    for source in [
        "'a,b,,c'.split(',') == ['a', 'b', '', 'c']",
        "'a,b,c'.split(',', 2) == ['a', 'b,c'] && 'a,b'.split(',', 0) == [] && 'abc'.split('') == ['a', 'b', 'c']",
        "'abc'.split('', 2) == ['a', 'bc'] && ''.split(',') == ['']",
        "['a', 'b'].join() == 'ab' && ['a', 'b'].join('/') == 'a/b' && [].join('-') == ''",
        "'registry.example.com/app:1'.split(':')[0].split('/')[0] == 'registry.example.com'",
        "'aaa'.replace('a', 'b') == 'bbb' && 'aaa'.replace('a', 'b', 2) == 'bba' && 'aaa'.replace('a', 'b', -1) == 'bbb'",
        "'héllo'.substring(1) == 'éllo' && 'héllo'.substring(1, 3) == 'él' && 'abc'.substring(3) == ''",
        "'héllo'.indexOf('l') == 2 && 'héllo'.lastIndexOf('l') == 3 && 'abc'.indexOf('z') == -1",
        "'abcabc'.indexOf('bc', 2) == 4 && 'abcabc'.lastIndexOf('bc', 3) == 1 && 'abc'.indexOf('') == 0",
        "'abc'.lastIndexOf('') == 3 && 'ab'.indexOf('abc') == -1 && 'abc'.charAt(1) == 'b' && 'abc'.charAt(3) == ''",
        "[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2 && ['x'].indexOf('y') == -1",
        "metadata.name.split('').size() == 1 && 'a.b'.split('.', -1).size() == 2",
    ] {
        assert!(truth(source, &w), "{source}");
    }
    assert!(
        eval("'abc'.substring(2, 1)", &w)
            .unwrap_err()
            .message
            .contains("index out of range")
    );
    assert!(eval("'abc'.substring(-1)", &w).is_err());
    assert!(eval("'abc'.indexOf('a', 4)", &w).is_err());
    assert!(eval("'abc'.charAt(4)", &w).is_err());
    assert!(
        eval("[1, 2].join()", &w)
            .unwrap_err()
            .message
            .contains("list of strings")
    );
    assert!(
        eval("'a'.split(1)", &w)
            .unwrap_err()
            .message
            .contains("no such overload")
    );
    let error = Program::compile("split('a', ',')").unwrap_err();
    assert!(error.message.contains("called as a method"), "{error}");
    let error = Program::compile("'a'.replace('a')").unwrap_err();
    assert!(
        error.message.contains("replace takes 2 to 3 argument(s)"),
        "{error}"
    );
}

#[test]
fn optional_selection_gives_none_for_absent_fields() {
    let w = widget();
    for source in [
        "metadata.?labels.hasValue() && metadata.?annotations.hasValue() == false",
        "metadata.?annotations.orValue({}).size() == 0",
        "metadata.?labels[?'tier'].orValue('') == 'web'",
        "metadata.?labels[?'team'].orValue('none') == 'none'",
        "metadata.?annotations.owner.orValue('x') == 'x'",
        "metadata.?labels.tier.value() == 'web'",
        "status.conditions[?5].hasValue() == false && status.conditions[?0].type.value() == 'Ready'",
        "has(metadata.?labels.tier) && !has(metadata.?annotations.owner)",
        "optional.of(1).value() == 1 && !optional.none().hasValue()",
        "optional.ofNonZeroValue('').hasValue() == false && optional.ofNonZeroValue([1]).hasValue()",
        "optional.none().or(optional.of(2)).value() == 2 && optional.of(1).or(optional.of(2)).value() == 1",
        "optional.none() == optional.none() && optional.of(1) != optional.none() && optional.of(1) == optional.of(1.0)",
        "self.?spec.?replicas.orValue(1) == 3",
    ] {
        assert!(truth(source, &w), "{source}");
    }
    assert_eq!(
        eval("optional.none().value()", &w).unwrap_err().message,
        "optional.none() dereference"
    );
    assert!(
        eval("metadata.?labels.tier.missing.orValue(1)", &w)
            .unwrap_err()
            .message
            .contains("cannot select a field from a string")
    );
    assert!(eval("spec.replicas.?x", &w).is_err());
    assert_eq!(eval("metadata.?nothing", &w).unwrap(), json!(null));
    assert_eq!(eval("metadata.?name", &w).unwrap(), json!("w"));
    assert!(
        Program::compile("optional.maybe(1)")
            .unwrap_err()
            .message
            .contains("unknown function \"optional.maybe\"")
    );
    assert!(Program::compile("optional.none(1)").is_err());
    assert!(Program::compile("x.?").is_err());
}

#[test]
fn reserved_words_name_fields_but_not_variables() {
    let request = json!({"request": {"namespace": "shop", "package": "p"}, "namespace": "top"});
    assert!(truth(
        "request.namespace == 'shop' && request.?package.orValue('') == 'p'",
        &request
    ));
    let error = Program::compile("namespace == 'top'").unwrap_err();
    assert!(error.message.contains("reserved word"), "{error}");
}
