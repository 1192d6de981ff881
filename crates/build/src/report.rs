//! The build as an operation's record carries it ([`BuildReport`]): every attempt with its plan's summary and
//! Dockerfile digest, how it ended, why it was that plan, why the steerer gave up, the log's tail on failure and
//! how long it ran; the final plan; the image and whether it was reused. Stored with the operation and served by
//! the API, so it is bounded (tails cut to their last lines) and holds no secret ([`Redactor`]).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use weft_sdk::BuildPlan;

use super::redact::Redactor;
use super::steering::{
    AttemptOutcome, BuildAttempt, BuildError, BuildFailed, BuildRecord, TAIL_IN_MESSAGE, log_tail,
};

/// Bytes of a failed attempt's log tail a report keeps (after its last [`TAIL_IN_MESSAGE`] lines).
pub const TAIL_BYTES_IN_REPORT: usize = 4096;

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AttemptResult {
    /// The image was built.
    Built,
    /// The build failed.
    Failed,
}

/// One build attempt of an operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttemptReport {
    /// 1 for the first.
    pub number: u32,
    /// Why this plan: detected, replayed, or the steerer's reason for revising the previous one.
    pub reason: String,
    /// The plan in one line (kind, base image, packages, jobs, install and start commands, port).
    pub plan: String,
    /// sha256 of the plan's Dockerfile as the builder got it, in hex.
    pub dockerfile_sha256: String,
    /// How it ended.
    pub result: AttemptResult,
    /// The image it built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// The step that failed (`install`, `build`, `start`, `push`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// The failed step's exit code, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The last lines of the failed build's log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_tail: Option<String>,
    /// Why the steerer gave up after this attempt, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gave_up: Option<String>,
    /// How long the builder ran, in milliseconds.
    pub duration_ms: u64,
}

/// One environment variable of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlanVariable {
    /// Its name.
    pub name: String,
    /// Its value, or `<redacted>` when the configuration set it or its name says it holds a credential.
    pub value: String,
}

/// The plan a build ended with: what later builds of the app replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanReport {
    /// The project type (`dockerfile`, `rust`, `node`, ...).
    pub kind: String,
    /// The base image.
    pub base_image: String,
    /// System packages installed before building.
    pub system_packages: Vec<String>,
    /// Commands that install dependencies.
    pub install: Vec<String>,
    /// Commands that build.
    pub build: Vec<String>,
    /// The command the image runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// The port the app listens on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// Environment for build and run, in order.
    pub env: Vec<PlanVariable>,
    /// Parallel build jobs, when the plan bounds them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<u32>,
    /// The Dockerfile (secret values redacted).
    pub dockerfile: String,
    /// sha256 of the Dockerfile as the builder got it, in hex.
    pub dockerfile_sha256: String,
}

/// What an operation's build did: its attempts, its final plan and its image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BuildReport {
    /// The commit built (never a branch).
    pub commit: String,
    /// The steer plugin that planned it.
    pub steerer: String,
    /// The builder backend (`buildkit`, `podman`, `command`).
    pub builder: String,
    /// The image with its digest (`name@sha256:...`): what the render got.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Whether the last build's image was reused: the commit and the plan had not changed, nothing was built.
    pub reused: bool,
    /// The attempts, in order (none when the image was reused).
    pub attempts: Vec<AttemptReport>,
    /// The final plan: the one that built (or was reused), else the last one tried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanReport>,
    /// The steering reasons that led to the final plan, oldest first (replayed ones included).
    pub reasons: Vec<String>,
    /// Why the build produced no image, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl BuildReport {
    /// The report of a build's result, for an app whose configuration fixes `overrides` (their `env.*` values are
    /// redacted, with every variable whose name looks like a credential's).
    pub fn of(result: &Result<BuildRecord, BuildFailed>, overrides: &[(String, String)]) -> Self {
        let (record, failure) = match result {
            Ok(record) => (record, None),
            Err(failed) => (failed.record.as_ref(), Some(&failed.error)),
        };
        let mut redactor = Redactor::for_overrides(overrides);
        for plan in record
            .attempts
            .iter()
            .map(|a| &a.plan)
            .chain(record.plan.as_ref())
            .chain(record.detected.as_ref())
        {
            redactor.learn(plan);
        }
        let gave_up = match failure {
            Some(BuildError::GaveUp { reason, .. }) => Some(redactor.text(reason)),
            _ => None,
        };
        let last = record.attempts.len();
        let attempts = record
            .attempts
            .iter()
            .enumerate()
            .map(|(index, attempt)| {
                let mut report = attempt_report(attempt, &redactor);
                if index + 1 == last {
                    report.gave_up = gave_up.clone();
                }
                report
            })
            .collect();
        BuildReport {
            commit: record.commit.clone(),
            steerer: record.steerer.clone(),
            builder: record.builder.clone(),
            image: record.image.clone(),
            reused: record.reused,
            attempts,
            plan: record.plan.as_ref().map(|p| plan_report(p, &redactor)),
            reasons: record.reasons.iter().map(|r| redactor.text(r)).collect(),
            error: failure.map(|error| redactor.text(&first_line(&error.to_string()))),
        }
    }
}

