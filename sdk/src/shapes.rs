//! Health rules that many kinds share, written once: plugins compose these instead of repeating them.
//!
//! Each function is a whole rule or a building block of one; kinds whose logic is their own stay as plain code in
//! their plugin. Add a shape here when a second kind needs it.
