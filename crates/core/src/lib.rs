//! The vocabulary every Weft layer shares: naming one object ([`resource`]), the marks that say which app applied
//! an object ([`tracking`]) and the field manager it applies as ([`field_manager`]), what may be known of a Secret outside the host ([`secrets`]), YAML as Weft prints it
//! ([`yaml`]), bounded log streams clients follow ([`logs`]), the process's metrics ([`metrics`]), URLs
//! with their passwords hidden ([`redact`]), strict `%XX` decoding ([`percent`]), digests and commits shortened for people ([`short`]) and token-bucket rate limits ([`rate_limit`]).
//!
//! It is the bottom of the engine's layers: of Weft's crates it depends only on the SDK (for the identity renderers give), and nothing here does I/O beyond
//! the in-memory log streams.

pub mod declared;
pub mod field_manager;
pub mod logs;
pub mod metrics;
pub mod percent;
pub mod rate_limit;
pub mod redact;
pub mod resource;
pub mod secrets;
pub mod short;
pub mod tracking;
pub mod yaml;
