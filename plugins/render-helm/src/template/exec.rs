//! The evaluator: runs parsed templates against data with Go's semantics (dot, variables, pipelines, `if`,
//! `with`, `range` over lists, maps in key order and ints, `template`, `break`/`continue`), Helm's `include`
//! and `tpl`, and a step budget so a runaway template fails with a clear error.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use super::ast::{Branch, Command, Node, Operand, Pipeline, Span};
use super::format::display;
use super::lexer::{Number, SyntaxError};
use super::parser::parse;
use super::value::Value;

/// How deeply `template` and `include` calls may nest.
pub const MAX_CALL_DEPTH: usize = 100;

/// The most output one template may produce (bytes).
pub const MAX_OUTPUT: usize = 64 * 1024 * 1024;

/// A step budget shared by a whole render: every node, command, function call and loop iteration costs a step,
/// and functions that build large values charge their size.
#[derive(Debug, Clone)]
pub struct Budget {
    limit: u64,
    used: u64,
}

impl Budget {
    /// A budget of `limit` steps.
    pub fn new(limit: u64) -> Self {
        Budget { limit, used: 0 }
    }

    /// Spends `steps`; fails once the budget is exhausted.
    pub fn charge(&mut self, steps: u64) -> Result<(), String> {
        self.used = self.used.saturating_add(steps);
        if self.used > self.limit {
            return Err(format!(
                "template evaluation exceeded its budget of {} steps (raise the `max-steps` parameter if the chart \
                 really needs more)",
                self.limit
            ));
        }
        Ok(())
    }

    /// Steps spent so far.
    pub fn used(&self) -> u64 {
        self.used
    }
}

/// A function callable from templates: the budget and the evaluated arguments in, a value or a message out.
pub type Function = fn(&mut Budget, Vec<Value>) -> Result<Value, String>;

/// The functions a template may call, by name.
pub type FunctionTable = HashMap<&'static str, Function, BuildHasherDefault<NameHasher>>;

/// FNV-1a, the hash of [`FunctionTable`]'s names: every function call of a template looks its name up, and SipHash
/// (the default, which guards a table filled from untrusted keys) cost several times as much. The table's keys are
/// the renderer's own names; a template's names are only looked up.
#[derive(Debug, Clone, Copy)]
pub struct NameHasher(u64);

impl Default for NameHasher {
    fn default() -> Self {
        NameHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// What Helm names a `tpl` string's template (its parent's name), in errors too.
pub const TPL_NAME: &str = "gotpl";

/// A named template: a file's body or a `define`.
#[derive(Debug, Clone)]
pub struct Template {
    /// Its name (`executing "NAME"` in errors).
    pub name: Rc<str>,
    /// The file it was written in (for error locations).
    pub file: Rc<str>,
    /// Its nodes.
    pub body: Rc<Vec<Node>>,
}

/// Every template of a render, by name: files by their path, `define`s by their name (a later definition wins).
#[derive(Debug, Clone, Default)]
pub struct TemplateSet {
    templates: HashMap<String, Template>,
}

impl TemplateSet {
    /// An empty set.
    pub fn new() -> Self {
        TemplateSet::default()
    }

    /// Parses a file and adds it and its `define`s.
    pub fn add_file(&mut self, name: &str, source: &str) -> Result<(), SyntaxError> {
        let parsed = parse(source)?;
        let file: Rc<str> = Rc::from(name);
        for (define, body) in parsed.defines {
            self.templates.insert(
                define.clone(),
                Template {
                    name: Rc::from(define),
                    file: file.clone(),
                    body: Rc::new(body),
                },
            );
        }
        self.templates.insert(
            name.to_string(),
            Template {
                name: file.clone(),
                file,
                body: Rc::new(parsed.root),
            },
        );
        Ok(())
    }

    /// The template of that name.
    pub fn get(&self, name: &str) -> Option<&Template> {
        self.templates.get(name)
    }

    /// Fails, naming the file and line, when a template names a function that does not exist.
    pub fn check_functions(&self, functions: &FunctionTable) -> Result<(), ExecError> {
        let mut names: Vec<&String> = self.templates.keys().collect();
        names.sort();
        for name in names {
            let template = &self.templates[name];
            check_nodes(&template.body, &template.file, functions)?;
        }
        Ok(())
    }
}

/// The functions the evaluator itself provides.
const EVALUATOR_FUNCTIONS: [&str; 4] = ["and", "or", "include", "tpl"];

fn check_nodes(nodes: &[Node], file: &str, functions: &FunctionTable) -> Result<(), ExecError> {
    let mut named = Vec::new();
    super::ast::named_functions(nodes, &mut named);
    match named.into_iter().find(|(name, _)| {
        !functions.contains_key(name.as_str()) && !EVALUATOR_FUNCTIONS.contains(&name.as_str())
    }) {
        Some((name, line)) => Err(ExecError::plain(
            format!("function {name:?} not defined"),
            file,
            line,
        )),
        None => Ok(()),
    }
}

/// An evaluation error, located in the template whose code raised it, as Go's `text/template` reports it. Boxed,
/// so that every evaluation step's result stays small on the stack (templates nest deeply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecError(Box<ExecErrorDetail>);

impl std::ops::Deref for ExecError {
    type Target = ExecErrorDetail;

    fn deref(&self) -> &ExecErrorDetail {
        &self.0
    }
}

impl std::ops::DerefMut for ExecError {
    fn deref_mut(&mut self) -> &mut ExecErrorDetail {
        &mut self.0
    }
}

/// What an [`ExecError`] says and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecErrorDetail {
    /// What went wrong (for a failed `include` or `tpl`, the inner error's whole message after Go's prefix).
    pub message: String,
    /// The file of the template that failed.
    pub file: String,
    /// The 1-based line.
    pub line: u32,
    /// The byte offset in that line (Go's column).
    pub col: u32,
    /// The name of the template executing (`executing "NAME"`); empty when no node is known.
    pub template: String,
    /// The failing node as Go prints it (`at <.Values.a.b>`); empty when no node is known.
    pub context: String,
    /// The message of a `fail` or `required`, which Helm prints as `execution error at (LOCATION): MESSAGE`.
    pub warning: Option<String>,
}

impl From<ExecErrorDetail> for ExecError {
    fn from(detail: ExecErrorDetail) -> Self {
        ExecError(Box::new(detail))
    }
}

impl ExecError {
    /// An error located only by file and line.
    pub fn plain(message: impl Into<String>, file: &str, line: u32) -> Self {
        ExecError::from(ExecErrorDetail {
            message: message.into(),
            file: file.to_string(),
            line,
            col: 0,
            template: String::new(),
            context: String::new(),
            warning: None,
        })
    }

