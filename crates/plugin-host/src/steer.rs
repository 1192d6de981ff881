//! Calling a `build-steer` plugin: a fresh sandbox per call, the repository's tree as its only readable files,
//! and the plans it returns checked before the host builds anything from them.

use std::sync::Arc;

use weft_sdk::{
    BuildFailure, BuildPlan, ErrorKind, PluginError, RepoFacts, Revision, SteerDecision,
};

use super::World;
use super::bindings::build_steer::exports::weft::plugin::steer as wit;
use super::bindings::build_steer::weft::plugin::types as wit_types;
use super::bindings::build_steer::{BuildSteer, BuildSteerPre};
use super::call::{classify, instance_pre, new_store, on_blocking_thread, wrong_world};
use super::error::{CallError, Failure, LoadError};
use super::host::{HostInner, LoadedComponent, PluginHost};
use super::limits::CallLimits;
use super::shape::Sandbox;
use super::state::{CallState, SharedSource};

/// A loaded build-steer plugin.
#[derive(Clone)]
pub struct SteerPlugin {
    name: Arc<str>,
    sha256: Arc<str>,
    limits: CallLimits,
    pre: BuildSteerPre<CallState>,
    host: Arc<HostInner>,
}

impl std::fmt::Debug for SteerPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SteerPlugin")
            .field("name", &self.name)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl PluginHost {
    /// Binds a loaded component to the `build-steer` world.
    pub fn steer_plugin(
        &self,
        component: &LoadedComponent,
        limits: CallLimits,
    ) -> Result<SteerPlugin, LoadError> {
        let pre = instance_pre(&self.inner.steer_linker, component, World::BuildSteer)?;
        let pre = BuildSteerPre::new(pre)
            .map_err(|e| wrong_world(component, World::BuildSteer, format!("{e:#}")))?;
        Ok(SteerPlugin {
            name: component.name.as_str().into(),
            sha256: component.sha256.as_str().into(),
            limits: self.inner.config.effective(World::BuildSteer, limits),
            pre,
            host: self.inner.clone(),
        })
    }
}

impl SteerPlugin {
    /// The plugin's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// sha256 of the component.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// Plans a build on the calling thread. The outer `Result` is the sandbox's verdict (the plugin trapped, timed
    /// out, broke the contract); the inner one is the plugin's own (it cannot plan this repository).
    pub fn plan_blocking(
        &self,
        facts: &RepoFacts,
        source: SharedSource,
    ) -> Result<Result<BuildPlan, PluginError>, CallError> {
        let raw = self.call(source, |instance, store| {
            instance
                .weft_plugin_steer()
                .call_plan(store, &facts_to_wit(facts))
        })?;
        match raw {
            Ok(plan) => {
                let plan = plan_from_wit(plan);
                self.check_plan(&plan)?;
                Ok(Ok(plan))
            }
            Err(error) => Ok(Err(error_from_wit(error))),
        }
    }

    /// Steers after a failed build, on the calling thread; the two `Result`s as in [`SteerPlugin::plan_blocking`].
    pub fn steer_blocking(
        &self,
        facts: &RepoFacts,
        plan: &BuildPlan,
        failure: &BuildFailure,
        source: SharedSource,
    ) -> Result<Result<SteerDecision, PluginError>, CallError> {
        let wit_failure = wit::BuildFailure {
            attempt: failure.attempt,
            step: failure.step.clone(),
            exit_code: failure.exit_code,
            log: failure.log.clone(),
        };
        let raw = self.call(source, |instance, store| {
            instance.weft_plugin_steer().call_steer(
                store,
                &facts_to_wit(facts),
                &plan_to_wit(plan),
                &wit_failure,
            )
        })?;
        match raw {
            Ok(wit::SteerDecision::Retry(revision)) => {
                let plan = plan_from_wit(revision.plan);
                self.check_plan(&plan)?;
                let size = revision.reason.len() + plan_size(&plan);
                self.check_size(size)?;
                Ok(Ok(SteerDecision::Retry(Box::new(Revision {
                    plan,
                    reason: revision.reason,
                }))))
            }
            Ok(wit::SteerDecision::GiveUp(reason)) => {
                self.check_size(reason.len())?;
                Ok(Ok(SteerDecision::GiveUp(reason)))
            }
            Err(error) => Ok(Err(error_from_wit(error))),
        }
    }

    /// Plans on a blocking thread, bounded like every plugin call.
    pub async fn plan(
        &self,
        facts: RepoFacts,
        source: SharedSource,
    ) -> Result<Result<BuildPlan, PluginError>, CallError> {
        let plugin = self.clone();
        on_blocking_thread(&self.host, &self.name, Sandbox::Native, move || {
            plugin.plan_blocking(&facts, source)
        })
        .await
    }

    /// Steers on a blocking thread, bounded like every plugin call.
    pub async fn steer(
        &self,
        facts: RepoFacts,
        plan: BuildPlan,
        failure: BuildFailure,
        source: SharedSource,
    ) -> Result<Result<SteerDecision, PluginError>, CallError> {
        let plugin = self.clone();
        on_blocking_thread(&self.host, &self.name, Sandbox::Native, move || {
            plugin.steer_blocking(&facts, &plan, &failure, source)
        })
        .await
    }

