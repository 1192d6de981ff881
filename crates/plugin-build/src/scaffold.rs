//! `weft plugin new`: the files of a standalone health-check plugin for one kind, in Rust, Python or JavaScript.
//! Every scaffold is the same check (paused, generation, Ready condition, children's replicas) with the same
//! Argo CD-style suite, a child case included, so what a newcomer starts from already passes its tests in
//! `weft plugin test` and in the language's own runner.

use weft_plugin_contract::Language;

/// What the scaffold is made for.
#[derive(Debug, Clone)]
pub struct ScaffoldRequest {
    /// The plugin's name (also the Rust package's).
    pub name: String,
    /// The kind it serves, `group/Kind` (`acme.io/Database`); the core group is empty.
    pub kind: String,
    /// The language.
    pub language: Language,
    /// How the plugin depends on the SDK: a path to Weft's `sdk/` (Rust) or `sdk/js` (JavaScript) when Weft runs
    /// from a checkout, else the published package.
    pub sdk: SdkLocation,
}

/// Where a scaffold finds the language SDK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SdkLocation {
    /// The checkout of Weft at this path (its `sdk/`, `sdk/python`, `sdk/js`).
    Checkout(String),
    /// The published packages (`weft-sdk` on crates.io, PyPI and npm).
    Published,
}

/// Why a scaffold cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScaffoldError {
    /// The name is not a plugin name.
    #[error("plugin name {0:?}: use lowercase letters, digits and '-', starting with a letter")]
    Name(String),
    /// The kind is not `group/Kind`.
    #[error("kind {0:?}: write it as group/Kind (acme.io/Database), or /Kind for the core group")]
    Kind(String),
}

/// One file of a scaffold: its path in the plugin's folder and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaffoldFile {
    /// Relative path, `/`-separated.
    pub path: String,
    /// Contents.
    pub text: String,
}

/// The files of a new plugin.
pub fn scaffold(request: &ScaffoldRequest) -> Result<Vec<ScaffoldFile>, ScaffoldError> {
    let name = &request.name;
    let valid_name = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.ends_with('-');
    if !valid_name {
        return Err(ScaffoldError::Name(name.clone()));
    }
    let (group, kind) = request
        .kind
        .split_once('/')
        .filter(|(group, kind)| {
            kind.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && kind.chars().all(|c| c.is_ascii_alphanumeric())
                && group
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-')
        })
        .ok_or_else(|| ScaffoldError::Kind(request.kind.clone()))?;
    let api_version = if group.is_empty() {
        "v1".to_string()
    } else {
        format!("{group}/v1")
    };
    let vars = Vars {
        name: name.clone(),
        kind: kind.to_string(),
        kind_key: format!("{group}/{kind}"),
        kind_lower: kind.to_ascii_lowercase(),
        api_version,
        sdk: request.sdk.clone(),
        language: request.language,
    };
    let mut files = vec![
        vars.file("weft-plugin.toml", &vars.manifest()),
        vars.file("health_test.yaml", SUITE),
        vars.file("testdata/healthy.yaml", CASE_HEALTHY),
        vars.file("testdata/paused.yaml", CASE_PAUSED),
        vars.file("testdata/new-generation.yaml", CASE_NEW_GENERATION),
        vars.file("testdata/failed.yaml", CASE_FAILED),
        vars.file("testdata/child-not-ready.yaml", CASE_CHILD_NOT_READY),
        vars.file("README.md", &vars.readme()),
    ];
    match request.language {
        Language::Rust => {
            files.push(vars.file("Cargo.toml", &vars.cargo_toml()));
            files.push(vars.file("src/lib.rs", RUST_CHECK));
            files.push(vars.file(".gitignore", "/target\n/dist\n"));
        }
        Language::Python => {
            files.push(vars.file("check.py", PYTHON_CHECK));
            files.push(vars.file("test_check.py", PYTHON_TEST));
            files.push(vars.file(".gitignore", "/dist\n__pycache__/\n"));
        }
        Language::JavaScript => {
            files.push(vars.file("check.js", JS_CHECK));
            files.push(vars.file("check.test.js", JS_TEST));
            files.push(vars.file("package.json", &vars.package_json()));
            files.push(vars.file(".gitignore", "/dist\nnode_modules/\n"));
        }
    }
    Ok(files)
}

