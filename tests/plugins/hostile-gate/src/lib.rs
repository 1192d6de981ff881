//! A deploy gate that misbehaves on request, to show the host contains it and fails closed: its settings pick the
//! behaviour (`loop`, `panic`, `huge`, `error`, `blank-rule`); `echo` denies with every object's manifest as a
//! reason's message, so a test can see exactly what a gate was shown; anything else allows.

use std::hint::black_box;

use weft_sdk::PluginError;
use weft_sdk::gate::{DeployGate, GateRequest, Reason, Verdict};

/// The misbehaving gate.
#[derive(Debug)]
pub struct HostileGate;

impl DeployGate for HostileGate {
    fn evaluate(request: &GateRequest) -> Result<Verdict, PluginError> {
        // The settings are JSON: the behaviour is a string.
        let settings = weft_sdk::settings::get();
        let behaviour: String = weft_sdk::serde_json::from_str(&settings).unwrap_or(settings);
        match behaviour.as_str() {
            "loop" => loop {
                black_box(());
            },
            "panic" => panic!("hostile gate panicked on purpose"),
            "huge" => Ok(Verdict::Deny(vec![Reason::new(
                "",
                "huge",
                "x".repeat(64 << 20),
            )])),
            "error" => Err(PluginError::failed("the gate could not judge this plan")),
            "blank-rule" => Ok(Verdict::Deny(vec![Reason::new("", " ", "no rule named")])),
            "echo" => Ok(Verdict::Deny(
                request
                    .objects
                    .iter()
                    .map(|object| {
                        Reason::new(&object.reference, "echo", object.manifest.to_string())
                    })
                    .chain(
                        request
                            .images
                            .iter()
                            .map(|image| Reason::new("", "image", format!("{image:?}"))),
                    )
                    .collect(),
            )),
            _ => Ok(Verdict::Allow),
        }
    }
}

weft_sdk::export_gate!(HostileGate);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_settings_it_allows() {
        let request = GateRequest {
            app: Default::default(),
            revision: "abc".into(),
            objects: Vec::new(),
            images: Vec::new(),
            build: None,
        };
        assert_eq!(HostileGate::evaluate(&request).unwrap(), Verdict::Allow);
    }
}
