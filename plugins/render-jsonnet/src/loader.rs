//! Loading Jsonnet texts into a program: files of the tree (the main file and what it imports, read only through
//! the source) and code given as parameters. The loader is also the evaluator's callbacks: `import`, `importstr`,
//! `importbin` and `std.trace` land here.

use std::collections::HashMap;

use rsjsonnet_lang::interner::InternedStr;
use rsjsonnet_lang::program::{
    Callbacks, EvalError, EvalStackTraceItem, ImportError, NativeError, Program, Thunk, Value,
};
use rsjsonnet_lang::span::SpanId;
use weft_sdk::Source;

use crate::diagnostics::{self, Diagnostic};
use crate::imports::SearchPath;
use crate::source_map::{Origin, SourceMap};

/// Loads texts and resolves imports for one evaluation.
pub struct Loader<'a, 'p> {
    source: &'a dyn Source,
    search: SearchPath,
    map: SourceMap,
    /// Where each import string leads, by importing directory and import string: an import evaluated again
    /// (inside a function, say) is not searched or read again, which keeps within the host's read budget.
    resolved: HashMap<(String, String), String>,
    /// The contents of every imported file, by tree path.
    contents: HashMap<String, Vec<u8>>,
    /// Imported Jsonnet by tree path: importing a file twice gives the same value, as the language requires.
    code: HashMap<String, Thunk<'p>>,
    /// Why the last import failed; the evaluator's own error only says that it did.
    import_failure: Option<Diagnostic>,
}

impl std::fmt::Debug for Loader<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loader")
            .field("search", &self.search)
            .field("imports", &self.code.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl<'a, 'p> Loader<'a, 'p> {
    pub fn new(source: &'a dyn Source, search: SearchPath) -> Self {
        Loader {
            source,
            search,
            map: SourceMap::default(),
            resolved: HashMap::new(),
            contents: HashMap::new(),
            code: HashMap::new(),
            import_failure: None,
        }
    }

    /// Loads a file of the tree (not yet evaluated).
    pub fn load_file(
        &mut self,
        program: &mut Program<'p>,
        path: &str,
        text: Vec<u8>,
    ) -> Result<Thunk<'p>, Diagnostic> {
        self.load(program, Origin::File(path.to_string()), text)
    }

    /// Loads code given as a parameter, under the parameter's name.
    pub fn load_code(
        &mut self,
        program: &mut Program<'p>,
        name: &str,
        code: &str,
    ) -> Result<Thunk<'p>, Diagnostic> {
        self.load(
            program,
            Origin::Parameter(name.to_string()),
            code.as_bytes().to_vec(),
        )
    }

    fn load(
        &mut self,
        program: &mut Program<'p>,
        origin: Origin,
        text: Vec<u8>,
    ) -> Result<Thunk<'p>, Diagnostic> {
        let (context, _) = program.span_manager_mut().insert_source_context(text.len());
        let this_file = origin.name().to_string();
        let loaded = program.load_source(context, &text, true, &this_file);
        self.map.add(context, origin, text);
        loaded.map_err(|error| diagnostics::load_error(&error, program.span_manager(), &self.map))
    }

    /// Describes a failed evaluation, with the cause of a failed import when there was one.
    pub fn diagnose(&mut self, program: &Program<'p>, error: &EvalError) -> Diagnostic {
        diagnostics::eval_error(
            error,
            program.span_manager(),
            &self.map,
            self.import_failure.take(),
        )
    }

    /// The tree path of the file an import expression is in (`""`, the root, for code given as a parameter).
    fn importing_file(&self, program: &Program<'p>, from: SpanId) -> String {
        self.map
            .position(program.span_manager(), from)
            .and_then(|position| position.origin.file().map(str::to_string))
            .unwrap_or_default()
    }

    /// The tree path of an import's file, found and read on first use; on failure, keeps the reason for
    /// [`Loader::diagnose`].
    fn locate(
        &mut self,
        program: &Program<'p>,
        from: SpanId,
        import: &str,
    ) -> Result<String, ImportError> {
        let importing = self.importing_file(program, from);
        let dir = importing
            .rsplit_once('/')
            .map_or("", |(dir, _)| dir)
            .to_string();
        let key = (dir, import.to_string());
        if let Some(path) = self.resolved.get(&key) {
            return Ok(path.clone());
        }
        let (path, bytes) = self
            .search
            .resolve(self.source, &importing, import)
            .map_err(|failure| self.fail(Diagnostic::new(failure.to_string())))?;
        self.contents.entry(path.clone()).or_insert(bytes);
        self.resolved.insert(key, path.clone());
        Ok(path)
    }

    /// The contents of a located file.
    fn contents(&self, path: &str) -> Vec<u8> {
        self.contents.get(path).cloned().unwrap_or_default()
    }

    fn fail(&mut self, reason: Diagnostic) -> ImportError {
        self.import_failure = Some(reason);
        ImportError
    }
}

impl<'p> Callbacks<'p> for Loader<'_, 'p> {
    fn import(
        &mut self,
        program: &mut Program<'p>,
        from: SpanId,
        path: &str,
    ) -> Result<Thunk<'p>, ImportError> {
        let resolved = self.locate(program, from, path)?;
        if let Some(thunk) = self.code.get(&resolved) {
            return Ok(thunk.clone());
        }
        let text = self.contents(&resolved);
        let thunk = self
            .load_file(program, &resolved, text)
            .map_err(|reason| self.fail(reason))?;
        self.code.insert(resolved, thunk.clone());
        Ok(thunk)
    }

    fn import_str(
        &mut self,
        program: &mut Program<'p>,
        from: SpanId,
        path: &str,
    ) -> Result<String, ImportError> {
        let bytes = self.import_bin(program, from, path)?;
        String::from_utf8(bytes)
            .map_err(|_| self.fail(Diagnostic::new("the file is not UTF-8 text")))
    }

    fn import_bin(
        &mut self,
        program: &mut Program<'p>,
        from: SpanId,
        path: &str,
    ) -> Result<Vec<u8>, ImportError> {
        let resolved = self.locate(program, from, path)?;
        Ok(self.contents(&resolved))
    }

    fn trace(&mut self, program: &mut Program<'p>, message: &str, stack: &[EvalStackTraceItem]) {
        let at = stack
            .iter()
            .rev()
            .find_map(|item| match item {
                EvalStackTraceItem::Expr { span } => {
                    self.map.position(program.span_manager(), *span)
                }
                _ => None,
            })
            .map(|position| format!(" at {position}"))
            .unwrap_or_default();
        weft_sdk::log::info(&format!("std.trace{at}: {message}"));
    }

    fn native_call(
        &mut self,
        _program: &mut Program<'p>,
        _name: InternedStr<'p>,
        _args: &[Value<'p>],
    ) -> Result<Value<'p>, NativeError> {
        // No native functions are registered, so `std.native` never yields one to call.
        Err(NativeError)
    }
}