/// The words a scaffold's templates are filled with.
struct Vars {
    name: String,
    kind: String,
    kind_key: String,
    kind_lower: String,
    api_version: String,
    sdk: SdkLocation,
    language: Language,
}

impl Vars {
    fn fill(&self, template: &str) -> String {
        template
            .replace("{{NAME}}", &self.name)
            .replace("{{KIND_KEY}}", &self.kind_key)
            .replace("{{KIND_LOWER}}", &self.kind_lower)
            .replace("{{KIND}}", &self.kind)
            .replace("{{API_VERSION}}", &self.api_version)
    }

    fn file(&self, path: &str, template: &str) -> ScaffoldFile {
        ScaffoldFile {
            path: path.to_string(),
            text: self.fill(template),
        }
    }

    fn manifest(&self) -> String {
        let build = match self.language {
            Language::Rust => "# A small stack keeps the memory a call touches inside the host's resident region.\n\
                               [build]\nstack-kib = 128\n"
                .to_string(),
            Language::Python => "[build]\nlanguage = \"python\"\nmodule = \"check\"\n".to_string(),
            Language::JavaScript => {
                "[build]\nlanguage = \"javascript\"\nentry = \"check.js\"\n".to_string()
            }
        };
        format!(
            "# The plugin: its name, its world, and the kinds it serves (`group/Kind`).\n\
             name = \"{{{{NAME}}}}\"\n\
             world = \"health-check\"\n\
             kinds = [\"{{{{KIND_KEY}}}}\"]\n\
             # The kinds of the children the check reads: objects an operator makes for a {{{{KIND}}}}, which the app\n\
             # itself may not deploy. `weft serve` watches them so that `children` finds them.\n\
             child-kinds = [\"apps/Deployment\", \"apps/StatefulSet\"]\n\n{build}"
        )
        .replace("{{NAME}}", &self.name)
        .replace("{{KIND_KEY}}", &self.kind_key)
        .replace("{{KIND}}", &self.kind)
    }

    fn cargo_toml(&self) -> String {
        let dependency = match &self.sdk {
            SdkLocation::Checkout(weft) => format!(
                "weft-sdk = {{ path = \"{}/sdk\", default-features = false, features = [\"health\"] }}",
                weft.trim_end_matches('/')
            ),
            SdkLocation::Published => {
                "weft-sdk = { version = \"0.1\", default-features = false, features = [\"health\"] }".into()
            }
        };
        self.fill(&format!(
            "[package]\n\
             name = \"{{{{NAME}}}}\"\n\
             version = \"0.1.0\"\n\
             edition = \"2024\"\n\
             publish = false\n\n\
             [lib]\n\
             # cdylib: the component `weft plugin build` makes; rlib: `cargo test` runs the check natively.\n\
             crate-type = [\"cdylib\", \"rlib\"]\n\n\
             [dependencies]\n\
             {dependency}\n\n\
             # The plugin is a workspace of its own: it builds alone, whatever repository it sits in.\n\
             [workspace]\n"
        ))
    }

    fn package_json(&self) -> String {
        let sdk = match &self.sdk {
            SdkLocation::Checkout(weft) => format!("file:{}/sdk/js", weft.trim_end_matches('/')),
            SdkLocation::Published => "^0.1.0".into(),
        };
        self.fill(&format!(
            "{{\n  \"name\": \"{{{{NAME}}}}\",\n  \"version\": \"0.1.0\",\n  \"private\": true,\n  \
             \"type\": \"module\",\n  \"scripts\": {{\n    \"test\": \"node --test\"\n  }},\n  \
             \"devDependencies\": {{\n    \"weft-sdk\": \"{sdk}\",\n    \"yaml\": \"^2.8.0\"\n  }}\n}}\n"
        ))
    }

    fn readme(&self) -> String {
        let (test, native) = match self.language {
            Language::Rust => ("cargo test", "`cargo test` runs the suite natively"),
            Language::Python => (
                "python3 -m unittest",
                "`python3 -m unittest` runs the suite natively (it needs `pip install PyYAML` and the SDK: \
                 `pip install -e WEFT/sdk/python`, or `PYTHONPATH=WEFT/sdk/python`)",
            ),
            Language::JavaScript => (
                "npm install && npm test",
                "`npm install && npm test` runs the suite natively with node",
            ),
        };
        let native = native.to_string();
        self.fill(
            &README
                .replace("{{TEST}}", test)
                .replace("{{NATIVE}}", &native),
        )
    }
}

