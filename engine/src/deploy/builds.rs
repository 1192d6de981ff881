//! Building an app as configured: its source pinned and checked out, its steerer from the registry, its builder
//! backend, and a permit per build from a semaphore the caller sizes (the deploy concurrency). The deployer and
//! `weft build` both build through this.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use weft_app::AppSpec;
use weft_build::builder::LogSink;
use weft_build::checkout;
use weft_build::spec::{BuilderKind, BuilderSettings};
use weft_build::steerer::load_steerer;
use weft_build::steering::{
    self, AttemptOutcome, BuildError, BuildFailed, BuildLoop, BuildRecord, BuildRequest,
    BuildState, TAIL_IN_MESSAGE,
};
use weft_plugin_host::registry::Registry;
use weft_plugin_host::{PluginHost, SteerPlugin};
use weft_source::GitSources;

/// What an app's state keeps about its builds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AppBuild {
    /// The last successful build: its plan is replayed, its image reused for an unchanged commit and plan.
    pub built: Option<BuildState>,
    /// The record of the last build, successful or not.
    pub last: Option<BuildRecord>,
}

impl AppBuild {
    /// Records a build's result: the record always (its logs cut to their last lines, as the state is stored with
    /// every operation), the state when it built.
    pub fn record(&mut self, result: &Result<BuildRecord, BuildFailed>, image_name: &str) {
        let record = match result {
            Ok(record) => {
                if let Some(state) = record.state(image_name) {
                    self.built = Some(state);
                }
                record
            }
            Err(failed) => &failed.record,
        };
        let mut kept = record.clone();
        for attempt in &mut kept.attempts {
            if let AttemptOutcome::Failed { log_tail, .. } = &mut attempt.outcome {
                *log_tail = steering::log_tail(log_tail, TAIL_IN_MESSAGE);
            }
        }
        self.last = Some(kept);
    }

    /// The image of the last successful build.
    pub fn image(&self) -> Option<&str> {
        self.built.as_ref().map(|b| b.image.as_str())
    }
}

/// Builds apps. Cheap to clone; steer plugins are loaded once and shared.
#[derive(Clone)]
pub struct Builds {
    host: PluginHost,
    registry: Arc<Registry>,
    git: GitSources,
    permits: Arc<tokio::sync::Semaphore>,
    builder: Option<BuilderKind>,
    settings: BuilderSettings,
    steerers: Arc<Mutex<HashMap<String, SteerPlugin>>>,
}

impl std::fmt::Debug for Builds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builds")
            .field("builder", &self.builder)
            .field("permits", &self.permits.available_permits())
            .finish_non_exhaustive()
    }
}

