//! The assessment pass: host rules, then plugins in precedence order, batched per plugin.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use weft_sdk::{ErrorKind, Health, Status};

use super::rules::{PENDING_DELETION_RULE, SECRET_RULE, pending_deletion};
use weft_core::metrics::{PluginLabels, metrics};
use weft_plugin_host::registry::{RegisteredPlugin, Registry, RegistryError};
use weft_plugin_host::{CallLimits, HealthPlugin, LoadError, PluginHost, RelatedObjects, World};

/// The verdict on one object and who gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessment {
    /// The health; `None` when no rule or plugin has an opinion.
    pub health: Option<Health>,
    /// The plugin (or `host:` rule) that answered.
    pub answered_by: Option<String>,
    /// When nobody answered, why: no plugin serves the object's kind, or those asked had no opinion.
    pub unanswered: Option<String>,
}

impl Assessment {
    /// The health to show: the answer, or `unknown` saying why there is none. Never `healthy` by default.
    pub fn verdict(&self) -> Health {
        match &self.health {
            Some(health) => health.clone(),
            None => Health::new(
                Status::Unknown,
                self.unanswered
                    .clone()
                    .unwrap_or_else(|| "no health check answered".to_string()),
            ),
        }
    }
}

/// Why an object has no health: its kind, and the plugins asked (none when no plugin serves the kind).
fn unanswered_reason(object: &Value, asked: &[&RegisteredPlugin]) -> String {
    let (group, kind) = group_kind(object);
    let key = if group.is_empty() {
        kind.to_string()
    } else {
        format!("{group}/{kind}")
    };
    if asked.is_empty() {
        format!("no health check serves {key}")
    } else {
        let names: Vec<&str> = asked.iter().map(|p| p.name()).collect();
        format!(
            "no health check gave a verdict for {key}: {} had no opinion",
            names.join(", ")
        )
    }
}

/// Switches for the host's own rules.
#[derive(Debug, Clone, Copy)]
pub struct AssessOptions {
    /// Apply the pending-deletion rule before any plugin (on by default, as in Argo CD).
    pub pending_deletion: bool,
}

impl Default for AssessOptions {
    fn default() -> Self {
        AssessOptions {
            pending_deletion: true,
        }
    }
}

/// A configuration problem that stops a whole pass. Plugin failures do not: they become an `unknown` verdict for
/// the objects concerned, naming the plugin.
#[derive(Debug, thiserror::Error)]
pub enum AssessError {
    /// The registry cannot decide which plugin serves an object.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// A plugin could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A plugin's manifest names no component.
    #[error("plugin {0} has no component")]
    NoComponent(String),
    /// The pass's worker thread failed.
    #[error("the assessment was aborted: {0}")]
    Aborted(String),
}

/// Assesses objects with the registry's health plugins, loading each plugin the first time it is needed.
#[derive(Debug)]
pub struct HealthAssessor {
    host: PluginHost,
    registry: Registry,
    options: AssessOptions,
    loaded: Mutex<HashMap<String, HealthPlugin>>,
}

/// Where one object stands during a pass.
struct Pending<'r> {
    index: usize,
    json: String,
    candidates: Vec<&'r RegisteredPlugin>,
    next: usize,
}

impl HealthAssessor {
    /// An assessor over a registry.
    pub fn new(host: PluginHost, registry: Registry, options: AssessOptions) -> Self {
        HealthAssessor {
            host,
            registry,
            options,
            loaded: Mutex::new(HashMap::new()),
        }
    }