    /// Where it is, as Go writes it: `FILE:LINE:COL` (or `FILE:LINE` with no node).
    pub fn location(&self) -> String {
        if self.context.is_empty() {
            format!("{}:{}", self.file, self.line)
        } else {
            format!("{}:{}:{}", self.file, self.line, self.col)
        }
    }

    /// Go's message: `template: FILE:LINE:COL: executing "NAME" at <NODE>: MESSAGE`.
    pub fn go_message(&self) -> String {
        if self.context.is_empty() {
            format!("template: {}: {}", self.location(), self.message)
        } else {
            format!(
                "template: {}: executing {} at <{}>: {}",
                self.location(),
                super::format::quote(&self.template),
                self.context,
                self.message
            )
        }
    }

    /// Helm's message: a `fail` or `required` anywhere inside as `execution error at (LOCATION): MESSAGE`,
    /// located at the outermost action, else Go's.
    pub fn helm_message(&self) -> String {
        match &self.warning {
            Some(warning) => format!("execution error at ({}): {warning}", self.location()),
            None => self.go_message(),
        }
    }
}

/// How a list of nodes ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Normal,
    Break,
    Continue,
}

/// The variables of one template invocation.
struct Frame {
    /// The template's name.
    name: Rc<str>,
    file: Rc<str>,
    /// Each variable, with whether it holds a nil element of a `range` (an interface holding nil, as the dot below).
    variables: Vec<(String, Value, bool)>,
    /// Whether a nil dot is a nil element of a `range` (an interface holding nil, whose fields Go refuses) rather
    /// than no value at all (the dot of `include "x" nil`, whose fields are no value either).
    nil_dot_is_interface: bool,
}

impl Frame {
    fn lookup(&self, name: &str) -> Option<&Value> {
        self.variables
            .iter()
            .rev()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, _)| v)
    }

    /// Whether the variable holds a nil element of a `range`, whose fields Go refuses.
    fn holds_interface_nil(&self, name: &str) -> bool {
        self.variables
            .iter()
            .rev()
            .find(|(n, _, _)| n == name)
            .is_some_and(|(_, v, interface)| *interface && v.is_nil())
    }
}

/// Runs templates of one set.
pub struct Executor<'a> {
    set: &'a TemplateSet,
    /// Templates `define`d by `tpl` strings, visible while that `tpl` runs.
    overlays: Vec<HashMap<String, Template>>,
    functions: &'a FunctionTable,
    /// The render's step budget.
    pub budget: Budget,
    depth: usize,
}

impl std::fmt::Debug for Executor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("budget", &self.budget)
            .field("depth", &self.depth)
            .finish_non_exhaustive()
    }
}

impl<'a> Executor<'a> {
    /// An executor over `set` with `functions` and a budget of `max_steps`.
    pub fn new(set: &'a TemplateSet, functions: &'a FunctionTable, max_steps: u64) -> Self {
        Executor {
            set,
            overlays: Vec::new(),
            functions,
            budget: Budget::new(max_steps),
            depth: 0,
        }
    }

    fn find(&self, name: &str) -> Option<Template> {
        self.overlays
            .iter()
            .rev()
            .find_map(|overlay| overlay.get(name))
            .or_else(|| self.set.get(name))
            .cloned()
    }

    /// Executes the named template with `dot` and returns its output.
    pub fn execute(&mut self, name: &str, dot: &Value) -> Result<String, ExecError> {
        let template = self
            .find(name)
            .ok_or_else(|| ExecError::plain(format!("no template {name:?}"), name, 1))?;
        let mut out = String::new();
        self.run_template(&template, dot, &mut out, 0)?;
        Ok(out)
    }

    fn run_template(
        &mut self,
        template: &Template,
        dot: &Value,
        out: &mut String,
        line: u32,
    ) -> Result<(), ExecError> {
        self.depth += 1;
        if self.depth > MAX_CALL_DEPTH {
            self.depth -= 1;
            return Err(ExecError::plain(
                format!("template calls nest deeper than {MAX_CALL_DEPTH} levels"),
                &template.file,
                line,
            ));
        }
        let mut frame = Frame {
            name: template.name.clone(),
            file: template.file.clone(),
            variables: vec![("$".to_string(), dot.clone(), false)],
            nil_dot_is_interface: false,
        };
        let body = template.body.clone();
        let result = self.run_list(&mut frame, dot, &body, out);
        self.depth -= 1;
        result.map(|_| ())
    }

