//! Deterministic container logs: the same pod, container, image and restart count always give the same lines.

use crate::ids::short_hash;

/// How a container's image makes it behave, recognised from words in the image name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageBehaviour {
    /// Pulls, starts and becomes ready.
    Healthy,
    /// Cannot be pulled (`fail-pull`, `bad-image`, `does-not-exist`): ErrImagePull, then ImagePullBackOff.
    PullFailure,
    /// Starts and exits with an error over and over (`crashloop`): CrashLoopBackOff, restartCount rising.
    CrashLoop,
    /// Runs but never passes readiness (`never-ready`).
    NeverReady,
    /// Runs to completion with an error (`fail-job`): for Jobs, a failed pod.
    ExitFailure,
}

impl ImageBehaviour {
    /// The behaviour an image name asks for.
    pub fn of_image(image: &str) -> Self {
        let image = image.to_ascii_lowercase();
        if image.contains("fail-pull")
            || image.contains("bad-image")
            || image.contains("does-not-exist")
        {
            Self::PullFailure
        } else if image.contains("crashloop") || image.contains("crash-loop") {
            Self::CrashLoop
        } else if image.contains("never-ready") {
            Self::NeverReady
        } else if image.contains("fail-job") || image.contains("exit-1") {
            Self::ExitFailure
        } else {
            Self::Healthy
        }
    }
}

/// The log lines of one run of a container.
pub fn container_log(pod: &str, container: &str, image: &str, restart: u64) -> Vec<String> {
    let seed = short_hash(&format!("{pod}/{container}/{image}/{restart}"), 8);
    let mut lines = vec![
        format!("starting {container} (image {image}, run {restart})"),
        format!("{pod}/{container}: configuration loaded, instance {seed}"),
    ];
    match ImageBehaviour::of_image(image) {
        ImageBehaviour::CrashLoop => {
            lines.push(format!("{pod}/{container}: connecting to dependencies"));
            lines.push(format!(
                "{pod}/{container}: fatal: simulated crash (image asks for crashloop), exit code 1"
            ));
        }
        ImageBehaviour::ExitFailure => {
            lines.push(format!("{pod}/{container}: running task"));
            lines.push(format!("{pod}/{container}: task failed, exit code 1"));
        }
        ImageBehaviour::NeverReady => {
            lines.push(format!("{pod}/{container}: listening on :8080"));
            lines.push(format!(
                "{pod}/{container}: readiness check failing: dependency unavailable"
            ));
        }
        ImageBehaviour::Healthy | ImageBehaviour::PullFailure => {
            lines.push(format!("{pod}/{container}: listening on :8080"));
            lines.push(format!("{pod}/{container}: ready to serve requests"));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_pick_behaviours() {
        assert_eq!(
            ImageBehaviour::of_image("nginx:1.27"),
            ImageBehaviour::Healthy
        );
        assert_eq!(
            ImageBehaviour::of_image("registry/fail-pull:1"),
            ImageBehaviour::PullFailure
        );
        assert_eq!(
            ImageBehaviour::of_image("app:crashloop"),
            ImageBehaviour::CrashLoop
        );
        assert_eq!(
            ImageBehaviour::of_image("app:never-ready"),
            ImageBehaviour::NeverReady
        );
    }

    #[test]
    fn logs_are_deterministic() {
        let first = container_log("web-1", "app", "nginx:1", 0);
        assert_eq!(first, container_log("web-1", "app", "nginx:1", 0));
        assert_ne!(first, container_log("web-1", "app", "nginx:1", 1));
        assert!(
            container_log("p", "c", "x:crashloop", 0)
                .iter()
                .any(|line| line.contains("crash"))
        );
    }
}