fn attempt_report(attempt: &BuildAttempt, redactor: &Redactor) -> AttemptReport {
    let mut report = AttemptReport {
        number: attempt.number,
        reason: redactor.text(&attempt.reason),
        plan: redactor.text(&attempt.plan.summary()),
        dockerfile_sha256: sha256(&attempt.plan.dockerfile),
        result: AttemptResult::Built,
        image: None,
        step: None,
        exit_code: None,
        log_tail: None,
        gave_up: None,
        duration_ms: attempt.duration_ms,
    };
    match &attempt.outcome {
        AttemptOutcome::Built { image } => report.image = Some(image.clone()),
        AttemptOutcome::Failed {
            step,
            exit_code,
            log_tail: tail,
        } => {
            report.result = AttemptResult::Failed;
            report.step = Some(step.clone());
            report.exit_code = *exit_code;
            report.log_tail = Some(bounded_tail(&redactor.text(tail)));
        }
    }
    report
}

fn plan_report(plan: &BuildPlan, redactor: &Redactor) -> PlanReport {
    let redacted = redactor.plan(plan);
    PlanReport {
        kind: redacted.kind,
        base_image: redacted.base_image,
        system_packages: redacted.system_packages,
        install: redacted.install,
        build: redacted.build,
        start: redacted.start,
        port: redacted.port,
        env: redacted
            .env
            .into_iter()
            .map(|(name, value)| PlanVariable { name, value })
            .collect(),
        jobs: redacted.jobs,
        dockerfile: redacted.dockerfile,
        dockerfile_sha256: sha256(&plan.dockerfile),
    }
}

/// The last [`TAIL_IN_MESSAGE`] lines of a log, and of those at most [`TAIL_BYTES_IN_REPORT`] bytes (whole
/// characters, the newest kept).
pub fn bounded_tail(log: &str) -> String {
    let tail = log_tail(log, TAIL_IN_MESSAGE);
    let mut start = tail.len().saturating_sub(TAIL_BYTES_IN_REPORT);
    while !tail.is_char_boundary(start) {
        start += 1;
    }
    tail[start..].to_string()
}

