//! The parser: tokens into a [`Parsed`] tree, with Go's rules for `if`/`else if`, `with`/`else with`, `range`,
//! `define`, `block`, `template`, `break` and `continue`.

use std::rc::Rc;

use super::ast::{Branch, Command, Node, Operand, Parsed, Pipeline, Span};
use super::lexer::{SyntaxError, Token, TokenKind, lex, parse_number};

/// How deeply blocks and parentheses may nest; deeper input is refused rather than exhausting the stack.
const MAX_NESTING: usize = 100;

/// Parses a template's source.
pub fn parse(source: &str) -> Result<Parsed, SyntaxError> {
    let tokens = lex(source)?;
    let mut parser = Parser {
        tokens,
        pos: 0,
        defines: Vec::new(),
        range_depth: 0,
        nesting: 0,
        variables: vec!["$".to_string()],
    };
    let (root, terminator) = parser.parse_list()?;
    if let Some((word, line)) = terminator {
        return Err(SyntaxError::new(format!("unexpected {{{{{word}}}}}"), line));
    }
    Ok(Parsed {
        root,
        defines: parser.defines,
    })
}

/// The keyword that ended a list (`end` or `else`) and its line.
type Terminator = (String, u32);

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    defines: Vec<(String, Vec<Node>)>,
    range_depth: usize,
    nesting: usize,
    /// The variables in scope, as Go's parser tracks them to refuse an undefined one.
    variables: Vec<String>,
}

/// Which control structure a branch is.
#[derive(Clone, Copy, PartialEq)]
enum BranchKind {
    If,
    With,
    Range,
}

