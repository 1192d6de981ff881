//! Helm's own checks, `required` and `fail`, and `lookup` as `helm template` has it: offline, every lookup finds
//! nothing (an empty map), so charts take their "not installed yet" branch.

use super::convert::strval;
use super::{arity, string_arg};
use crate::template::{FunctionTable, Value};

pub fn register(table: &mut FunctionTable) {
    table.insert("required", |_, a| {
        arity("required", &a, 2)?;
        match &a[1] {
            Value::Nil => Err(strval(&a[0])),
            Value::String(s) if s.is_empty() => Err(strval(&a[0])),
            value => Ok(value.clone()),
        }
    });
    table.insert("fail", |_, a| {
        arity("fail", &a, 1)?;
        Err(strval(&a[0]))
    });
    table.insert("lookup", |_, a| {
        arity("lookup", &a, 4)?;
        for index in 0..4 {
            string_arg(&a, index)?;
        }
        Ok(Value::empty_map())
    });
}

#[cfg(test)]
mod tests {
    use crate::funcs::testing::{call, s};
    use crate::template::Value;

    #[test]
    fn required_refuses_nil_and_empty_strings() {
        assert_eq!(
            call("required", vec![s("need x"), Value::Nil]),
            Err("need x".into())
        );
        assert_eq!(
            call("required", vec![s("need x"), s("")]),
            Err("need x".into())
        );
        assert_eq!(
            call("required", vec![s("need x"), Value::Int(0)]),
            Ok(Value::Int(0))
        );
        assert_eq!(call("fail", vec![s("stop")]), Err("stop".into()));
        assert_eq!(
            call("lookup", vec![s("v1"), s("Secret"), s("ns"), s("x")]),
            Ok(Value::empty_map())
        );
        assert!(call("lookup", vec![s("v1"), s("Secret")]).is_err());
    }
}
