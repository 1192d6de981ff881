//! One evaluation: a program with the external variables set, the main file evaluated (and called with the
//! top-level arguments when it is a function), the result as JSON.

use rsjsonnet_lang::arena::Arena;
use rsjsonnet_lang::program::{Program, Thunk, Value};
use weft_sdk::Source;

use crate::diagnostics::Diagnostic;
use crate::imports::SearchPath;
use crate::loader::Loader;
use crate::options::{Input, JsonnetOptions};

/// Evaluates the app's main file to JSON. `ext_vars` are the external variables (the parameters' and any the
/// renderer adds); the options give the main file, search path, top-level arguments and stack limit.
pub fn evaluate(
    source: &dyn Source,
    options: &JsonnetOptions,
    ext_vars: &[(String, Input)],
) -> Result<serde_json::Value, Diagnostic> {
    let arena = Arena::new();
    let mut program = Program::new(&arena);
    program.set_max_stack(options.max_stack);
    let ancestors = crate::imports::ancestors(source);
    let root = ancestors.last().cloned().unwrap_or_default();
    let project = crate::imports::project_root(source, &ancestors);
    let search = SearchPath::new(&options.jpath, &options.libs, &root, project.as_deref());
    let mut loader = Loader::new(source, search);

    for (name, input) in ext_vars {
        let thunk = input_thunk(&mut program, &mut loader, &format!("extCode.{name}"), input)?;
        let name = program.intern_str(name);
        program.add_ext_var(name, &thunk);
    }

    let text = source.read_file(&options.main).map_err(|e| Diagnostic {
        message: format!("cannot read the main file: {e}"),
        file: Some(options.main.clone()),
        line: None,
    })?;
    let main = loader.load_file(&mut program, &options.main, text)?;
    let mut value = program
        .eval_value(&main, &mut loader)
        .map_err(|e| loader.diagnose(&program, &e))?;

    // As with `jsonnet --tla-*`: a function is called with the arguments; any other value ignores them.
    if value.is_function() {
        let mut arguments = Vec::new();
        for (name, input) in &options.tlas {
            let thunk = input_thunk(&mut program, &mut loader, &format!("tlaCode.{name}"), input)?;
            arguments.push((program.intern_str(name), thunk));
        }
        let function = program.value_to_thunk(&value);
        value = program
            .eval_call(&function, &[], &arguments, &mut loader)
            .map_err(|e| loader.diagnose(&program, &e))?;
    }

    let json = program
        .manifest_json(&value, false)
        .map_err(|e| loader.diagnose(&program, &e))?;
    serde_json::from_str(&json)
        .map_err(|e| Diagnostic::new(format!("the output is not valid JSON: {e}")))
}

/// A parameter's value as a thunk: a string as it is, code loaded under the parameter's name.
fn input_thunk<'p>(
    program: &mut Program<'p>,
    loader: &mut Loader<'_, 'p>,
    name: &str,
    input: &Input,
) -> Result<Thunk<'p>, Diagnostic> {
    match input {
        Input::Text(text) => Ok(program.value_to_thunk(&Value::string(text))),
        Input::Code(code) => loader.load_code(program, name, code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use weft_sdk::source::{DirEntry, SourceError};

    /// Files in memory, counting reads.
    struct Files {
        files: Vec<(&'static str, &'static str)>,
        reads: RefCell<Vec<String>>,
    }

    impl Files {
        fn new(files: &[(&'static str, &'static str)]) -> Files {
            Files {
                files: files.to_vec(),
                reads: RefCell::new(Vec::new()),
            }
        }
    }

    impl Source for Files {
        fn read_file(&self, path: &str) -> Result<Vec<u8>, SourceError> {
            self.reads.borrow_mut().push(path.to_string());
            self.files
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, text)| text.as_bytes().to_vec())
                .ok_or_else(|| SourceError::NotFound(path.to_string()))
        }

        fn list_dir(&self, path: &str) -> Result<Vec<DirEntry>, SourceError> {
            // The app's directory is the repository's root here.
            if path.starts_with("..") {
                return Err(SourceError::NotAllowed(path.to_string()));
            }
            Ok(Vec::new())
        }
    }

    fn options(tlas: &[(&str, Input)]) -> JsonnetOptions {
        JsonnetOptions {
            tlas: tlas
                .iter()
                .map(|(name, input)| (name.to_string(), input.clone()))
                .collect(),
            ..JsonnetOptions::default()
        }
    }

    #[test]
    fn an_import_evaluated_again_is_not_read_again() {
        let files = Files::new(&[
            (
                "main.jsonnet",
                "local f(x) = (import 'a.libsonnet').n + x; [f(1), f(2), importstr 'lib/a.libsonnet']",
            ),
            ("lib/a.libsonnet", "{ n: 1 }"),
        ]);
        let value = evaluate(&files, &options(&[]), &[]).unwrap();
        assert_eq!(value, serde_json::json!([2, 3, "{ n: 1 }"]));
        let reads = files.reads.borrow();
        // Once for `import 'a.libsonnet'` (after `a.libsonnet` beside main was not found), once for the
        // differently written `importstr`.
        assert_eq!(
            *reads,
            [
                "jsonnetfile.json",
                "main.jsonnet",
                "a.libsonnet",
                "lib/a.libsonnet",
                "lib/a.libsonnet"
            ]
        );
    }

    #[test]
    fn functions_are_called_with_top_level_arguments() {
        let files = Files::new(&[("main.jsonnet", "function(a, b=2) { sum: a + b }")]);
        let tlas = [
            ("a", Input::Code("40".into())),
            ("b", Input::Code("2".into())),
        ];
        let value = evaluate(&files, &options(&tlas), &[]).unwrap();
        assert_eq!(value, serde_json::json!({"sum": 42}));

        let error = evaluate(&files, &options(&[]), &[]).unwrap_err();
        assert!(
            error.message.contains("no value for the parameter `a`"),
            "{error:?}"
        );
    }

    #[test]
    fn text_inputs_are_strings_and_code_inputs_are_evaluated() {
        let files = Files::new(&[("main.jsonnet", "[std.extVar('t'), std.extVar('c')]")]);
        let ext_vars = [
            ("t".to_string(), Input::Text("1 + 1".into())),
            ("c".to_string(), Input::Code("1 + 1".into())),
        ];
        let value = evaluate(&files, &options(&[]), &ext_vars).unwrap();
        assert_eq!(value, serde_json::json!(["1 + 1", 2]));
    }
}