    /// One sandboxed call with the source tree readable.
    fn call<T>(
        &self,
        source: SharedSource,
        invoke: impl FnOnce(&BuildSteer, &mut wasmtime::Store<CallState>) -> wasmtime::Result<T>,
    ) -> Result<T, CallError> {
        let mut state = CallState::new(self.limits.memory_bytes, self.limits.max_log_bytes);
        state.source = Some(source);
        let mut store = new_store(
            &self.host,
            World::BuildSteer,
            Sandbox::Native,
            &self.limits,
            state,
        );
        self.pre
            .instantiate(&mut store)
            .map_err(|e| Failure::Instantiate(format!("{e:#}")))
            .and_then(|instance: BuildSteer| {
                invoke(&instance, &mut store).map_err(|e| classify(&e, store.data(), &self.limits))
            })
            .map_err(|failure| self.fail(failure))
    }

    fn fail(&self, failure: Failure) -> CallError {
        CallError::decided(&self.name, failure)
    }

    fn check_size(&self, size: usize) -> Result<(), CallError> {
        if size > self.limits.max_output_bytes {
            return Err(self.fail(Failure::OutputTooLarge {
                size,
                limit: self.limits.max_output_bytes,
            }));
        }
        Ok(())
    }

    /// A plan the host can build from: within the output limit, with a kind, a base image and a Dockerfile.
    fn check_plan(&self, plan: &BuildPlan) -> Result<(), CallError> {
        self.check_size(plan_size(plan))?;
        let missing = [
            ("kind", plan.kind.trim().is_empty()),
            ("base-image", plan.base_image.trim().is_empty()),
            ("dockerfile", plan.dockerfile.trim().is_empty()),
        ]
        .into_iter()
        .find(|(_, empty)| *empty);
        if let Some((field, _)) = missing {
            return Err(self.fail(Failure::InvalidOutput(format!(
                "the build plan's {field} is empty"
            ))));
        }
        if plan.jobs == Some(0) {
            return Err(self.fail(Failure::InvalidOutput(
                "the build plan asks for 0 parallel jobs".into(),
            )));
        }
        Ok(())
    }
}

/// Bytes of text in a plan.
fn plan_size(plan: &BuildPlan) -> usize {
    plan.kind.len()
        + plan.base_image.len()
        + plan.dockerfile.len()
        + plan.start.as_ref().map_or(0, String::len)
        + plan
            .system_packages
            .iter()
            .chain(&plan.install)
            .chain(&plan.build)
            .map(String::len)
            .sum::<usize>()
        + plan
            .env
            .iter()
            .map(|(k, v)| k.len() + v.len())
            .sum::<usize>()
}

fn facts_to_wit(facts: &RepoFacts) -> wit::RepoFacts {
    wit::RepoFacts {
        app: facts.app.clone(),
        commit: facts.commit.clone(),
        overrides: facts.overrides.clone(),
    }
}

fn plan_to_wit(plan: &BuildPlan) -> wit::BuildPlan {
    wit::BuildPlan {
        kind: plan.kind.clone(),
        base_image: plan.base_image.clone(),
        system_packages: plan.system_packages.clone(),
        install: plan.install.clone(),
        build: plan.build.clone(),
        start: plan.start.clone(),
        port: plan.port,
        env: plan.env.clone(),
        jobs: plan.jobs,
        dockerfile: plan.dockerfile.clone(),
    }
}

fn plan_from_wit(plan: wit::BuildPlan) -> BuildPlan {
    BuildPlan {
        kind: plan.kind,
        base_image: plan.base_image,
        system_packages: plan.system_packages,
        install: plan.install,
        build: plan.build,
        start: plan.start,
        port: plan.port,
        env: plan.env,
        jobs: plan.jobs,
        dockerfile: plan.dockerfile,
    }
}

fn error_from_wit(error: wit_types::PluginError) -> PluginError {
    PluginError {
        kind: match error.kind {
            wit_types::ErrorKind::InvalidInput => ErrorKind::InvalidInput,
            wit_types::ErrorKind::Unsupported => ErrorKind::Unsupported,
            wit_types::ErrorKind::Failed => ErrorKind::Failed,
        },
        message: error.message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_cross_the_boundary_unchanged() {
        let plan = BuildPlan {
            kind: "node".into(),
            base_image: "node:20-slim".into(),
            system_packages: vec!["git".into()],
            install: vec!["npm ci".into()],
            build: vec!["npm run build".into()],
            start: Some("npm start".into()),
            port: Some(3000),
            env: vec![("PORT".into(), "3000".into())],
            jobs: Some(2),
            dockerfile: "FROM node:20-slim\n".into(),
        };
        assert_eq!(plan_from_wit(plan_to_wit(&plan)), plan);
        assert_eq!(
            plan_size(&plan),
            "node".len()
                + "node:20-slim".len()
                + "FROM node:20-slim\n".len()
                + "npm start".len()
                + "git".len()
                + "npm ci".len()
                + "npm run build".len()
                + "PORT3000".len()
        );
    }
}
