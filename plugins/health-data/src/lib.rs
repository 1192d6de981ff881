//! Placeholder until the checks land.
