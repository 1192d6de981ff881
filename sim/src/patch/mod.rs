//! The patch formats the API accepts: JSON merge patch, JSON patch and strategic merge patch.

pub mod json_patch;
pub mod merge;
pub mod strategic;

/// A patch that could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The patch document is not of the expected shape.
    #[error("invalid patch: {0}")]
    Malformed(String),
    /// A JSON patch path does not exist in the document.
    #[error("jsonpatch {op} operation does not apply: doc is missing path: \"{path}\"")]
    MissingPath {
        /// The operation, such as `replace`.
        op: String,
        /// The JSON pointer that was not found.
        path: String,
    },
    /// A JSON patch `test` operation found another value.
    #[error("testing value {path} failed: test failed")]
    TestFailed {
        /// The JSON pointer that was tested.
        path: String,
    },
}
