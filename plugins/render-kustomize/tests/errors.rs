//! Render errors through the `Renderer` interface: budgets, located parse errors, objects without names,
//! parameters.

use std::path::PathBuf;

use render_kustomize::KustomizeRenderer;
use weft_sdk::RenderRequest;
use weft_sdk::testing::render_dir;

/// A scratch app directory holding `files`.
fn app(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("render-kustomize-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn request(parameters: &[(&str, &str)]) -> RenderRequest {
    RenderRequest {
        app: "test".into(),
        parameters: parameters
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Default::default()
    }
}

const CONFIG_MAPS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n\
                           apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n";

#[test]
fn a_small_budget_stops_the_build() {
    let dir = app(
        "budget",
        &[
            ("kustomization.yaml", "resources: [cm.yaml]\n"),
            ("cm.yaml", CONFIG_MAPS),
        ],
    );
    let err = render_dir::<KustomizeRenderer>(&request(&[("max-steps", "5")]), &dir).unwrap_err();
    assert!(err.message.contains("budget of 5 steps"), "{err}");
    let ok = render_dir::<KustomizeRenderer>(&request(&[]), &dir).unwrap();
    assert_eq!(ok.manifests.len(), 2);
    assert_eq!(ok.files_used, vec!["kustomization.yaml", "cm.yaml"]);
    let bad =
        render_dir::<KustomizeRenderer>(&request(&[("max-steps", "lots")]), &dir).unwrap_err();
    assert!(bad.message.contains("max-steps"), "{bad}");
}

#[test]
fn errors_point_at_file_and_line() {
    let dir = app(
        "located",
        &[
            ("kustomization.yaml", "resources: [cm.yaml]\n"),
            (
                "cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\n",
            ),
        ],
    );
    let err = render_dir::<KustomizeRenderer>(&request(&[]), &dir).unwrap_err();
    assert_eq!(err.file.as_deref(), Some("cm.yaml"));
    assert_eq!(err.line, Some(4));
    assert!(err.message.contains("metadata.name"), "{err}");

    let dir = app(
        "syntax",
        &[
            ("kustomization.yaml", "resources: [cm.yaml]\n"),
            ("cm.yaml", "a: 1\n---\nb: [unclosed\n"),
        ],
    );
    let err = render_dir::<KustomizeRenderer>(&request(&[]), &dir).unwrap_err();
    assert_eq!(err.file.as_deref(), Some("cm.yaml"));
    assert!(err.line.unwrap() >= 3, "{err}");
}

#[test]
fn the_path_parameter_picks_an_overlay_and_stays_inside() {
    let dir = app(
        "path",
        &[
            ("base/kustomization.yaml", "resources: [cm.yaml]\n"),
            ("base/cm.yaml", CONFIG_MAPS),
            (
                "overlays/x/kustomization.yaml",
                "resources: [../../base]\nnamePrefix: x-\n",
            ),
        ],
    );
    let out = render_dir::<KustomizeRenderer>(&request(&[("path", "overlays/x")]), &dir).unwrap();
    assert_eq!(out.manifests[0].object["metadata"]["name"], "x-a");
    assert_eq!(out.manifests[0].file.as_deref(), Some("base/cm.yaml"));
    let err =
        render_dir::<KustomizeRenderer>(&request(&[("path", "../elsewhere")]), &dir).unwrap_err();
    assert!(err.message.contains("outside"), "{err}");
    let err = render_dir::<KustomizeRenderer>(&request(&[]), &dir).unwrap_err();
    assert!(err.message.contains("unable to find"), "{err}");
}

#[test]
fn unsupported_fields_are_named() {
    let dir = app(
        "unsupported",
        &[(
            "kustomization.yaml",
            "helmChartInflationGenerator:\n- chartName: x\n",
        )],
    );
    let err = render_dir::<KustomizeRenderer>(&request(&[]), &dir).unwrap_err();
    assert!(
        err.message
            .contains("'helmChartInflationGenerator' is not supported"),
        "{err}"
    );
    assert_eq!(err.file.as_deref(), Some("kustomization.yaml"));
}

#[test]
fn unsupported_fields_and_remote_bases_are_refused_naming_them() {
    let fields = [
        (
            "helmChartInflationGenerator",
            "helmChartInflationGenerator: [{chartName: redis}]",
        ),
        // Matched case-insensitively, as kustomize does, and named as kustomize spells it.
        (
            "helmChartInflationGenerator",
            "HelmChartInflationGenerator: [{chartName: redis}]",
        ),
    ];
    for (i, (field, line)) in fields.into_iter().enumerate() {
        let dir = app(
            &format!("unsupported-{i}"),
            &[
                (
                    "kustomization.yaml",
                    &format!("resources: [cm.yaml]\n{line}\n"),
                ),
                ("cm.yaml", CONFIG_MAPS),
            ],
        );
        let err = render_dir::<KustomizeRenderer>(&request(&[]), &dir).unwrap_err();
        assert_eq!(
            err.message,
            format!("the kustomization field '{field}' is not supported by Weft"),
            "{line}"
        );
        assert_eq!(err.file.as_deref(), Some("kustomization.yaml"));
    }
    for remote in [
        "github.com/org/repo//deploy?ref=v1",
        "https://github.com/org/repo/deploy",
        "git@github.com:org/repo.git",
    ] {
        let dir = app(
            "remote",
            &[("kustomization.yaml", &format!("resources: ['{remote}']\n"))],
        );
        let err = render_dir::<KustomizeRenderer>(&request(&[]), &dir).unwrap_err();
        assert!(
            err.message.contains(&format!(
                "remote base '{remote}' was not fetched by the host (the renderer never reaches a network"
            )),
            "{err}"
        );
    }
}

const SHOP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {host: db}\n---\n\
                    apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec: {replicas: 1}\n";

#[test]
fn replacement_errors_say_what_kustomize_says_in_the_kustomization() {
    let cases = [
        (
            "source: {kind: Secret}\n  targets: [{select: {kind: Deployment}}]",
            "nothing selected by [kind=Secret]",
        ),
        (
            "source: {version: v1}\n  targets: [{select: {kind: Deployment}}]",
            "multiple matches for selector [version=v1]",
        ),
        (
            "source: {kind: ConfigMap, fieldPath: data.port}\n  targets: [{select: {kind: Deployment}}]",
            "fieldPath `data.port` is missing for replacement source [kind=ConfigMap]",
        ),
        (
            "source: {kind: ConfigMap, fieldPath: data.host}\n  targets: [{select: {kind: Deployment}, fieldPaths: [spec.host]}]",
            "unable to find field \"spec.host\" in replacement target",
        ),
        (
            "source: {kind: ConfigMap, fieldPath: data.host}\n  targets: [{select: {kind: Deployment}, fieldPaths: [spec.replicas]}]",
            "cannot decode !!str `db` as !!int in field \"spec.replicas\"",
        ),
        (
            "source: {kind: ConfigMap}\n  targets: [{fieldPaths: [metadata.name]}]",
            "target must specify resources to select",
        ),
    ];
    for (i, (replacement, message)) in cases.into_iter().enumerate() {
        let dir = app(
            &format!("replacement-{i}"),
            &[
                (
                    "kustomization.yaml",
                    &format!("resources: [shop.yaml]\nreplacements:\n- {replacement}\n"),
                ),
                ("shop.yaml", SHOP),
            ],
        );
        let err = render_dir::<KustomizeRenderer>(&request(&[]), &dir).unwrap_err();
        assert_eq!(err.message, message);
        assert_eq!(err.file.as_deref(), Some("kustomization.yaml"));
    }
}

#[test]
fn var_errors_name_the_var() {
    let var = |name: &str, kind: &str, object: &str| {
        format!("- {{name: {name}, objref: {{kind: {kind}, name: {object}, apiVersion: v1}}}}\n")
    };
    let cases = [
        (
            format!("{}{}", var("HOST", "ConfigMap", "settings"), var("HOST", "ConfigMap", "settings")),
            "merging vars: var 'HOST' already encountered",
        ),
        (
            var("SECRET", "Secret", "settings"),
            "var 'SECRET' cannot be mapped to a field in the set of known resources",
        ),
        (
            "- {name: PORT, objref: {kind: ConfigMap, name: settings, apiVersion: v1}, fieldref: {fieldPath: data.port}}\n"
                .to_string(),
            "field specified in var 'PORT' (data.port) not found in corresponding resource",
        ),
    ];
    for (i, (vars, message)) in cases.into_iter().enumerate() {
        let dir = app(
            &format!("vars-{i}"),
            &[
                (
                    "kustomization.yaml",
                    &format!("resources: [shop.yaml]\nvars:\n{vars}"),
                ),
                ("shop.yaml", SHOP),
            ],
        );
        let err = render_dir::<KustomizeRenderer>(&request(&[]), &dir).unwrap_err();
        assert_eq!(err.message, message);
        assert_eq!(err.file.as_deref(), Some("kustomization.yaml"));
    }
}

#[test]
fn bad_configuration_tables_are_refused() {
    let cases = [
        (
            "fieldSpecs:\n- path: spec/x\n",
            "invalid transformer configuration: unknown field `fieldSpecs`",
            "config.yaml",
        ),
        (
            "commonAnnotations:\n- path: metadata/annotations\n  create: false\n",
            "merging config: conflicting fieldspecs: 'metadata/annotations' is given both with and without create",
            "kustomization.yaml",
        ),
    ];
    for (i, (config, message, file)) in cases.into_iter().enumerate() {
        let dir = app(
            &format!("configurations-{i}"),
            &[
                (
                    "kustomization.yaml",
                    "resources: [shop.yaml]\nconfigurations: [config.yaml]\n",
                ),
                ("shop.yaml", SHOP),
                ("config.yaml", config),
            ],
        );
        let err = render_dir::<KustomizeRenderer>(&request(&[]), &dir).unwrap_err();
        assert!(err.message.starts_with(message), "{err}");
        assert_eq!(err.file.as_deref(), Some(file));
    }
}

#[test]
fn plugins_weft_does_not_run_are_refused_naming_the_plugin_and_its_file() {
    let cases = [
        (
            "transformers: [plugin.yaml]",
            "apiVersion: someteam.example.com/v1\nkind: ChartInflator\nmetadata: {name: c}\n",
            "the transformer plugin 'ChartInflator' (apiVersion 'someteam.example.com/v1') is not a built-in \
             plugin: Weft does not run exec, container or KRM-function plugins",
        ),
        (
            "generators: [plugin.yaml]",
            "apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata: {name: h}\n",
            "the built-in generator plugin 'HelmChartInflationGenerator' is not supported by Weft: Weft does not \
             inflate Helm charts named by plugin configurations",
        ),
        (
            "validators: [plugin.yaml]",
            "apiVersion: example.com/v1\nkind: PolicyCheck\nmetadata: {name: p}\n",
            "the validator plugin 'PolicyCheck' (apiVersion 'example.com/v1') is not a built-in plugin: Weft does \
             not run exec, container or KRM-function plugins",
        ),
    ];
    for (i, (line, plugin, message)) in cases.into_iter().enumerate() {
        let dir = app(
            &format!("plugin-{i}"),
            &[
                (
                    "kustomization.yaml",
                    &format!("resources: [cm.yaml]\n{line}\n"),
                ),
                ("cm.yaml", CONFIG_MAPS),
                ("plugin.yaml", plugin),
            ],
        );
        let err = render_dir::<KustomizeRenderer>(&request(&[]), &dir).unwrap_err();
        assert_eq!(err.message, message, "{line}");
        assert_eq!(err.file.as_deref(), Some("plugin.yaml"));
    }
}

#[test]
fn transformer_annotations_are_refused_by_name() {
    let dir = app(
        "build-metadata",
        &[
            (
                "kustomization.yaml",
                "resources: [cm.yaml]\nbuildMetadata: [managedByLabel, transformerAnnotations]\n",
            ),
            ("cm.yaml", CONFIG_MAPS),
        ],
    );
    let err = render_dir::<KustomizeRenderer>(&request(&[]), &dir).unwrap_err();
    assert_eq!(
        err.message,
        "buildMetadata 'transformerAnnotations' is not supported by Weft"
    );
    assert_eq!(err.file.as_deref(), Some("kustomization.yaml"));
}
