//! The steering loop: plan with the app's steerer, build, and on a failure hand the log back to the steerer and
//! build its revised plan, up to a bounded number of attempts. Every attempt, its plan and the reason for it go
//! to the log and into the returned [`BuildRecord`]; the plan that built is kept ([`BuildState`]) so later builds
//! replay it instead of failing their way to it again, and an unchanged commit and plan reuse the last image.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use weft_sdk::{BuildFailure, BuildPlan, PluginError, RepoFacts, SteerDecision};

use super::builder::{BuildJob, Builder, BuilderError, BuiltImage, LogSink, StepFailure};
use weft_plugin_host::{CallError, LoadError, SharedSource, SteerPlugin};
use weft_source::{SourceLimits, SourceView};

/// How many attempts a build gets unless the app says otherwise.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;
/// How many lines of a failed build's log an error message quotes.
pub const TAIL_IN_MESSAGE: usize = 20;

/// What plans and steers a build: a `build-steer` plugin, or anything that answers like one.
pub trait Steering: Send + Sync {
    /// Its name, for logs and records.
    fn name(&self) -> &str;

    /// Proposes a plan for the repository in `source`.
    fn plan(
        &self,
        facts: RepoFacts,
        source: SharedSource,
    ) -> impl Future<Output = Result<Result<BuildPlan, PluginError>, CallError>> + Send;

    /// Revises `plan` after `failure`, or gives up.
    fn steer(
        &self,
        facts: RepoFacts,
        plan: BuildPlan,
        failure: BuildFailure,
        source: SharedSource,
    ) -> impl Future<Output = Result<Result<SteerDecision, PluginError>, CallError>> + Send;
}

impl Steering for SteerPlugin {
    fn name(&self) -> &str {
        SteerPlugin::name(self)
    }

    fn plan(
        &self,
        facts: RepoFacts,
        source: SharedSource,
    ) -> impl Future<Output = Result<Result<BuildPlan, PluginError>, CallError>> + Send {
        SteerPlugin::plan(self, facts, source)
    }

    fn steer(
        &self,
        facts: RepoFacts,
        plan: BuildPlan,
        failure: BuildFailure,
        source: SharedSource,
    ) -> impl Future<Output = Result<Result<SteerDecision, PluginError>, CallError>> + Send {
        SteerPlugin::steer(self, facts, plan, failure, source)
    }
}

/// One build to run with steering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildRequest {
    /// The app.
    pub app: String,
    /// The pinned commit (or a local tree's digest): never a branch.
    pub commit: String,
    /// The app's directory in a checkout of `commit`.
    pub context: PathBuf,
    /// The parts of the plan the app's configuration fixes.
    pub overrides: Vec<(String, String)>,
    /// The image's name, without tag or digest.
    pub image: String,
    /// At most this many builds (at least 1).
    pub max_attempts: u32,
}

/// What a successful build leaves for the next one: the plan to replay and the image to reuse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildState {
    /// The commit built.
    pub commit: String,
    /// The steerer that planned it.
    pub steerer: String,
    /// The builder backend that built it.
    pub builder: String,
    /// The image name it was pushed as.
    pub image_name: String,
    /// The plan the steerer proposed before any revision: when a later commit plans the same, the repository
    /// has not changed in a way detection sees, and `plan` is replayed.
    pub detected: BuildPlan,
    /// The plan that built.
    pub plan: BuildPlan,
    /// Why `plan` differs from `detected` (the steering reasons, oldest first).
    pub reasons: Vec<String>,
    /// The image reference with its digest.
    pub image: String,
}

/// How one attempt ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "result")]
pub enum AttemptOutcome {
    /// The image was built.
    Built {
        /// Its reference.
        image: String,
    },
    /// The build failed.
    Failed {
        /// The step that failed.
        step: String,
        /// Its exit code.
        exit_code: Option<i32>,
        /// The tail of the log.
        log_tail: String,
    },
}

/// One attempt: the plan built and why it was that plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildAttempt {
    /// 1 for the first.
    pub number: u32,
    /// Why this plan: detected, replayed, or the steerer's reason for the revision.
    pub reason: String,
    /// The plan.
    pub plan: BuildPlan,
    /// How it ended.
    pub outcome: AttemptOutcome,
    /// How long the builder ran, in milliseconds (the wait for a build slot not included).
    #[serde(default)]
    pub duration_ms: u64,
}

