//! YAML as Helm reads and writes it: go-yaml v2's YAML 1.1 reading and block-style writing.

pub mod emit;
pub mod parse;
pub mod subset;

pub use emit::{Sequences, to_yaml, to_yaml_with};
pub use parse::{YamlError, json_numbers, parse_document, parse_documents};