fn sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steering::Stop;

    fn plan(jobs: Option<u32>) -> BuildPlan {
        BuildPlan {
            kind: "node".into(),
            base_image: "node:22-slim".into(),
            install: vec!["npm ci".into()],
            start: Some("npm start".into()),
            jobs,
            env: vec![
                ("NODE_ENV".into(), "production".into()),
                ("NPM_TOKEN".into(), "tok-0123456789".into()),
            ],
            dockerfile: format!(
                "FROM node:22-slim\nENV NODE_ENV=production\nENV NPM_TOKEN=tok-0123456789\nENV JOBS={}\n",
                jobs.unwrap_or(0)
            ),
            ..BuildPlan::default()
        }
    }

    fn failed(number: u32, plan: BuildPlan, log: &str) -> BuildAttempt {
        BuildAttempt {
            number,
            reason: if number == 1 {
                "detected by steer-detect".into()
            } else {
                "revised by steer-detect: out of memory".into()
            },
            plan,
            outcome: AttemptOutcome::Failed {
                step: "build".into(),
                exit_code: Some(137),
                log_tail: log.into(),
            },
            duration_ms: 1500,
        }
    }

    fn record(attempts: Vec<BuildAttempt>, image: Option<&str>) -> BuildRecord {
        BuildRecord {
            app: "shop".into(),
            commit: "c0ffee".into(),
            steerer: "steer-detect".into(),
            builder: "buildkit".into(),
            detected: Some(plan(None)),
            plan: attempts.last().map(|a| a.plan.clone()),
            attempts,
            image: image.map(str::to_string),
            reused: false,
            reasons: vec!["out of memory".into()],
        }
    }

    #[test]
    fn a_successful_build_reports_every_attempt_and_the_final_plan() {
        let long: String = (0..100)
            .map(|i| format!("line {i} printing tok-0123456789\n"))
            .collect();
        let mut built = failed(2, plan(Some(2)), "");
        built.outcome = AttemptOutcome::Built {
            image: "reg/shop@sha256:ab".into(),
        };
        let record = record(
            vec![failed(1, plan(None), &long), built],
            Some("reg/shop@sha256:ab"),
        );
        let report = BuildReport::of(&Ok(record), &[]);
        assert_eq!(report.image.as_deref(), Some("reg/shop@sha256:ab"));
        assert!(!report.reused && report.error.is_none());
        assert_eq!(report.attempts.len(), 2);
        let first = &report.attempts[0];
        assert_eq!(first.result, AttemptResult::Failed);
        assert_eq!(
            (first.step.as_deref(), first.exit_code),
            (Some("build"), Some(137))
        );
        assert_eq!(
            first.plan,
            "node on node:22-slim, install `npm ci`, start `npm start`"
        );
        assert_eq!(first.duration_ms, 1500);
        let tail = first.log_tail.as_deref().unwrap();
        assert_eq!(tail.lines().count(), TAIL_IN_MESSAGE);
        assert!(tail.ends_with("line 99 printing <redacted>"), "{tail}");
        assert_eq!(first.gave_up, None);
        let second = &report.attempts[1];
        assert_eq!(second.result, AttemptResult::Built);
        assert_eq!(second.image.as_deref(), Some("reg/shop@sha256:ab"));
        assert_eq!(second.log_tail, None);
        assert!(second.plan.contains("jobs 2"), "{}", second.plan);
        assert_ne!(first.dockerfile_sha256, second.dockerfile_sha256);
        assert_eq!(second.dockerfile_sha256, sha256(&plan(Some(2)).dockerfile));

        let plan = report.plan.as_ref().unwrap();
        assert_eq!(plan.jobs, Some(2));
        assert_eq!(plan.dockerfile_sha256, second.dockerfile_sha256);
        assert_eq!(
            plan.env,
            [
                PlanVariable {
                    name: "NODE_ENV".into(),
                    value: "production".into()
                },
                PlanVariable {
                    name: "NPM_TOKEN".into(),
                    value: "<redacted>".into()
                },
            ]
        );
        let json = serde_json::to_string(&report).unwrap();
        assert!(!json.contains("tok-0123456789"), "{json}");
        assert_eq!(serde_json::from_str::<BuildReport>(&json).unwrap(), report);
    }

    #[test]
    fn a_failed_build_reports_why_the_steerer_gave_up() {
        let record = record(vec![failed(1, plan(None), "boom\n")], None);
        let failed = BuildFailed {
            record: Box::new(record),
            error: BuildError::GaveUp {
                stop: Box::new(Stop {
                    app: "shop".into(),
                    commit: "c0ffee".into(),
                    attempt: 1,
                    step: "build".into(),
                    tail: "boom".into(),
                }),
                plugin: "steer-detect".into(),
                reason: "unrecognised failure in the build step".into(),
            },
        };
        let overrides = [("env.NODE_ENV".to_string(), "production".to_string())];
        let report = BuildReport::of(&Err(failed), &overrides);
        assert_eq!(report.image, None);
        assert_eq!(
            report.attempts[0].gave_up.as_deref(),
            Some("unrecognised failure in the build step")
        );
        let error = report.error.as_deref().unwrap();
        assert!(
            error.starts_with("the build of shop at c0ffee failed in the build step (attempt 1)"),
            "{error}"
        );
        assert!(!error.contains('\n'), "{error}");
        // A value the configuration set is redacted even though its name says nothing.
        let plan = report.plan.unwrap();
        assert_eq!(plan.env[0].value, "<redacted>");
        assert!(plan.dockerfile.contains("ENV NODE_ENV=<redacted>\n"));
    }

    #[test]
    fn a_minimal_report_reads_and_tails_are_bounded() {
        let report: BuildReport = serde_json::from_str(
            r#"{"commit": "c", "steerer": "s", "builder": "command", "reused": true, "attempts": [], "reasons": []}"#,
        )
        .unwrap();
        assert!(report.reused && report.plan.is_none());
        let wide = format!("{}é\n", "x".repeat(10_000));
        let tail = bounded_tail(&wide);
        assert!(tail.len() <= TAIL_BYTES_IN_REPORT && tail.ends_with('é'));
    }
}
