//! What the store needs of the records it keeps, so it keeps them without knowing what they mean: an app's
//! declaration (keyed by its name), an app's state (a default when none is stored), and an operation (its id, its
//! app, its phase as a queue sees it, and how to put it back in the queue). The domain types implement these
//! (`AppSpec`, `AppState`, `Operation`); the store serializes them and indexes the fields named here.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// An app's declaration.
pub trait AppRecord: Serialize + DeserializeOwned {
    /// The app's name, its key.
    fn name(&self) -> &str;
}

/// An app's state; the default when none is stored.
pub trait StateRecord: Serialize + DeserializeOwned + Default {}

/// An operation as the queue keeps it.
pub trait OperationRecord: Serialize + DeserializeOwned + Clone {
    /// Its id.
    fn id(&self) -> &str;
    /// The app it is for (one unfinished operation per app).
    fn app(&self) -> &str;
    /// Its phase as stored (`pending`, `running`, `succeeded`, ...).
    fn phase(&self) -> &str;
    /// Whether it has ended (its record no longer changes).
    fn is_finished(&self) -> bool;
    /// The operation put back in the queue: pending, with why when a reason is given.
    fn requeued(self, reason: Option<String>) -> Self;
}