impl BranchKind {
    fn keyword(self) -> &'static str {
        match self {
            BranchKind::If => "if",
            BranchKind::With => "with",
            BranchKind::Range => "range",
        }
    }

    fn node(self, branch: Branch) -> Node {
        match self {
            BranchKind::If => Node::If(Box::new(branch)),
            BranchKind::With => Node::With(Box::new(branch)),
            BranchKind::Range => Node::Range(Box::new(branch)),
        }
    }
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_kind(&self) -> Option<&TokenKind> {
        self.peek().map(|t| &t.kind)
    }

    fn line(&self) -> u32 {
        self.peek()
            .or_else(|| self.tokens.last())
            .map_or(1, |t| t.line)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        token
    }

    fn expect_close(&mut self, context: &str) -> Result<(), SyntaxError> {
        match self.next() {
            Some(Token {
                kind: TokenKind::Close,
                ..
            }) => Ok(()),
            Some(token) => Err(SyntaxError::new(
                format!("unexpected {} in {context}", go_item(&token)),
                token.line,
            )),
            None => Err(SyntaxError::new(format!("unclosed {context}"), self.line())),
        }
    }

    fn enter(&mut self, line: u32) -> Result<(), SyntaxError> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(SyntaxError::new(
                format!("template nests deeper than {MAX_NESTING} levels"),
                line,
            ));
        }
        Ok(())
    }

    /// Parses nodes up to an `{{end}}` or `{{else}}` (consumed; returned with its line) or the end of input.
    fn parse_list(&mut self) -> Result<(Vec<Node>, Option<Terminator>), SyntaxError> {
        let mut nodes = Vec::new();
        while let Some(token) = self.next() {
            match token.kind {
                TokenKind::Text(text) => nodes.push(Node::Text(Rc::from(text))),
                TokenKind::Open => {
                    if let Some(TokenKind::Ident(word)) = self.peek_kind()
                        && (word == "end" || word == "else")
                    {
                        let word = word.clone();
                        self.pos += 1;
                        return Ok((nodes, Some((word, token.line))));
                    }
                    if let Some(node) = self.parse_action(token.line)? {
                        nodes.push(node);
                    }
                }
                _ => {
                    return Err(SyntaxError::new(
                        format!("unexpected {}", go_item(&token)),
                        token.line,
                    ));
                }
            }
        }
        Ok((nodes, None))
    }

    /// Parses the inside of one action after `{{`; `None` for a `define`, which adds to the defines instead.
    fn parse_action(&mut self, line: u32) -> Result<Option<Node>, SyntaxError> {
        let keyword = match self.peek_kind() {
            Some(TokenKind::Ident(word)) => word.clone(),
            _ => String::new(),
        };
        match keyword.as_str() {
            "if" => {
                self.pos += 1;
                self.parse_branch(BranchKind::If, line).map(Some)
            }
            "with" => {
                self.pos += 1;
                self.parse_branch(BranchKind::With, line).map(Some)
            }
            "range" => {
                self.pos += 1;
                self.parse_branch(BranchKind::Range, line).map(Some)
            }
            "define" => {
                self.pos += 1;
                let name = self.template_name("define")?;
                self.expect_close("define")?;
                let body = self.parse_template_body("define", line)?;
                self.defines.push((name, body));
                Ok(None)
            }
            "block" => {
                self.pos += 1;
                let at = self.peek().map(|t| (t.line, t.col)).unwrap_or((line, 0));
                let name = self.template_name("block")?;
                let pipeline = self.parse_pipeline(line, false)?;
                let body = self.parse_template_body("block", line)?;
                self.defines.push((name.clone(), body));
                Ok(Some(Node::Template {
                    line,
                    span: template_span(at, &name, Some(&pipeline)),
                    name,
                    pipeline: Some(pipeline),
                }))
            }
            "template" => {
                self.pos += 1;
                let at = self.peek().map(|t| (t.line, t.col)).unwrap_or((line, 0));
                let name = self.template_name("template")?;
                let pipeline = if matches!(self.peek_kind(), Some(TokenKind::Close)) {
                    self.pos += 1;
                    None
                } else {
                    Some(self.parse_pipeline(line, false)?)
                };
                Ok(Some(Node::Template {
                    line,
                    span: template_span(at, &name, pipeline.as_ref()),
                    name,
                    pipeline,
                }))
            }
            "break" | "continue" => {
                self.pos += 1;
                if self.range_depth == 0 {
                    return Err(SyntaxError::new(
                        format!("{{{{{keyword}}}}} outside {{{{range}}}}"),
                        line,
                    ));
                }
                self.expect_close(&format!("{{{{{keyword}}}}}"))?;
                Ok(Some(if keyword == "break" {
                    Node::Break(line)
                } else {
                    Node::Continue(line)
                }))
            }
            _ => {
                let pipeline = self.parse_pipeline(line, true)?;
                Ok(Some(Node::Action(pipeline)))
            }
        }
    }

    fn template_name(&mut self, context: &str) -> Result<String, SyntaxError> {
        match self.next() {
            Some(Token {
                kind: TokenKind::Str(name),
                ..
            }) => Ok(name),
            Some(token) => Err(SyntaxError::new(
                format!("unexpected {} in {context} clause", go_item(&token)),
                token.line,
            )),
            None => Err(SyntaxError::new(format!("unclosed {context}"), self.line())),
        }
    }

    /// The body of a `define` or `block`: a template of its own, where only `$` is defined.
    fn parse_template_body(&mut self, context: &str, line: u32) -> Result<Vec<Node>, SyntaxError> {
        let outer = std::mem::replace(&mut self.variables, vec!["$".to_string()]);
        let body = self.parse_body_until_end(context, line);
        self.variables = outer;
        body
    }

    fn parse_body_until_end(&mut self, context: &str, line: u32) -> Result<Vec<Node>, SyntaxError> {
        self.enter(line)?;
        let (body, terminator) = self.parse_list()?;
        self.nesting -= 1;
        match terminator {
            Some((word, end_line)) if word == "end" => {
                self.expect_close("end")?;
                let _ = end_line;
                Ok(body)
            }
            Some((word, end_line)) => Err(SyntaxError::new(
                format!("unexpected {{{{{word}}}}} in {context}"),
                end_line,
            )),
            None => {
                let _ = context;
                Err(SyntaxError::new("unexpected EOF", line))
            }
        }
    }

    fn parse_branch(&mut self, kind: BranchKind, line: u32) -> Result<Node, SyntaxError> {
        // Variables declared in the control's pipeline and bodies go out of scope at its `end`.
        let scope = self.variables.len();
        let node = self.parse_branch_in_scope(kind, line);
        self.variables.truncate(scope);
        node
    }

    fn parse_branch_in_scope(&mut self, kind: BranchKind, line: u32) -> Result<Node, SyntaxError> {
        self.enter(line)?;
        let pipeline = self.parse_pipeline(line, true)?;
        if kind == BranchKind::Range {
            self.range_depth += 1;
        }
        let body = self.parse_list();
        if kind == BranchKind::Range {
            self.range_depth -= 1;
        }
        let (body, terminator) = body?;
        let otherwise = match terminator {
            Some((word, _)) if word == "end" => {
                self.expect_close("end")?;
                Vec::new()
            }
            Some((word, else_line)) if word == "else" => {
                // `else if` / `else with` chain into a nested branch that shares this one's `end`.
                let chained = match self.peek_kind() {
                    Some(TokenKind::Ident(next)) if next == "if" && kind != BranchKind::Range => {
                        Some(BranchKind::If)
                    }
                    Some(TokenKind::Ident(next)) if next == "with" && kind == BranchKind::With => {
                        Some(BranchKind::With)
                    }
                    _ => None,
                };
                match chained {
                    Some(nested) => {
                        self.pos += 1;
                        vec![self.parse_branch(nested, else_line)?]
                    }
                    None => {
                        self.expect_close("else")?;
                        self.parse_body_until_end(kind.keyword(), else_line)?
                    }
                }
            }
            Some((word, other_line)) => {
                return Err(SyntaxError::new(
                    format!("unexpected {{{{{word}}}}}"),
                    other_line,
                ));
            }
            None => {
                return Err(SyntaxError::new("unexpected EOF", line));
            }
        };
        self.nesting -= 1;
        Ok(kind.node(Branch {
            pipeline,
            body,
            otherwise,
        }))
    }

    /// Parses a pipeline up to (and including) `}}`, or up to `)` when `in_parens`... see `parse_pipeline_until`.
    fn parse_pipeline(&mut self, line: u32, allow_declare: bool) -> Result<Pipeline, SyntaxError> {
        self.parse_pipeline_until(line, allow_declare, false)
    }

    fn parse_pipeline_until(
        &mut self,
        line: u32,
        allow_declare: bool,
        in_parens: bool,
    ) -> Result<Pipeline, SyntaxError> {
        let mut pipeline = Pipeline {
            line,
            variables: Vec::new(),
            is_assign: false,
            commands: Vec::new(),
        };
        if allow_declare {
            self.parse_declaration(&mut pipeline)?;
        }
        loop {
            let command = self.parse_command()?;
            if command.args.is_empty() {
                return Err(match self.peek() {
                    Some(token) if token.kind == TokenKind::Pipe => SyntaxError::new(
                        format!("unexpected {} in command", go_item(token)),
                        token.line,
                    ),
                    _ => SyntaxError::new("missing value for command", self.line()),
                });
            }
            pipeline.commands.push(command);
            match self.next() {
                // Go ends a pipeline at its delimiter even right after a `|` (`{{ x | nindent 4 | }}`).
                Some(Token {
                    kind: TokenKind::Pipe,
                    ..
                }) => match self.peek_kind() {
                    Some(TokenKind::Close) if !in_parens => {
                        self.pos += 1;
                        return Ok(pipeline);
                    }
                    Some(TokenKind::RightParen) if in_parens => {
                        self.pos += 1;
                        return Ok(pipeline);
                    }
                    _ => continue,
                },
                Some(Token {
                    kind: TokenKind::Close,
                    ..
                }) if !in_parens => return Ok(pipeline),
                Some(Token {
                    kind: TokenKind::RightParen,
                    ..
                }) if in_parens => return Ok(pipeline),
                Some(token) => {
                    return Err(SyntaxError::new(
                        format!("unexpected {} in operand", go_item(&token)),
                        token.line,
                    ));
                }
                None => return Err(SyntaxError::new("unclosed action", line)),
            }
        }
    }

    /// `$x :=`, `$x =`, `$i, $v :=`.
    fn parse_declaration(&mut self, pipeline: &mut Pipeline) -> Result<(), SyntaxError> {
        let start = self.pos;
        let mut names = Vec::new();
        loop {
            match self.tokens.get(self.pos).map(|t| &t.kind) {
                Some(TokenKind::Variable(name)) => names.push(name.clone()),
                _ => {
                    self.pos = start;
                    return Ok(());
                }
            }
            self.pos += 1;
            match self.tokens.get(self.pos).map(|t| &t.kind) {
                Some(TokenKind::Comma) if names.len() < 2 => self.pos += 1,
                Some(TokenKind::Declare) => {
                    self.pos += 1;
                    self.variables.extend(names.iter().cloned());
                    pipeline.variables = names;
                    return Ok(());
                }
                Some(TokenKind::Assign) => {
                    self.pos += 1;
                    self.variables.extend(names.iter().cloned());
                    pipeline.variables = names;
                    pipeline.is_assign = true;
                    return Ok(());
                }
                _ => {
                    self.pos = start;
                    return Ok(());
                }
            }
        }
    }

    fn parse_command(&mut self) -> Result<Command, SyntaxError> {
        let mut command = Command {
            line: self.line(),
            col: self.peek().map_or(0, |t| t.col),
            args: Vec::new(),
            spans: Vec::new(),
        };
        while let Some(kind) = self.peek_kind() {
            if matches!(
                kind,
                TokenKind::Pipe | TokenKind::Close | TokenKind::RightParen
            ) {
                break;
            }
            let (operand, span) = self.parse_operand()?;
            command.args.push(operand);
            command.spans.push(span);
        }
        Ok(command)
    }

    /// Field names written right after an operand (`.a.b` after `$x` or `(...)`), and where the first is (Go
    /// locates a chain of fields there).
    fn adjacent_fields(&mut self) -> (Vec<String>, Option<(u32, u32)>) {
        let mut fields = Vec::new();
        let mut first = None;
        while let Some(Token {
            kind: TokenKind::Field(name),
            spaced: false,
            line,
            col,
            ..
        }) = self.peek()
        {
            first = first.or(Some((*line, *col)));
            fields.push(name.clone());
            self.pos += 1;
        }
        (fields, first)
    }

    /// One operand, with where Go locates it and how Go prints it.
    fn parse_operand(&mut self) -> Result<(Operand, Span), SyntaxError> {
        let Some(token) = self.next() else {
            return Err(SyntaxError::new("unexpected end of action", self.line()));
        };
        let mut at = (token.line, token.col);
        let fields_text =
            |names: &[String]| -> String { names.iter().map(|n| format!(".{n}")).collect() };
        let mut text = token.raw.clone();
        let operand = match token.kind {
            TokenKind::Dot => Operand::Dot,
            TokenKind::Nil => Operand::Nil,
            TokenKind::Bool(b) => Operand::Bool(b),
            TokenKind::Str(s) => Operand::Str(Rc::from(s)),
            TokenKind::Char(c) => {
                Operand::Number(super::lexer::Number::Int(i64::from(u32::from(c))))
            }
            TokenKind::Number(text) => Operand::Number(
                parse_number(&text)
                    .ok_or_else(|| SyntaxError::new(format!("bad number {text:?}"), token.line))?,
            ),
            TokenKind::Ident(name) => {
                if matches!(
                    name.as_str(),
                    "if" | "else"
                        | "end"
                        | "range"
                        | "with"
                        | "define"
                        | "template"
                        | "block"
                        | "break"
                        | "continue"
                ) {
                    return Err(SyntaxError::new(
                        format!("unexpected <{name}> in operand"),
                        token.line,
                    ));
                }
                text = name.clone();
                Operand::Function(name)
            }
            TokenKind::Field(name) => {
                let mut fields = vec![name];
                let (more, first) = self.adjacent_fields();
                fields.extend(more);
                at = first.unwrap_or(at);
                text = fields_text(&fields);
                Operand::Field(fields)
            }
            TokenKind::Variable(name) => {
                if !self.variables.contains(&name) {
                    return Err(SyntaxError::new(
                        format!("undefined variable {}", super::format::quote(&name)),
                        token.line,
                    ));
                }
                let (fields, first) = self.adjacent_fields();
                at = first.unwrap_or(at);
                text = format!("{name}{}", fields_text(&fields));
                Operand::Variable(name, fields)
            }
            TokenKind::LeftParen => {
                self.enter(token.line)?;
                at = self.peek().map_or(at, |t| (t.line, t.col));
                let inner = self.parse_pipeline_until(token.line, true, true)?;
                self.nesting -= 1;
                let (fields, first) = self.adjacent_fields();
                at = first.unwrap_or(at);
                text = format!("({}){}", inner.go_string(), fields_text(&fields));
                Operand::Chain(Box::new(inner), fields)
            }
            other => {
                let token = Token {
                    kind: other,
                    ..token
                };
                return Err(SyntaxError::new(
                    format!("unexpected {} in operand", go_item(&token)),
                    token.line,
                ));
            }
        };
        let text = match &operand {
            Operand::Dot => ".".to_string(),
            Operand::Nil => "nil".to_string(),
            Operand::Bool(b) => b.to_string(),
            _ => text,
        };
        let span = Span {
            line: at.0,
            col: at.1,
            text: Rc::from(text),
        };
        Ok((operand, span))
    }
}