/// Everything a build did, successful or not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildRecord {
    /// The app.
    pub app: String,
    /// The commit built.
    pub commit: String,
    /// The steerer.
    pub steerer: String,
    /// The builder backend.
    pub builder: String,
    /// The plan the steerer proposed for this commit, before any revision.
    pub detected: Option<BuildPlan>,
    /// The attempts, in order (none when the last image was reused).
    pub attempts: Vec<BuildAttempt>,
    /// The last plan: the one that built, or the last one tried.
    pub plan: Option<BuildPlan>,
    /// The image, when there is one.
    pub image: Option<String>,
    /// Whether the last build's image was reused, with no build.
    pub reused: bool,
    /// The steering reasons that led to `plan`, replayed ones included.
    pub reasons: Vec<String>,
}

impl BuildRecord {
    /// The record of a build of `app` at `commit` by `steerer` and `builder` that has done nothing yet.
    pub fn started(
        app: impl Into<String>,
        commit: impl Into<String>,
        steerer: impl Into<String>,
        builder: impl Into<String>,
    ) -> Self {
        BuildRecord {
            app: app.into(),
            commit: commit.into(),
            steerer: steerer.into(),
            builder: builder.into(),
            detected: None,
            attempts: Vec::new(),
            plan: None,
            image: None,
            reused: false,
            reasons: Vec::new(),
        }
    }

    /// What a successful build leaves for the next one; `None` when it did not build.
    pub fn state(&self, image_name: &str) -> Option<BuildState> {
        Some(BuildState {
            commit: self.commit.clone(),
            steerer: self.steerer.clone(),
            builder: self.builder.clone(),
            image_name: image_name.to_string(),
            detected: self.detected.clone()?,
            plan: self.plan.clone()?,
            reasons: self.reasons.clone(),
            image: self.image.clone()?,
        })
    }
}

/// Why a build produced no image.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The source could not be resolved or checked out.
    #[error("the source could not be checked out: {0}")]
    Source(String),
    /// No build-steer plugin serves the app's steer type.
    #[error("no build-steer plugin for app type {app_type:?} (known: {known})")]
    NoSteerer {
        /// The type asked for.
        app_type: String,
        /// The types that have one.
        known: String,
    },
    /// The plugin's manifest names no component.
    #[error("plugin {0} has no component")]
    NoComponent(String),
    /// The plugin could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The plugin call failed (trap, deadline, memory, invalid plan).
    #[error("{0}")]
    Call(CallError),
    /// The steerer could not plan the repository.
    #[error("{plugin} cannot plan the build: {source}")]
    Plan {
        /// The steerer.
        plugin: String,
        /// Its error.
        source: PluginError,
    },
    /// The steerer failed while revising a plan.
    #[error("{plugin} failed while steering: {source}")]
    Steer {
        /// The steerer.
        plugin: String,
        /// Its error.
        source: PluginError,
    },
    /// The steerer returned a plan that changes what the app's configuration fixes.
    #[error(
        "{plugin} returned a plan that changes the overridden {key}; overrides are kept as given"
    )]
    OverrideNotKept {
        /// The steerer.
        plugin: String,
        /// The override.
        key: String,
    },
    /// The steerer's revision is the plan that just failed.
    #[error("{plugin} revised nothing ({reason}): the same plan would fail the same way")]
    Unchanged {
        /// The steerer.
        plugin: String,
        /// Its reason.
        reason: String,
    },
    /// The builder could not run.
    #[error(transparent)]
    Builder(#[from] BuilderError),
    /// The steerer gave up on a failure.
    #[error(
        "the build of {} at {} failed in the {} step (attempt {}) and {plugin} gave up: {reason}\n\
         --- last lines of the build log ---\n{}",
        .stop.app, .stop.commit, .stop.step, .stop.attempt, .stop.tail
    )]
    GaveUp {
        /// Where it stopped.
        stop: Box<Stop>,
        /// The steerer.
        plugin: String,
        /// Why it gave up.
        reason: String,
    },
    /// Every attempt failed.
    #[error(
        "the build of {} at {} failed {} times, the last in the {} step; no attempts left\n\
         --- last lines of the build log ---\n{}",
        .0.app, .0.commit, .0.attempt, .0.step, .0.tail
    )]
    Exhausted(Box<Stop>),
}

