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

/// Adapts a rule that always answers (`fn(&Object) -> Health`) to a table entry.
macro_rules! answers {
    ($rule:path) => {
        |obj: &Object, _: &Context<'_>| -> Result<Option<Health>, PluginError> {
            Ok(Some($rule(obj)))
        }
    };
}

/// Adapts a rule that may have no opinion (`fn(&Object) -> Option<Health>`) to a table entry.
macro_rules! may_answer {
    ($rule:path) => {
        |obj: &Object, _: &Context<'_>| -> Result<Option<Health>, PluginError> { Ok($rule(obj)) }
    };
}

/// Every kind this plugin serves, and its check.
static TABLE: KindTable = KindTable::new(&[
    // Argo projects.
    (
        "argoproj.io/AnalysisRun",
        may_answer!(argo_rollouts::analysis_run),
    ),
    (
        "argoproj.io/ApplicationSet",
        answers!(argo_cd::application_set),
    ),
    (
        "argoproj.io/CronWorkflow",
        answers!(argo_workflows::cron_workflow),
    ),
    ("argoproj.io/EventBus", answers!(argo_events::event_bus)),
    (
        "argoproj.io/Experiment",
        may_answer!(argo_rollouts::experiment),
    ),
    ("argoproj.io/Rollout", answers!(argo_rollouts::rollout)),
    // GitOps Promoter.
    (
        "promoter.argoproj.io/ArgoCDCommitStatus",
        answers!(gitops_promoter::argocd_commit_status),
    ),
    (
        "promoter.argoproj.io/ChangeTransferPolicy",
        answers!(gitops_promoter::change_transfer_policy),
    ),
    (
        "promoter.argoproj.io/ClusterScmProvider",
        answers!(gitops_promoter::cluster_scm_provider),
    ),
    (
        "promoter.argoproj.io/CommitStatus",
        answers!(gitops_promoter::commit_status),
    ),
    (
        "promoter.argoproj.io/GitCommitStatus",
        answers!(gitops_promoter::git_commit_status),
    ),
    (
        "promoter.argoproj.io/GitRepository",
        answers!(gitops_promoter::git_repository),
    ),
    (
        "promoter.argoproj.io/PromotionStrategy",
        answers!(gitops_promoter::promotion_strategy),
    ),
    (
        "promoter.argoproj.io/PullRequest",
        answers!(gitops_promoter::pull_request),
    ),
    (
        "promoter.argoproj.io/ScmProvider",
        answers!(gitops_promoter::scm_provider),
    ),
    (
        "promoter.argoproj.io/TimedCommitStatus",
        answers!(gitops_promoter::timed_commit_status),
    ),
    (
        "promoter.argoproj.io/WebRequestCommitStatus",
        answers!(gitops_promoter::web_request_commit_status),
    ),
    // Flux.
    (
        "helm.toolkit.fluxcd.io/HelmRelease",
        answers!(flux::helm_release),
    ),
    (
        "image.toolkit.fluxcd.io/ImagePolicy",
        answers!(flux::image_policy),
    ),
    (
        "image.toolkit.fluxcd.io/ImageRepository",
        answers!(flux::image_repository),
    ),
    (
        "image.toolkit.fluxcd.io/ImageUpdateAutomation",
        answers!(flux::image_update_automation),
    ),
    (
        "kustomize.toolkit.fluxcd.io/Kustomization",
        answers!(flux::kustomization),
    ),
    (
        "notification.toolkit.fluxcd.io/Receiver",
        answers!(flux::receiver),
    ),
    ("source.toolkit.fluxcd.io/Bucket", answers!(flux::source)),
    (
        "source.toolkit.fluxcd.io/GitRepository",
        answers!(flux::source),
    ),
    ("source.toolkit.fluxcd.io/HelmChart", answers!(flux::source)),
    (
        "source.toolkit.fluxcd.io/HelmRepository",
        answers!(flux::helm_repository),
    ),
    (
        "source.toolkit.fluxcd.io/OCIRepository",
        answers!(flux::source),
    ),
    // Flagger.
    ("flagger.app/Canary", answers!(flagger::canary)),
    // OpenKruise.
    (
        "apps.kruise.io/AdvancedCronJob",
        answers!(kruise::advanced_cron_job),
    ),
    (
        "apps.kruise.io/BroadcastJob",
        answers!(kruise::broadcast_job),
    ),
    ("apps.kruise.io/CloneSet", answers!(kruise::clone_set)),
    ("apps.kruise.io/DaemonSet", answers!(kruise::daemon_set)),
    ("apps.kruise.io/StatefulSet", answers!(kruise::stateful_set)),
    (
        "game.kruise.io/GameServer",
        answers!(kruise_game::game_server),
    ),
    (
        "game.kruise.io/GameServerSet",
        answers!(kruise_game::game_server_set),
    ),
    (
        "rollouts.kruise.io/Rollout",
        answers!(kruise_rollouts::rollout),
    ),
    // Keptn.
    (
        "lifecycle.keptn.sh/KeptnAppVersion",
        answers!(keptn::lifecycle),
    ),
    (
        "lifecycle.keptn.sh/KeptnEvaluation",
        answers!(keptn::evaluation),
    ),
    ("lifecycle.keptn.sh/KeptnTask", answers!(keptn::lifecycle)),
    (
        "lifecycle.keptn.sh/KeptnWorkloadInstance",
        answers!(keptn::lifecycle),
    ),
    (
        "lifecycle.keptn.sh/KeptnWorkloadVersion",
        answers!(keptn::lifecycle),
    ),
    ("metrics.keptn.sh/Analysis", answers!(keptn::analysis)),
    ("metrics.keptn.sh/KeptnMetric", answers!(keptn::metric)),
    // Pulumi.
    ("pulumi.com/Stack", answers!(pulumi::stack)),
    // AWX.
    ("tower.ansible.com/AnsibleJob", answers!(awx::ansible_job)),
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

    use weft_sdk::testing::run_corpus;

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
        let report =
            run_corpus::<DeliveryHealth>(cases, |c| GROUPS.contains(&c.group.as_str())).unwrap();
        for failure in &report.failures {
            println!("{failure}");
        }
        println!("{} passed, {} failed", report.passed, report.failures.len());
        assert!(report.passed > 0);
        assert!(
            report.failures.is_empty(),
            "{} corpus cases failed",
            report.failures.len()
        );
    }

    #[test]
    fn manifest_lists_every_table_key() {
        let manifest = include_str!("../weft-plugin.toml");
        let kinds = manifest
            .split_once("kinds")
            .and_then(|(_, rest)| rest.split_once('[')?.1.split_once(']'))
            .map(|(list, _)| list)
            .expect("a kinds = [...] list");
        let listed: Vec<&str> = kinds
            .split(',')
            .map(|k| k.trim().trim_matches('"'))
            .filter(|k| !k.is_empty())
            .collect();
        assert_eq!(listed, TABLE.keys().collect::<Vec<_>>());
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