const README: &str = r#"# {{NAME}}

A Weft health check for `{{KIND_KEY}}`.

```sh
weft plugin build .                        # builds the component into dist/
weft plugin test . health_test.yaml        # builds if needed, then runs the suite in the sandbox
{{TEST}}
```

{{NATIVE}}; `weft plugin test` runs the same suite against the built component, in the sandbox `weft serve` uses,
and both print a failure the same way.

The check reads, in order: `spec.paused` (suspended), whether the controller has observed the latest generation
(progressing), the `Ready` condition (degraded when `False`), the replicas of the Deployments and StatefulSets the
{{KIND}} owns (progressing while fewer are ready than wanted), then `Ready` again (healthy when `True`).

Children are the objects whose `metadata.ownerReferences[].uid` is the {{KIND}}'s `metadata.uid`; a case file's
documents after the first are its children. `child-kinds` in `weft-plugin.toml` lists the kinds of children the
check reads, so that `weft serve` watches them even when the app does not deploy any.

Use it: `weft serve --config weft.toml` with `[plugins] dirs = ["path/to/{{NAME}}/dist"]`, or
`weft health --plugins dist FILE.yaml`.
"#;

const SUITE: &str = r#"# Argo CD's health_test.yaml format: `weft plugin test . health_test.yaml`.
tests:
- healthStatus:
    status: Healthy
    message: "{{KIND}} is ready"
  inputPath: testdata/healthy.yaml
- healthStatus:
    status: Suspended
    message: "{{KIND}} is paused"
  inputPath: testdata/paused.yaml
- healthStatus:
    status: Progressing
    message: "Waiting for the controller to observe generation 3"
  inputPath: testdata/new-generation.yaml
- healthStatus:
    status: Degraded
    message: "disk quota exceeded"
  inputPath: testdata/failed.yaml
- healthStatus:
    status: Progressing
    message: "Waiting for StatefulSet {{KIND_LOWER}}-data: 0 of 2 replicas ready"
  inputPath: testdata/child-not-ready.yaml
"#;

const CASE_HEALTHY: &str = r#"apiVersion: {{API_VERSION}}
kind: {{KIND}}
metadata:
  name: main
  namespace: prod
  uid: 7c0a-{{KIND_LOWER}}
  generation: 2
status:
  observedGeneration: 2
  conditions:
  - type: Ready
    status: "True"
    message: "{{KIND}} is ready"
"#;

const CASE_PAUSED: &str = r#"apiVersion: {{API_VERSION}}
kind: {{KIND}}
metadata:
  name: main
  uid: 7c0a-{{KIND_LOWER}}
spec:
  paused: true
"#;

const CASE_NEW_GENERATION: &str = r#"apiVersion: {{API_VERSION}}
kind: {{KIND}}
metadata:
  name: main
  uid: 7c0a-{{KIND_LOWER}}
  generation: 3
status:
  observedGeneration: 2
  conditions:
  - type: Ready
    status: "True"
    message: "{{KIND}} is ready"
"#;

const CASE_FAILED: &str = r#"apiVersion: {{API_VERSION}}
kind: {{KIND}}
metadata:
  name: main
  uid: 7c0a-{{KIND_LOWER}}
  generation: 1
status:
  observedGeneration: 1
  conditions:
  - type: Ready
    status: "False"
    reason: Failed
    message: "disk quota exceeded"
"#;

const CASE_CHILD_NOT_READY: &str = r#"# The {{KIND}} says Ready, but the StatefulSet its operator made for it (the second document: a child, found by its
# ownerReference to the {{KIND}}'s uid) has no ready replica yet.
apiVersion: {{API_VERSION}}
kind: {{KIND}}
metadata:
  name: main
  namespace: prod
  uid: 7c0a-{{KIND_LOWER}}
  generation: 2
status:
  observedGeneration: 2
  conditions:
  - type: Ready
    status: "True"
    message: "{{KIND}} is ready"
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{KIND_LOWER}}-data
  namespace: prod
  uid: 41d2-statefulset
  ownerReferences:
  - apiVersion: {{API_VERSION}}
    kind: {{KIND}}
    name: main
    uid: 7c0a-{{KIND_LOWER}}
    controller: true
