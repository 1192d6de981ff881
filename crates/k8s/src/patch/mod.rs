//! The three patch formats of the Kubernetes API, one implementation each: JSON Patch ([`json`], RFC 6902), JSON
//! merge patch ([`merge`], RFC 7386) and strategic merge patch ([`strategic`]), used by the simulator's `PATCH`
//! and by Kustomize's patches.

mod associative;
pub mod json;
pub mod merge;
pub mod strategic;

pub use json::{JsonPatch, apply_json_patch};
pub use merge::{apply_merge_patch, merge_patch_between};
pub use strategic::{Flavour, ListMerger, ListMerges, apply_strategic_patch};

/// A patch that is malformed or does not apply; the messages are kube-apiserver's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The patch document is not of the expected shape.
    #[error("invalid patch: {0}")]
    Malformed(String),
    /// A JSON Patch operation's `path` does not exist in the document.
    #[error("jsonpatch {op} operation does not apply: doc is missing path: \"{path}\"")]
    MissingPath {
        /// The operation, such as `replace`.
        op: String,
        /// The JSON pointer that was not found.
        path: String,
    },
    /// A JSON Patch `move` or `copy` names a `from` that does not exist.
    #[error("jsonpatch {op} operation does not apply: doc is missing from path: \"{from}\"")]
    MissingFrom {
        /// The operation, `move` or `copy`.
        op: String,
        /// The JSON pointer that was not found.
        from: String,
    },
    /// A JSON Patch `move` would move a value inside itself.
    #[error("jsonpatch move operation does not apply: \"{path}\" is inside \"{from}\"")]
    MoveIntoItself {
        /// The source pointer.
        from: String,
        /// The destination pointer, below the source.
        path: String,
    },
    /// A JSON Patch `test` operation found another value.
    #[error("testing value {path} failed: test failed")]
    TestFailed {
        /// The JSON pointer that was tested.
        path: String,
    },
}