impl Builds {
    /// Builds with the registry's steer plugins, checkouts from `git`, and at most as many builds at once as
    /// `permits` has.
    pub fn new(
        host: PluginHost,
        registry: Arc<Registry>,
        git: GitSources,
        permits: Arc<tokio::sync::Semaphore>,
    ) -> Self {
        Builds {
            host,
            registry,
            git,
            permits,
            builder: None,
            settings: BuilderSettings::default(),
            steerers: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Builds with the operator's `settings` (`[build]`: where base images come from).
    pub fn with_settings(mut self, settings: BuilderSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Builds with `builder` whatever the apps configure (`weft build` tries plans with the command backend).
    pub fn with_builder(mut self, builder: BuilderKind) -> Self {
        self.builder = Some(builder);
        self
    }

    /// Resolves the app's source to the commit a build is of (never a moving ref).
    pub async fn resolve(&self, app: &AppSpec) -> Result<String, BuildError> {
        let source = app
            .app_source()
            .map_err(|e| BuildError::Source(e.to_string()))?;
        let git = self.git.clone();
        tokio::task::spawn_blocking(move || checkout::resolve(&git, &source))
            .await
            .map_err(|e| BuildError::Source(format!("the resolve task failed: {e}")))?
    }

    /// Builds the app at `revision` (a commit, or a local tree's digest), replaying or reusing `previous`.
    pub async fn build(
        &self,
        app: &AppSpec,
        revision: &str,
        previous: Option<&BuildState>,
        log: &dyn LogSink,
    ) -> Result<BuildRecord, BuildFailed> {
        let Some(spec) = &app.build else {
            return Err(self.failed(
                app,
                revision,
                BuildError::Source(format!("app {} has no [app.build] settings", app.name)),
            ));
        };
        let kind = self.builder.unwrap_or(spec.builder);
        let builder = kind.builder(&self.settings);
        let prepared = async {
            let source = app
                .app_source()
                .map_err(|e| BuildError::Source(e.to_string()))?;
            let git = self.git.clone();
            let commit = revision.to_string();
            let context =
                tokio::task::spawn_blocking(move || checkout::context(&git, &source, &commit))
                    .await
                    .map_err(|e| BuildError::Source(format!("the checkout task failed: {e}")))??;
            let steerer = self.steerer(&spec.steer)?;
            Ok::<_, BuildError>((context, steerer))
        };
        let (context, steerer) = match prepared.await {
            Ok(prepared) => prepared,
            Err(error) => return Err(self.failed(app, revision, error)),
        };
        let request = BuildRequest {
            app: app.name.clone(),
            commit: revision.to_string(),
            context,
            overrides: spec.overrides(),
            image: spec.image_name(&app.name),
            max_attempts: spec.max_attempts,
        };
        BuildLoop {
            steering: &steerer,
            builder: builder.as_ref(),
            permits: &self.permits,
            log,
        }
        .run(&request, previous)
        .await
    }

    fn steerer(&self, app_type: &str) -> Result<SteerPlugin, BuildError> {
        let mut loaded = self.steerers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(plugin) = loaded.get(app_type) {
            return Ok(plugin.clone());
        }
        let plugin = load_steerer(&self.host, &self.registry, app_type)?;
        loaded.insert(app_type.to_string(), plugin.clone());
        Ok(plugin)
    }

    fn failed(&self, app: &AppSpec, revision: &str, error: BuildError) -> BuildFailed {
        let steerer = app
            .build
            .as_ref()
            .map(|b| b.steer.clone())
            .unwrap_or_default();
        let builder = self
            .builder
            .or(app.build.as_ref().map(|b| b.builder))
            .map(|k| k.builder(&self.settings).name().to_string())
            .unwrap_or_default();
        BuildFailed {
            record: Box::new(BuildRecord::started(
                app.name.as_str(),
                revision,
                steerer,
                builder,
            )),
            error,
        }
    }
}

#[cfg(test)]
mod tests {
    use weft_sdk::BuildPlan;

    use super::*;
    use weft_build::steering::BuildAttempt;

    fn record(image: Option<&str>, log: &str) -> BuildRecord {
        BuildRecord {
            app: "shop".into(),
            commit: "c0ffee".into(),
            steerer: "steer-detect".into(),
            builder: "command".into(),
            detected: Some(BuildPlan::default()),
            attempts: vec![BuildAttempt {
                number: 1,
                reason: "detected by steer-detect".into(),
                plan: BuildPlan::default(),
                outcome: AttemptOutcome::Failed {
                    step: "build".into(),
                    exit_code: Some(1),
                    log_tail: log.into(),
                },
                duration_ms: 1200,
            }],
            plan: Some(BuildPlan::default()),
            image: image.map(str::to_string),
            reused: false,
            reasons: Vec::new(),
        }
    }

    #[test]
    fn the_state_keeps_the_last_success_and_a_short_record() {
        let long: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let mut build = AppBuild::default();
        build.record(
            &Ok(record(Some("local/shop@sha256:ab"), &long)),
            "local/shop",
        );
        assert_eq!(build.image(), Some("local/shop@sha256:ab"));
        let AttemptOutcome::Failed { log_tail, .. } =
            &build.last.as_ref().unwrap().attempts[0].outcome
        else {
            panic!("a failed attempt");
        };
        assert_eq!(log_tail.lines().count(), TAIL_IN_MESSAGE);
        assert!(log_tail.ends_with("line 99"));

        // A failed build replaces the record, not the last success.
        let failed = BuildFailed {
            record: Box::new(record(None, "boom\n")),
            error: BuildError::Source("gone".into()),
        };
        build.record(&Err(failed), "local/shop");
        assert_eq!(build.image(), Some("local/shop@sha256:ab"));
        assert_eq!(build.last.as_ref().unwrap().image, None);
    }
}
