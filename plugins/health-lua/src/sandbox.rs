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
//! - The script is compiled once per call: the first check of a batch compiles it, the others load the bytecode
//!   that compilation produced (in the same instance, never from outside), each into its own fresh state.
//! - Loops and allocation are bounded by the host (the call's deadline and memory cap), not here: inside Wasm a
//!   script that never ends is interrupted and one that allocates without end hits the memory limit, and either
//!   way the call ends with a host-detected failure that the engine reports as `unknown`.

use std::cell::RefCell;
use std::rc::Rc;

use omnilua::{Function, Lua, LuaError, LuaVersion, Table, Value, Variadic};
use weft_sdk::Health;

use crate::convert::to_lua;
use crate::verdict::{from_returned, type_name};

/// The name errors give the script (`health.lua:3: attempt to index a nil value`).
const CHUNK_NAME: &str = "=health.lua";

/// Globals removed from the base library: they read files.
const REMOVED_GLOBALS: [&str; 2] = ["dofile", "loadfile"];

thread_local! {
    /// The last script compiled on this thread and its bytecode: a batch compiles its script once.
    static COMPILED: RefCell<Option<(String, Rc<[u8]>)>> = const { RefCell::new(None) };
}

/// Runs a script against an object in a fresh state: its verdict (`None` for no opinion), or why it has none that
/// can be used (a syntax or runtime error, a return value that is not a table), as the message of an `unknown`.
pub fn run(script: &str, object: &serde_json::Value) -> Result<Option<Health>, String> {
    let lua = new_state().map_err(|e| e.to_string())?;
    let obj = to_lua(&lua, object).map_err(|e| e.to_string())?;
    lua.globals().set("obj", obj).map_err(|e| e.to_string())?;
    let chunk = compile(&lua, script).map_err(|e| e.to_string())?;
    let returned: Value = chunk.call(()).map_err(|e| e.to_string())?;
    from_returned(&returned)
}

/// The script as a function of `lua`: from the cached bytecode when this thread compiled the same script before,
/// else compiled now (and its bytecode cached).
fn compile(lua: &Lua, script: &str) -> omnilua::Result<Function> {
    let cached = COMPILED.with(|cache| {
        cache
            .borrow()
            .as_ref()
            .filter(|(source, _)| source == script)
            .map(|(_, bytecode)| bytecode.clone())
    });
    if let Some(bytecode) = cached {
        return lua.load(&*bytecode).set_name(CHUNK_NAME).into_function();
    }
    let function = lua.load(script).set_name(CHUNK_NAME).into_function()?;
    if let Ok(bytecode) = function.dump(false) {
        COMPILED.with(|cache| *cache.borrow_mut() = Some((script.to_string(), bytecode.into())));
    }
    Ok(function)
}

/// A state with the libraries of [the module docs](self), nothing else.
pub fn new_state() -> omnilua::Result<Lua> {
    let lua = Lua::try_new_versioned(LuaVersion::V52)?;
    let globals = lua.globals();
    for name in REMOVED_GLOBALS {
        globals.raw_set(name, Value::Nil)?;
    }
    let os = crate::os::library(&lua)?;
    globals.raw_set("os", &os)?;
    for name in ["load", "loadstring"] {
        if let Value::Function(original) = globals.raw_get::<_, Value>(name)? {
            globals.raw_set(name, text_only(&lua, original)?)?;
        }
    }
    let safe_os = os.clone();
    let require = lua.create_function(move |_, name: String| {
        if name == "os" {
            Ok(safe_os.clone())
        } else {
            Err(LuaError::runtime(format_args!(
                "module '{name}' not found: a health check may only require \"os\""
            ))
            .into())
        }
    })?;
    globals.raw_set("require", require)?;
    let print = lua.create_function(|_, args: Variadic<Value>| {
        let words: Vec<String> = args.into_vec().iter().map(describe).collect();
        weft_sdk::log::debug(&words.join("\t"));
        Ok(())
    })?;
    globals.raw_set("print", print)?;
    let table: Table = globals.raw_get("table")?;
    if matches!(globals.raw_get::<_, Value>("unpack")?, Value::Nil) {
        globals.raw_set("unpack", table.raw_get::<_, Value>("unpack")?)?;
    }
    let getn = lua.create_function(|_, t: Table| t.len())?;
    table.raw_set("getn", getn)?;
    Ok(lua)
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
