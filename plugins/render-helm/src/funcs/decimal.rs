//! Sprig's float arithmetic (`addf`, `add1f`, `subf`, `mulf`, `divf`) as Sprig computes it with shopspring/decimal:
//! each operand taken at its shortest decimal form (`NewFromFloat`), added, subtracted and multiplied exactly,
//! divided to 16 decimal places (half away from zero), and the result read back as the nearest float64 — so
//! `mulf 1.1 3` is 3.3, not 3.3000000000000003. Should an exact result not fit 128 bits, the float64 operation
//! stands in.

use super::{at_least, to_f64};
use crate::template::Value;

/// A decimal `coefficient × 10^exponent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Decimal {
    coefficient: i128,
    exponent: i32,
}

/// shopspring/decimal's `DivisionPrecision`.
const DIVISION_PLACES: i32 = 16;

impl Decimal {
    /// The float's shortest decimal form; `None` for NaN and infinities.
    fn from_f64(value: f64) -> Option<Decimal> {
        if !value.is_finite() {
            return None;
        }
        let text = format!("{value:e}");
        let (mantissa, exponent) = text.split_once('e')?;
        let exponent: i32 = exponent.parse().ok()?;
        let negative = mantissa.starts_with('-');
        let mantissa = mantissa.trim_start_matches('-');
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits: i128 = format!("{whole}{fraction}").parse().ok()?;
        Some(Decimal {
            coefficient: if negative { -digits } else { digits },
            exponent: exponent - fraction.len() as i32,
        })
    }

    fn to_f64(self) -> f64 {
        format!("{}e{}", self.coefficient, self.exponent)
            .parse()
            .unwrap_or(f64::NAN)
    }

    /// Both coefficients at the smaller exponent.
    fn aligned(self, other: Decimal) -> Option<(i128, i128, i32)> {
        let exponent = self.exponent.min(other.exponent);
        let scale = |d: Decimal| {
            10i128
                .checked_pow((d.exponent - exponent) as u32)
                .and_then(|factor| d.coefficient.checked_mul(factor))
        };
        Some((scale(self)?, scale(other)?, exponent))
    }

    fn add(self, other: Decimal) -> Option<Decimal> {
        let (a, b, exponent) = self.aligned(other)?;
        Some(Decimal {
            coefficient: a.checked_add(b)?,
            exponent,
        })
    }

    fn sub(self, other: Decimal) -> Option<Decimal> {
        let (a, b, exponent) = self.aligned(other)?;
        Some(Decimal {
            coefficient: a.checked_sub(b)?,
            exponent,
        })
    }

    fn mul(self, other: Decimal) -> Option<Decimal> {
        Some(Decimal {
            coefficient: self.coefficient.checked_mul(other.coefficient)?,
            exponent: self.exponent.checked_add(other.exponent)?,
        })
    }

    /// The quotient to 16 decimal places, half away from zero; the divisor is not zero.
    fn div(self, other: Decimal) -> Option<Decimal> {
        let shift = self.exponent - other.exponent + DIVISION_PLACES;
        let (numerator, denominator) = if shift >= 0 {
            (
                self.coefficient
                    .checked_mul(10i128.checked_pow(shift as u32)?)?,
                other.coefficient,
            )
        } else {
            (
                self.coefficient,
                other
                    .coefficient
                    .checked_mul(10i128.checked_pow((-shift) as u32)?)?,
            )
        };
        let mut quotient = numerator / denominator;
        let remainder = numerator % denominator;
        if remainder.unsigned_abs().checked_mul(2)? >= denominator.unsigned_abs() {
            quotient += if (numerator < 0) == (denominator < 0) {
                1
            } else {
                -1
            };
        }
        Some(Decimal {
            coefficient: quotient,
            exponent: -DIVISION_PLACES,
        })
    }
}

/// Which operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `addf`, `add1f`.
    Add,
    /// `subf`.
    Sub,
    /// `mulf`.
    Mul,
    /// `divf`.
    Div,
}

fn apply(op: Op, a: f64, b: f64) -> Result<f64, String> {
    if op == Op::Div && b == 0.0 {
        return Err("decimal division by 0".into());
    }
    let exact = Decimal::from_f64(a)
        .zip(Decimal::from_f64(b))
        .and_then(|(x, y)| match op {
            Op::Add => x.add(y),
            Op::Sub => x.sub(y),
            Op::Mul => x.mul(y),
            Op::Div => x.div(y),
        });
    Ok(match exact {
        Some(result) => result.to_f64(),
        None => match op {
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Div => a / b,
        },
    })
}

/// Folds the operands left to right (`addf` starts from 0, the others from their first operand).
pub fn fold(name: &str, op: Op, args: &[Value]) -> Result<Value, String> {
    let mut values = args.iter().map(to_f64);
    let first = if op == Op::Add {
        0.0
    } else {
        at_least(name, args, 1)?;
        values.next().unwrap_or(0.0)
    };
    values
        .try_fold(first, |total, value| apply(op, total, value))
        .map(Value::Float)
}

#[cfg(test)]
mod tests {
    use super::{Op, apply};

    #[test]
    fn float_arithmetic_is_decimal_as_in_sprig() {
        assert_eq!(apply(Op::Mul, 1.1, 3.0), Ok(3.3));
        assert_eq!(apply(Op::Add, 0.1, 0.2), Ok(0.3));
        assert_eq!(apply(Op::Sub, 0.3, 0.1), Ok(0.2));
        assert_eq!(apply(Op::Div, 1.0, 3.0), Ok(0.3333333333333333));
        assert_eq!(apply(Op::Div, 2.0, 3.0), Ok(0.6666666666666667));
        assert_eq!(apply(Op::Div, -2.0, 3.0), Ok(-0.6666666666666667));
        assert_eq!(
            apply(Op::Mul, 2.0, 1_152_921_504_606_846_976.0),
            Ok(2_305_843_009_213_693_952.0)
        );
        assert!(apply(Op::Div, 1.0, 0.0).is_err());
    }
}
