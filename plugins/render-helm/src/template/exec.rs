//! The evaluator: runs parsed templates against data with Go's semantics (dot, variables, pipelines, `if`,
//! `with`, `range` over lists, maps in key order and ints, `template`, `break`/`continue`), Helm's `include`
//! and `tpl`, and a step budget so a runaway template fails with a clear error.

use std::collections::HashMap;
use std::rc::Rc;

use super::ast::{Branch, Command, Node, Operand, Pipeline};
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
pub type FunctionTable = HashMap<&'static str, Function>;

/// A named template: a file's body or a `define`.
#[derive(Debug, Clone)]
pub struct Template {
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
                define,
                Template {
                    file: file.clone(),
                    body: Rc::new(body),
                },
            );
        }
        self.templates.insert(
            name.to_string(),
            Template {
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
        Some((name, line)) => Err(ExecError {
            message: format!("function {name:?} not defined"),
            file: file.to_string(),
            line,
        }),
        None => Ok(()),
    }
}

/// An evaluation error, located in the template whose code raised it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecError {
    /// What went wrong.
    pub message: String,
    /// The file of the template that failed.
    pub file: String,
    /// The 1-based line.
    pub line: u32,
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
    file: Rc<str>,
    variables: Vec<(String, Value)>,
}

impl Frame {
    fn lookup(&self, name: &str) -> Option<&Value> {
        self.variables
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
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
        let template = self.find(name).ok_or_else(|| ExecError {
            message: format!("no template {name:?}"),
            file: name.to_string(),
            line: 1,
        })?;
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
            return Err(ExecError {
                message: format!("template calls nest deeper than {MAX_CALL_DEPTH} levels"),
                file: template.file.to_string(),
                line,
            });
        }
        let mut frame = Frame {
            file: template.file.clone(),
            variables: vec![("$".to_string(), dot.clone())],
        };
        let body = template.body.clone();
        let result = self.run_list(&mut frame, dot, &body, out);
        self.depth -= 1;
        result.map(|_| ())
    }

    fn error(&self, frame: &Frame, line: u32, message: impl Into<String>) -> ExecError {
        ExecError {
            message: message.into(),
            file: frame.file.to_string(),
            line,
        }
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
                name,
                pipeline,
            } => {
                self.charge(frame, *line, 1)?;
                let value = match pipeline {
                    Some(pipeline) => self.eval_pipeline(frame, dot, pipeline)?,
                    None => Value::Nil,
                };
                let template = self.find(name).ok_or_else(|| {
                    self.error(
                        frame,
                        *line,
                        format!(
                            "no template {name:?} associated with template {:?}",
                            &*frame.file
                        ),
                    )
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
                ),
                [key_name, value_name, ..] => {
                    self.bind(frame, key_name, key, branch.pipeline.is_assign);
                    self.bind(
                        frame,
                        value_name,
                        element.clone(),
                        branch.pipeline.is_assign,
                    );
                }
            }
            let flow = self.run_list(frame, &element, &branch.body, out);
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

    /// Declares a variable, or assigns an existing one (`=`).
    fn bind(&self, frame: &mut Frame, name: &str, value: Value, assign: bool) {
        if assign && let Some(slot) = frame.variables.iter_mut().rev().find(|(n, _)| n == name) {
            slot.1 = value;
            return;
        }
        frame.variables.push((name.to_string(), value));
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
            self.bind(frame, name, value.clone(), pipeline.is_assign);
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
        let (first, rest) = command
            .args
            .split_first()
            .ok_or_else(|| self.error(frame, line, "empty command"))?;
        let no_arguments = |this: &Self, frame: &Frame| -> Result<(), ExecError> {
            if rest.is_empty() && piped.is_none() {
                Ok(())
            } else {
                Err(this.error(
                    frame,
                    line,
                    format!("can't give argument to non-function {}", first.describe()),
                ))
            }
        };
        match first {
            Operand::Function(name) => self.call_function(frame, dot, name, rest, piped, line),
            Operand::Field(fields) => {
                let arguments = self.eval_arguments(frame, dot, rest, piped)?;
                self.eval_fields(frame, line, dot.clone(), fields, arguments)
            }
            Operand::Variable(name, fields) => {
                let base = self.variable(frame, name, line)?;
                if fields.is_empty() {
                    no_arguments(self, frame)?;
                    return Ok(base);
                }
                let arguments = self.eval_arguments(frame, dot, rest, piped)?;
                self.eval_fields(frame, line, base, fields, arguments)
            }
            Operand::Chain(pipeline, fields) => {
                let base = self.eval_pipeline(frame, dot, pipeline)?;
                if fields.is_empty() {
                    no_arguments(self, frame)?;
                    return Ok(base);
                }
                let arguments = self.eval_arguments(frame, dot, rest, piped)?;
                self.eval_fields(frame, line, base, fields, arguments)
            }
            Operand::Nil => Err(self.error(frame, line, "nil is not a command")),
            literal => {
                no_arguments(self, frame)?;
                self.eval_operand(frame, dot, literal, line)
            }
        }
    }

    fn eval_arguments(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        operands: &[Operand],
        piped: Option<Value>,
    ) -> Result<Vec<Value>, ExecError> {
        let mut values = Vec::with_capacity(operands.len() + 1);
        for operand in operands {
            values.push(self.eval_operand(frame, dot, operand, 0)?);
        }
        values.extend(piped);
        Ok(values)
    }

    fn variable(&self, frame: &Frame, name: &str, line: u32) -> Result<Value, ExecError> {
        frame
            .lookup(name)
            .cloned()
            .ok_or_else(|| self.error(frame, line, format!("undefined variable: {name}")))
    }

    /// Evaluates one argument.
    fn eval_operand(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        operand: &Operand,
        line: u32,
    ) -> Result<Value, ExecError> {
        match operand {
            Operand::Dot => Ok(dot.clone()),
            Operand::Nil => Ok(Value::Nil),
            Operand::Bool(b) => Ok(Value::Bool(*b)),
            Operand::Number(Number::Int(i)) => Ok(Value::Int(*i)),
            Operand::Number(Number::Float(f)) => Ok(Value::Float(*f)),
            Operand::Str(s) => Ok(Value::String(s.clone())),
            Operand::Function(name) => self.call_function(frame, dot, name, &[], None, line),
            Operand::Field(fields) => {
                self.eval_fields(frame, line, dot.clone(), fields, Vec::new())
            }
            Operand::Variable(name, fields) => {
                let base = self.variable(frame, name, line)?;
                self.eval_fields(frame, line, base, fields, Vec::new())
            }
            Operand::Chain(pipeline, fields) => {
                let base = self.eval_pipeline(frame, dot, pipeline)?;
                self.eval_fields(frame, line, base, fields, Vec::new())
            }
        }
    }

    /// `.a.b.c` from `base`; the last name may be a method taking `arguments`.
    fn eval_fields(
        &mut self,
        frame: &Frame,
        line: u32,
        base: Value,
        fields: &[String],
        arguments: Vec<Value>,
    ) -> Result<Value, ExecError> {
        let mut current = base;
        for (i, name) in fields.iter().enumerate() {
            let last = i + 1 == fields.len();
            let args: &[Value] = if last { &arguments } else { &[] };
            current = self
                .field(&current, name, args)
                .map_err(|message| self.error(frame, line, message))?;
        }
        if fields.is_empty() && !arguments.is_empty() {
            return Err(self.error(frame, line, "can't give argument to non-function"));
        }
        Ok(current)
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

    fn call_function(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        name: &str,
        operands: &[Operand],
        piped: Option<Value>,
        line: u32,
    ) -> Result<Value, ExecError> {
        self.charge(frame, line, 1)?;
        match name {
            "and" | "or" => {
                return self.short_circuit(frame, dot, name == "and", operands, piped, line);
            }
            _ => {}
        }
        let arguments = self.eval_arguments(frame, dot, operands, piped)?;
        match name {
            "include" => self.include(frame, line, arguments),
            "tpl" => self.tpl(frame, line, arguments),
            _ => {
                let function = *self.functions.get(name).ok_or_else(|| {
                    self.error(frame, line, format!("function {name:?} not defined"))
                })?;
                let result = function(&mut self.budget, arguments)
                    .map_err(|message| self.error(frame, line, call_error(name, message)))?;
                self.charge_for_size(frame, line, &result)?;
                Ok(result)
            }
        }
    }

    fn short_circuit(
        &mut self,
        frame: &mut Frame,
        dot: &Value,
        is_and: bool,
        operands: &[Operand],
        piped: Option<Value>,
        line: u32,
    ) -> Result<Value, ExecError> {
        if operands.is_empty() && piped.is_none() {
            let name = if is_and { "and" } else { "or" };
            return Err(self.error(
                frame,
                line,
                format!("wrong number of args for {name}: want at least 1 got 0"),
            ));
        }
        let mut last = Value::Nil;
        for operand in operands {
            last = self.eval_operand(frame, dot, operand, line)?;
            if last.is_truthy() != is_and {
                return Ok(last);
            }
        }
        if let Some(value) = piped {
            last = value;
        }
        Ok(last)
    }

    /// Helm's `include NAME DOT`: a named template's output as a string.
    fn include(
        &mut self,
        frame: &Frame,
        line: u32,
        arguments: Vec<Value>,
    ) -> Result<Value, ExecError> {
        let mut arguments = arguments.into_iter();
        let name = match arguments.next() {
            Some(Value::String(name)) => name,
            _ => {
                return Err(self.error(
                    frame,
                    line,
                    "error calling include: the template name must be a string",
                ));
            }
        };
        let dot = arguments.next().unwrap_or_default();
        let template = self.find(&name).ok_or_else(|| {
            self.error(
                frame,
                line,
                format!(
                    "error calling include: template: no template {:?} associated with template {:?}",
                    &*name, &*frame.file
                ),
            )
        })?;
        let mut out = String::new();
        self.run_template(&template, &dot, &mut out, line)?;
        let result = Value::string(out);
        self.charge_for_size(frame, line, &result)?;
        Ok(result)
    }

    /// Helm's `tpl TEXT DOT`: a string rendered as a template, with access to every named template.
    fn tpl(&mut self, frame: &Frame, line: u32, arguments: Vec<Value>) -> Result<Value, ExecError> {
        let mut arguments = arguments.into_iter();
        let text = match arguments.next() {
            Some(Value::String(text)) => text,
            Some(other) => {
                return Err(self.error(
                    frame,
                    line,
                    format!(
                        "error calling tpl: expected a string, got {}",
                        other.type_name()
                    ),
                ));
            }
            None => {
                return Err(self.error(frame, line, "error calling tpl: missing template text"));
            }
        };
        let dot = arguments.next().unwrap_or_default();
        let parsed = parse(&text).map_err(|e| {
            self.error(
                frame,
                line,
                format!(
                    "error calling tpl: cannot parse template {:?}: line {}: {}",
                    &*text, e.line, e.message
                ),
            )
        })?;
        let mut all_nodes = parsed.root.clone();
        for (_, body) in &parsed.defines {
            all_nodes.extend(body.iter().cloned());
        }
        check_nodes(&all_nodes, &frame.file, self.functions)
            .map_err(|e| self.error(frame, line, format!("error calling tpl: {}", e.message)))?;
        let mut overlay = HashMap::new();
        for (name, body) in parsed.defines {
            overlay.insert(
                name,
                Template {
                    file: frame.file.clone(),
                    body: Rc::new(body),
                },
            );
        }
        let template = Template {
            file: frame.file.clone(),
            body: Rc::new(parsed.root),
        };
        self.overlays.push(overlay);
        let mut out = String::new();
        let result = self.run_template(&template, &dot, &mut out, line);
        self.overlays.pop();
        result?;
        Ok(Value::string(out.replace("<no value>", "")))
    }
}

/// Go's wording for a failed function call; `fail` and `required` keep their own message, as Helm prints them.
fn call_error(name: &str, message: String) -> String {
    match name {
        "fail" | "required" => message,
        _ => format!("error calling {name}: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::value::Map;

    fn functions() -> FunctionTable {
        let mut table = FunctionTable::new();
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
        let error = render("{{ if true }}{{ $y := 3 }}{{ end }}{{ $y }}", data()).unwrap_err();
        assert!(
            error.message.contains("undefined variable: $y"),
            "{}",
            error.message
        );
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
        assert_eq!(error.message, "boom");
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
