//! Building images from source: a `build-steer` plugin plans the build from the repository, a builder runs it,
//! and when a build fails in a way the plugin recognises, the plugin revises the plan and the build runs again.
//!
//! - [`bases`]: the base images a plan names by logical name (`FROM base/python:3.11`), as this machine has them;
//! - [`builder`]: the [`Builder`] interface, and what a build gives (an image with its digest, or the failed step
//!   and its log);
//! - [`buildkit`], [`podman`]: the backends for real use (`buildctl`; `buildah` or `podman`), the first this
//!   machine has by default;
//! - [`command`]: the backend that runs the plan's commands in a scratch copy of the checkout, no container;
//! - [`steering`]: the loop: plan, build, steer, bounded attempts, every attempt in the log and the record, the
//!   final plan kept for replay and an unchanged commit and plan reusing the last image;
//! - [`report`]: what an operation's record keeps of its build (attempts, final plan, image, reuse), with
//!   [`redact`] keeping configured and credential-like environment values out of it;
//! - [`checkout`]: the commit a build is of, and its context directory;
//! - [`steerer`]: loading the app's steer plugin from the registry;
//! - [`spec`]: an app's `[app.build]` settings.
//!
//! Building an app as configured (its source pinned, its steerer, a permit per build) is the deployer's
//! (`weft_engine::deploy::Builds`): this crate (`weft-build`) knows builds, not apps, so it must not depend on the
//! engine or on anything above `weft-render`.

pub mod bases;
pub mod builder;
pub mod buildkit;
pub mod checkout;
pub mod command;
#[cfg(test)]
mod fake_tools;
pub mod podman;
mod process;
pub mod redact;
pub mod report;
pub mod spec;
pub mod steerer;
pub mod steering;

pub use bases::BaseCatalogue;
pub use builder::{
    BuildJob, BuildResult, Builder, BuilderError, BuiltImage, LogSink, StepFailure, StreamSink,
};
pub use buildkit::BuildkitBuilder;
pub use command::CommandBuilder;
pub use podman::{ContainerTool, PodmanBuilder};
pub use report::{AttemptReport, AttemptResult, BuildReport, PlanReport, PlanVariable};
pub use spec::{BuildSpec, BuilderKind, BuilderSettings};
pub use steerer::load_steerer;
pub use steering::{
    AttemptOutcome, BuildAttempt, BuildError, BuildFailed, BuildLoop, BuildRecord, BuildRequest,
    BuildState, DEFAULT_MAX_ATTEMPTS, Steering, Stop,
};
