//! Applying a kustomization's patches to its resources: `patchesStrategicMerge`, `patches` (strategic merge or
//! JSON 6902, told apart by their shape) and `patchesJson6902`.

use serde_json::Value;
use weft_sdk::{EntryKind, RenderError};

use crate::budget::Budget;
use crate::documents::{parse_patch_stream, parse_stream};
use crate::kustomization::{PatchEntry, TargetSelector};
use crate::patch::merge_keys::MergeKeys;
use crate::patch::{json6902, strategic};
use crate::resid::ResId;
use crate::resmap::ResMap;
use crate::resource::Resource;
use crate::selector::Target;
use crate::tree::Tree;

/// Where a kustomization's patches come from.
#[derive(Debug)]
pub struct PatchContext<'t, 'a> {
    /// The kustomization's directory.
    pub dir: &'t str,
    /// The kustomization file (for errors).
    pub file: &'t str,
    /// The source tree.
    pub tree: &'t mut Tree<'a>,
    /// The work budget.
    pub budget: &'t mut Budget,
    /// Where strategic merge patches take merge keys from.
    pub merge_keys: &'t MergeKeys,
}

impl PatchContext<'_, '_> {
    fn fail(&self, message: impl Into<String>) -> RenderError {
        RenderError::in_file(message, self.file, None)
    }

    /// The text of a patch given by `path` or inline, and the file to blame for its errors.
    fn patch_text(&mut self, path: &str, inline: &str) -> Result<(String, String), RenderError> {
        match (path.is_empty(), inline.trim().is_empty()) {
            (false, true) => {
                let (resolved, bytes) = self.tree.read_in(self.dir, path, self.file)?;
                let text = String::from_utf8(bytes).map_err(|_| {
                    RenderError::in_file("patch is not UTF-8 text", &resolved, None)
                })?;
                Ok((text, resolved))
            }
            (true, false) => Ok((inline.to_string(), self.file.to_string())),
            (true, true) => Err(self.fail("a patch needs one of 'path' and 'patch'")),
            (false, false) => Err(self.fail("a patch cannot set both 'path' and 'patch'")),
        }
    }

    /// `patchesStrategicMerge`: files or inline documents, each patching the object of its own identity.
    pub fn apply_strategic_merge_entries(
        &mut self,
        entries: &[String],
        resources: &mut ResMap,
    ) -> Result<(), RenderError> {
        for entry in entries {
            let is_file = Tree::resolve(self.dir, entry)
                .ok()
                .is_some_and(|p| self.tree.kind_of(&p) == Some(EntryKind::File));
            let (text, origin) = if is_file {
                self.patch_text(entry, "")?
            } else if entry.contains('\n') {
                (entry.clone(), self.file.to_string())
            } else {
                return Err(self.fail(format!("patch file '{entry}' does not exist")));
            };
            for document in parse_stream(&text, &origin)? {
                self.apply_strategic(&document.value, None, &Default::default(), resources)
                    .map_err(|e| RenderError::in_file(e, &origin, Some(document.line)))?;
            }
        }
        Ok(())
    }

    /// `patches`: each a strategic merge patch or a JSON 6902 patch, with an optional target.
    pub fn apply_patch_entries(
        &mut self,
        entries: &[PatchEntry],
        resources: &mut ResMap,
    ) -> Result<(), RenderError> {
        for entry in entries {
            let (text, origin) = self.patch_text(&entry.path, &entry.patch)?;
            // A patch without a target is merged as written, so an annotation written as null deletes; one with
            // a target (like patchesStrategicMerge) first takes its annotations as text, as Kustomize copies
            // them over the target's.
            let documents = match entry.target {
                None => parse_patch_stream(&text, &origin)?,
                Some(_) => parse_stream(&text, &origin)?,
            };
            let is_json_patch = matches!(documents.as_slice(), [only] if only.value.is_array());
            if is_json_patch {
                let target = entry.target.as_ref().ok_or_else(|| {
                    RenderError::in_file("a JSON 6902 patch needs a target", &origin, None)
                })?;
                self.apply_json6902(&text, target, &origin, resources)?;
                continue;
            }
            for document in documents {
                if !document.value.is_object() {
                    return Err(RenderError::in_file(
                        "a patch must be a strategic merge patch (a mapping) or a JSON 6902 patch (a list)",
                        &origin,
                        Some(document.line),
                    ));
                }
                self.apply_strategic(
                    &document.value,
                    entry.target.as_ref(),
                    &entry.options,
                    resources,
                )
                .map_err(|e| RenderError::in_file(e, &origin, Some(document.line)))?;
            }
        }
        Ok(())
    }

    /// `patchesJson6902`: JSON 6902 patches with a target.
    pub fn apply_json6902_entries(
        &mut self,
        entries: &[PatchEntry],
        resources: &mut ResMap,
    ) -> Result<(), RenderError> {
        for entry in entries {
            let (text, origin) = self.patch_text(&entry.path, &entry.patch)?;
            let target = entry
                .target
                .as_ref()
                .ok_or_else(|| self.fail("patchesJson6902 entries need a target"))?;
            self.apply_json6902(&text, target, &origin, resources)?;
        }
        Ok(())
    }