/// Where a build stopped: the app, the commit, the last attempt and its failed step, and the end of its log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// The app.
    pub app: String,
    /// The commit.
    pub commit: String,
    /// The attempt that failed last.
    pub attempt: u32,
    /// Its failed step.
    pub step: String,
    /// The last lines of its log.
    pub tail: String,
}

/// A build that produced no image, with the record of what it tried.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct BuildFailed {
    /// What was tried.
    pub record: Box<BuildRecord>,
    /// Why it stopped.
    pub error: BuildError,
}

/// The last `lines` lines of a log.
pub fn log_tail(log: &str, lines: usize) -> String {
    let all: Vec<&str> = log.trim_end().lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The steering loop's collaborators for one build.
pub struct BuildLoop<'a, S: Steering> {
    /// Plans and steers.
    pub steering: &'a S,
    /// Builds.
    pub builder: &'a dyn Builder,
    /// Builds that may run at once (the deploy concurrency): one permit per build, held while it runs.
    pub permits: &'a tokio::sync::Semaphore,
    /// Where attempts, plans, reasons and build output are written.
    pub log: &'a dyn LogSink,
}

impl<S: Steering> std::fmt::Debug for BuildLoop<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuildLoop")
            .field("steering", &self.steering.name())
            .field("builder", &self.builder.name())
            .finish_non_exhaustive()
    }
}