spec:
  replicas: 2
status:
  replicas: 2
  readyReplicas: 0
"#;

const RUST_CHECK: &str = r#"//! The health of `{{KIND_KEY}}`.

use weft_sdk::{Context, Health, HealthCheck, Object, PluginError};

/// Health of `{{KIND_KEY}}`.
#[derive(Debug)]
pub struct {{KIND}}Health;

impl HealthCheck for {{KIND}}Health {
    fn assess(obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        if obj.bool("spec.paused") == Some(true) {
            return Ok(Some(Health::suspended("{{KIND}} is paused")));
        }
        if !obj.generation_observed() {
            return Ok(Some(Health::progressing(format!(
                "Waiting for the controller to observe generation {}",
                obj.generation().unwrap_or_default()
            ))));
        }
        let ready = obj.condition("Ready");
        if let Some(c) = ready.filter(|c| c.is_false()) {
            return Ok(Some(Health::degraded(c.message())));
        }
        for child in cx.children(obj) {
            if !matches!(child.kind(), "Deployment" | "StatefulSet") {
                continue;
            }
            let replicas = child.replicas();
            if replicas.ready < replicas.desired {
                return Ok(Some(Health::progressing(format!(
                    "Waiting for {} {}: {} of {} replicas ready",
                    child.kind(),
                    child.name(),
                    replicas.ready,
                    replicas.desired
                ))));
            }
        }
        Ok(Some(match ready {
            Some(c) if c.is_true() => Health::healthy(c.message()),
            _ => Health::progressing("Waiting for the Ready condition"),
        }))
    }
}

weft_sdk::export_health_check!({{KIND}}Health);

#[cfg(test)]
mod tests {
    use std::path::Path;

    use weft_sdk::testing;

    use super::{{KIND}}Health;

    #[test]
    fn passes_its_suite_natively() {
        let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("health_test.yaml");
        let report = testing::run_health_suite::<{{KIND}}Health>(&suite).unwrap();
        assert!(report.failures.is_empty(), "{:#?}", report.failures);
        assert!(report.passed > 0, "the suite has no case");
    }
}
"#;

const PYTHON_CHECK: &str = r#""""The health of ``{{KIND_KEY}}``.

Import everything at the top of the module: the component holds only what was imported when it was built.
"""

from __future__ import annotations

from weft import Context, Health, Object, health_check


@health_check
def assess(obj: Object, cx: Context) -> Health | None:
    """Health of ``{{KIND_KEY}}``."""
    if obj.bool("spec.paused") is True:
        return Health.suspended("{{KIND}} is paused")
    if not obj.generation_observed:
        return Health.progressing(
            f"Waiting for the controller to observe generation {obj.generation or 0}"
        )
    ready = obj.condition("Ready")
    if ready is not None and ready.is_false:
        return Health.degraded(ready.message)
    for child in cx.children(obj):
        if child.kind not in ("Deployment", "StatefulSet"):
            continue
        replicas = child.replicas()
        if replicas.ready < replicas.desired:
            return Health.progressing(
                f"Waiting for {child.kind} {child.name}: "
                f"{replicas.ready} of {replicas.desired} replicas ready"
            )
    if ready is not None and ready.is_true:
        return Health.healthy(ready.message)
    return Health.progressing("Waiting for the Ready condition")
"""#;

const PYTHON_TEST: &str = r#""""Runs the suite natively: `python3 -m unittest`."""

import pathlib
import unittest

from weft import testing

import check


class SuiteTest(unittest.TestCase):
    def test_passes_its_suite(self) -> None:
        suite = pathlib.Path(__file__).parent / "health_test.yaml"
        report = testing.run_suite(check.assess, suite)
        self.assertEqual(report.failures, [])
        self.assertGreater(report.passed, 0)


if __name__ == "__main__":
    unittest.main()
"#;

const JS_CHECK: &str = r#"// The health of `{{KIND_KEY}}`.

import { Health } from 'weft-sdk';

