//! The Lua state a check runs in: Argo CD's libraries and nothing that reaches outside.
//!
//! - Lua 5.2 mode: Lua 5.1's semantics (one number type, 5.1's string library) plus `goto`, which is the dialect
//!   of Argo CD's gopher-lua. `unpack` and `table.getn` are defined for scripts written for 5.1.
//! - Libraries: base, table, string, math, and an `os` of `time`, `clock` and `date` only (written in `os.rs`).
//!   `os.time()` is the host's clock when the call started, `os.clock()` the time the call has run, and `os.date`
//!   formats in UTC.
//! - No `io` (it is not even built), no `dofile` or `loadfile`. `load` and `loadstring` take Lua source only, never
//!   precompiled bytecode. `require` returns the safe `os` for `"os"` (Argo CD's `local os = require("os")`) and
//!   fails for anything else. `print` goes to the host's log.
//! - The script is compiled once, by the host when it loads the configuration ([`crate::precompiled`]); each
//!   check loads that bytecode into its own fresh state. Settings without bytecode are compiled by the first check
//!   of a call, and the others load what that produced (in the same instance).
//! - `string.upper` and `string.lower` map UTF-8 text by character, as gopher-lua does (see `case.rs`).
//! - A state builds only the sandbox's own globals (`os`, `require`, `print`, `table.getn`, `unpack`, the
//!   source-only `load`, the Unicode-aware `upper`/`lower`) that the script can reach by name ([`Needs`]); the
//!   others stay out of its reach anyway.
//! - Loops and allocation are bounded by the host (the call's deadline and memory cap), not here: inside Wasm a
//!   script that never ends is interrupted and one that allocates without end hits the memory limit, and either
//!   way the call ends with a host-detected failure that the engine reports as `unknown`.

use std::rc::Rc;

use omnilua::{Function, Lua, LuaError, Table, Value, Variadic};
use weft_sdk::Health;

use crate::case::{self, Case};
use crate::convert::to_lua;
use crate::needs::Needs;
use crate::precompiled::{CHUNK_NAME, VERSION, load_source};
use crate::verdict::{from_returned, type_name};

/// Globals removed from the base library: they read files.
const REMOVED_GLOBALS: [&str; 2] = ["dofile", "loadfile"];

/// What a check runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// Bytecode for this build's engine (the host's, checked by [`crate::precompiled::Precompiled`], or what this
    /// instance compiled from source), and the optional globals its source can reach.
    Bytecode {
        /// The bytecode.
        bytecode: Rc<[u8]>,
        /// What the state it runs in gets.
        needs: Needs,
    },
    /// Lua source, compiled by the first check that runs it.
    Source(String),
    /// Nothing that can run: every check is `unknown` with this message (unusable bytecode, a syntax error).
    Unusable(String),
}

/// Runs a program against an object in a fresh state: its verdict (`None` for no opinion), or why it has none that
/// can be used (a syntax or runtime error, a return value that is not a table), as the message of an `unknown`.
/// Source is compiled here, and `program` becomes its bytecode (or the syntax error) for the next check.
pub fn run(program: &mut Program, object: &serde_json::Value) -> Result<Option<Health>, String> {
    run_script(program, object, None, from_returned)
}

/// Runs a program against an object in a fresh state and reads what it returned with `read`, or says why it
/// could not run (a syntax or runtime error, unusable bytecode). With `action_params`, the state also has Argo
/// CD's `actionParams` global: a table of the parameters' names to their values, as strings.
pub(crate) fn run_script<T>(
    program: &mut Program,
    object: &serde_json::Value,
    action_params: Option<&[(String, String)]>,
    read: impl FnOnce(&Value) -> Result<T, String>,
) -> Result<T, String> {
    let needs = match program {
        Program::Bytecode { needs, .. } => *needs,
        Program::Source(source) => Needs::of(source),
        Program::Unusable(message) => return Err(message.clone()),
    };
    let lua = new_state(needs).map_err(|e| e.to_string())?;
    let outcome = run_in(&lua, program, object, action_params, read);
    retire(lua);
    outcome
}

fn run_in<T>(
    lua: &Lua,
    program: &mut Program,
    object: &serde_json::Value,
    action_params: Option<&[(String, String)]>,
    read: impl FnOnce(&Value) -> Result<T, String>,
) -> Result<T, String> {
    let obj = to_lua(lua, object).map_err(|e| e.to_string())?;
    let globals = lua.globals();
    globals.raw_set("obj", obj).map_err(|e| e.to_string())?;
    if let Some(params) = action_params {
        let table = lua.create_table().map_err(|e| e.to_string())?;
        for (name, value) in params {
            table
                .raw_set(name.as_str(), value.as_str())
                .map_err(|e| e.to_string())?;
        }
        globals
            .raw_set("actionParams", table)
            .map_err(|e| e.to_string())?;
    }
    let chunk = load(lua, program)?;
    let returned: Value = chunk.call(()).map_err(|e| e.to_string())?;
    read(&returned)
}

