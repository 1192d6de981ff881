//! What a component is made of, read from its bytes before anything is compiled: the interfaces it imports and
//! how many core instances, memories and tables instantiating it takes. The host decides from this alone whether
//! it may load a component, and in which sandbox, so a refusal costs milliseconds, not a compilation.

/// The WASI packages the guest-runtime sandbox implements, every one deny-all: no files, no environment, no
/// network or sockets; clocks and randomness from the host.
pub const DENY_ALL_WASI_PACKAGES: [&str; 6] = [
    "wasi:io",
    "wasi:clocks",
    "wasi:random",
    "wasi:cli",
    "wasi:filesystem",
    "wasi:sockets",
];

/// The WASI major version the sandbox implements.
const WASI_VERSION: &str = "0.2.";

/// The most a native plugin (Rust built for `wasm32-unknown-unknown`) may instantiate: what the native pool
/// reserves per slot.
pub const NATIVE_LIMITS: ShapeLimits = ShapeLimits {
    core_instances: 8,
    memories: 2,
    tables: 4,
};

/// The most a guest-runtime plugin (an interpreter compiled into the component: componentize-py's CPython,
/// componentize-js's SpiderMonkey) may instantiate: what the guest-runtime pool reserves per slot.
pub const GUEST_RUNTIME_LIMITS: ShapeLimits = ShapeLimits {
    core_instances: 64,
    memories: 4,
    tables: 64,
};

/// Counts a sandbox allows per component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapeLimits {
    /// Core module instances.
    pub core_instances: u32,
    /// Linear memories defined by its modules.
    pub memories: u32,
    /// Tables defined by its modules.
    pub tables: u32,
}

/// A component's imports and instantiation counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ComponentShape {
    /// The names of its top-level imports (`weft:plugin/log@0.1.0`, `wasi:io/streams@0.2.9`, ...).
    pub imports: Vec<String>,
    /// Core module instances it creates (every `instantiate` of a core module, nested components included).
    pub core_instances: u32,
    /// Linear memories its core modules define.
    pub memories: u32,
    /// Tables its core modules define.
    pub tables: u32,
}

/// The sandbox a component runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sandbox {
    /// No WASI at all; the native pool's limits.
    Native,
    /// A deny-all WASI and the guest-runtime pool, for components that carry a language runtime.
    GuestRuntime,
}

/// Why a component's shape is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// The bytes do not parse as a component.
    #[error("not a component: {0}")]
    Malformed(String),
    /// It imports an interface no sandbox provides.
    #[error(
        "it imports {0}, which Weft does not provide: a plugin may import the weft:plugin interfaces of its world \
         and, for language runtimes, WASI 0.2's io, clocks, random, cli, filesystem and sockets (all deny-all)"
    )]
    Import(String),
    /// It needs more instances, memories or tables than the guest-runtime sandbox gives one component.
    #[error("it needs {needed} {what}; a plugin may have at most {limit}")]
    TooBig {
        /// What is counted.
        what: &'static str,
        /// How many it needs.
        needed: u32,
        /// The most allowed.
        limit: u32,
    },
}

impl ComponentShape {
    /// Reads a component's shape. Only section headers and declarations are decoded; function bodies are skipped.
    pub fn read(wasm: &[u8]) -> Result<ComponentShape, ShapeError> {
        use wasmparser::{Instance, Parser, Payload};
        let mut shape = ComponentShape::default();
        // What is open, outermost first: only the outermost component's imports are the component's imports.
        let mut open: Vec<wasmparser::Encoding> = Vec::new();
        for payload in Parser::new(0).parse_all(wasm) {
            let payload = payload.map_err(|e| ShapeError::Malformed(e.to_string()))?;
            match payload {
                Payload::Version { encoding, .. } => {
                    if open.is_empty() && encoding != wasmparser::Encoding::Component {
                        return Err(ShapeError::Malformed(
                            "a core module, not a component".into(),
                        ));
                    }
                    open.push(encoding);
                }
                Payload::ComponentImportSection(reader) if open.len() == 1 => {
                    for import in reader {
                        let import = import.map_err(|e| ShapeError::Malformed(e.to_string()))?;
                        shape.imports.push(import.name.name.to_string());
                    }
                }
                Payload::InstanceSection(reader) => {
                    for instance in reader {
                        let instance =
                            instance.map_err(|e| ShapeError::Malformed(e.to_string()))?;
                        if matches!(instance, Instance::Instantiate { .. }) {
                            shape.core_instances += 1;
                        }
                    }
                }
                Payload::MemorySection(reader) => shape.memories += reader.count(),
                Payload::TableSection(reader) => shape.tables += reader.count(),
                Payload::End(_) => {
                    open.pop();
                }
                _ => {}
            }
        }
        Ok(shape)
    }

    /// The WASI imports among its imports.
    pub fn wasi_imports(&self) -> impl Iterator<Item = &str> {
        self.imports
            .iter()
            .map(String::as_str)
            .filter(|i| i.starts_with("wasi:"))
    }

