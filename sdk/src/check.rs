//! The trait a health check implements, and the context it runs in.

use crate::health::{Health, PluginError};
use crate::object::Object;

/// A health check for one or more kinds.
///
/// `assess` returns `Ok(None)` when the check has no opinion on the object (Argo CD's nil health): the host then
/// asks the next plugin that serves the kind. It returns `Err` only when it cannot work at all (the object is not
/// what it understands); a degraded object is a `Health`, not an error.
pub trait HealthCheck {
    /// Assess one object.
    fn assess(obj: &Object, cx: &Context<'_>) -> Result<Option<Health>, PluginError>;
}

/// Read-only access to objects related to the one being assessed.
pub trait Related {
    /// The objects whose `metadata.ownerReferences` name `uid`.
    fn children(&self, uid: &str) -> Vec<Object>;
}

/// A `Related` that knows of no other object.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRelated;

impl Related for NoRelated {
    fn children(&self, _uid: &str) -> Vec<Object> {
        Vec::new()
    }
}

/// What a check can ask the host while it assesses an object.
pub struct Context<'a> {
    related: &'a dyn Related,
}

impl std::fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").finish_non_exhaustive()
    }
}

impl<'a> Context<'a> {
    /// A context backed by `related`.
    pub fn new(related: &'a dyn Related) -> Self {
        Context { related }
    }

    /// A context with no related objects.
    pub fn empty() -> Context<'static> {
        Context {
            related: &NoRelated,
        }
    }

    /// The objects owned by `obj` (through ownerReferences); empty when `obj` has no uid.
    pub fn children(&self, obj: &Object) -> Vec<Object> {
        obj.uid()
            .map(|uid| self.related.children(uid))
            .unwrap_or_default()
    }
}