/** Health of `{{KIND_KEY}}`. */
export function assess(obj, cx) {
  if (obj.bool('spec.paused') === true) {
    return Health.suspended('{{KIND}} is paused');
  }
  if (!obj.generationObserved()) {
    return Health.progressing(
      `Waiting for the controller to observe generation ${obj.generation ?? 0}`,
    );
  }
  const ready = obj.condition('Ready');
  if (ready && ready.isFalse()) {
    return Health.degraded(ready.message);
  }
  for (const child of cx.children(obj)) {
    if (child.kind !== 'Deployment' && child.kind !== 'StatefulSet') continue;
    const replicas = child.replicas();
    if (replicas.ready < replicas.desired) {
      return Health.progressing(
        `Waiting for ${child.kind} ${child.name}: ${replicas.ready} of ${replicas.desired} replicas ready`,
      );
    }
  }
  if (ready && ready.isTrue()) {
    return Health.healthy(ready.message);
  }
  return Health.progressing('Waiting for the Ready condition');
}
"#;

const JS_TEST: &str = r#"// Runs the suite natively: `npm test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSuite } from 'weft-sdk/testing';

import { assess } from './check.js';

test('passes its suite', () => {
  const report = runSuite(assess, new URL('./health_test.yaml', import.meta.url).pathname);
  assert.deepEqual(report.failures, []);
  assert.ok(report.passed > 0, 'the suite has no case');
});
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn request(language: Language) -> ScaffoldRequest {
        ScaffoldRequest {
            name: "health-database".into(),
            kind: "acme.io/Database".into(),
            language,
            sdk: SdkLocation::Checkout("/src/weft".into()),
        }
    }

    fn text<'a>(files: &'a [ScaffoldFile], path: &str) -> &'a str {
        &files.iter().find(|f| f.path == path).unwrap().text
    }

    #[test]
    fn a_rust_scaffold_is_its_own_workspace_depending_on_the_checkouts_sdk() {
        let files = scaffold(&request(Language::Rust)).unwrap();
        let cargo: toml::Table = text(&files, "Cargo.toml").parse().unwrap();
        assert!(cargo.contains_key("workspace"));
        assert_eq!(
            cargo["dependencies"]["weft-sdk"]["path"].as_str(),
            Some("/src/weft/sdk")
        );
        assert!(text(&files, "src/lib.rs").contains("pub struct DatabaseHealth;"));
        let manifest =
            weft_plugin_contract::PluginManifest::parse(text(&files, "weft-plugin.toml")).unwrap();
        assert_eq!(manifest.kinds, ["acme.io/Database"]);
        assert_eq!(manifest.build.stack_kib, Some(128));
    }

    #[test]
    fn every_language_gets_the_same_suite_with_a_child_case() {
        for language in [Language::Rust, Language::Python, Language::JavaScript] {
            let files = scaffold(&request(language)).unwrap();
            let suite = text(&files, "health_test.yaml");
            assert!(
                suite.contains("testdata/child-not-ready.yaml"),
                "{language}"
            );
            let child = text(&files, "testdata/child-not-ready.yaml");
            assert!(child.contains("uid: 7c0a-database") && child.contains("kind: StatefulSet"));
            let manifest =
                weft_plugin_contract::PluginManifest::parse(text(&files, "weft-plugin.toml"))
                    .unwrap();
            assert_eq!(manifest.build.language.unwrap_or(Language::Rust), language);
            assert!(!files.iter().any(|f| f.text.contains("{{")), "{language}");
        }
    }

    #[test]
    fn a_javascript_scaffold_depends_on_the_sdk_and_yaml() {
        let files = scaffold(&request(Language::JavaScript)).unwrap();
        let package: serde_json::Value =
            serde_json::from_str(text(&files, "package.json")).unwrap();
        assert_eq!(
            package["devDependencies"]["weft-sdk"],
            "file:/src/weft/sdk/js"
        );
        assert!(package["devDependencies"]["yaml"].is_string());
    }

    #[test]
    fn bad_names_and_kinds_are_refused() {
        let mut bad = request(Language::Rust);
        bad.name = "Health Database".into();
        assert!(matches!(scaffold(&bad), Err(ScaffoldError::Name(_))));
        let mut bad = request(Language::Rust);
        bad.kind = "Database".into();
        assert!(matches!(scaffold(&bad), Err(ScaffoldError::Kind(_))));
        let mut core = request(Language::Python);
        core.kind = "/ConfigMap".into();
        let files = scaffold(&core).unwrap();
        assert!(text(&files, "testdata/healthy.yaml").starts_with("apiVersion: v1\n"));
    }
}