impl<S: Steering> BuildLoop<'_, S> {
    /// Builds `request`, replaying or reusing `previous` (the last successful build's state) where it applies.
    pub async fn run(
        &self,
        request: &BuildRequest,
        previous: Option<&BuildState>,
    ) -> Result<BuildRecord, BuildFailed> {
        let mut record = BuildRecord::started(
            request.app.as_str(),
            request.commit.as_str(),
            self.steering.name(),
            self.builder.name(),
        );
        match self.steer_and_build(request, previous, &mut record).await {
            Ok(()) => Ok(record),
            Err(error) => {
                self.log
                    .line(&format!("build failed: {}", first_line(&error)));
                Err(BuildFailed {
                    record: Box::new(record),
                    error,
                })
            }
        }
    }

    fn source(&self, request: &BuildRequest) -> Result<SharedSource, BuildError> {
        let view = SourceView::open(&request.context, SourceLimits::default())
            .map_err(|e| BuildError::Source(format!("{}: {e}", request.context.display())))?;
        Ok(Arc::new(view))
    }

    fn check_overrides(&self, plan: &BuildPlan, facts: &RepoFacts) -> Result<(), BuildError> {
        match weft_sdk::steer::overridden_field(plan, facts) {
            Some(key) => Err(BuildError::OverrideNotKept {
                plugin: self.steering.name().to_string(),
                key,
            }),
            None => Ok(()),
        }
    }

    /// Plans `request` with the steerer, reuses or replays `previous` where it applies, then builds and, on each
    /// failure, asks the steerer for a revised plan, until an attempt builds, the steerer gives up or no attempts
    /// are left; `record` gathers every attempt along the way.
    async fn steer_and_build(
        &self,
        request: &BuildRequest,
        previous: Option<&BuildState>,
        record: &mut BuildRecord,
    ) -> Result<(), BuildError> {
        let facts = RepoFacts {
            app: request.app.clone(),
            commit: request.commit.clone(),
            overrides: request.overrides.clone(),
        };
        self.log.line(&format!(
            "build of {} at {}: planning with {}, building with {}",
            request.app,
            request.commit,
            self.steering.name(),
            self.builder.name()
        ));
        let detected = self.detect_plan(request, &facts).await?;
        record.detected = Some(detected.clone());
        let comparable = self.comparable_state(request, previous, &detected);
        if let Some(last) = comparable.filter(|p| p.commit == request.commit) {
            self.reuse_last_image(last, record);
            return Ok(());
        }
        let mut attempt = self.first_attempt(detected, comparable, record);
        let max_attempts = request.max_attempts.max(1);
        loop {
            let Some(failure) = self
                .build_attempt(request, &attempt, max_attempts, record)
                .await?
            else {
                return Ok(());
            };
            if attempt.number >= max_attempts {
                return Err(BuildError::Exhausted(stop_at(
                    request,
                    attempt.number,
                    &failure,
                )));
            }
            let decision = self
                .ask_for_revision(request, &facts, &attempt, &failure)
                .await?;
            attempt = self.next_attempt(request, &facts, &attempt, failure, decision, record)?;
        }
    }

    /// Asks the steerer for its plan for the repository (the detected plan), and checks that the plan keeps the
    /// app's overrides.
    async fn detect_plan(
        &self,
        request: &BuildRequest,
        facts: &RepoFacts,
    ) -> Result<BuildPlan, BuildError> {
        let detected = self
            .steering
            .plan(facts.clone(), self.source(request)?)
            .await
            .map_err(BuildError::Call)?
            .map_err(|source| BuildError::Plan {
                plugin: self.steering.name().to_string(),
                source,
            })?;
        self.check_overrides(&detected, facts)?;
        Ok(detected)
    }

    /// `previous` when it came from the same detected plan, steerer, builder and image name, so that its plan
    /// (and, at the same commit, its image) still applies.
    fn comparable_state<'p>(
        &self,
        request: &BuildRequest,
        previous: Option<&'p BuildState>,
        detected: &BuildPlan,
    ) -> Option<&'p BuildState> {
        previous.filter(|p| {
            p.detected == *detected
                && p.steerer == self.steering.name()
                && p.builder == self.builder.name()
                && p.image_name == request.image
        })
    }

    /// Records the last build's plan, reasons and image as this build's, with no build.
    fn reuse_last_image(&self, last: &BuildState, record: &mut BuildRecord) {
        self.log.line(&format!(
            "reusing {}: the commit and the plan are those of the last build",
            last.image
        ));
        record.plan = Some(last.plan.clone());
        record.image = Some(last.image.clone());
        record.reasons = last.reasons.clone();
        record.reused = true;
    }

    /// The first attempt: the plan that built the comparable last build when it differs from the detected plan
    /// (its reasons carried into `record`), otherwise the detected plan.
    fn first_attempt(
        &self,
        detected: BuildPlan,
        comparable: Option<&BuildState>,
        record: &mut BuildRecord,
    ) -> Attempt {
        let (plan, reason) = match comparable {
            Some(last) if last.plan != detected => {
                record.reasons = last.reasons.clone();
                (
                    last.plan.clone(),
                    format!(
                        "replayed: the plan that built {} ({})",
                        weft_core::short::short_id(&last.commit),
                        last.reasons.join("; ")
                    ),
                )
            }
            _ => (detected, format!("detected by {}", self.steering.name())),
        };
        Attempt {
            number: 1,
            plan,
            reason,
        }
    }

    /// Builds `attempt`'s plan, logs and records how it ended, and gives back the failure when it did not build.
    async fn build_attempt(
        &self,
        request: &BuildRequest,
        attempt: &Attempt,
        max_attempts: u32,
        record: &mut BuildRecord,
    ) -> Result<Option<StepFailure>, BuildError> {
        let Attempt {
            number,
            plan,
            reason,
        } = attempt;
        record.plan = Some(plan.clone());
        self.log.line(&format!(
            "attempt {number}/{max_attempts}: {}",
            plan.summary()
        ));
        self.log.line(&format!("  why: {reason}"));
        let (result, duration_ms) = self.run_builder(request, attempt).await?;
        let outcome = match &result {
            Ok(image) => {
                self.log
                    .line(&format!("attempt {number} built {}", image.reference));
                AttemptOutcome::Built {
                    image: image.reference.clone(),
                }
            }
            Err(failure) => {
                self.log.line(&format!(
                    "attempt {number} failed in the {} step{}",
                    failure.step,
                    failure
                        .exit_code
                        .map(|c| format!(" (exit code {c})"))
                        .unwrap_or_default()
                ));
                AttemptOutcome::Failed {
                    step: failure.step.clone(),
                    exit_code: failure.exit_code,
                    log_tail: failure.log.clone(),
                }
            }
        };
        record.attempts.push(BuildAttempt {
            number: *number,
            reason: reason.clone(),
            plan: plan.clone(),
            outcome,
            duration_ms,
        });
        match result {
            Ok(image) => {
                record.image = Some(image.reference);
                Ok(None)
            }
            Err(failure) => Ok(Some(failure)),
        }
    }

    /// Runs the builder on `attempt`'s plan once a build permit is free, and says how long it ran in
    /// milliseconds (the wait for the permit not included).
    async fn run_builder(
        &self,
        request: &BuildRequest,
        attempt: &Attempt,
    ) -> Result<(Result<BuiltImage, StepFailure>, u64), BuildError> {
        let job = BuildJob {
            app: request.app.clone(),
            commit: request.commit.clone(),
            context: request.context.clone(),
            plan: attempt.plan.clone(),
            image: request.image.clone(),
            attempt: attempt.number,
        };
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|e| BuildError::Source(format!("the build queue is closed: {e}")))?;
        let started = Instant::now();
        let result = self.builder.build(&job, self.log).await?;
        let elapsed = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok((result, elapsed))
    }

    /// Hands `attempt`'s plan and its `failure` to the steerer and returns its decision: a revised plan or
    /// giving up.
    async fn ask_for_revision(
        &self,
        request: &BuildRequest,
        facts: &RepoFacts,
        attempt: &Attempt,
        failure: &StepFailure,
    ) -> Result<SteerDecision, BuildError> {
        self.steering
            .steer(
                facts.clone(),
                attempt.plan.clone(),
                BuildFailure {
                    attempt: attempt.number,
                    step: failure.step.clone(),
                    exit_code: failure.exit_code,
                    log: failure.log.clone(),
                },
                self.source(request)?,
            )
            .await
            .map_err(BuildError::Call)?
            .map_err(|source| BuildError::Steer {
                plugin: self.steering.name().to_string(),
                source,
            })
    }

    /// Follows the steerer's `decision` on `attempt`'s `failure`: the next attempt with the revised plan (its
    /// reason added to `record`), or the error for giving up, a revision that changes an override, or one that
    /// changes nothing.
    fn next_attempt(
        &self,
        request: &BuildRequest,
        facts: &RepoFacts,
        attempt: &Attempt,
        failure: StepFailure,
        decision: SteerDecision,
        record: &mut BuildRecord,
    ) -> Result<Attempt, BuildError> {
        let plugin = self.steering.name().to_string();
        match decision {
            SteerDecision::GiveUp(why) => {
                self.log.line(&format!("{plugin} gave up: {why}"));
                Err(BuildError::GaveUp {
                    stop: stop_at(request, attempt.number, &failure),
                    plugin,
                    reason: why,
                })
            }
            SteerDecision::Retry(revision) => {
                self.check_overrides(&revision.plan, facts)?;
                if revision.plan == attempt.plan {
                    return Err(BuildError::Unchanged {
                        plugin,
                        reason: revision.reason,
                    });
                }
                self.log
                    .line(&format!("{plugin} revised the plan: {}", revision.reason));
                record.reasons.push(revision.reason.clone());
                Ok(Attempt {
                    number: attempt.number + 1,
                    plan: revision.plan,
                    reason: format!("revised by {plugin}: {}", revision.reason),
                })
            }
        }
    }
}

/// One attempt to build: its number (1 for the first), the plan it builds and why it is that plan.
struct Attempt {
    /// 1 for the first.
    number: u32,
    /// The plan to build.
    plan: BuildPlan,
    /// Why this plan: detected, replayed, or the steerer's reason for the revision.
    reason: String,
}

/// Where `request` stopped: at `attempt`, in `failure`'s step, with the end of its log.
fn stop_at(request: &BuildRequest, attempt: u32, failure: &StepFailure) -> Box<Stop> {
    Box::new(Stop {
        app: request.app.clone(),
        commit: request.commit.clone(),
        attempt,
        step: failure.step.clone(),
        tail: log_tail(&failure.log, TAIL_IN_MESSAGE),
    })
}

fn first_line(error: &BuildError) -> String {
    error
        .to_string()
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests;
