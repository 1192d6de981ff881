//! `weft rotate-seed APP`: replace an app's render seed on a Weft server (admin), so every random value, key and
//! certificate its charts draw changes at its next render. The seed is never shown.

use serde::Deserialize;

use super::{RemoteArgs, block_on};

#[derive(Debug, clap::Args)]
pub(crate) struct RotateSeedArgs {
    /// The app.
    app: String,
    #[command(flatten)]
    remote: RemoteArgs,
}

/// The answer of `POST /v1/deploy/{app}/render-seed/rotate`.
#[derive(Debug, Deserialize)]
struct SeedRotated {
    message: String,
}

pub(crate) fn run(args: RotateSeedArgs) -> anyhow::Result<u8> {
    block_on(async move {
        let client = args.remote.connect()?;
        let rotated: SeedRotated = client
            .post(
                &["v1", "deploy", &args.app, "render-seed", "rotate"],
                &serde_json::json!({}),
            )
            .await?;
        eprintln!("weft: {}", rotated.message);
        Ok(0)
    })
}