/// A token as Go's parser names it in an error: `EOF`, `<if>` for a keyword, else its text quoted (cut after 10
/// characters).
fn go_item(token: &Token) -> String {
    let text = match &token.kind {
        TokenKind::Text(text) => text.clone(),
        TokenKind::Open => "{{".into(),
        TokenKind::Close => "}}".into(),
        TokenKind::Ident(name) => {
            return if KEYWORDS.contains(&name.as_str()) {
                format!("<{name}>")
            } else {
                super::format::quote(name)
            };
        }
        TokenKind::Field(name) => format!(".{name}"),
        TokenKind::Variable(name) => name.clone(),
        TokenKind::Dot => return "<.>".into(),
        TokenKind::Str(_) | TokenKind::Char(_) | TokenKind::Number(_) => token.raw.clone(),
        TokenKind::Bool(b) => b.to_string(),
        TokenKind::Nil => return "<nil>".into(),
        TokenKind::LeftParen => "(".into(),
        TokenKind::RightParen => ")".into(),
        TokenKind::Pipe => "|".into(),
        TokenKind::Declare => ":=".into(),
        TokenKind::Assign => "=".into(),
        TokenKind::Comma => ",".into(),
    };
    if text.chars().count() > 10 {
        let cut: String = text.chars().take(10).collect();
        format!("{}...", super::format::quote(&cut))
    } else {
        super::format::quote(&text)
    }
}

