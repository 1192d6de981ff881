//! Written deviations of a public corpus: a `deviations.yaml` naming each case that does not come out as the
//! reference tool makes it, read, rewritten from a run (`WEFT_WRITE_DEVIATIONS=1`, keeping each `cause`), and the
//! judgment of a case's outcome against what is written of it.

use std::collections::BTreeMap;
use std::path::Path;

/// The environment variable that, set to `1`, rewrites a corpus's deviations file from the run.
pub const WRITE_ENV: &str = "WEFT_WRITE_DEVIATIONS";

/// A written deviation: the case's outcome and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub struct Deviation {
    /// The outcome's kind (one of those the corpus's harness allows, such as `different` or `refused`).
    pub outcome: String,
    /// What the run observed: the first differing object and path, or the error.
    pub reason: String,
    /// The cause, as far as it was found, in words (kept when the file is rewritten).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cause: String,
}

/// What a harness observed of one case, as far as its deviation is concerned.
pub trait Observed {
    /// The outcome's kind, as written in the deviations file (`identical`, `different`, …).
    fn kind(&self) -> &'static str;
    /// What was observed, on which the kind rests (empty when there is nothing to say).
    fn reason(&self) -> String;
    /// Whether the case must be a written deviation; one that need not be must not be written.
    fn deviates(&self) -> bool;
}

/// Whether this run rewrites the deviations file (`WEFT_WRITE_DEVIATIONS=1`).
pub fn write_requested() -> bool {
    std::env::var(WRITE_ENV).is_ok_and(|v| v == "1")
}

/// The deviations written in `file`, by case; none when the file is missing or holds none.
pub fn read(file: &Path) -> Result<BTreeMap<String, Deviation>, String> {
    match std::fs::read_to_string(file) {
        Ok(text) => parse(&text).map_err(|e| format!("{}: {e}", display_name(file))),
        Err(_) => Ok(BTreeMap::new()),
    }
}

/// The deviations of a deviations file's text (an empty document holds none).
fn parse(text: &str) -> Result<BTreeMap<String, Deviation>, String> {
    serde_norway::from_str::<Option<BTreeMap<String, Deviation>>>(text)
        .map(Option::unwrap_or_default)
        .map_err(|e| e.to_string())
}

/// The file's name, or its path when it has none.
fn display_name(file: &Path) -> String {
    file.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.display().to_string())
}

/// The text of a deviations file: `header` (comment lines, each ending in a newline), then every outcome that
/// deviates with its kind and reason (clipped to `reason_limit` characters when given), keeping the `cause` of
/// the same case in `known`; `{}` when none deviates.
pub fn text<O: Observed>(
    header: &str,
    outcomes: &BTreeMap<String, O>,
    known: &BTreeMap<String, Deviation>,
    reason_limit: Option<usize>,
) -> String {
    let entries: BTreeMap<&String, Deviation> = outcomes
        .iter()
        .filter(|(_, outcome)| outcome.deviates())
        .map(|(name, outcome)| {
            let reason = outcome.reason();
            (
                name,
                Deviation {
                    outcome: outcome.kind().into(),
                    reason: reason_limit.map_or(reason.clone(), |limit| clip(&reason, limit)),
                    cause: known.get(name).map(|d| d.cause.clone()).unwrap_or_default(),
                },
            )
        })
        .collect();
    let mut text = header.to_string();
    if entries.is_empty() {
        text.push_str("{}\n");
    } else {
        text.push_str(&serde_norway::to_string(&entries).unwrap_or_default());
    }
    text
}

/// Rewrites `file` as this run observed it (see [`text`]).
pub fn write<O: Observed>(
    file: &Path,
    header: &str,
    outcomes: &BTreeMap<String, O>,
    known: &BTreeMap<String, Deviation>,
    reason_limit: Option<usize>,
) {
    std::fs::write(file, text(header, outcomes, known, reason_limit))
        .unwrap_or_else(|e| panic!("{} written: {e}", display_name(file)));
}

/// `text` cut to at most `limit` characters, on one line (runs of whitespace become one space).
pub fn clip(text: &str, limit: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(limit) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line,
    }
}

/// One case's line in a corpus report: its outcome's kind padded to `width`, its name, and its reason clipped to
/// 160 characters when there is one.
pub fn listing<O: Observed>(name: &str, outcome: &O, width: usize) -> String {
    let reason = outcome.reason();
    let reason = if reason.is_empty() {
        String::new()
    } else {
        format!(": {}", clip(&reason, 160))
    };
    format!("  {:<width$} {name}{reason}", outcome.kind())
}

