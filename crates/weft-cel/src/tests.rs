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