    /// An error at a line, with no node to name.
    fn error(&self, frame: &Frame, line: u32, message: impl Into<String>) -> ExecError {
        ExecError::plain(message, &frame.file, line)
    }

    /// An error at a node, as Go reports it.
    fn error_at(&self, frame: &Frame, span: &Span, message: impl Into<String>) -> ExecError {
        ExecError::from(ExecErrorDetail {
            message: message.into(),
            file: frame.file.to_string(),
            line: span.line,
            col: span.col,
            template: frame.name.to_string(),
            context: span.text.to_string(),
            warning: None,
        })
    }

    fn charge(&mut self, frame: &Frame, line: u32, steps: u64) -> Result<(), ExecError> {
        self.budget
            .charge(steps)
            .map_err(|message| self.error(frame, line, message))
    }

    fn run_list(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        nodes: &[Node],
        out: &mut String,
    ) -> Result<Flow, ExecError> {
        for node in nodes {
            let flow = self.run_node(frame, dot, node, out)?;
            if flow != Flow::Normal {
                return Ok(flow);
            }
        }
        Ok(Flow::Normal)
    }

    fn run_node(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        node: &Node,
        out: &mut String,
    ) -> Result<Flow, ExecError> {
        match node {
            Node::Text(text) => {
                self.charge(frame, 0, 1)?;
                self.write(frame, 0, out, text)?;
            }
            Node::Action(pipeline) => {
                self.charge(frame, pipeline.line, 1)?;
                let value = self.eval_pipeline(frame, dot, pipeline)?;
                if pipeline.variables.is_empty() {
                    let text = match &value {
                        Value::Nil => "<no value>".to_string(),
                        // Printed directly, an object keeps its String method (Go prints its address).
                        Value::Object(object) => object.display(),
                        other => display(other),
                    };
                    self.write(frame, pipeline.line, out, &text)?;
                }
            }
            Node::If(branch) => return self.run_if(frame, dot, branch, out),
            Node::With(branch) => return self.run_with(frame, dot, branch, out),
            Node::Range(branch) => return self.run_range(frame, dot, branch, out),
            Node::Template {
                line,
                span,
                name,
                pipeline,
            } => {
                self.charge(frame, *line, 1)?;
                let value = match pipeline {
                    Some(pipeline) => self.eval_pipeline(frame, dot, pipeline)?,
                    None => Value::Nil,
                };
                let template = self.find(name).ok_or_else(|| {
                    self.error_at(frame, span, format!("template {name:?} not defined"))
                })?;
                self.run_template(&template, &value, out, *line)?;
            }
            Node::Break(_) => return Ok(Flow::Break),
            Node::Continue(_) => return Ok(Flow::Continue),
        }
        Ok(Flow::Normal)
    }

    /// Large strings cost steps in proportion to their size, and none may exceed the output limit, so a
    /// template that doubles a string in a loop fails on its budget rather than on the host's memory.
    fn charge_for_size(
        &mut self,
        frame: &Frame,
        line: u32,
        value: &Value,
    ) -> Result<(), ExecError> {
        if let Value::String(text) = value {
            if text.len() > MAX_OUTPUT {
                return Err(self.error(
                    frame,
                    line,
                    format!("a string exceeds {MAX_OUTPUT} bytes"),
                ));
            }
            self.charge(frame, line, (text.len() / 1024) as u64)?;
        }
        Ok(())
    }

    fn write(
        &self,
        frame: &Frame,
        line: u32,
        out: &mut String,
        text: &str,
    ) -> Result<(), ExecError> {
        if out.len() + text.len() > MAX_OUTPUT {
            return Err(self.error(
                frame,
                line,
                format!("template output exceeds {MAX_OUTPUT} bytes"),
            ));
        }
        out.push_str(text);
        Ok(())
    }

    fn run_if(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        branch: &Branch,
        out: &mut String,
    ) -> Result<Flow, ExecError> {
        let mark = frame.variables.len();
        self.charge(frame, branch.pipeline.line, 1)?;
        let value = self.eval_pipeline(frame, dot, &branch.pipeline)?;
        let nodes = if value.is_truthy() {
            &branch.body
        } else {
            &branch.otherwise
        };
        let flow = self.run_list(frame, dot, nodes, out);
        frame.variables.truncate(mark);
        flow
    }

    fn run_with(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        branch: &Branch,
        out: &mut String,
    ) -> Result<Flow, ExecError> {
        let mark = frame.variables.len();
        self.charge(frame, branch.pipeline.line, 1)?;
        let value = self.eval_pipeline(frame, dot, &branch.pipeline)?;
        let flow = if value.is_truthy() {
            self.run_list(frame, &value, &branch.body, out)
        } else {
            self.run_list(frame, dot, &branch.otherwise, out)
        };
        frame.variables.truncate(mark);
        flow
    }

