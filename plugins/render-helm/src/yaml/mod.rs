//! YAML as Helm reads and writes it: go-yaml v2's YAML 1.1 reading and block-style writing.

pub mod emit;
pub mod parse;

pub use emit::to_yaml;
pub use parse::{YamlError, json_numbers, parse_document, parse_documents};