    /// The registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The loaded plugin of that name, loading it on first use.
    pub fn plugin(&self, name: &str) -> Result<HealthPlugin, AssessError> {
        if let Some(plugin) = self
            .loaded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
        {
            return Ok(plugin.clone());
        }
        let registered = self
            .registry
            .get(name)
            .ok_or_else(|| AssessError::NoComponent(name.to_string()))?;
        if let Some(template) = registered.instance_of() {
            // An instance shares its template's compiled component; only the name and the settings differ.
            let plugin = self
                .plugin(template)?
                .instance(name, registered.settings().unwrap_or_default());
            self.loaded
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(name.to_string(), plugin.clone());
            return Ok(plugin);
        }
        let path = registered
            .component_path()
            .ok_or_else(|| AssessError::NoComponent(name.to_string()))?;
        let component = self.host.load_component_file(
            name,
            World::HealthCheck,
            &path,
            registered.manifest.sha256.as_deref(),
        )?;
        let limits = CallLimits::HEALTH.with_overrides(&registered.manifest.limits);
        let plugin = self.host.health_plugin(&component, limits)?;
        self.loaded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_string(), plugin.clone());
        Ok(plugin)
    }

    /// Assesses objects on a blocking thread.
    pub async fn assess(
        self: &Arc<Self>,
        objects: Vec<Value>,
        related: Arc<dyn RelatedObjects>,
    ) -> Result<Vec<Assessment>, AssessError> {
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.assess_blocking(&objects, related))
            .await
            .map_err(|e| AssessError::Aborted(e.to_string()))?
    }

    /// Assesses objects on the calling thread: one batch per plugin per round, each object moving to its next
    /// candidate plugin when the current one has no opinion or does not support it.
    pub fn assess_blocking(
        &self,
        objects: &[Value],
        related: Arc<dyn RelatedObjects>,
    ) -> Result<Vec<Assessment>, AssessError> {
        let mut results: Vec<Option<Assessment>> = vec![None; objects.len()];
        let mut pending = Vec::new();
        for (index, object) in objects.iter().enumerate() {
            if self.options.pending_deletion
                && let Some(health) = pending_deletion(object)
            {
                results[index] = Some(Assessment {
                    health: Some(health),
                    answered_by: Some(PENDING_DELETION_RULE.to_string()),
                    unanswered: None,
                });
                continue;
            }
            // A Secret never reaches a plugin, not even reduced: its health is that it exists.
            if weft_core::secrets::is_secret(object) {
                results[index] = Some(Assessment {
                    health: Some(Health::healthy("")),
                    answered_by: Some(SECRET_RULE.to_string()),
                    unanswered: None,
                });
                continue;
            }
            let (group, kind) = group_kind(object);
            pending.push(Pending {
                index,
                json: object.to_string(),
                candidates: self.registry.health_candidates(group, kind)?,
                next: 0,
            });
        }
        while !pending.is_empty() {
            let mut batches: BTreeMap<&str, Vec<Pending<'_>>> = BTreeMap::new();
            for item in pending.drain(..) {
                match item.candidates.get(item.next) {
                    Some(plugin) => batches.entry(plugin.name()).or_default().push(item),
                    None => {
                        results[item.index] = Some(Assessment {
                            health: None,
                            answered_by: None,
                            unanswered: Some(unanswered_reason(
                                &objects[item.index],
                                &item.candidates[..item.next],
                            )),
                        })
                    }
                }
            }
            for (name, batch) in batches {
                let plugin = self.plugin(name)?;
                for (mut item, outcome) in self.run_batch(&plugin, batch, &related) {
                    match outcome {
                        Outcome::Answer(health) => {
                            results[item.index] = Some(Assessment {
                                health: Some(health),
                                answered_by: Some(name.to_string()),
                                unanswered: None,
                            })
                        }
                        Outcome::Pass => {
                            item.next += 1;
                            pending.push(item);
                        }
                    }
                }
            }
        }
        Ok(results
            .into_iter()
            .map(|r| {
                r.unwrap_or(Assessment {
                    health: None,
                    answered_by: None,
                    unanswered: Some("no health check answered".to_string()),
                })
            })
            .collect())
    }

    /// Calls a plugin on a batch. When the whole call fails (a trap, a timeout) and the batch has several objects,
    /// each is retried alone, so one poisonous object cannot take its neighbours' verdicts with it. The retries
    /// share one deadline of the plugin's timeout: a batch never costs more than twice that, however many objects
    /// it holds; objects the retries have no time left for are `unknown`, saying so.
    fn run_batch<'r>(
        &self,
        plugin: &HealthPlugin,
        batch: Vec<Pending<'r>>,
        related: &Arc<dyn RelatedObjects>,
    ) -> Vec<(Pending<'r>, Outcome)> {
        let (batch, error) = match self.call(plugin, batch, related) {
            Ok(answered) => return answered,
            Err((batch, error)) if batch.len() > 1 => (batch, error),
            Err((batch, error)) => {
                return batch
                    .into_iter()
                    .map(|item| (item, Outcome::Answer(Health::unknown(error.to_string()))))
                    .collect();
            }
        };
        tracing::warn!(%error, objects = batch.len(), "health batch failed; retrying objects one by one");
        let retries_end = std::time::Instant::now() + plugin.limits().timeout;
        let mut outcomes = Vec::with_capacity(batch.len());
        for item in batch {
            let left = retries_end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                outcomes.push((
                    item,
                    Outcome::Answer(Health::unknown(format!(
                        "plugin {}: not assessed: its batch failed ({error}) and the retries ran out of time",
                        plugin.name()
                    ))),
                ));
                continue;
            }
            match self.call(&plugin.with_timeout(left), vec![item], related) {
                Ok(answered) => outcomes.extend(answered),
                Err((items, error)) => outcomes.extend(
                    items
                        .into_iter()
                        .map(|item| (item, Outcome::Answer(Health::unknown(error.to_string())))),
                ),
            }
        }
        outcomes
    }

    /// One call of a plugin on a batch: each object's outcome, or the whole call's failure with the batch back.
    #[allow(clippy::type_complexity)]
    fn call<'r>(
        &self,
        plugin: &HealthPlugin,
        batch: Vec<Pending<'r>>,
        related: &Arc<dyn RelatedObjects>,
    ) -> Result<Vec<(Pending<'r>, Outcome)>, (Vec<Pending<'r>>, weft_plugin_host::CallError)> {
        let jsons: Vec<String> = batch.iter().map(|p| p.json.clone()).collect();
        let labels = PluginLabels {
            plugin: plugin.name().to_string(),
        };
        metrics().plugin_calls.get_or_create(&labels).inc();
        match plugin.assess_blocking(&jsons, related.clone()) {
            Ok((results, _report)) => Ok(batch
                .into_iter()
                .zip(results)
                .map(|(item, result)| {
                    let outcome = match result {
                        Ok(Some(health)) => Outcome::Answer(health),
                        Ok(None) => Outcome::Pass,
                        Err(e) if e.kind == ErrorKind::Unsupported => Outcome::Pass,
                        Err(e) => Outcome::Answer(Health::unknown(format!(
                            "plugin {}: {e}",
                            plugin.name()
                        ))),
                    };
                    (item, outcome)
                })
                .collect()),
            Err(error) => {
                metrics().plugin_errors.get_or_create(&labels).inc();
                Err((batch, error))
            }
        }
    }
}

enum Outcome {
    Answer(Health),
    Pass,
}

/// The API group and kind of a JSON object (`""` for the core group).
pub(crate) fn group_kind(object: &Value) -> (&str, &str) {
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    (group, kind)
}
