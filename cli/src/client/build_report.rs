//! An operation's build as the client prints it: one line for the outcome (the image, built or reused, or why
//! there is none), then a table with one line per attempt (ATTEMPT RESULT TIME PLAN WHY). Pure: report in, text
//! out.

use weft_build::{AttemptReport, AttemptResult, BuildReport};

use super::style::{Painter, Tone, table_text};

/// The build of an operation, for a person.
pub(crate) fn build_text(report: &BuildReport, painter: Painter) -> String {
    let commit = weft_core::short::short_id(&report.commit);
    let attempts = report.attempts.len();
    let plural = if attempts == 1 { "" } else { "s" };
    let mut out = match (&report.image, report.reused) {
        (Some(image), true) => format!(
            "build: {} {image}: the commit ({commit}) and the plan are unchanged\n",
            painter.tone("reused", Tone::Good)
        ),
        (Some(image), false) => format!(
            "build: {} {image} at {commit} in {attempts} attempt{plural} ({} with {})\n",
            painter.tone("built", Tone::Good),
            report.builder,
            report.steerer
        ),
        (None, _) => format!(
            "build: {} at {commit} after {attempts} attempt{plural} ({} with {}){}\n",
            painter.tone("no image", Tone::Bad),
            report.builder,
            report.steerer,
            report
                .error
                .as_deref()
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        ),
    };
    if attempts == 0 {
        return out;
    }
    let mut table = painter.table(&["ATTEMPT", "RESULT", "TIME", "PLAN", "WHY"]);
    for attempt in &report.attempts {
        let (result, tone) = result_text(attempt);
        table.add_row(vec![
            painter.cell(&attempt.number.to_string(), Tone::Plain),
            painter.cell(&result, tone),
            painter.cell(&duration_text(attempt.duration_ms), Tone::Plain),
            painter.cell(&attempt.plan, Tone::Plain),
            painter.cell(&why_text(attempt), Tone::Plain),
        ]);
    }
    out.push_str(&table_text(&table));
    out
}

fn result_text(attempt: &AttemptReport) -> (String, Tone) {
    match attempt.result {
        AttemptResult::Built => ("built".to_string(), Tone::Good),
        AttemptResult::Failed => {
            let step = attempt.step.as_deref().unwrap_or("build");
            let code = attempt
                .exit_code
                .map(|c| format!(", exit {c}"))
                .unwrap_or_default();
            (format!("failed ({step}{code})"), Tone::Bad)
        }
    }
}

/// Why the attempt had its plan, and why the steerer stopped after it, when it did.
fn why_text(attempt: &AttemptReport) -> String {
    match &attempt.gave_up {
        Some(reason) => format!("{}; then gave up: {reason}", attempt.reason),
        None => attempt.reason.clone(),
    }
}

/// `850ms`, `4.2s`, `3m07s`.
fn duration_text(millis: u64) -> String {
    match millis {
        0..1_000 => format!("{millis}ms"),
        1_000..60_000 => format!("{:.1}s", millis as f64 / 1000.0),
        _ => format!("{}m{:02}s", millis / 60_000, (millis % 60_000) / 1000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(number: u32, result: AttemptResult, reason: &str) -> AttemptReport {
        AttemptReport {
            number,
            reason: reason.into(),
            plan: format!("node on node:22-slim, jobs {number}"),
            dockerfile_sha256: "ab".repeat(32),
            result,
            image: None,
            step: (result == AttemptResult::Failed).then(|| "build".to_string()),
            exit_code: (result == AttemptResult::Failed).then_some(137),
            log_tail: None,
            gave_up: None,
            duration_ms: 1_250 * u64::from(number),
        }
    }

    fn report(attempts: Vec<AttemptReport>, image: Option<&str>) -> BuildReport {
        BuildReport {
            commit: "5f1d0c7e9a3b2c4d6e8f0a1b2c3d4e5f6a7b8c9d".into(),
            steerer: "steer-detect".into(),
            builder: "command".into(),
            image: image.map(str::to_string),
            reused: false,
            attempts,
            plan: None,
            reasons: Vec::new(),
            error: None,
        }
    }

    #[test]
    fn a_build_prints_one_line_per_attempt() {
        let text = build_text(
            &report(
                vec![
                    attempt(1, AttemptResult::Failed, "detected by steer-detect"),
                    attempt(
                        2,
                        AttemptResult::Built,
                        "revised by steer-detect: out of memory",
                    ),
                ],
                Some("local/shop@sha256:0f"),
            ),
            Painter::new(false),
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "build: built local/shop@sha256:0f at 5f1d0c7e9a3b in 2 attempts (command with steer-detect)"
        );
        assert_eq!(lines.len(), 4, "{text}");
        let columns = |line: &str| {
            line.split("   ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            columns(lines[1]),
            ["ATTEMPT", "RESULT", "TIME", "PLAN", "WHY"]
        );
        assert_eq!(
            columns(lines[2]),
            [
                "1",
                "failed (build, exit 137)",
                "1.2s",
                "node on node:22-slim, jobs 1",
                "detected by steer-detect"
            ]
        );
        assert_eq!(
            columns(lines[3]),
            [
                "2",
                "built",
                "2.5s",
                "node on node:22-slim, jobs 2",
                "revised by steer-detect: out of memory"
            ]
        );
        assert!(!text.contains('\u{1b}'));
        assert!(build_text(&report(Vec::new(), None), Painter::new(true)).contains('\u{1b}'));
    }

    #[test]
    fn a_reuse_and_a_give_up_say_so() {
        let mut reused = report(Vec::new(), Some("local/shop@sha256:0f"));
        reused.reused = true;
        assert_eq!(
            build_text(&reused, Painter::new(false)),
            "build: reused local/shop@sha256:0f: the commit (5f1d0c7e9a3b) and the plan are unchanged\n"
        );

        let mut last = attempt(1, AttemptResult::Failed, "detected by steer-detect");
        last.gave_up = Some("unrecognised failure in the build step".into());
        let mut failed = report(vec![last], None);
        failed.error = Some("the build of shop failed".into());
        let text = build_text(&failed, Painter::new(false));
        assert!(
            text.starts_with(
                "build: no image at 5f1d0c7e9a3b after 1 attempt (command with steer-detect): the build of shop failed\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "detected by steer-detect; then gave up: unrecognised failure in the build step"
            ),
            "{text}"
        );
    }

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration_text(850), "850ms");
        assert_eq!(duration_text(4_240), "4.2s");
        assert_eq!(duration_text(187_000), "3m07s");
    }
}
