//! The parts of a build that read plugin configurations and the `openapi` schema: loading `generators:`,
//! `transformers:` and `validators:` entries (inline documents first, then files and directories built as
//! kustomizations, as Kustomize does), running generator plugins, and choosing where merge keys come from.

use std::sync::Arc;

use weft_sdk::RenderError;

use super::Build;
use crate::documents::parse_stream;
use crate::kustomization::StringMap;
use crate::patch::merge_keys::{BUILTIN_VERSION, MergeKeys};
use crate::patch::openapi::OpenApiSchema;
use crate::patching::PatchContext;
use crate::plugin::{self, Plugin, Role};
use crate::resmap::ResMap;
use crate::resource::{Generated, Resource};

/// The documents of an entry written inline (one or more mappings), or `None` when the entry names a path.
fn inline_documents(entry: &str, file: &str) -> Option<Vec<serde_json::Value>> {
    let documents = parse_stream(entry, file).ok()?;
    let values: Vec<serde_json::Value> = documents.into_iter().map(|d| d.value).collect();
    (!values.is_empty() && values.iter().all(serde_json::Value::is_object)).then_some(values)
}

impl Build<'_, '_> {
    /// The plugins a `generators:`, `transformers:` or `validators:` list of the kustomization `file` (in
    /// `dir`) configures, in Kustomize's order: inline configurations, then those of files and directories.
    pub(super) fn plugin_configs(
        &mut self,
        dir: &str,
        file: &str,
        entries: &[String],
        role: Role,
    ) -> Result<Vec<Plugin>, RenderError> {
        Ok(self
            .configured_plugins(dir, file, entries, role)?
            .into_iter()
            .map(|(plugin, _)| plugin)
            .collect())
    }

    /// [`Build::plugin_configs`], each plugin with the configuration object it was read from.
    fn configured_plugins(
        &mut self,
        dir: &str,
        file: &str,
        entries: &[String],
        role: Role,
    ) -> Result<Vec<(Plugin, Resource)>, RenderError> {
        let mut configs = ResMap::default();
        let mut paths = Vec::new();
        for entry in entries {
            let Some(values) = inline_documents(entry, file) else {
                paths.push(entry);
                continue;
            };
            for value in values {
                self.budget.spend(1, "loading plugin configurations")?;
                configs
                    .append(Resource::new(value, Some(file.to_string())))
                    .map_err(|e| RenderError::in_file(e, file, None))?;
            }
        }
        for entry in paths {
            self.accumulate_resource(dir, file, entry, &mut configs)?;
        }
        configs
            .resources
            .into_iter()
            .map(|config| {
                let plugin = plugin::read(&config.object, role).map_err(|e| {
                    RenderError::in_file(e, config.file.as_deref().unwrap_or(file), None)
                })?;
                Ok((plugin, config))
            })
            .collect()
    }

    /// Runs the generator plugins `entries` configure, adding what they make as the kustomization's own
    /// generators' objects are added (by their behaviors).
    pub(super) fn run_generator_plugins(
        &mut self,
        dir: &str,
        file: &str,
        entries: &[String],
        resources: &mut ResMap,
    ) -> Result<(), RenderError> {
        let generators = self.configured_plugins(dir, file, entries, Role::Generator)?;
        let mut context = PatchContext {
            dir,
            file,
            tree: self.tree,
            budget: self.budget,
            merge_keys: &self.merge_keys,
        };
        for (generator, config) in &generators {
            let mut generated = plugin::run::generate(generator, &mut context)?;
            generated.generated_by = Some(Generated {
                configured_in: config.file.clone().unwrap_or_else(|| file.to_string()),
                kind: config.kind().to_string(),
                name: config.name().to_string(),
                namespace: config.namespace().to_string(),
            });
            resources
                .absorb(generated)
                .map_err(|e| RenderError::in_file(e, file, None))?;
        }
        Ok(())
    }

    /// Applies a kustomization's `openapi` field as Kustomize does: the top kustomization's always, another's
    /// only while none has chosen (so the first met in build order wins). `version` names the built-in schema,
    /// `path` a file whose schema replaces it.
    pub(super) fn choose_schema(
        &mut self,
        dir: &str,
        file: &str,
        openapi: &StringMap,
        is_top: bool,
    ) -> Result<(), RenderError> {
        let fail = |message: &str| RenderError::in_file(message, file, None);
        let custom = match openapi.get("path") {
            Some(path) => {
                let (path, bytes) = self.tree.read_in(dir, path, file)?;
                let text = String::from_utf8(bytes)
                    .map_err(|_| RenderError::in_file("not UTF-8 text", &path, None))?;
                Some((path, text))
            }
            None => None,
        };
        if self.schema_chosen && !is_top {
            return Ok(());
        }
        let version = openapi.get("version");
        match (custom, version) {
            (Some(_), Some(_)) => Err(fail(
                "builtin version and custom schema provided, cannot use both",
            )),
            (Some((path, text)), None) => {
                let schema = OpenApiSchema::parse(&text)
                    .map_err(|e| RenderError::in_file(e, &path, None))?;
                self.merge_keys = MergeKeys::Custom(Arc::new(schema));
                self.schema_chosen = true;
                Ok(())
            }
            (None, Some(version)) if !version.is_empty() => {
                if version != BUILTIN_VERSION {
                    return Err(fail("the specified OpenAPI version is not built in"));
                }
                self.merge_keys = MergeKeys::Builtin;
                self.schema_chosen = true;
                Ok(())
            }
            (None, _) => {
                if is_top {
                    self.merge_keys = MergeKeys::Builtin;
                    self.schema_chosen = false;
                }
                Ok(())
            }
        }
    }
}