    fn run_range(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        branch: &Branch,
        out: &mut String,
    ) -> Result<Flow, ExecError> {
        let line = branch.pipeline.line;
        let mark = frame.variables.len();
        self.charge(frame, line, 1)?;
        let undeclared = Pipeline {
            variables: Vec::new(),
            is_assign: false,
            ..branch.pipeline.clone()
        };
        let collection = self.eval_pipeline(frame, dot, &undeclared)?;
        let (count, items): (usize, Box<dyn Iterator<Item = (Value, Value)>>) = match &collection {
            Value::Nil => (0, Box::new(std::iter::empty())),
            Value::List(items) => {
                let items = items.clone();
                let count = items.len();
                let iter = (0..count).map(move |i| (Value::Int(i as i64), items[i].clone()));
                (count, Box::new(iter))
            }
            Value::Map(_) => {
                let entries = collection.map_entries();
                (
                    entries.len(),
                    Box::new(entries.into_iter().map(|(k, v)| (Value::string(k), v))),
                )
            }
            Value::Object(object) if object.entries().is_some() => {
                let entries = object.entries().unwrap_or_default();
                (
                    entries.len(),
                    Box::new(entries.into_iter().map(|(k, v)| (Value::string(k), v))),
                )
            }
            // A slice-typed object (`.Capabilities.APIVersions`) ranges as its items, by index.
            Value::Object(object) if object.kind_name() == "slice" => {
                let items = match object.to_data() {
                    Value::List(items) => items,
                    _ => std::rc::Rc::new(Vec::new()),
                };
                let count = items.len();
                let iter = (0..count).map(move |i| (Value::Int(i as i64), items[i].clone()));
                (count, Box::new(iter))
            }
            Value::Int(n) => {
                if branch.pipeline.variables.len() > 1 {
                    return Err(self.error(
                        frame,
                        line,
                        "can't use two variables to range over an int",
                    ));
                }
                let n = (*n).max(0);
                (
                    n as usize,
                    Box::new((0..n).map(|i| (Value::Int(i), Value::Int(i)))),
                )
            }
            other => {
                return Err(self.error(
                    frame,
                    line,
                    format!("range can't iterate over {}", display(other)),
                ));
            }
        };
        if count == 0 {
            let flow = self.run_list(frame, dot, &branch.otherwise, out);
            frame.variables.truncate(mark);
            return flow.map(|_| Flow::Normal);
        }
        let variables = &branch.pipeline.variables;
        for (key, element) in items {
            self.charge(frame, line, 1)?;
            let iteration_mark = frame.variables.len();
            match variables.as_slice() {
                [] => {}
                [value_name] => self.bind(
                    frame,
                    value_name,
                    element.clone(),
                    branch.pipeline.is_assign,
                    true,
                ),
                [key_name, value_name, ..] => {
                    self.bind(frame, key_name, key, branch.pipeline.is_assign, false);
                    self.bind(
                        frame,
                        value_name,
                        element.clone(),
                        branch.pipeline.is_assign,
                        true,
                    );
                }
            }
            let outer = std::mem::replace(&mut frame.nil_dot_is_interface, element.is_nil());
            let flow = self.run_list(frame, &element, &branch.body, out);
            frame.nil_dot_is_interface = outer;
            frame.variables.truncate(iteration_mark);
            match flow {
                Ok(Flow::Break) => break,
                Ok(_) => {}
                Err(error) => {
                    frame.variables.truncate(mark);
                    return Err(error);
                }
            }
        }
        frame.variables.truncate(mark);
        Ok(Flow::Normal)
    }

    /// Declares a variable, or assigns an existing one (`=`); `element` when it holds a `range` element.
    fn bind(&self, frame: &mut Frame, name: &str, value: Value, assign: bool, element: bool) {
        if assign && let Some(slot) = frame.variables.iter_mut().rev().find(|(n, _, _)| n == name) {
            slot.1 = value;
            slot.2 = element;
            return;
        }
        frame.variables.push((name.to_string(), value, element));
    }

    fn eval_pipeline(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        pipeline: &Pipeline,
    ) -> Result<Value, ExecError> {
        let mut value: Option<Value> = None;
        for command in &pipeline.commands {
            value = Some(self.eval_command(frame, dot, command, value)?);
        }
        let value = value.unwrap_or_default();
        for name in &pipeline.variables {
            if pipeline.is_assign && frame.lookup(name).is_none() {
                return Err(self.error(
                    frame,
                    pipeline.line,
                    format!("undefined variable: {name}"),
                ));
            }
            self.bind(frame, name, value.clone(), pipeline.is_assign, false);
        }
        Ok(value)
    }

    fn eval_command(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        command: &Command,
        piped: Option<Value>,
    ) -> Result<Value, ExecError> {
        self.charge(frame, command.line, 1)?;
        let line = command.line;
        let (Some((first, rest)), Some((first_span, rest_spans))) =
            (command.args.split_first(), command.spans.split_first())
        else {
            return Err(self.error(frame, line, "empty command"));
        };
        let no_arguments = |this: &Self, frame: &Frame| -> Result<(), ExecError> {
            if rest.is_empty() && piped.is_none() {
                Ok(())
            } else {
                Err(this.error_at(
                    frame,
                    first_span,
                    format!("can't give argument to non-function {}", first_span.text),
                ))
            }
        };
        match first {
            Operand::Function(name) => {
                let call = Call {
                    function: first_span,
                    command: Some(command),
                };
                self.call_function(frame, dot, name, rest, rest_spans, piped, &call)
            }
            Operand::Field(fields) => {
                let arguments = self.eval_arguments(frame, dot, rest, rest_spans, piped)?;
                let interface = frame.nil_dot_is_interface;
                let (value, _) =
                    self.eval_fields(frame, first_span, dot.clone(), interface, fields, arguments)?;
                Ok(value)
            }
            Operand::Variable(name, fields) => {
                let base = self.variable(frame, name, first_span)?;
                if fields.is_empty() {
                    no_arguments(self, frame)?;
                    return Ok(base);
                }
                let arguments = self.eval_arguments(frame, dot, rest, rest_spans, piped)?;
                let interface = frame.holds_interface_nil(name);
                let (value, _) =
                    self.eval_fields(frame, first_span, base, interface, fields, arguments)?;
                Ok(value)
            }
            Operand::Chain(pipeline, fields) => {
                let base = self.eval_pipeline(frame, dot, pipeline)?;
                if fields.is_empty() {
                    no_arguments(self, frame)?;
                    return Ok(base);
                }
                let arguments = self.eval_arguments(frame, dot, rest, rest_spans, piped)?;
                let (value, _) =
                    self.eval_fields(frame, first_span, base, false, fields, arguments)?;
                Ok(value)
            }
            Operand::Nil => Err(self.error_at(frame, first_span, "nil is not a command")),
            literal => {
                no_arguments(self, frame)?;
                self.eval_operand(frame, dot, literal, first_span)
                    .map(|(value, _)| value)
            }
        }
    }