/// Go's keywords, which it names as `<if>` in errors.
const KEYWORDS: [&str; 10] = [
    "block", "break", "continue", "define", "else", "end", "if", "range", "template", "with",
];

/// A `template` node's location (its name) and how Go prints it: `{{template "name" pipeline}}`.
fn template_span((line, col): (u32, u32), name: &str, pipeline: Option<&Pipeline>) -> Span {
    let quoted = super::format::quote(name);
    let text = match pipeline {
        Some(pipeline) => format!("{{{{template {quoted} {}}}}}", pipeline.go_string()),
        None => format!("{{{{template {quoted}}}}}"),
    };
    Span {
        line,
        col,
        text: Rc::from(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pipelines_and_chains() {
        let parsed =
            parse(r#"{{ $x := .Values.a | default "b" | quote }}{{ (index . 0).Name }}"#).unwrap();
        let Node::Action(pipeline) = &parsed.root[0] else {
            panic!("not an action")
        };
        assert_eq!(pipeline.variables, vec!["$x".to_string()]);
        assert_eq!(pipeline.commands.len(), 3);
        assert_eq!(
            pipeline.commands[0].args[0],
            Operand::Field(vec!["Values".into(), "a".into()])
        );
        let Node::Action(chain) = &parsed.root[1] else {
            panic!("not an action")
        };
        assert!(
            matches!(&chain.commands[0].args[0], Operand::Chain(_, f) if f == &vec!["Name".to_string()])
        );
    }

    #[test]
    fn a_pipe_right_before_the_delimiter_ends_the_pipeline_as_in_go() {
        let parsed = parse("{{ .a | quote | }}{{ (.b | upper |) }}").unwrap();
        let Node::Action(pipeline) = &parsed.root[0] else {
            panic!("not an action")
        };
        assert_eq!(pipeline.commands.len(), 2);
        assert!(parse("{{ .a | | quote }}").is_err());
        assert!(parse("{{ | quote }}").is_err());
    }

    #[test]
    fn a_variable_used_outside_its_scope_is_refused_at_parse_time_as_in_go() {
        let undefined = |source: &str| parse(source).map(|_| ()).unwrap_err().message;
        assert_eq!(undefined("{{ $x }}"), "undefined variable \"$x\"");
        assert_eq!(
            undefined("{{ if .a }}{{ $x := 1 }}{{ end }}{{ $x }}"),
            "undefined variable \"$x\""
        );
        assert_eq!(
            undefined("{{ $y := 1 }}{{ define \"d\" }}{{ $y }}{{ end }}"),
            "undefined variable \"$y\""
        );
        assert!(parse("{{ $x := 1 }}{{ if .a }}{{ $x = 2 }}{{ $x }}{{ end }}{{ $x }}").is_ok());
        assert!(
            parse("{{ range $i, $v := .l }}{{ $i }}{{ $v }}{{ else }}{{ $i }}{{ end }}").is_ok()
        );
        assert!(
            parse("{{ with $x := .a }}{{ $x }}{{ else with $y := .b }}{{ $x }}{{ $y }}{{ end }}")
                .is_ok()
        );
    }

    #[test]
    fn else_if_nests_and_shares_end() {
        let parsed = parse("{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}D").unwrap();
        assert_eq!(parsed.root.len(), 2);
        let Node::If(branch) = &parsed.root[0] else {
            panic!("not an if")
        };
        let Node::If(nested) = &branch.otherwise[0] else {
            panic!("no else if")
        };
        assert_eq!(nested.otherwise, vec![Node::Text("C".into())]);
    }

    #[test]
    fn defines_and_blocks_are_collected() {
        let parsed = parse(r#"{{ define "a" }}x{{ end }}{{ block "b" . }}y{{ end }}"#).unwrap();
        assert_eq!(parsed.defines.len(), 2);
        assert!(matches!(&parsed.root[0], Node::Template { name, .. } if name == "b"));
    }

    #[test]
    fn reports_errors_with_lines() {
        let error = parse("a\n{{ if .x }}\nno end").unwrap_err();
        assert_eq!(error.line, 2);
        assert!(parse("{{ end }}").is_err());
        assert!(parse("{{ break }}").is_err());
        assert!(parse("{{ range . }}{{ break }}{{ end }}").is_ok());
        assert!(parse(&"{{ if 1 }}".repeat(200)).is_err());
    }
}
