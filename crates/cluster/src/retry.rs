//! When and how long to retry a request: exponential backoff with jitter on throttling (honouring the server's
//! `Retry-After`), server errors (500, 502, 503, 504) and transport errors; never on other client errors (a
//! 409 conflict or a 422 invalid object is an answer, not a hiccup). The retry loop is backon's; this module
//! says which errors retry and how long each wait is.

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use backon::Retryable;

/// How a failing request is retried.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// The delay before the first retry; it doubles on each further retry.
    pub initial_delay: Duration,
    /// The longest backoff delay.
    pub max_delay: Duration,
    /// How many attempts in all, the first included.
    pub max_attempts: u32,
    /// The spread of the jitter, as a fraction of the delay (0.2: the delay is within ±20%).
    pub jitter: f64,
    /// The longest `Retry-After` honoured; a longer one is cut to this.
    pub max_retry_after: Duration,
    /// How long one attempt may take before it counts as a transport failure (and is retried like one): a
    /// request the server never answers delays only its own caller, and only this long per attempt.
    pub attempt_deadline: Duration,
}

impl Default for RetryPolicy {
    /// 200 ms doubling up to 5 s, at most 5 attempts, ±20% jitter, `Retry-After` honoured up to 30 s, 30 s per
    /// attempt.
    fn default() -> Self {
        RetryPolicy {
            initial_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
            max_attempts: 5,
            jitter: 0.2,
            max_retry_after: Duration::from_secs(30),
            attempt_deadline: Duration::from_secs(30),
        }
    }
}

/// Whether an error is worth retrying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retry {
    /// Retry, after what the server asked for when it did.
    After(Option<Duration>),
    /// Report the error.
    Never,
}

/// What kind of failure `error` is.
pub(crate) fn classify(error: &kube::Error) -> Retry {
    match error {
        kube::Error::Api(status) => match status.code {
            429 => Retry::After(
                status
                    .details
                    .as_ref()
                    .map(|details| details.retry_after_seconds)
                    .filter(|seconds| *seconds > 0)
                    .map(|seconds| Duration::from_secs(u64::from(seconds))),
            ),
            500 | 502 | 503 | 504 => Retry::After(None),
            _ => Retry::Never,
        },
        kube::Error::HyperError(_) | kube::Error::Service(_) => Retry::After(None),
        _ => Retry::Never,
    }
}

impl RetryPolicy {
    /// The delay before retry number `retry` (0 for the first), given the server's `Retry-After` and a jitter
    /// sample in `[0, 1)`.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>, sample: f64) -> Duration {
        if let Some(after) = retry_after {
            return after.min(self.max_retry_after);
        }
        let doubling = 2u32.saturating_pow(retry.min(20));
        let base = self
            .initial_delay
            .saturating_mul(doubling)
            .min(self.max_delay);
        let factor = 1.0 - self.jitter + 2.0 * self.jitter * sample.clamp(0.0, 1.0);
        base.mul_f64(factor.max(0.0)).min(self.max_delay)
    }

    /// Runs `attempt` until it succeeds, fails with an error that is not retried, or runs out of attempts.
    /// Returns the last error and how many attempts were made.
    pub(crate) async fn run<T, F, Fut>(&self, mut attempt: F) -> Result<T, (kube::Error, u32)>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, kube::Error>>,
    {
        let attempts = AtomicU32::new(0);
        let deadline = self.attempt_deadline;
        let result = (|| {
            attempts.fetch_add(1, Ordering::Relaxed);
            let answer = tokio::time::timeout(deadline, attempt());
            async move {
                answer.await.unwrap_or_else(|_| {
                    Err(kube::Error::Service(
                        format!("the API server did not answer within {deadline:?}").into(),
                    ))
                })
            }
        })
        .retry(Delays {
            policy: self,
            retry: 0,
        })
        .sleep(tokio::time::sleep)
        .when(|error| classify(error) != Retry::Never)
        .adjust(|error, delay| {
            // The server's Retry-After, when it gave one, instead of the policy's delay.
            delay.map(|delay| match classify(error) {
                Retry::After(Some(after)) => self.delay(0, Some(after), 0.0),
                _ => delay,
            })
        })
        .notify(|error, delay| tracing::debug!(%error, ?delay, "retrying a failed request"))
        .await;
        result.map_err(|error| (error, attempts.load(Ordering::Relaxed)))
    }
}

/// The waits between one request's attempts under a policy: one per retry, jittered, as many as the policy's
/// attempts allow.
#[derive(Debug)]
struct Delays<'p> {
    policy: &'p RetryPolicy,
    retry: u32,
}

impl Iterator for Delays<'_> {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        if self.retry + 1 >= self.policy.max_attempts.max(1) {
            return None;
        }
        let delay = self.policy.delay(self.retry, None, jitter_sample());
        self.retry += 1;
        Some(delay)
    }
}

