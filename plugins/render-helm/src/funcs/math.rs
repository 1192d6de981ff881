//! Sprig's arithmetic: int64 math (`add`, `sub`, `mul`, `div`, `mod`, `max`, `min`), float64 math (`addf`, ...,
//! `floor`, `ceil`, `round`) and the number conversions (`int`, `int64`, `float64`, `atoi`).

use super::convert::{to_f64, to_i64};
use super::decimal::{self, Op};
use super::{arity, at_least, string_arg};
use crate::template::{FunctionTable, Value};

pub fn register(table: &mut FunctionTable) {
    table.insert("add", |_, a| {
        Ok(Value::Int(
            a.iter().map(to_i64).fold(0i64, i64::wrapping_add),
        ))
    });
    table.insert("add1", |_, a| {
        arity("add1", &a, 1)?;
        Ok(Value::Int(to_i64(&a[0]).wrapping_add(1)))
    });
    table.insert("sub", |_, a| {
        arity("sub", &a, 2)?;
        Ok(Value::Int(to_i64(&a[0]).wrapping_sub(to_i64(&a[1]))))
    });
    table.insert("mul", |_, a| {
        at_least("mul", &a, 1)?;
        Ok(Value::Int(
            a.iter().map(to_i64).fold(1i64, i64::wrapping_mul),
        ))
    });
    table.insert("div", |_, a| {
        arity("div", &a, 2)?;
        let divisor = to_i64(&a[1]);
        if divisor == 0 {
            return Err("runtime error: integer divide by zero".into());
        }
        Ok(Value::Int(to_i64(&a[0]).wrapping_div(divisor)))
    });
    table.insert("mod", |_, a| {
        arity("mod", &a, 2)?;
        let divisor = to_i64(&a[1]);
        if divisor == 0 {
            return Err("runtime error: integer divide by zero".into());
        }
        Ok(Value::Int(to_i64(&a[0]).wrapping_rem(divisor)))
    });
    table.insert("max", |_, a| extreme("max", &a, i64::max));
    table.insert("biggest", |_, a| extreme("biggest", &a, i64::max));
    table.insert("min", |_, a| extreme("min", &a, i64::min));
    table.insert("addf", |_, a| decimal::fold("addf", Op::Add, &a));
    table.insert("add1f", |_, a| {
        arity("add1f", &a, 1)?;
        decimal::fold("add1f", Op::Add, &[a[0].clone(), Value::Int(1)])
    });
    table.insert("subf", |_, a| decimal::fold("subf", Op::Sub, &a));
    table.insert("mulf", |_, a| decimal::fold("mulf", Op::Mul, &a));
    table.insert("divf", |_, a| decimal::fold("divf", Op::Div, &a));
    table.insert("maxf", |_, a| fold_floats("maxf", &a, f64::max));
    table.insert("minf", |_, a| fold_floats("minf", &a, f64::min));
    table.insert("floor", |_, a| {
        arity("floor", &a, 1)?;
        Ok(Value::Float(to_f64(&a[0]).floor()))
    });
    table.insert("ceil", |_, a| {
        arity("ceil", &a, 1)?;
        Ok(Value::Float(to_f64(&a[0]).ceil()))
    });
    table.insert("round", |_, a| {
        at_least("round", &a, 2)?;
        let precision = to_i64(&a[1]) as i32;
        let threshold = a.get(2).map_or(0.5, to_f64);
        let scale = 10f64.powi(precision);
        let scaled = to_f64(&a[0]) * scale;
        let whole = scaled.trunc();
        let rounded = if (scaled - whole).abs() >= threshold {
            whole + scaled.signum()
        } else {
            whole
        };
        Ok(Value::Float(rounded / scale))
    });
    table.insert("int", |_, a| {
        arity("int", &a, 1)?;
        Ok(Value::Int(to_i64(&a[0])))
    });
    table.insert("int64", |_, a| {
        arity("int64", &a, 1)?;
        Ok(Value::Int(to_i64(&a[0])))
    });
    table.insert("float64", |_, a| {
        arity("float64", &a, 1)?;
        Ok(Value::Float(to_f64(&a[0])))
    });
    table.insert("toDecimal", |_, a| {
        arity("toDecimal", &a, 1)?;
        Ok(Value::Int(
            i64::from_str_radix(&super::strval(&a[0]), 8).unwrap_or(0),
        ))
    });
    table.insert("atoi", |_, a| {
        arity("atoi", &a, 1)?;
        Ok(Value::Int(string_arg(&a, 0)?.parse().unwrap_or(0)))
    });
}

fn extreme(name: &str, args: &[Value], pick: fn(i64, i64) -> i64) -> Result<Value, String> {
    at_least(name, args, 1)?;
    Ok(Value::Int(
        args.iter().map(to_i64).reduce(pick).unwrap_or(0),
    ))
}

fn fold_floats(name: &str, args: &[Value], op: fn(f64, f64) -> f64) -> Result<Value, String> {
    at_least(name, args, 1)?;
    Ok(Value::Float(
        args.iter().map(to_f64).reduce(op).unwrap_or(0.0),
    ))
}

#[cfg(test)]
mod tests {
    use crate::funcs::testing::{call, s};
    use crate::template::Value;

    #[test]
    fn int_math_truncates_like_cast() {
        assert_eq!(
            call("add", vec![Value::Float(1.9), Value::Int(2), s("3")]),
            Ok(Value::Int(6))
        );
        assert_eq!(
            call("sub", vec![Value::Int(5), Value::Int(7)]),
            Ok(Value::Int(-2))
        );
        assert_eq!(
            call("div", vec![Value::Int(7), Value::Int(2)]),
            Ok(Value::Int(3))
        );
        assert!(call("div", vec![Value::Int(7), Value::Int(0)]).is_err());
        assert_eq!(
            call("mod", vec![Value::Int(7), Value::Int(3)]),
            Ok(Value::Int(1))
        );
        assert_eq!(
            call("max", vec![Value::Int(1), Value::Float(5.0), Value::Int(3)]),
            Ok(Value::Int(5))
        );
        assert_eq!(
            call("min", vec![Value::Int(1), Value::Int(-5)]),
            Ok(Value::Int(-5))
        );
        assert_eq!(call("int", vec![s("42")]), Ok(Value::Int(42)));
    }

    #[test]
    fn float_math() {
        assert_eq!(
            call("addf", vec![Value::Float(1.5), Value::Int(2)]),
            Ok(Value::Float(3.5))
        );
        assert_eq!(
            call("divf", vec![Value::Int(1), Value::Int(4)]),
            Ok(Value::Float(0.25))
        );
        assert_eq!(
            call("round", vec![Value::Float(1.23456), Value::Int(2)]),
            Ok(Value::Float(1.23))
        );
        assert_eq!(
            call("floor", vec![Value::Float(2.7)]),
            Ok(Value::Float(2.0))
        );
        assert_eq!(call("float64", vec![s("2.5")]), Ok(Value::Float(2.5)));
    }
}