    fn apply_json6902(
        &mut self,
        text: &str,
        target: &TargetSelector,
        origin: &str,
        resources: &mut ResMap,
    ) -> Result<(), RenderError> {
        let operations =
            json6902::parse(text).map_err(|e| RenderError::in_file(e, origin, None))?;
        let target = Target::compile(target).map_err(|e| self.fail(e))?;
        for index in resources.indices_where(|r| target.selects(r)) {
            self.budget
                .spend(1 + operations.len() as u64, "applying JSON patches")?;
            let resource = &mut resources.resources[index];
            resource.store_previous_id();
            operations.apply(&mut resource.object).map_err(|e| {
                RenderError::in_file(
                    format!("applying JSON patch to {}: {e}", resource.current_id()),
                    origin,
                    None,
                )
            })?;
        }
        Ok(())
    }

    fn apply_strategic(
        &mut self,
        patch: &Value,
        target: Option<&TargetSelector>,
        options: &std::collections::BTreeMap<String, bool>,
        resources: &mut ResMap,
    ) -> Result<(), String> {
        let indices = match target {
            Some(selector) => {
                let target = Target::compile(selector)?;
                resources.indices_where(|r| target.selects(r))
            }
            None => {
                let id = patch_id(patch);
                vec![
                    resources
                        .index_of(&id)
                        .map_err(|e| format!("no target for the patch: {e}"))?,
                ]
            }
        };
        let allow_name_change = options.get("allowNameChange").copied().unwrap_or(false);
        let allow_kind_change = options.get("allowKindChange").copied().unwrap_or(false);
        let mut deleted = Vec::new();
        for index in indices {
            self.budget
                .spend(1, "applying strategic merge patches")
                .map_err(|e| e.message)?;
            let resource = &mut resources.resources[index];
            if allow_name_change || allow_kind_change {
                resource.store_previous_id();
            }
            match patch_one(
                resource,
                patch,
                allow_name_change,
                allow_kind_change,
                self.merge_keys,
            )? {
                true => {}
                false => deleted.push(index),
            }
        }
        for index in deleted.into_iter().rev() {
            resources.resources.remove(index);
        }
        Ok(())
    }
}

/// The identity a strategic merge patch names.
fn patch_id(patch: &Value) -> ResId {
    let resource = Resource::new(patch.clone(), None);
    resource.current_id()
}

/// Applies a strategic merge patch to one resource; `false` when the patch deleted it. The resource keeps its
/// name, namespace, kind and apiVersion unless the options allow a change.
fn patch_one(
    resource: &mut Resource,
    patch: &Value,
    allow_name_change: bool,
    allow_kind_change: bool,
    merge_keys: &MergeKeys,
) -> Result<bool, String> {
    let (name, namespace, kind, api_version) = (
        resource.name().to_string(),
        resource.namespace().to_string(),
        resource.kind().to_string(),
        resource.object.get("apiVersion").cloned(),
    );
    match strategic::apply(&resource.object, patch, &resource.gvk(), merge_keys)? {
        strategic::Patched::Deleted => Ok(false),
        strategic::Patched::Object(object) => {
            resource.object = object;
            if !allow_kind_change {
                resource.set_kind(&kind);
                // As it was: an object written without apiVersion stays without one.
                if let Value::Object(map) = &mut resource.object {
                    match api_version {
                        Some(api_version) => map.insert("apiVersion".into(), api_version),
                        None => map.remove("apiVersion"),
                    };
                }
            }
            if !allow_name_change {
                resource.set_name(&name);
            }
            resource.set_namespace(&namespace);
            Ok(true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patches_keep_identity_unless_allowed() {
        let mut r = Resource::new(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "a"}}),
            None,
        );
        let patch = json!({"apiVersion": "apps/v1", "kind": "Deployment",
                           "metadata": {"name": "other", "labels": {"x": "y"}}, "spec": {"replicas": 2}});
        assert!(patch_one(&mut r, &patch, false, false, &MergeKeys::Builtin).unwrap());
        assert_eq!(r.name(), "web");
        assert_eq!(r.namespace(), "a");
        assert_eq!(r.object["spec"]["replicas"], 2);
        assert!(patch_one(&mut r, &patch, true, false, &MergeKeys::Builtin).unwrap());
        assert_eq!(r.name(), "other");
        assert!(
            !patch_one(
                &mut r,
                &json!({"$patch": "delete"}),
                false,
                false,
                &MergeKeys::Builtin
            )
            .unwrap()
        );
    }

    #[test]
    fn an_object_without_api_version_keeps_none_when_patched() {
        let mut r = Resource::new(
            json!({"kind": "Coffee", "metadata": {"name": "cup"}, "temperature": "lukewarm"}),
            None,
        );
        let patch = json!({"kind": "Coffee", "metadata": {"name": "cup"}, "temperature": "hot"});
        assert!(patch_one(&mut r, &patch, false, false, &MergeKeys::Builtin).unwrap());
        assert_eq!(
            r.object,
            json!({"kind": "Coffee", "metadata": {"name": "cup"}, "temperature": "hot"})
        );
    }
}