/// A number in `[0, 1)` that differs between calls.
fn jitter_sample() -> f64 {
    fastrand::f64()
}

#[cfg(test)]
mod tests {
    use kube::core::{Status, response::StatusDetails};

    use super::*;

    fn api_error(code: u16, retry_after_seconds: u32) -> kube::Error {
        let mut status = Status::failure("failed", "Reason").with_code(code);
        if retry_after_seconds > 0 {
            status = status.with_details(StatusDetails {
                name: String::new(),
                group: String::new(),
                kind: String::new(),
                uid: String::new(),
                causes: Vec::new(),
                retry_after_seconds,
            });
        }
        kube::Error::Api(status.boxed())
    }

    #[test]
    fn server_errors_and_throttling_retry_but_answers_do_not() {
        for code in [500, 502, 503, 504] {
            assert_eq!(classify(&api_error(code, 0)), Retry::After(None), "{code}");
        }
        assert_eq!(
            classify(&api_error(429, 3)),
            Retry::After(Some(Duration::from_secs(3)))
        );
        assert_eq!(classify(&api_error(429, 0)), Retry::After(None));
        for code in [400, 403, 404, 409, 410, 422] {
            assert_eq!(classify(&api_error(code, 0)), Retry::Never, "{code}");
        }
        assert_eq!(
            classify(&kube::Error::Service("connection refused".into())),
            Retry::After(None)
        );
        assert_eq!(classify(&kube::Error::TlsRequired), Retry::Never);
    }

    #[test]
    fn delays_double_with_jitter_up_to_the_cap() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.delay(0, None, 0.5), Duration::from_millis(200));
        assert_eq!(policy.delay(1, None, 0.5), Duration::from_millis(400));
        assert_eq!(policy.delay(3, None, 0.5), Duration::from_millis(1600));
        assert_eq!(policy.delay(10, None, 0.5), Duration::from_secs(5));
        assert_eq!(policy.delay(0, None, 0.0), Duration::from_millis(160));
        assert!(policy.delay(0, None, 0.999) <= Duration::from_millis(240));
        assert_eq!(policy.delay(10, None, 0.999), Duration::from_secs(5));
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(2)), 0.5),
            Duration::from_secs(2)
        );
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(600)), 0.5),
            Duration::from_secs(30)
        );
        let sample = jitter_sample();
        assert!((0.0..1.0).contains(&sample));
    }

    #[tokio::test]
    async fn attempts_stop_at_the_limit_or_at_an_answer() {
        let policy = RetryPolicy {
            initial_delay: Duration::from_millis(1),
            ..RetryPolicy::default()
        };
        let mut calls = 0;
        let result: Result<(), _> = policy
            .run(|| {
                calls += 1;
                async { Err(api_error(503, 0)) }
            })
            .await;
        let (error, attempts) = result.unwrap_err();
        assert_eq!((attempts, calls), (5, 5));
        assert!(matches!(error, kube::Error::Api(status) if status.code == 503));

        let mut calls = 0;
        let result: Result<(), _> = policy
            .run(|| {
                calls += 1;
                async { Err(api_error(409, 0)) }
            })
            .await;
        assert_eq!(result.unwrap_err().1, 1);
        assert_eq!(calls, 1);

        let mut calls = 0;
        let result = policy
            .run(|| {
                calls += 1;
                let outcome = if calls < 3 {
                    Err(api_error(500, 0))
                } else {
                    Ok(calls)
                };
                async move { outcome }
            })
            .await;
        assert_eq!(result.unwrap(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn an_attempt_never_answered_ends_at_its_deadline_and_is_retried() {
        let policy = RetryPolicy {
            initial_delay: Duration::from_millis(1),
            max_attempts: 3,
            attempt_deadline: Duration::from_secs(30),
            ..RetryPolicy::default()
        };
        let mut calls = 0;
        let started = tokio::time::Instant::now();
        // The first two attempts hang for good; the third answers.
        let result = policy
            .run(|| {
                calls += 1;
                let call = calls;
                async move {
                    if call < 3 {
                        std::future::pending::<()>().await;
                    }
                    Ok(call)
                }
            })
            .await;
        assert_eq!(result.unwrap(), 3);
        // Two deadlines and two short backoffs of paused time, not forever.
        let spent = started.elapsed();
        assert!(
            spent >= Duration::from_secs(60) && spent < Duration::from_secs(61),
            "{spent:?}"
        );

        let hung: Result<(), _> = policy
            .run(std::future::pending::<Result<(), kube::Error>>)
            .await;
        let (error, attempts) = hung.unwrap_err();
        assert_eq!(attempts, 3);
        assert!(
            error.to_string().contains("did not answer within 30s"),
            "{error}"
        );
    }
}
