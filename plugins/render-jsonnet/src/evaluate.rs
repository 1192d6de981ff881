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
    let mut loader = Loader::new(source, SearchPath::new(&options.jpath));

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
