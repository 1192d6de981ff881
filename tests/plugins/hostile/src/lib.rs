//! A health plugin that misbehaves on request, to show the host contains it: the object's kind picks the
//! misbehaviour (`Loop`, `Allocate`, `Recurse`, `Panic`, `Huge`); any other kind is assessed normally.

use std::hint::black_box;

use weft_sdk::{Context, Health, HealthCheck, Object, PluginError};

/// The misbehaving check.
#[derive(Debug)]
pub struct HostileHealth;

impl HealthCheck for HostileHealth {
    fn assess(obj: &Object, _cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        match obj.kind() {
            "Loop" => loop {
                black_box(());
            },
            "Allocate" => {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    hoard.push(Vec::<u8>::with_capacity(1 << 20));
                    black_box(&hoard);
                }
            }
            "Recurse" => Ok(Some(Health::healthy(format!("{}", recurse(black_box(1)))))),
            "Panic" => panic!("hostile plugin panicked on purpose"),
            "Huge" => Ok(Some(Health::healthy("x".repeat(100 << 20)))),
            _ => Ok(Some(Health::healthy("well behaved"))),
        }
    }
}

/// Recurses without end; the arithmetic after the call keeps it from becoming a loop.
#[allow(unconditional_recursion)]
fn recurse(depth: u64) -> u64 {
    let below = recurse(black_box(depth + 1));
    black_box(below.wrapping_mul(depth))
}

weft_sdk::export_health_check!(HostileHealth);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_for_other_kinds() {
        let obj =
            Object::from_json(r#"{"apiVersion":"hostile.weft.dev/v1","kind":"Calm"}"#).unwrap();
        assert_eq!(
            weft_sdk::testing::assess::<HostileHealth>(&obj).unwrap(),
            Some(Health::healthy("well behaved"))
        );
    }
}
