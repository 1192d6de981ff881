//! The registry harness against the real CNCF distribution registry: what it pushes is what the registry serves.
//! Without the registry the check is reported ignored, and under CI (`CI=true`) it fails.

use std::path::Path;
use std::process::ExitCode;

use weft_test_reference::{Failed, OCI_INDEX, Reference, Registry, digest_of};

fn main() -> ExitCode {
    let registry = Reference::docker_registry();
    let binary = registry.path().map(Path::to_path_buf).unwrap_or_default();
    let trials = vec![registry.trial(
        "an_index_lists_its_manifests_with_their_sizes_and_platforms",
        move || {
            an_index_lists_its_manifests_with_their_sizes_and_platforms(&binary);
            Ok::<(), Failed>(())
        },
    )];
    weft_test_reference::run(&[&registry], trials)
}

fn an_index_lists_its_manifests_with_their_sizes_and_platforms(binary: &Path) {
    let registry = Registry::start(binary, Some(("ci", "pw")));
    let config = |architecture: &str| {
        format!(
            r#"{{"architecture":"{architecture}","os":"linux","variant":"v8","rootfs":{{"type":"layers","diff_ids":[]}}}}"#
        )
    };
    let arm64 = registry.push_image("a/b", None, config("arm64").as_bytes(), b"arm64");
    let index = registry.push_index("a/b", "1", &[&arm64]);

    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let url = registry.url("/v2/a/b/manifests/1");
    let anonymous = agent.get(&url).call().expect("GET");
    assert_eq!(anonymous.status().as_u16(), 401, "htpasswd is required");

    use base64::Engine as _;
    let mut response = agent
        .get(&url)
        .header("Accept", OCI_INDEX)
        .header(
            "Authorization",
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode("ci:pw")
            ),
        )
        .call()
        .expect("GET");
    assert_eq!(response.status().as_u16(), 200);
    let bytes = response.body_mut().read_to_vec().expect("the index");
    assert_eq!(digest_of(&bytes), index);
    let served: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
    let entry = &served["manifests"][0];
    assert_eq!(entry["digest"], arm64.as_str());
    assert_eq!(
        entry["platform"],
        serde_json::json!({"architecture": "arm64", "os": "linux", "variant": "v8"})
    );
    assert!(entry["size"].as_u64().is_some_and(|size| size > 0));
    assert!(registry.host().starts_with("127.0.0.1:"));
}
