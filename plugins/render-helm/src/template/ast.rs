//! The syntax tree of a parsed template: nodes, pipelines, commands and operands, as in Go's
//! `text/template/parse`.

use std::rc::Rc;

use super::lexer::Number;

/// A pipeline: optional variable declarations and commands joined by `|`.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    /// The line it starts on.
    pub line: u32,
    /// Variables it declares (`$x :=`) or assigns (`$x =`).
    pub variables: Vec<String>,
    /// `=` rather than `:=`.
    pub is_assign: bool,
    /// The commands; each one's result is the last argument of the next.
    pub commands: Vec<Command>,
}

impl Pipeline {
    /// How Go prints the pipeline in an error (`$x := .a | quote`).
    pub fn go_string(&self) -> String {
        let mut text = String::new();
        if !self.variables.is_empty() {
            text.push_str(&self.variables.join(", "));
            text.push_str(if self.is_assign { " = " } else { " := " });
        }
        let commands: Vec<String> = self.commands.iter().map(Command::go_string).collect();
        text.push_str(&commands.join(" | "));
        text
    }
}

/// Where a node is written and how Go prints it in an error (`at <.Values.a.b>`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Span {
    /// The 1-based line.
    pub line: u32,
    /// The byte offset in that line (Go's column).
    pub col: u32,
    /// The node as Go's `String()` prints it.
    pub text: Rc<str>,
}

/// One command: a function and its arguments, or a single operand.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// The line it is on.
    pub line: u32,
    /// Its column (of its first word).
    pub col: u32,
    /// Its words: the first is the function (or the operand), the rest its arguments.
    pub args: Vec<Operand>,
    /// Where each word is and how it prints, one per argument.
    pub spans: Vec<Span>,
}

impl Command {
    /// How Go prints the command in an error (`include "x" .`).
    pub fn go_string(&self) -> String {
        let words: Vec<&str> = self.spans.iter().map(|s| &*s.text).collect();
        words.join(" ")
    }

    /// The command's own location and text.
    pub fn span(&self) -> Span {
        Span {
            line: self.line,
            col: self.col,
            text: Rc::from(self.go_string()),
        }
    }
}

/// One word of a command.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// `.`
    Dot,
    /// `nil`
    Nil,
    /// `true` or `false`
    Bool(bool),
    /// A number constant.
    Number(Number),
    /// A string constant.
    Str(Rc<str>),
    /// A function name.
    Function(String),
    /// `.a.b`: fields of dot.
    Field(Vec<String>),
    /// `$x.a.b`: a variable and fields of it.
    Variable(String, Vec<String>),
    /// `(pipeline).a.b`: a parenthesized pipeline and fields of its result.
    Chain(Box<Pipeline>, Vec<String>),
}

impl Operand {
    /// How the operand reads in an error message (`<.Values.x>`).
    pub fn describe(&self) -> String {
        let fields =
            |names: &[String]| -> String { names.iter().map(|n| format!(".{n}")).collect() };
        match self {
            Operand::Dot => ".".into(),
            Operand::Nil => "nil".into(),
            Operand::Bool(b) => b.to_string(),
            Operand::Number(Number::Int(i)) => i.to_string(),
            Operand::Number(Number::Float(f)) => f.to_string(),
            Operand::Str(s) => format!("{s:?}"),
            Operand::Function(name) => name.clone(),
            Operand::Field(names) => fields(names),
            Operand::Variable(name, names) => format!("{name}{}", fields(names)),
            Operand::Chain(_, names) => format!("(...){}", fields(names)),
        }
    }
}

/// A conditional or loop: `if`, `with` or `range`, its body and its `else`.
#[derive(Debug, Clone, PartialEq)]
pub struct Branch {
    /// The condition, or what to iterate.
    pub pipeline: Pipeline,
    /// Run when the condition holds (or once per element).
    pub body: Vec<Node>,
    /// Run otherwise (an `else if` is a nested branch here).
    pub otherwise: Vec<Node>,
}

/// A node of a template body.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// Text copied to the output.
    Text(Rc<str>),
    /// `{{ pipeline }}`: its value printed (nothing when it declares variables).
    Action(Pipeline),
    /// `{{ if }}`
    If(Box<Branch>),
    /// `{{ with }}`
    With(Box<Branch>),
    /// `{{ range }}`
    Range(Box<Branch>),
    /// `{{ template "name" pipeline }}` (and the call half of `block`).
    Template {
        /// The line it is on.
        line: u32,
        /// Where its name is, and the node as Go prints it (`{{template "x" .}}`).
        span: Span,
        /// The template called.
        name: String,
        /// Its dot.
        pipeline: Option<Pipeline>,
    },
    /// `{{ break }}`
    Break(u32),
    /// `{{ continue }}`
    Continue(u32),
}

/// A parsed file: its own body and the templates it defines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    /// The body outside any `define`.
    pub root: Vec<Node>,
    /// `define`d (and `block`) templates, in order.
    pub defines: Vec<(String, Vec<Node>)>,
}

/// Every function a list of nodes names, with the line it is named on (Go refuses unknown functions when it
/// parses, even in branches that never run).
pub fn named_functions(nodes: &[Node], out: &mut Vec<(String, u32)>) {
    for node in nodes {
        match node {
            Node::Action(pipeline) => pipeline_functions(pipeline, out),
            Node::If(branch) | Node::With(branch) | Node::Range(branch) => {
                pipeline_functions(&branch.pipeline, out);
                named_functions(&branch.body, out);
                named_functions(&branch.otherwise, out);
            }
            Node::Template {
                pipeline: Some(pipeline),
                ..
            } => pipeline_functions(pipeline, out),
            _ => {}
        }
    }
}

fn pipeline_functions(pipeline: &Pipeline, out: &mut Vec<(String, u32)>) {
    for command in &pipeline.commands {
        for operand in &command.args {
            match operand {
                Operand::Function(name) => out.push((name.clone(), command.line)),
                Operand::Chain(inner, _) => pipeline_functions(inner, out),
                _ => {}
            }
        }
    }
}
