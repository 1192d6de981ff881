//! The name Weft applies as: its field manager in server-side apply, which `metadata.managedFields` records, so
//! that a diff can tell Weft's fields from those another manager (kubectl, a controller) changed.

/// The field manager Weft applies as.
pub const FIELD_MANAGER: &str = "weft";
