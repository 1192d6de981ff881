//! Tokens into an expression tree, following CEL's grammar and operator precedence (lowest first: `?:`, `||`,
//! `&&`, relations and `in`, `+ -`, `* / %`, unary `! -`, member access and calls). Macros (`has`, `all`,
//! `exists`, `exists_one`, `filter`, `map`) and function names are resolved here, so an unknown function is a
//! compile error rather than a surprise at run time. Optional selection (`a.?b`, `a[?k]`) and the `optional.*`
//! functions are parsed here too; optional list and map literal entries (`[?x]`, `{?k: v}`) are not supported.

use crate::CompileError;
use crate::lexer::{Token, TokenKind};

/// A literal value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Literal {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
}

/// Binary operators other than the logical ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinaryOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// The comprehension macros.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Comprehension {
    All,
    Exists,
    ExistsOne,
    Filter,
    Map,
}

/// The functions an expression may call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Function {
    Size,
    Contains,
    StartsWith,
    EndsWith,
    Matches,
    LowerAscii,
    UpperAscii,
    Trim,
    Int,
    Uint,
    Double,
    String,
    Bool,
    Dyn,
    // The strings extension (`split`, `join`, ...), as Kubernetes enables it; `indexOf` and `lastIndexOf` also take
    // a list, as Kubernetes' list library does.
    Split,
    Join,
    Replace,
    Substring,
    IndexOf,
    LastIndexOf,
    CharAt,
    // Optional values: `optional.of(x)`, `optional.none()`, `optional.ofNonZeroValue(x)`, and the methods
    // `hasValue()`, `value()`, `orValue(default)`, `or(other)`.
    OptionalOf,
    OptionalNone,
    OptionalOfNonZeroValue,
    HasValue,
    Value,
    OrValue,
    Or,
}