    /// The arguments' values, the piped value last; each argument is checked to be a value a parameter may take
    /// by the caller.
    fn eval_arguments(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        operands: &[Operand],
        spans: &[Span],
        piped: Option<Value>,
    ) -> Result<Vec<Value>, ExecError> {
        self.eval_typed_arguments(frame, dot, operands, spans, piped)
            .map(|(values, _)| values)
    }

    /// The arguments' values, and which of them (a bit per index) are nil interfaces: nils that a chain of fields
    /// looked up, which Go passes only to `interface{}` parameters.
    fn eval_typed_arguments(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        operands: &[Operand],
        spans: &[Span],
        piped: Option<Value>,
    ) -> Result<(Vec<Value>, u64), ExecError> {
        let mut values = Vec::with_capacity(operands.len() + 1);
        let mut interfaces = 0u64;
        for (i, (operand, span)) in operands.iter().zip(spans).enumerate() {
            let (value, interface) = self.eval_operand(frame, dot, operand, span)?;
            if interface && i < 64 {
                interfaces |= 1 << i;
            }
            values.push(value);
        }
        values.extend(piped);
        Ok((values, interfaces))
    }

    fn variable(&self, frame: &Frame, name: &str, span: &Span) -> Result<Value, ExecError> {
        frame
            .lookup(name)
            .cloned()
            .ok_or_else(|| self.error_at(frame, span, format!("undefined variable: {name}")))
    }

    /// Evaluates one argument: its value, and whether it is a nil interface.
    fn eval_operand(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        operand: &Operand,
        span: &Span,
    ) -> Result<(Value, bool), ExecError> {
        let plain = |value: Value| Ok((value, false));
        match operand {
            Operand::Dot => Ok((dot.clone(), frame.nil_dot_is_interface && dot.is_nil())),
            Operand::Nil => plain(Value::Nil),
            Operand::Bool(b) => plain(Value::Bool(*b)),
            Operand::Number(Number::Int(i)) => plain(Value::Int(*i)),
            Operand::Number(Number::Float(f)) => plain(Value::Float(*f)),
            Operand::Str(s) => plain(Value::String(s.clone())),
            Operand::Function(name) => {
                let call = Call {
                    function: span,
                    command: None,
                };
                let value = self.call_function(frame, dot, name, &[], &[], None, &call)?;
                plain(value)
            }
            Operand::Field(fields) => {
                let interface = frame.nil_dot_is_interface;
                self.eval_fields(frame, span, dot.clone(), interface, fields, Vec::new())
            }
            Operand::Variable(name, fields) => {
                let base = self.variable(frame, name, span)?;
                let interface = frame.holds_interface_nil(name);
                self.eval_fields(frame, span, base, interface, fields, Vec::new())
            }
            Operand::Chain(pipeline, fields) => {
                let base = self.eval_pipeline(frame, dot, pipeline)?;
                self.eval_fields(frame, span, base, false, fields, Vec::new())
            }
        }
    }

    /// `.a.b.c` from `base`; the last name may be a method taking `arguments`. As in Go, a field of no value (a
    /// pipeline's or variable's nil, or the dot of `include "x" nil`) is no value, while a field of a nil that a
    /// field looked up (`.Values.missing.x`) is an error; `base_is_interface` says which `base` is. Returns the
    /// value and whether it is such a looked-up nil.
    fn eval_fields(
        &mut self,
        frame: &Frame,
        span: &Span,
        base: Value,
        base_is_interface: bool,
        fields: &[String],
        arguments: Vec<Value>,
    ) -> Result<(Value, bool), ExecError> {
        let mut current = base;
        let mut interface = base_is_interface;
        for (i, name) in fields.iter().enumerate() {
            if current.is_nil() && !interface {
                continue;
            }
            let last = i + 1 == fields.len();
            let args: &[Value] = if last { &arguments } else { &[] };
            current = self
                .field(&current, name, args)
                .map_err(|message| self.error_at(frame, span, message))?;
            interface = true;
        }
        if fields.is_empty() && !arguments.is_empty() {
            return Err(self.error_at(frame, span, "can't give argument to non-function"));
        }
        let interface = interface && current.is_nil();
        Ok((current, interface))
    }

