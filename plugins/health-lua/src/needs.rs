//! Which of the sandbox's own globals a script can reach, so a fresh state only builds those.
//!
//! Building `os`, `require`, `print`, `table.getn`, `unpack` and the source-only `load` for every check costs a
//! one-object check a tenth of its time, and most scripts use none of them; the Unicode-aware `string.upper` and
//! `string.lower` cost a few microseconds more. A global is only reachable through its name: a script that never
//! writes `print` cannot call it, unless it reaches the globals table itself (`_G`, `_ENV`) or compiles code at run
//! time (`load`, `loadstring`), and then every global is built. The names are read from the whole source, comments
//! and strings included, so a script may get a global it does not use, never lack one it does. `dofile` and
//! `loadfile` are removed whatever the script says. A script that reaches `upper` or `lower` without writing the
//! name (`string["up".."per"]`, a loop over the `string` table) gets PUC Lua's byte-wise version, never a missing
//! function.

/// The optional globals a state gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    /// The safe `os` table (`os.time`, `os.clock`, `os.date`): the script names `os` or `require`.
    pub os: bool,
    /// `require` (of `"os"` only).
    pub require: bool,
    /// `print`, to the host's log.
    pub print: bool,
    /// `table.getn`: the script names `getn` or `table` (whose fields it could list).
    pub getn: bool,
    /// `unpack`, Lua 5.1's name for `table.unpack`.
    pub unpack: bool,
    /// `load` and `loadstring` taking source only; without them both are removed.
    pub load: bool,
    /// The Unicode-aware `string.upper`: the script names `upper`.
    pub upper: bool,
    /// The Unicode-aware `string.lower`: the script names `lower`.
    pub lower: bool,
}

impl Needs {
    /// Every optional global.
    pub const ALL: Needs = Needs {
        os: true,
        require: true,
        print: true,
        getn: true,
        unpack: true,
        load: true,
        upper: true,
        lower: true,
    };

    /// None of them.
    pub const NONE: Needs = Needs {
        os: false,
        require: false,
        print: false,
        getn: false,
        unpack: false,
        load: false,
        upper: false,
        lower: false,
    };

    /// The globals a script can reach, from the names in its source.
    pub fn of(source: &str) -> Needs {
        let mut needs = Needs::NONE;
        for name in identifiers(source) {
            match name {
                "_G" | "_ENV" | "getfenv" | "setfenv" | "load" | "loadstring" => return Needs::ALL,
                "os" => needs.os = true,
                "require" => {
                    needs.require = true;
                    needs.os = true;
                }
                "print" => needs.print = true,
                "getn" | "table" => needs.getn = true,
                "unpack" => needs.unpack = true,
                "upper" => needs.upper = true,
                "lower" => needs.lower = true,
                _ => {}
            }
        }
        needs
    }
}

impl Needs {
    /// The globals as settings name them (`os`, `require`, `print`, `table.getn`, `unpack`, `load`,
    /// `string.upper`, `string.lower`).
    pub fn names(&self) -> Vec<&'static str> {
        self.flags()
            .into_iter()
            .filter(|(_, on)| *on)
            .map(|(name, _)| name)
            .collect()
    }

    /// The globals named (see [`Needs::names`]); an unknown name is an error.
    pub fn from_names(names: &[String]) -> Result<Needs, String> {
        let mut needs = Needs::NONE;
        for name in names {
            match name.as_str() {
                "os" => needs.os = true,
                "require" => needs.require = true,
                "print" => needs.print = true,
                "table.getn" => needs.getn = true,
                "unpack" => needs.unpack = true,
                "load" => needs.load = true,
                "string.upper" => needs.upper = true,
                "string.lower" => needs.lower = true,
                other => return Err(format!("unknown sandbox global {other:?}")),
            }
        }
        Ok(needs)
    }

    fn flags(&self) -> [(&'static str, bool); 8] {
        [
            ("os", self.os),
            ("require", self.require),
            ("print", self.print),
            ("table.getn", self.getn),
            ("unpack", self.unpack),
            ("load", self.load),
            ("string.upper", self.upper),
            ("string.lower", self.lower),
        ]
    }
}

/// Every run of identifier characters (`[A-Za-z_][A-Za-z0-9_]*`) in `source`, wherever it appears.
fn identifiers(source: &str) -> impl Iterator<Item = &str> {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = source.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            if !is_word(bytes[at]) {
                at += 1;
                continue;
            }
            let start = at;
            while at < bytes.len() && is_word(bytes[at]) {
                at += 1;
            }
            // Word bytes are ASCII, so both ends are character boundaries.
            let word = source.get(start..at).unwrap_or_default();
            if !bytes[start].is_ascii_digit() {
                return Some(word);
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_script_needs_nothing_optional() {
        let script =
            "local hs = {}\nif obj.status ~= nil then hs.status = 'Healthy' end\nreturn hs";
        assert_eq!(Needs::of(script), Needs::NONE);
    }

    #[test]
    fn names_round_trip() {
        let needs = Needs::of("local os = require('os') print(table.concat(t)) return s:lower()");
        assert_eq!(
            needs.names(),
            ["os", "require", "print", "table.getn", "string.lower"]
        );
        let names: Vec<String> = needs.names().iter().map(|n| n.to_string()).collect();
        assert_eq!(Needs::from_names(&names), Ok(needs));
        assert_eq!(Needs::from_names(&[]), Ok(Needs::NONE));
        let all: Vec<String> = Needs::ALL.names().iter().map(|n| n.to_string()).collect();
        assert_eq!(Needs::from_names(&all), Ok(Needs::ALL));
        assert!(Needs::from_names(&["io".to_string()]).is_err());
    }

    #[test]
    fn names_anywhere_count() {
        assert!(Needs::of("local t = os.time()").os);
        assert!(Needs::of("local os = require('os')").os);
        assert!(Needs::of("-- print(x)").print);
        assert!(Needs::of("table.insert(t, 1)").getn);
        assert!(Needs::of("local a, b = unpack(t)").unpack);
        assert!(Needs::of("return s:upper()").upper);
        assert!(Needs::of("string.lower(s)").lower && !Needs::of("string.lower(s)").upper);
        assert!(!Needs::of("local uppercase, lowered = 1, 2").upper);
        assert!(!Needs::of("local osx, printer, tables = 1, 2, 3").os);
        assert!(!Needs::of("local x = 2os").os);
    }

    #[test]
    fn reaching_the_globals_or_compiling_code_needs_everything() {
        for script in [
            "return _G['print']",
            "local e = _ENV",
            "local f = load('return os')",
            "loadstring('x')",
        ] {
            assert_eq!(Needs::of(script), Needs::ALL, "{script}");
        }
    }
}