impl Function {
    fn by_name(name: &str) -> Option<Function> {
        Some(match name {
            "size" => Function::Size,
            "contains" => Function::Contains,
            "startsWith" => Function::StartsWith,
            "endsWith" => Function::EndsWith,
            "matches" => Function::Matches,
            "lowerAscii" => Function::LowerAscii,
            "upperAscii" => Function::UpperAscii,
            "trim" => Function::Trim,
            "int" => Function::Int,
            "uint" => Function::Uint,
            "double" => Function::Double,
            "string" => Function::String,
            "bool" => Function::Bool,
            "dyn" => Function::Dyn,
            "split" => Function::Split,
            "join" => Function::Join,
            "replace" => Function::Replace,
            "substring" => Function::Substring,
            "indexOf" => Function::IndexOf,
            "lastIndexOf" => Function::LastIndexOf,
            "charAt" => Function::CharAt,
            "hasValue" => Function::HasValue,
            "value" => Function::Value,
            "orValue" => Function::OrValue,
            "or" => Function::Or,
            _ => return None,
        })
    }
}

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    Literal(Literal),
    Ident(String),
    Select(Box<Expr>, String),
    /// `target.?field`: an optional value, none when the field is absent.
    OptSelect(Box<Expr>, String),
    Has(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    /// `target[?index]`: an optional value, none when the key or index is absent.
    OptIndex(Box<Expr>, Box<Expr>),
    Call(Function, Vec<Expr>),
    List(Vec<Expr>),
    Map(Vec<(Expr, Expr)>),
    Not(Box<Expr>),
    Negate(Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Conditional(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `range.macro(var, step)`, or `range.map(var, filter, step)` (`filter` only for `map`).
    Comprehension {
        kind: Comprehension,
        range: Box<Expr>,
        var: String,
        filter: Option<Box<Expr>>,
        step: Box<Expr>,
    },
}

/// How deep expressions may nest, so a hostile expression cannot exhaust the stack.
const MAX_DEPTH: usize = 128;

/// Parses tokens into an expression.
pub(crate) fn parse(tokens: Vec<Token>) -> Result<Expr, CompileError> {
    let mut parser = Parser {
        tokens,
        next: 0,
        depth: 0,
    };
    let expr = parser.expr()?;
    match parser.peek() {
        TokenKind::End => Ok(expr),
        other => Err(parser.error(format!("unexpected {}", describe(other)))),
    }
}

struct Parser {
    tokens: Vec<Token>,
    next: usize,
    depth: usize,
}

fn describe(kind: &TokenKind) -> String {
    match kind {
        TokenKind::Int(v) => format!("number {v}"),
        TokenKind::Uint(v) => format!("number {v}u"),
        TokenKind::Double(v) => format!("number {v}"),
        TokenKind::Str(s) => format!("string {s:?}"),
        TokenKind::Ident(name) => format!("{name:?}"),
        TokenKind::True => "true".into(),
        TokenKind::False => "false".into(),
        TokenKind::Null => "null".into(),
        TokenKind::In => "in".into(),
        TokenKind::Punct(p) => format!("{p:?}"),
        TokenKind::End => "end of expression".into(),
    }
}

impl Parser {
    fn peek(&self) -> &TokenKind {
        &self.tokens[self.next.min(self.tokens.len() - 1)].kind
    }

    fn at(&self) -> usize {
        self.tokens[self.next.min(self.tokens.len() - 1)].at
    }

    fn error(&self, message: impl Into<String>) -> CompileError {
        CompileError::new(self.at(), message)
    }

    fn advance(&mut self) -> TokenKind {
        let kind = self.peek().clone();
        if self.next < self.tokens.len() - 1 {
            self.next += 1;
        }
        kind
    }

    fn eat(&mut self, punct: &str) -> bool {
        if matches!(self.peek(), TokenKind::Punct(p) if *p == punct) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, punct: &str) -> Result<(), CompileError> {
        if self.eat(punct) {
            Ok(())
        } else {
            Err(self.error(format!(
                "expected {punct:?}, found {}",
                describe(self.peek())
            )))
        }
    }

    fn expr(&mut self) -> Result<Expr, CompileError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("expression nests too deeply"));
        }
        let condition = self.or()?;
        let expr = if self.eat("?") {
            let then = self.or()?;
            self.expect(":")?;
            let otherwise = self.expr()?;
            Expr::Conditional(Box::new(condition), Box::new(then), Box::new(otherwise))
        } else {
            condition
        };
        self.depth -= 1;
        Ok(expr)
    }

    fn or(&mut self) -> Result<Expr, CompileError> {
        let mut left = self.and()?;
        while self.eat("||") {
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, CompileError> {
        let mut left = self.relation()?;
        while self.eat("&&") {
            left = Expr::And(Box::new(left), Box::new(self.relation()?));
        }
        Ok(left)
    }

    fn relation(&mut self) -> Result<Expr, CompileError> {
        let mut left = self.addition()?;
        loop {
            let op = match self.peek() {
                TokenKind::Punct("==") => BinaryOp::Eq,
                TokenKind::Punct("!=") => BinaryOp::Ne,
                TokenKind::Punct("<") => BinaryOp::Lt,
                TokenKind::Punct("<=") => BinaryOp::Le,
                TokenKind::Punct(">") => BinaryOp::Gt,
                TokenKind::Punct(">=") => BinaryOp::Ge,
                TokenKind::In => BinaryOp::In,
                _ => return Ok(left),
            };
            self.advance();
            left = Expr::Binary(op, Box::new(left), Box::new(self.addition()?));
        }
    }

    fn addition(&mut self) -> Result<Expr, CompileError> {
        let mut left = self.multiplication()?;
        loop {
            let op = match self.peek() {
                TokenKind::Punct("+") => BinaryOp::Add,
                TokenKind::Punct("-") => BinaryOp::Sub,
                _ => return Ok(left),
            };
            self.advance();
            left = Expr::Binary(op, Box::new(left), Box::new(self.multiplication()?));
        }
    }

    fn multiplication(&mut self) -> Result<Expr, CompileError> {
        let mut left = self.unary()?;
        loop {
            let op = match self.peek() {
                TokenKind::Punct("*") => BinaryOp::Mul,
                TokenKind::Punct("/") => BinaryOp::Div,
                TokenKind::Punct("%") => BinaryOp::Rem,
                _ => return Ok(left),
            };
            self.advance();
            left = Expr::Binary(op, Box::new(left), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Expr, CompileError> {
        if self.eat("!") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat("-") {
            // A negative literal is a literal (so `-9223372036854775808` is in range).
            return Ok(match self.peek().clone() {
                TokenKind::Int(v) if !self.followed_by_member() => {
                    self.advance();
                    Expr::Literal(Literal::Int(-v))
                }
                TokenKind::Double(v) if !self.followed_by_member() => {
                    self.advance();
                    Expr::Literal(Literal::Double(-v))
                }
                _ => Expr::Negate(Box::new(self.unary()?)),
            });
        }
        self.member()
    }

    fn followed_by_member(&self) -> bool {
        matches!(
            self.tokens.get(self.next + 1).map(|t| &t.kind),
            Some(TokenKind::Punct("." | "["))
        )
    }

    fn member(&mut self) -> Result<Expr, CompileError> {
        let mut expr = self.primary()?;
        loop {
            if self.eat(".") {
                let optional = self.eat("?");
                let field = match self.advance() {
                    TokenKind::Ident(name) => name,
                    other => {
                        return Err(self
                            .error(format!("expected a field name, found {}", describe(&other))));
                    }
                };
                if optional {
                    expr = Expr::OptSelect(Box::new(expr), field);
                } else if self.eat("(") {
                    let args = self.arguments(")")?;
                    expr = self.method(expr, &field, args)?;
                } else {
                    expr = Expr::Select(Box::new(expr), field);
                }
            } else if self.eat("[") {
                let optional = self.eat("?");
                let index = self.expr()?;
                self.expect("]")?;
                expr = if optional {
                    Expr::OptIndex(Box::new(expr), Box::new(index))
                } else {
                    Expr::Index(Box::new(expr), Box::new(index))
                };
            } else {
                return Ok(expr);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, CompileError> {
        let at = self.at();
        match self.advance() {
            TokenKind::Int(v) => Ok(Expr::Literal(Literal::Int(v))),
            TokenKind::Uint(v) => Ok(Expr::Literal(Literal::Uint(v))),
            TokenKind::Double(v) => Ok(Expr::Literal(Literal::Double(v))),
            TokenKind::Str(s) => Ok(Expr::Literal(Literal::Str(s))),
            TokenKind::True => Ok(Expr::Literal(Literal::Bool(true))),
            TokenKind::False => Ok(Expr::Literal(Literal::Bool(false))),
            TokenKind::Null => Ok(Expr::Literal(Literal::Null)),
            TokenKind::Punct("(") => {
                let expr = self.expr()?;
                self.expect(")")?;
                Ok(expr)
            }
            TokenKind::Punct("[") => Ok(Expr::List(self.arguments("]")?)),
            TokenKind::Punct("{") => self.map_literal(),
            TokenKind::Punct(".") => match self.advance() {
                TokenKind::Ident(name) => self.ident_or_call(name, at),
                other => Err(self.error(format!(
                    "expected a name after '.', found {}",
                    describe(&other)
                ))),
            },
            TokenKind::Ident(name) => self.ident_or_call(name, at),
            other => Err(CompileError::new(
                at,
                format!("unexpected {}", describe(&other)),
            )),
        }
    }

    fn ident_or_call(&mut self, name: String, at: usize) -> Result<Expr, CompileError> {
        if !self.eat("(") {
            return Ok(Expr::Ident(name));
        }
        let mut args = self.arguments(")")?;
        if name == "has" {
            return match (args.pop(), args.is_empty()) {
                (Some(Expr::Select(target, field)), true) => Ok(Expr::Has(target, field)),
                _ => Err(CompileError::new(
                    at,
                    "has() takes one field selection, e.g. has(self.status.ready)",
                )),
            };
        }
        let function = Function::by_name(&name)
            .ok_or_else(|| CompileError::new(at, format!("unknown function {name:?}")))?;
        check_arity(function, args.len(), false).map_err(|m| CompileError::new(at, m))?;
        Ok(Expr::Call(function, args))
    }

    fn method(
        &mut self,
        target: Expr,
        name: &str,
        mut args: Vec<Expr>,
    ) -> Result<Expr, CompileError> {
        let kind = match name {
            "all" => Some(Comprehension::All),
            "exists" => Some(Comprehension::Exists),
            "exists_one" => Some(Comprehension::ExistsOne),
            "filter" => Some(Comprehension::Filter),
            "map" => Some(Comprehension::Map),
            _ => None,
        };
        if let Some(kind) = kind {
            let allowed = if kind == Comprehension::Map {
                2..=3
            } else {
                2..=2
            };
            if !allowed.contains(&args.len()) {
                return Err(self.error(format!("{name}() takes a variable and an expression")));
            }
            let step = args.pop().map(Box::new);
            let filter = (args.len() == 2)
                .then(|| args.pop().map(Box::new))
                .flatten();
            let var = match args.pop() {
                Some(Expr::Ident(var)) => var,
                _ => return Err(self.error(format!("{name}() needs a variable name first"))),
            };
            return Ok(Expr::Comprehension {
                kind,
                range: Box::new(target),
                var,
                filter,
                step: step.unwrap_or_else(|| Box::new(Expr::Literal(Literal::Null))),
            });
        }
        if matches!(&target, Expr::Ident(namespace) if namespace == "optional") {
            let function = match name {
                "of" => Function::OptionalOf,
                "none" => Function::OptionalNone,
                "ofNonZeroValue" => Function::OptionalOfNonZeroValue,
                _ => return Err(self.error(format!("unknown function \"optional.{name}\""))),
            };
            check_arity(function, args.len(), false).map_err(|m| self.error(m))?;
            return Ok(Expr::Call(function, args));
        }
        let function = Function::by_name(name)
            .ok_or_else(|| self.error(format!("unknown function {name:?}")))?;
        check_arity(function, args.len(), true).map_err(|m| self.error(m))?;
        args.insert(0, target);
        Ok(Expr::Call(function, args))
    }

    fn arguments(&mut self, close: &str) -> Result<Vec<Expr>, CompileError> {
        let mut items = Vec::new();
        while !self.eat(close) {
            items.push(self.expr()?);
            if !self.eat(",") {
                self.expect(close)?;
                break;
            }
        }
        Ok(items)
    }

    fn map_literal(&mut self) -> Result<Expr, CompileError> {
        let mut entries = Vec::new();
        while !self.eat("}") {
            let key = self.expr()?;
            self.expect(":")?;
            let value = self.expr()?;
            entries.push((key, value));
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(Expr::Map(entries))
    }
}

/// Whether a function takes that many arguments (a method's target not counted).
fn check_arity(function: Function, args: usize, method: bool) -> Result<(), String> {
    let total = args + usize::from(method);
    // How many arguments, the target of a method call included.
    let (least, most) = match function {
        Function::Contains | Function::StartsWith | Function::EndsWith | Function::Matches => {
            (2, 2)
        }
        Function::OrValue | Function::Or | Function::CharAt => (2, 2),
        Function::Split | Function::Substring | Function::IndexOf | Function::LastIndexOf => (2, 3),
        Function::Join => (1, 2),
        Function::Replace => (3, 4),
        Function::OptionalNone => (0, 0),
        _ => (1, 1),
    };
    let method_only = matches!(
        function,
        Function::Contains
            | Function::StartsWith
            | Function::EndsWith
            | Function::LowerAscii
            | Function::UpperAscii
            | Function::Trim
            | Function::Split
            | Function::Join
            | Function::Replace
            | Function::Substring
            | Function::IndexOf
            | Function::LastIndexOf
            | Function::CharAt
            | Function::HasValue
            | Function::Value
            | Function::OrValue
            | Function::Or
    );
    if method_only && !method {
        return Err(format!(
            "{function:?} is called as a method, e.g. x.{}(...)",
            lower_first(function)
        ));
    }
    if total < least || total > most {
        let (least, most) = (
            least.saturating_sub(usize::from(method)),
            most.saturating_sub(usize::from(method)),
        );
        let count = if least == most {
            least.to_string()
        } else {
            format!("{least} to {most}")
        };
        return Err(format!(
            "{} takes {count} argument(s)",
            lower_first(function)
        ));
    }
    Ok(())
}

fn lower_first(function: Function) -> String {
    let name = format!("{function:?}");
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_ascii_lowercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::tokenize;

    fn parse_str(source: &str) -> Result<Expr, CompileError> {
        parse(tokenize(source)?)
    }

    #[test]
    fn precedence_follows_cel() {
        let expr = parse_str("a || b && c == 1 + 2 * 3").unwrap();
        let Expr::Or(_, right) = expr else { panic!() };
        let Expr::And(_, right) = *right else {
            panic!()
        };
        let Expr::Binary(BinaryOp::Eq, _, right) = *right else {
            panic!()
        };
        assert!(matches!(*right, Expr::Binary(BinaryOp::Add, _, _)));
        assert!(matches!(
            parse_str("a ? b : c ? d : e").unwrap(),
            Expr::Conditional(..)
        ));
        assert_eq!(parse_str("-3").unwrap(), Expr::Literal(Literal::Int(-3)));
    }

    #[test]
    fn macros_and_functions_are_resolved() {
        assert!(matches!(
            parse_str("self.status.conditions.exists(c, c.type == 'Ready')").unwrap(),
            Expr::Comprehension {
                kind: Comprehension::Exists,
                ..
            }
        ));
        assert!(matches!(
            parse_str("has(self.status)").unwrap(),
            Expr::Has(..)
        ));
        assert!(matches!(
            parse_str("l.map(x, x > 1, x * 2)").unwrap(),
            Expr::Comprehension {
                filter: Some(_),
                ..
            }
        ));
        assert!(matches!(
            parse_str("size(l)").unwrap(),
            Expr::Call(Function::Size, _)
        ));
        assert!(matches!(
            parse_str("'ab'.startsWith('a')").unwrap(),
            Expr::Call(Function::StartsWith, _)
        ));
    }

    #[test]
    fn errors_say_where_and_what() {
        let error = parse_str("self.status.conditions.filter(c, c.type == ").unwrap_err();
        assert!(
            error.message.contains("unexpected end of expression"),
            "{error}"
        );
        assert!(
            parse_str("frobnicate(1)")
                .unwrap_err()
                .message
                .contains("unknown function")
        );
        assert!(parse_str("has(x)").is_err());
        assert!(parse_str("l.all(1, true)").is_err());
        assert!(parse_str("contains('a', 'b')").is_err());
        assert!(parse_str("(a").is_err());
        assert!(parse_str("a b").is_err());
        assert!(
            parse_str(&"(".repeat(500))
                .unwrap_err()
                .message
                .contains("nests too deeply")
        );
    }
}
