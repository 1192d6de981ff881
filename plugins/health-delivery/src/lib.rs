//! Health of delivery tooling's custom resources: Argo CD, Argo Rollouts, Argo Workflows, Argo Events, GitOps
//! Promoter, Flux, Flagger, OpenKruise (workloads, games, rollouts), Keptn, Pulumi and the AWX operator, with the
//! verdicts and messages of Argo CD's health scripts, so teams moving from Argo CD see the same answers.
//!
//! Each module holds one upstream project's kinds; `TABLE` maps `group/Kind` keys to their checks.

mod argo_cd;
mod argo_events;
mod argo_rollouts;
mod argo_workflows;
mod awx;
mod flagger;
mod flux;
mod gitops_promoter;
mod keptn;
mod kruise;
mod kruise_game;
mod kruise_rollouts;
mod pulumi;

use weft_sdk::{Context, Health, HealthCheck, KindTable, Object, PluginError, Value};
use weft_sdk::{optional_rule, rule};

/// Every kind this plugin serves, and its check.
static TABLE: KindTable = KindTable::new(&[
    // Argo projects.
    (
        "argoproj.io/AnalysisRun",
        optional_rule!(argo_rollouts::analysis_run),
    ),
    (
        "argoproj.io/ApplicationSet",
        rule!(argo_cd::application_set),
    ),
    (
        "argoproj.io/CronWorkflow",
        rule!(argo_workflows::cron_workflow),
    ),
    ("argoproj.io/EventBus", rule!(argo_events::event_bus)),
    (
        "argoproj.io/Experiment",
        optional_rule!(argo_rollouts::experiment),
    ),
    ("argoproj.io/Rollout", rule!(argo_rollouts::rollout)),
    // GitOps Promoter.
    (
        "promoter.argoproj.io/ArgoCDCommitStatus",
        rule!(gitops_promoter::argocd_commit_status),
    ),
    (
        "promoter.argoproj.io/ChangeTransferPolicy",
        rule!(gitops_promoter::change_transfer_policy),
    ),
    (
        "promoter.argoproj.io/ClusterScmProvider",
        rule!(gitops_promoter::cluster_scm_provider),
    ),
    (
        "promoter.argoproj.io/CommitStatus",
        rule!(gitops_promoter::commit_status),
    ),
    (
        "promoter.argoproj.io/GitCommitStatus",
        rule!(gitops_promoter::git_commit_status),
    ),
    (
        "promoter.argoproj.io/GitRepository",
        rule!(gitops_promoter::git_repository),
    ),
    (
        "promoter.argoproj.io/PromotionStrategy",
        rule!(gitops_promoter::promotion_strategy),
    ),
    (
        "promoter.argoproj.io/PullRequest",
        rule!(gitops_promoter::pull_request),
    ),
    (
        "promoter.argoproj.io/ScmProvider",
        rule!(gitops_promoter::scm_provider),
    ),
    (
        "promoter.argoproj.io/TimedCommitStatus",
        rule!(gitops_promoter::timed_commit_status),
    ),
    (
        "promoter.argoproj.io/WebRequestCommitStatus",
        rule!(gitops_promoter::web_request_commit_status),
    ),
    // Flux.
    (
        "helm.toolkit.fluxcd.io/HelmRelease",
        rule!(flux::helm_release),
    ),
    (
        "image.toolkit.fluxcd.io/ImagePolicy",
        rule!(flux::image_policy),
    ),
    (
        "image.toolkit.fluxcd.io/ImageRepository",
        rule!(flux::image_repository),
    ),
    (
        "image.toolkit.fluxcd.io/ImageUpdateAutomation",
        rule!(flux::image_update_automation),
    ),
    (
        "kustomize.toolkit.fluxcd.io/Kustomization",
        rule!(flux::kustomization),
    ),
    (
        "notification.toolkit.fluxcd.io/Receiver",
        rule!(flux::receiver),
    ),
    ("source.toolkit.fluxcd.io/Bucket", rule!(flux::source)),
    (
        "source.toolkit.fluxcd.io/GitRepository",
        rule!(flux::source),
    ),
    ("source.toolkit.fluxcd.io/HelmChart", rule!(flux::source)),
    (
        "source.toolkit.fluxcd.io/HelmRepository",
        rule!(flux::helm_repository),
    ),
    (
        "source.toolkit.fluxcd.io/OCIRepository",
        rule!(flux::source),
    ),
    // Flagger.
    ("flagger.app/Canary", rule!(flagger::canary)),
    // OpenKruise.
    (
        "apps.kruise.io/AdvancedCronJob",
        rule!(kruise::advanced_cron_job),
    ),
    ("apps.kruise.io/BroadcastJob", rule!(kruise::broadcast_job)),
    ("apps.kruise.io/CloneSet", rule!(kruise::clone_set)),
    ("apps.kruise.io/DaemonSet", rule!(kruise::daemon_set)),
    ("apps.kruise.io/StatefulSet", rule!(kruise::stateful_set)),
    ("game.kruise.io/GameServer", rule!(kruise_game::game_server)),
    (
        "game.kruise.io/GameServerSet",
        rule!(kruise_game::game_server_set),
    ),
    (
        "rollouts.kruise.io/Rollout",
        rule!(kruise_rollouts::rollout),
    ),
    // Keptn.
    (
        "lifecycle.keptn.sh/KeptnAppVersion",
        rule!(keptn::lifecycle),
    ),
    (
        "lifecycle.keptn.sh/KeptnEvaluation",
        rule!(keptn::evaluation),
    ),
    ("lifecycle.keptn.sh/KeptnTask", rule!(keptn::lifecycle)),
    (
        "lifecycle.keptn.sh/KeptnWorkloadInstance",
        rule!(keptn::lifecycle),
    ),
    (
        "lifecycle.keptn.sh/KeptnWorkloadVersion",
        rule!(keptn::lifecycle),
    ),
    ("metrics.keptn.sh/Analysis", rule!(keptn::analysis)),
    ("metrics.keptn.sh/KeptnMetric", rule!(keptn::metric)),
    // Pulumi.
    ("pulumi.com/Stack", rule!(pulumi::stack)),
    // AWX.
    ("tower.ansible.com/AnsibleJob", rule!(awx::ansible_job)),
]);