/// Inside Wasm, a finished check's state is left in memory while the instance is small: the instance and its
/// memory are discarded when the call returns, and tearing a state down costs a one-object check about a twelfth
/// of its time. Past this size (a long batch) states are freed, so later checks reuse their memory.
#[cfg(target_arch = "wasm32")]
const KEEP_FINISHED_STATES_BELOW: usize = 4 << 20;

/// Ends a check's state (see `KEEP_FINISHED_STATES_BELOW`; natively, always freed).
fn retire(lua: Lua) {
    #[cfg(target_arch = "wasm32")]
    if core::arch::wasm32::memory_size::<0>() * 65536 < KEEP_FINISHED_STATES_BELOW {
        std::mem::forget(lua);
        return;
    }
    drop(lua);
}

/// The program as a function of `lua`.
fn load(lua: &Lua, program: &mut Program) -> Result<Function, String> {
    match program {
        Program::Bytecode { bytecode, .. } => lua
            .load(&**bytecode)
            .set_name(CHUNK_NAME)
            .into_function()
            .map_err(|e| e.to_string()),
        Program::Source(source) => match load_source(lua, source) {
            Ok(function) => {
                if let Ok(bytecode) = function.dump(false) {
                    let needs = Needs::of(source);
                    *program = Program::Bytecode {
                        bytecode: bytecode.into(),
                        needs,
                    };
                }
                Ok(function)
            }
            Err(message) => {
                *program = Program::Unusable(message.clone());
                Err(message)
            }
        },
        Program::Unusable(message) => Err(message.clone()),
    }
}

/// A state with the libraries of [the module docs](self), nothing else; of the sandbox's own globals only those in
/// `needs` (the others are out of the script's reach, see [`Needs`]).
pub fn new_state(needs: Needs) -> omnilua::Result<Lua> {
    let lua = Lua::try_new_versioned(VERSION)?;
    let globals = lua.globals();
    for name in REMOVED_GLOBALS {
        globals.raw_set(name, Value::Nil)?;
    }
    for name in ["load", "loadstring"] {
        let replacement = match globals.raw_get::<_, Value>(name)? {
            Value::Function(original) if needs.load => Value::Function(text_only(&lua, original)?),
            _ => Value::Nil,
        };
        globals.raw_set(name, replacement)?;
    }
    if needs.os {
        let os = crate::os::library(&lua)?;
        globals.raw_set("os", &os)?;
        if needs.require {
            globals.raw_set("require", require(&lua, os)?)?;
        }
    }
    if needs.print {
        let print = lua.create_function(|_, args: Variadic<Value>| {
            let words: Vec<String> = args.into_vec().iter().map(describe).collect();
            weft_sdk::log::debug(&words.join("\t"));
            Ok(())
        })?;
        globals.raw_set("print", print)?;
    }
    if needs.upper || needs.lower {
        let strings: Table = globals.raw_get("string")?;
        for (wanted, case) in [(needs.upper, Case::Upper), (needs.lower, Case::Lower)] {
            if wanted {
                case::install(&lua, &strings, case)?;
            }
        }
    }
    if needs.unpack || needs.getn {
        let table: Table = globals.raw_get("table")?;
        if needs.unpack && matches!(globals.raw_get::<_, Value>("unpack")?, Value::Nil) {
            globals.raw_set("unpack", table.raw_get::<_, Value>("unpack")?)?;
        }
        if needs.getn {
            table.raw_set("getn", lua.create_function(|_, t: Table| t.len())?)?;
        }
    }
    Ok(lua)
}

/// `require`, which knows one module: the safe `os`.
fn require(lua: &Lua, os: Table) -> omnilua::Result<Function> {
    lua.create_function(move |_, name: String| {
        if name == "os" {
            Ok(os.clone())
        } else {
            Err(LuaError::runtime(format_args!(
                "module '{name}' not found: a health check may only require \"os\""
            ))
            .into())
        }
    })
}

/// `load` (or `loadstring`) that only accepts Lua source: the mode argument is forced to `"t"`.
fn text_only(lua: &Lua, original: Function) -> omnilua::Result<Function> {
    lua.create_function(move |lua, args: Variadic<Value>| {
        let mut args = args.into_vec();
        if args.len() < 3 {
            args.resize(3, Value::Nil);
        }
        args[2] = Value::String(lua.create_string("t")?);
        original.call::<_, Variadic<Value>>(Variadic::from(args))
    })
}

/// A value as `print` shows it.
fn describe(value: &Value) -> String {
    match value {
        Value::Nil => "nil".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => format!("{}", *n as i64),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.to_str().unwrap_or_else(|_| "<bytes>".into()),
        other => type_name(other).into(),
    }
}