    fn field(&mut self, value: &Value, name: &str, args: &[Value]) -> Result<Value, String> {
        match value {
            Value::Map(map) => {
                if !args.is_empty() {
                    return Err(format!("{name} is not a method but has arguments"));
                }
                Ok(map.borrow().get(name).cloned().unwrap_or_default())
            }
            Value::Object(object) => {
                if !args.is_empty() && !object.is_method(name) {
                    return Err(format!("{name} is not a method but has arguments"));
                }
                object.member(name, args).unwrap_or_else(|| {
                    Err(format!(
                        "can't evaluate field {name} in type {}",
                        object.type_name()
                    ))
                })
            }
            Value::Nil => Err(format!("nil pointer evaluating interface {{}}.{name}")),
            other => Err(format!(
                "can't evaluate field {name} in type {}",
                other.type_name()
            )),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn call_function(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        name: &str,
        operands: &[Operand],
        spans: &[Span],
        piped: Option<Value>,
        call: &Call<'_>,
    ) -> Result<Value, ExecError> {
        let line = call.function.line;
        self.charge(frame, line, 1)?;
        match name {
            "and" | "or" => {
                return self.short_circuit(frame, dot, name == "and", operands, spans, piped, call);
            }
            _ => {}
        }
        let function_span = call.function;
        let has_piped = piped.is_some();
        let (arguments, interfaces) =
            self.eval_typed_arguments(frame, dot, operands, spans, piped)?;
        // Go checks each argument against its parameter's type before the call: a nil a field looked up is an
        // `interface {}`, which only an `interface{}` parameter takes.
        for index in (0..64).filter(|i| interfaces != 0 && interfaces & (1 << i) != 0) {
            if let Some(wanted) = super::signature::parameter(name, index) {
                let span = spans.get(index).unwrap_or(function_span);
                return Err(self.error_at(
                    frame,
                    span,
                    format!("wrong type for value; expected {wanted}; got interface {{}}"),
                ));
            }
        }
        match name {
            "include" => self.include(frame, call, arguments),
            "tpl" => self.tpl(frame, call, arguments),
            _ => {
                let function = *self.functions.get(name).ok_or_else(|| {
                    self.error_at(
                        frame,
                        &call.span(),
                        format!("function {name:?} not defined"),
                    )
                })?;
                let count = arguments.len();
                let kinds = Kinds::of(&arguments);
                let result = function(&mut self.budget, arguments).map_err(|message| {
                    if is_argument_error(&message) {
                        // Raised by Go's type check of an argument: located there, or at the function for
                        // the piped value.
                        let span = match kinds.culprit(&message) {
                            Some(index) if !(has_piped && index + 1 == count) => {
                                spans.get(index).unwrap_or(function_span)
                            }
                            _ => function_span,
                        };
                        return self.error_at(frame, span, message);
                    }
                    let mut error = self.error_at(frame, &call.span(), call_error(name, &message));
                    if matches!(name, "fail" | "required") {
                        error.warning = Some(message);
                    }
                    error
                })?;
                self.charge_for_size(frame, line, &result)?;
                Ok(result)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn short_circuit(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        is_and: bool,
        operands: &[Operand],
        spans: &[Span],
        piped: Option<Value>,
        call: &Call<'_>,
    ) -> Result<Value, ExecError> {
        if operands.is_empty() && piped.is_none() {
            let name = if is_and { "and" } else { "or" };
            return Err(self.error_at(
                frame,
                &call.span(),
                format!("wrong number of args for {name}: want at least 1 got 0"),
            ));
        }
        let mut last = Value::Nil;
        for (operand, span) in operands.iter().zip(spans) {
            last = self.eval_operand(frame, dot, operand, span)?.0;
            if last.is_truthy() != is_and {
                return Ok(last);
            }
        }
        if let Some(value) = piped {
            last = value;
        }
        Ok(last)
    }

    /// Helm's `include NAME DOT`: a named template's output as a string. An error inside is wrapped as Go
    /// wraps a function's error, so the message names the caller's action and then the helper's.
    fn include(
        &mut self,
        frame: &Frame,
        call: &Call<'_>,
        arguments: Vec<Value>,
    ) -> Result<Value, ExecError> {
        let span = &call.span();
        let mut arguments = arguments.into_iter();
        let name = match arguments.next() {
            Some(Value::String(name)) => name,
            Some(Value::Nil) | None => {
                return Err(self.error_at(frame, span, "invalid value; expected string"));
            }
            Some(other) => {
                return Err(self.error_at(
                    frame,
                    span,
                    format!(
                        "wrong type for value; expected string; got {}",
                        other.type_name()
                    ),
                ));
            }
        };
        let dot = arguments.next().unwrap_or_default();
        let template = self.find(&name).ok_or_else(|| {
            self.error_at(
                frame,
                span,
                format!(
                    "error calling include: template: no template {} associated with template {}",
                    super::format::quote(&name),
                    super::format::quote(TPL_NAME)
                ),
            )
        })?;
        let mut out = String::new();
        self.run_template(&template, &dot, &mut out, span.line)
            .map_err(|inner| self.wrap(frame, span, "error calling include: ", inner))?;
        let result = Value::string(out);
        self.charge_for_size(frame, span.line, &result)?;
        Ok(result)
    }

    /// An error of a template run by `include` or `tpl`, wrapped in the calling action's error as Go wraps a
    /// function's error; a `fail` or `required` inside stays one for Helm.
    fn wrap(&self, frame: &Frame, span: &Span, prefix: &str, inner: ExecError) -> ExecError {
        let mut error = self.error_at(frame, span, format!("{prefix}{}", inner.go_message()));
        error.warning = inner.0.warning;
        error
    }

    /// Helm's `tpl TEXT DOT`: a string rendered as a template named `gotpl` (Helm's name for it), with access
    /// to every named template; errors wrapped as Helm's `tpl` wraps them.
    fn tpl(
        &mut self,
        frame: &Frame,
        call: &Call<'_>,
        arguments: Vec<Value>,
    ) -> Result<Value, ExecError> {
        let span = &call.span();
        let mut arguments = arguments.into_iter();
        let text = match arguments.next() {
            Some(Value::String(text)) => text,
            Some(Value::Nil) | None => {
                return Err(self.error_at(frame, span, "invalid value; expected string"));
            }
            Some(other) => {
                return Err(self.error_at(
                    frame,
                    span,
                    format!(
                        "wrong type for value; expected string; got {}",
                        other.type_name()
                    ),
                ));
            }
        };
        let dot = arguments.next().unwrap_or_default();
        let quoted = super::format::quote(&text);
        let parsed = parse(&text).map_err(|e| {
            self.error_at(
                frame,
                span,
                format!(
                    "error calling tpl: cannot parse template {quoted}: template: {TPL_NAME}:{}: {}",
                    e.line, e.message
                ),
            )
        })?;
        let mut all_nodes = parsed.root.clone();
        for (_, body) in &parsed.defines {
            all_nodes.extend(body.iter().cloned());
        }
        check_nodes(&all_nodes, TPL_NAME, self.functions).map_err(|e| {
            self.error_at(
                frame,
                span,
                format!(
                    "error calling tpl: cannot parse template {quoted}: template: {TPL_NAME}:{}: {}",
                    e.line, e.message
                ),
            )
        })?;
        let file: Rc<str> = Rc::from(TPL_NAME);
        let mut overlay = HashMap::new();
        for (name, body) in parsed.defines {
            overlay.insert(
                name.clone(),
                Template {
                    name: Rc::from(name),
                    file: file.clone(),
                    body: Rc::new(body),
                },
            );
        }
        let template = Template {
            name: file.clone(),
            file,
            body: Rc::new(parsed.root),
        };
        self.overlays.push(overlay);
        let mut out = String::new();
        let result = self.run_template(&template, &dot, &mut out, span.line);
        self.overlays.pop();
        result.map_err(|inner| {
            let prefix =
                format!("error calling tpl: error during tpl function execution for {quoted}: ");
            self.wrap(frame, span, &prefix, inner)
        })?;
        Ok(Value::string(out.replace("<no value>", "")))
    }
}

/// A function call being evaluated: where its name is written, and its command when it heads one (Go locates
/// "error calling" at the command, `<include "x" .>`).
struct Call<'c> {
    function: &'c Span,
    command: Option<&'c Command>,
}

impl Call<'_> {
    /// The call's location and text, built when an error needs them.
    fn span(&self) -> Span {
        self.command
            .map(Command::span)
            .unwrap_or_else(|| self.function.clone())
    }
}

/// The kinds of a call's first arguments, kept (without copying the values) to name the argument Go's type check
/// refuses.
struct Kinds([Option<&'static str>; 8]);

impl Kinds {
    fn of(arguments: &[Value]) -> Self {
        let mut kinds = [None; 8];
        for (slot, argument) in kinds.iter_mut().zip(arguments) {
            *slot = Some(match argument {
                Value::Nil => "<nil>",
                Value::Bool(_) => "bool",
                Value::Int(_) => "int",
                Value::Float(_) => "float64",
                Value::String(_) => "string",
                Value::List(_) => "[]interface {}",
                Value::Map(_) => "map[string]interface {}",
                Value::Object(_) => "object",
            });
        }
        Kinds(kinds)
    }

    /// Which argument a type refusal is about: the first of the type it names (`got T`), or the first nil for
    /// `invalid value`.
    fn culprit(&self, message: &str) -> Option<usize> {
        let wanted = match message.rsplit_once("; got ") {
            Some((_, type_name)) => type_name,
            None => "<nil>",
        };
        self.0.iter().position(|kind| *kind == Some(wanted))
    }
}

/// Go's wording for a failed function call.
fn call_error(name: &str, message: &str) -> String {
    format!("error calling {name}: {message}")
}

/// Whether a function's message is Go's refusal of an argument's type, which Go raises before the call (so it is
/// not "error calling").
fn is_argument_error(message: &str) -> bool {
    message.starts_with("wrong type for value;") || message.starts_with("invalid value;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::value::Map;

    fn functions() -> FunctionTable {
        let mut table = FunctionTable::default();
        table.insert("upper", |_, args| {
            Ok(Value::string(display(&args[0]).to_uppercase()))
        });
        table.insert("fail", |_, args| Err(display(&args[0])));
        table.insert("twice", |_, args| {
            Ok(Value::string(display(&args[0]).repeat(2)))
        });
        table
    }

    fn render(source: &str, dot: Value) -> Result<String, ExecError> {
        let mut set = TemplateSet::new();
        set.add_file("t", source).unwrap();
        let table = functions();
        Executor::new(&set, &table, 10_000).execute("t", &dot)
    }

    fn data() -> Value {
        let mut inner = Map::new();
        inner.insert("b".into(), Value::Int(2));
        inner.insert("a".into(), Value::Int(1));
        let mut root = Map::new();
        root.insert("m".into(), Value::map(inner));
        root.insert("l".into(), Value::list(vec!["x".into(), "y".into()]));
        root.insert("s".into(), "str".into());
        Value::map(root)
    }

    #[test]
    fn range_walks_helm_objects_that_are_slices_or_maps() {
        use crate::chart::objects::{ApiVersions, Files};
        let mut root = Map::new();
        root.insert(
            "apis".into(),
            Value::Object(std::rc::Rc::new(ApiVersions::new(vec![
                "v1".into(),
                "apps/v1".into(),
            ]))),
        );
        root.insert(
            "files".into(),
            Value::Object(std::rc::Rc::new(Files::new(&[(
                "a.txt".into(),
                b"hi".to_vec(),
            )]))),
        );
        let out = render(
            "{{ range $i, $v := .apis }}{{ $i }}={{ $v }};{{ end }}|{{ range $p, $c := .files }}{{ $p }}{{ end }}",
            Value::map(root),
        );
        assert_eq!(out.unwrap(), "0=v1;1=apps/v1;|a.txt");
    }

    #[test]
    fn control_structures_follow_go() {
        let out = render(
            "{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}|{{ range $i, $e := .l }}{{ $i }}{{ $e }}{{ end }}|\
             {{ range .missing }}x{{ else }}empty{{ end }}|{{ with .s }}{{ . | upper }}{{ end }}|\
             {{ if .nope }}a{{ else if .s }}b{{ else }}c{{ end }}|{{ range 3 }}{{ . }}{{ end }}",
            data(),
        )
        .unwrap();
        assert_eq!(out, "a=1;b=2;|0x1y|empty|STR|b|012");
        let error = render("{{ nosuch 1 }}", data()).unwrap_err();
        assert!(
            error.message.contains("\"nosuch\" not defined"),
            "{}",
            error.message
        );
    }

    #[test]
    fn variables_scope_and_assign() {
        let out = render(
            "{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}{{ $.s }}",
            data(),
        )
        .unwrap();
        assert_eq!(out, "2str");
        let error = TemplateSet::new()
            .add_file("t", "{{ if true }}{{ $y := 3 }}{{ end }}{{ $y }}")
            .unwrap_err();
        assert_eq!(error.message, "undefined variable \"$y\"");
    }

    #[test]
    fn a_field_of_a_parenthesised_nil_is_empty_as_in_helm() {
        let mut root = Map::new();
        root.insert("resources".into(), Value::empty_map());
        root.insert("l".into(), Value::list(vec![Value::Nil]));
        let dot = Value::map(root);
        let out = render(
            "[{{ (.resources.limits).memory }}][{{ $l := .resources.limits }}{{ $l.memory.x }}]",
            dot.clone(),
        );
        assert_eq!(out.unwrap(), "[<no value>][<no value>]");
        let error = render("{{ .resources.limits.memory }}", dot.clone()).unwrap_err();
        assert_eq!(error.message, "nil pointer evaluating interface {}.memory");
        assert_eq!(error.context, ".resources.limits.memory");
        assert_eq!(error.col, 13);
        let error = render("{{ range .l }}{{ .x }}{{ end }}", dot.clone()).unwrap_err();
        assert_eq!(error.message, "nil pointer evaluating interface {}.x");
        let error = render("{{ range $v := .l }}{{ $v.x }}{{ end }}", dot).unwrap_err();
        assert_eq!(error.message, "nil pointer evaluating interface {}.x");
    }

    #[test]
    fn break_continue_and_missing_values() {
        let out = render(
            "{{ range .l }}{{ if false }}{{ continue }}{{ end }}{{ . }}{{ break }}{{ end }}[{{ .missing }}]",
            data(),
        )
        .unwrap();
        assert_eq!(out, "x[<no value>]");
        let error = render("\n{{ .missing.deeper }}", data()).unwrap_err();
        assert_eq!(error.line, 2);
        assert_eq!(error.message, "nil pointer evaluating interface {}.deeper");
    }

    #[test]
    fn defines_template_include_and_tpl() {
        let out = render(
            r#"{{ define "greet" }}hi {{ . }}{{ end }}{{ template "greet" .s }}/{{ include "greet" "x" | upper }}/{{ tpl "{{ .s }}!" . }}"#,
            data(),
        )
        .unwrap();
        assert_eq!(out, "hi str/HI X/str!");
    }

    #[test]
    fn and_or_short_circuit() {
        let out = render(
            "{{ or .missing .s }}{{ and .s 0 (fail \"never\") }}",
            data(),
        )
        .unwrap();
        assert_eq!(out, "str0");
        let error = render("{{ fail \"boom\" }}", data()).unwrap_err();
        assert_eq!(error.helm_message(), "execution error at (t:1:3): boom");
    }

    #[test]
    fn budget_stops_runaway_templates() {
        let doubling = "{{ $s := \"xxxxxxxxxxxxxxxx\" }}{{ range 40 }}{{ $s = twice $s }}{{ end }}";
        let error = render(doubling, data()).unwrap_err();
        assert!(
            error.message.contains("budget") || error.message.contains("exceeds"),
            "{}",
            error.message
        );
        let error = render(
            "{{ range 100000 }}{{ range 100000 }}x{{ end }}{{ end }}",
            data(),
        )
        .unwrap_err();
        assert!(error.message.contains("budget"), "{}", error.message);
        let error = render(
            r#"{{ define "loop" }}{{ include "loop" . }}{{ end }}{{ include "loop" . }}"#,
            data(),
        )
        .unwrap_err();
        assert!(error.message.contains("nest deeper"), "{}", error.message);
    }
}