/// The plugin: dispatches on group and kind through `TABLE`.
#[derive(Debug)]
pub struct DeliveryHealth;

impl HealthCheck for DeliveryHealth {
    fn assess(obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError> {
        TABLE.assess(obj, cx)
    }
}

weft_sdk::export_health_check!(DeliveryHealth);

/// A scalar as Lua's `..` writes it into a message: strings as they are, integral numbers without a fraction, other
/// numbers and booleans in their usual form. `None` for an absent value, `null`, arrays and objects.
pub(crate) fn lua_text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            _ => n.to_string(),
        }),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The plugin's verdict on one object written as YAML (for the modules' own tests).
    pub(crate) fn verdict(yaml: &str) -> Option<Health> {
        weft_sdk::testing::assess_yaml::<DeliveryHealth>(yaml).expect("a kind the plugin serves")
    }

    /// The customization groups this plugin answers for in Argo CD's corpus.
    const GROUPS: [&str; 15] = [
        "argoproj.io",
        "promoter.argoproj.io",
        "helm.toolkit.fluxcd.io",
        "image.toolkit.fluxcd.io",
        "kustomize.toolkit.fluxcd.io",
        "notification.toolkit.fluxcd.io",
        "source.toolkit.fluxcd.io",
        "flagger.app",
        "apps.kruise.io",
        "game.kruise.io",
        "rollouts.kruise.io",
        "lifecycle.keptn.sh",
        "metrics.keptn.sh",
        "pulumi.com",
        "tower.ansible.com",
    ];

    #[test]
    fn argocd_corpus() {
        let cases = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/conformance/argocd/cases.json"
        ));
        weft_sdk::testing::assert_corpus_groups::<DeliveryHealth>(cases, &GROUPS);
    }

    #[test]
    fn manifest_lists_every_table_key() {
        weft_sdk::testing::assert_manifest_lists(include_str!("../weft-plugin.toml"), &TABLE);
    }

    #[test]
    fn lua_text_writes_numbers_as_lua_does() {
        use weft_sdk::json;
        assert_eq!(lua_text(Some(&json!(2))), Some("2".into()));
        assert_eq!(lua_text(Some(&json!(2.0))), Some("2".into()));
        assert_eq!(lua_text(Some(&json!(2.5))), Some("2.5".into()));
        assert_eq!(lua_text(Some(&json!("abc"))), Some("abc".into()));
        assert_eq!(lua_text(Some(&json!(null))), None);
        assert_eq!(lua_text(None), None);
    }
}
