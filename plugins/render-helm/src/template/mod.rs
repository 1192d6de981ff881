//! A Go `text/template` engine: lexer, parser, evaluator, values and Go's formatting, with no dependency on Helm.

pub mod ast;
pub mod exec;
pub mod format;
pub mod lexer;
pub mod parser;
pub mod signature;
pub mod value;

pub use exec::{
    Budget, ExecError, ExecErrorDetail, Executor, Function, FunctionTable, TemplateSet,
};
pub use value::{HostObject, Map, Value};