/// Judges a case's outcome against its written deviation, if any: one that does not deviate must not be written
/// (it is to be struck off), one that deviates must be written, with the same kind of outcome.
pub fn judge<O: Observed>(outcome: &O, listed: Option<&Deviation>) -> Result<(), String> {
    match listed {
        None if !outcome.deviates() => Ok(()),
        Some(_) if !outcome.deviates() => Err(format!(
            "{} now: strike it off deviations.yaml",
            outcome.kind()
        )),
        None => Err(format!(
            "{} and not a written deviation: {}",
            outcome.kind(),
            outcome.reason()
        )),
        Some(listed) if listed.outcome == outcome.kind() => Ok(()),
        Some(listed) => Err(format!(
            "written as {} ({}), but now {}: {}",
            listed.outcome,
            listed.reason,
            outcome.kind(),
            outcome.reason()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An outcome of a test corpus: identical, or deviating with a kind and a reason.
    #[derive(Debug)]
    struct Seen(&'static str, &'static str);

    impl Observed for Seen {
        fn kind(&self) -> &'static str {
            self.0
        }
        fn reason(&self) -> String {
            self.1.to_string()
        }
        fn deviates(&self) -> bool {
            self.0 != "identical"
        }
    }

    fn written(outcome: &str, reason: &str) -> Deviation {
        Deviation {
            outcome: outcome.into(),
            reason: reason.into(),
            cause: String::new(),
        }
    }

    #[test]
    fn an_identical_case_not_written_is_ok() {
        assert_eq!(judge(&Seen("identical", ""), None), Ok(()));
    }

    #[test]
    fn an_identical_case_still_written_is_to_be_struck_off() {
        let error = judge(
            &Seen("identical", ""),
            Some(&written("different", "x: 1 / 2")),
        )
        .unwrap_err();
        assert_eq!(error, "identical now: strike it off deviations.yaml");
    }

    #[test]
    fn a_deviating_case_not_written_is_an_error_with_its_reason() {
        let error = judge(&Seen("refused", "no such file"), None).unwrap_err();
        assert_eq!(error, "refused and not a written deviation: no such file");
    }

    #[test]
    fn a_deviating_case_written_with_the_same_kind_is_ok_whatever_the_reason() {
        let listed = written("different", "an older reason");
        assert_eq!(
            judge(&Seen("different", "a newer reason"), Some(&listed)),
            Ok(())
        );
    }

    #[test]
    fn a_deviating_case_written_with_another_kind_names_both() {
        let listed = written("different", "a: 1 / 2");
        let error = judge(&Seen("refused", "no such file"), Some(&listed)).unwrap_err();
        assert_eq!(
            error,
            "written as different (a: 1 / 2), but now refused: no such file"
        );
    }

    #[test]
    fn a_rewritten_file_lists_only_deviations_and_keeps_each_cause() {
        let outcomes = BTreeMap::from([
            ("a".to_string(), Seen("identical", "")),
            ("b".to_string(), Seen("different", "x:   1\n/ 2")),
            ("c".to_string(), Seen("refused", "no such file")),
        ]);
        let known = BTreeMap::from([(
            "b".to_string(),
            Deviation {
                cause: "ordering".into(),
                ..written("different", "old")
            },
        )]);
        let text = text("# header\n", &outcomes, &known, Some(5));
        assert!(text.starts_with("# header\n"), "{text}");
        let read = parse(&text).expect("the written file reads back");
        assert_eq!(
            read,
            BTreeMap::from([
                (
                    "b".to_string(),
                    Deviation {
                        cause: "ordering".into(),
                        ..written("different", "x: 1 …")
                    }
                ),
                ("c".to_string(), written("refused", "no su…")),
            ])
        );
    }

    #[test]
    fn a_file_without_deviations_is_written_as_an_empty_map_and_reads_back_empty() {
        let outcomes = BTreeMap::from([("a".to_string(), Seen("identical", ""))]);
        let text = text("# header\n", &outcomes, &BTreeMap::new(), None);
        assert_eq!(text, "# header\n{}\n");
        assert_eq!(parse(&text), Ok(BTreeMap::new()));
        assert_eq!(parse("# only comments\n"), Ok(BTreeMap::new()));
    }

    #[test]
    fn a_missing_file_holds_no_deviations() {
        let dir = tempfile::tempdir().expect("a directory");
        assert_eq!(
            read(&dir.path().join("deviations.yaml")),
            Ok(BTreeMap::new())
        );
    }

    #[test]
    fn clipping_joins_lines_and_cuts_at_the_limit_in_characters() {
        assert_eq!(clip("a  b\nc", 10), "a b c");
        assert_eq!(clip("ééééé", 3), "ééé…");
        assert_eq!(clip("abc", 3), "abc");
    }
}
