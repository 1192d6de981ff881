//! Weft's container image definition (`deploy/Dockerfile`) and its chart agree: the image runs as the user the
//! chart's pod runs as, serves on the port the chart probes, starts `weft serve` without a shell, and carries the
//! built-in plugins where `weft` finds them. (No container engine runs here: the image itself is built where one
//! does; these are the properties the chart relies on.)

use std::path::Path;

fn dockerfile() -> String {
    std::fs::read_to_string(weft_tests::workspace().join("deploy/Dockerfile")).unwrap()
}

fn chart_values() -> serde_json::Value {
    let text =
        std::fs::read_to_string(weft_tests::workspace().join("deploy/helm/weft/values.yaml"))
            .unwrap();
    serde_norway::from_str(&text).unwrap()
}

/// The instructions of the last stage, `(INSTRUCTION, arguments)`, continuation lines joined.
fn final_stage(text: &str) -> Vec<(String, String)> {
    let joined = text.replace("\\\n", " ");
    let instructions: Vec<(String, String)> = joined
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let (word, rest) = line.split_once(char::is_whitespace)?;
            Some((word.to_ascii_uppercase(), rest.trim().to_string()))
        })
        .collect();
    let last_from = instructions
        .iter()
        .rposition(|(word, _)| word == "FROM")
        .expect("a FROM");
    instructions[last_from..].to_vec()
}

#[test]
fn the_image_is_multi_stage_non_root_shell_free_at_start_and_carries_the_plugins() {
    let text = dockerfile();
    assert!(
        text.lines().filter(|l| l.starts_with("FROM ")).count() >= 2,
        "a build stage and a run stage"
    );
    let stage = final_stage(&text);
    let get = |word: &str| {
        stage
            .iter()
            .rev()
            .find(|(w, _)| w == word)
            .map(|(_, rest)| rest.clone())
            .unwrap_or_else(|| panic!("the run stage has no {word}"))
    };
    let user = get("USER");
    let uid: u32 = user
        .split(':')
        .next()
        .unwrap()
        .parse()
        .expect("a numeric user");
    assert_ne!(uid, 0, "not root");
    // Exec form: the binary starts directly, no `sh -c`.
    let entrypoint: Vec<String> = serde_json::from_str(&get("ENTRYPOINT")).expect("exec form");
    assert_eq!(entrypoint, ["/usr/local/bin/weft"]);
    let command: Vec<String> = serde_json::from_str(&get("CMD")).expect("exec form");
    assert_eq!(command[0], "serve");
    // The plugins are copied to where the executable looks for them (and where the environment says).
    let plugins = stage
        .iter()
        .find(|(w, rest)| w == "COPY" && rest.contains("plugins"))
        .map(|(_, rest)| rest.split_whitespace().last().unwrap().to_string())
        .expect("the plugins copied in");
    let exe_dir = Path::new("/usr/local/bin");
    assert!(
        weft_plugin_host::registry::Registry::builtin_candidates(exe_dir)
            .iter()
            .any(|candidate| normalize(candidate) == Path::new(&plugins)),
        "{plugins} is not where weft looks"
    );
    assert!(get("ENV").contains(&format!("WEFT_BUILTIN_PLUGINS={plugins}")));

    // The chart runs the pod as that user and probes the port the image serves on.
    let values = chart_values();
    let deployment = std::fs::read_to_string(
        weft_tests::workspace().join("deploy/helm/weft/templates/deployment.yaml"),
    )
    .unwrap();
    assert!(
        deployment.contains(&format!("runAsUser: {uid}")),
        "the chart's user"
    );
    assert_eq!(
        get("EXPOSE"),
        values["service"]["port"].as_u64().unwrap().to_string()
    );
}

/// `a/b/../c` as `a/c`.
fn normalize(path: &Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
