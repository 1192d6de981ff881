//! How loading or calling a plugin fails. The host detects these itself, so a plugin cannot disguise them.

use std::path::PathBuf;
use std::time::Duration;

/// Why a plugin call produced no result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// The call ran past its deadline and was interrupted.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The plugin tried to grow its memory past the limit.
    #[error("ran out of memory (limit {limit} bytes)")]
    OutOfMemory {
        /// The limit in bytes.
        limit: usize,
    },
    /// The call used up its step budget (a template that never ends, or one far bigger than the budget allows).
    #[error(
        "used up its step budget of {budget} fuel units (raise `fuel-millions` in its manifest's [limits])"
    )]
    OutOfSteps {
        /// The budget in fuel units (about one per Wasm instruction).
        budget: u64,
    },
    /// The plugin exhausted its stack (usually unbounded recursion).
    #[error("overflowed its stack")]
    StackOverflow,
    /// The plugin panicked; the message is the panic's, as the plugin reported it before trapping.
    #[error("panicked: {0}")]
    Panic(String),
    /// Any other trap (an `unreachable`, a bad memory access, a failed import).
    #[error("trapped: {0}")]
    Trap(String),
    /// The plugin returned more bytes than allowed.
    #[error("returned {size} bytes of output (limit {limit})")]
    OutputTooLarge {
        /// What it returned.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// The plugin returned something that breaks the contract (e.g. fewer results than inputs).
    #[error("returned invalid output: {0}")]
    InvalidOutput(String),
    /// A fresh instance could not be created (e.g. every instance slot is in use).
    #[error("could not be instantiated: {0}")]
    Instantiate(String),
    /// The host is shutting down or the call's worker thread failed.
    #[error("call aborted: {0}")]
    Aborted(String),
}

/// A failed call, naming the plugin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("plugin {plugin} {failure}")]
pub struct CallError {
    /// The plugin's name.
    pub plugin: String,
    /// What went wrong.
    pub failure: Failure,
}

impl CallError {
    /// The failure of a call of `plugin`, as the host decided it; logged (warn) for the server's operator, since
    /// whoever asked may turn it into a verdict (a gate fails closed, a health check says `unknown`).
    pub fn decided(plugin: &str, failure: Failure) -> CallError {
        tracing::warn!(%plugin, "plugin call failed: {failure}");
        CallError {
            plugin: plugin.to_string(),
            failure,
        }
    }
}

/// Why a plugin could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The component file could not be read.
    #[error("plugin {plugin}: cannot read {path}: {source}")]
    Read {
        /// The plugin's name.
        plugin: String,
        /// The component path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The component's bytes do not hash to the sha256 its manifest pins.
    #[error(
        "plugin {plugin}: {path} has sha256 {actual}, but its manifest pins {expected}; refusing to load it \
         (rebuild the plugin or update the manifest)"
    )]
    Sha256Mismatch {
        /// The plugin's name.
        plugin: String,
        /// The component path.
        path: PathBuf,
        /// The pinned digest.
        expected: String,
        /// The file's digest.
        actual: String,
    },
    /// The component path is not a regular file (a directory, a FIFO, a device).
    #[error("plugin {plugin}: {path} is not a regular file")]
    NotAFile {
        /// The plugin's name.
        plugin: String,
        /// The component path.
        path: PathBuf,
    },
    /// The component file is bigger than the host accepts.
    #[error("plugin {plugin}: {path} is {size} bytes, more than the {limit} a component may be")]
    TooLarge {
        /// The plugin's name.
        plugin: String,
        /// The component path.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The cap.
        limit: u64,
    },
    /// A function of the component is bigger than the host compiles.
    #[error(
        "plugin {plugin}: a function of {size} bytes is more than the {limit} the host compiles (compile time \
         grows faster than a function's size)"
    )]
    FunctionTooLarge {
        /// The plugin's name.
        plugin: String,
        /// The function body's size.
        size: usize,
        /// The cap.
        limit: usize,
    },
    /// Compiling the component took longer than the host's budget; it is not compiled again by this process.
    #[error("plugin {plugin}: compiling it took longer than the {budget:?} allowed; refused")]
    CompileTimeout {
        /// The plugin's name.
        plugin: String,
        /// The budget.
        budget: Duration,
    },
    /// The bytes are not a valid component, or compiling them failed.
    #[error("plugin {plugin}: not a loadable component: {message}")]
    Compile {
        /// The plugin's name.
        plugin: String,
        /// The compiler's message.
        message: String,
    },
    /// The component's shape (its imports, or how many instances, memories or tables it needs) is refused;
    /// decided before compiling it.
    #[error("plugin {plugin} is refused: {message}")]
    Refused {
        /// The plugin's name.
        plugin: String,
        /// Why.
        message: String,
    },
    /// The component does not implement the world its manifest names.
    #[error("plugin {plugin} does not implement the {world} world: {message}")]
    WrongWorld {
        /// The plugin's name.
        plugin: String,
        /// The world the manifest names.
        world: String,
        /// What is missing or mismatched.
        message: String,
    },
}