    /// The sandbox this shape runs in, or why none will take it. `weft:plugin` imports are left to the world's
    /// linker, which names a missing or foreign one; any other import is refused here.
    pub fn sandbox(&self) -> Result<Sandbox, ShapeError> {
        let mut needs_wasi = false;
        for import in &self.imports {
            if import.starts_with("weft:plugin/") {
                continue;
            }
            if is_deny_all_wasi(import) {
                needs_wasi = true;
                continue;
            }
            return Err(ShapeError::Import(import.clone()));
        }
        let sandbox = if needs_wasi || !self.fits(&NATIVE_LIMITS) {
            Sandbox::GuestRuntime
        } else {
            Sandbox::Native
        };
        if sandbox == Sandbox::GuestRuntime {
            self.check_fits(&GUEST_RUNTIME_LIMITS)?;
        }
        Ok(sandbox)
    }

    fn fits(&self, limits: &ShapeLimits) -> bool {
        self.check_fits(limits).is_ok()
    }

    fn check_fits(&self, limits: &ShapeLimits) -> Result<(), ShapeError> {
        let counts = [
            ("core instances", self.core_instances, limits.core_instances),
            ("memories", self.memories, limits.memories),
            ("tables", self.tables, limits.tables),
        ];
        for (what, needed, limit) in counts {
            if needed > limit {
                return Err(ShapeError::TooBig {
                    what,
                    needed,
                    limit,
                });
            }
        }
        Ok(())
    }
}

/// Whether an import is an interface of a WASI 0.2 package the sandbox implements deny-all.
fn is_deny_all_wasi(import: &str) -> bool {
    let Some((package, rest)) = import.split_once('/') else {
        return false;
    };
    let version_ok = rest
        .split_once('@')
        .is_some_and(|(_, version)| version.starts_with(WASI_VERSION));
    version_ok && DENY_ALL_WASI_PACKAGES.contains(&package)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(wat: &str) -> ComponentShape {
        ComponentShape::read(&wat::parse_str(wat).unwrap()).unwrap()
    }

    #[test]
    fn an_empty_component_is_native() {
        let empty = shape("(component)");
        assert_eq!(empty, ComponentShape::default());
        assert_eq!(empty.sandbox(), Ok(Sandbox::Native));
    }

    #[test]
    fn imports_and_counts_are_read_without_compiling() {
        let s = shape(
            r#"(component
                (import "weft:plugin/log@0.1.0" (instance))
                (import "wasi:cli/environment@0.2.9" (instance))
                (core module $m (memory 1) (table 1 funcref))
                (core module $n)
                (core instance (instantiate $m))
                (core instance (instantiate $n))
                (core instance (instantiate $n))
            )"#,
        );
        assert_eq!(
            s.imports,
            ["weft:plugin/log@0.1.0", "wasi:cli/environment@0.2.9"]
        );
        assert_eq!((s.core_instances, s.memories, s.tables), (3, 1, 1));
        assert_eq!(s.sandbox(), Ok(Sandbox::GuestRuntime));
        assert_eq!(
            s.wasi_imports().collect::<Vec<_>>(),
            ["wasi:cli/environment@0.2.9"]
        );
    }

    #[test]
    fn a_component_too_big_for_the_native_pool_runs_in_the_guest_runtime_one() {
        let instances: String = (0..9).map(|_| "(core instance (instantiate $n))").collect();
        let s = shape(&format!("(component (core module $n) {instances})"));
        assert_eq!(s.core_instances, 9);
        assert_eq!(s.sandbox(), Ok(Sandbox::GuestRuntime));
    }

    #[test]
    fn a_component_too_big_for_any_pool_is_refused_by_count() {
        let instances: String = (0..65)
            .map(|_| "(core instance (instantiate $n))")
            .collect();
        let s = shape(&format!("(component (core module $n) {instances})"));
        let err = s.sandbox().unwrap_err();
        assert_eq!(
            err,
            ShapeError::TooBig {
                what: "core instances",
                needed: 65,
                limit: 64
            }
        );
        assert!(err.to_string().contains("at most 64"), "{err}");
    }

    #[test]
    fn wasi_outside_the_deny_all_set_and_foreign_imports_are_refused() {
        for import in [
            "wasi:http/outgoing-handler@0.2.9",
            "wasi:cli/environment@0.3.0",
            "acme:secrets/vault@1.0.0",
            "wasi:keyvalue/store@0.2.0-draft",
        ] {
            let s = shape(&format!(r#"(component (import "{import}" (instance)))"#));
            assert_eq!(
                s.sandbox(),
                Err(ShapeError::Import(import.into())),
                "{import}"
            );
        }
    }

    #[test]
    fn a_core_module_is_not_a_component() {
        let module = wat::parse_str("(module)").unwrap();
        assert!(matches!(
            ComponentShape::read(&module),
            Err(ShapeError::Malformed(_))
        ));
        assert!(matches!(
            ComponentShape::read(b"garbage"),
            Err(ShapeError::Malformed(_))
        ));
    }
}
