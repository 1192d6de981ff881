//! Colours: a tone per health, sync and phase, and a colour per pod; applied only when standard output takes them
//! (a terminal, without `NO_COLOR`; `CLICOLOR_FORCE` forces them), so piped output has no escape codes.

use anstyle::{AnsiColor, Style};
use comfy_table::{Cell, Color, Table, presets};
use weft_apply::operation::OperationPhase;
use weft_sync::status::{HealthCode, SyncCode};

/// How a value reads at a glance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    /// Healthy, synced, succeeded.
    Good,
    /// Progressing, out of sync, running.
    Warning,
    /// Degraded, missing, failed.
    Bad,
    /// Suspended, unknown, absent.
    Muted,
    /// No colour.
    Plain,
}

/// The tone of a health code.
pub(crate) fn health_tone(health: HealthCode) -> Tone {
    match health {
        HealthCode::Healthy => Tone::Good,
        HealthCode::Progressing => Tone::Warning,
        HealthCode::Degraded | HealthCode::Missing => Tone::Bad,
        HealthCode::Suspended | HealthCode::Unknown => Tone::Muted,
    }
}

/// The tone of a sync code.
pub(crate) fn sync_tone(sync: SyncCode) -> Tone {
    match sync {
        SyncCode::Synced => Tone::Good,
        SyncCode::OutOfSync => Tone::Warning,
        SyncCode::Unknown => Tone::Muted,
    }
}

/// The tone of an operation phase.
pub(crate) fn phase_tone(phase: OperationPhase) -> Tone {
    match phase {
        OperationPhase::Succeeded => Tone::Good,
        OperationPhase::Pending | OperationPhase::Running => Tone::Warning,
        OperationPhase::Failed | OperationPhase::Error => Tone::Bad,
    }
}

impl Tone {
    fn style(self) -> Style {
        let colour = match self {
            Tone::Good => AnsiColor::Green,
            Tone::Warning => AnsiColor::Yellow,
            Tone::Bad => AnsiColor::Red,
            Tone::Muted => AnsiColor::BrightBlack,
            Tone::Plain => return Style::new(),
        };
        Style::new().fg_color(Some(colour.into()))
    }

    fn table_colour(self) -> Option<Color> {
        match self {
            Tone::Good => Some(Color::Green),
            Tone::Warning => Some(Color::Yellow),
            Tone::Bad => Some(Color::Red),
            Tone::Muted => Some(Color::DarkGrey),
            Tone::Plain => None,
        }
    }
}

/// The colours pods get, in order of first appearance.
const POD_COLOURS: [AnsiColor; 6] = [
    AnsiColor::Cyan,
    AnsiColor::Magenta,
    AnsiColor::Blue,
    AnsiColor::Green,
    AnsiColor::Yellow,
    AnsiColor::BrightCyan,
];

/// Writes text with or without colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Painter {
    colour: bool,
}

impl Painter {
    /// Colours when standard output takes them.
    pub(crate) fn for_stdout() -> Self {
        let choice = anstream::AutoStream::choice(&std::io::stdout());
        Painter::new(choice != anstream::ColorChoice::Never)
    }

    /// Colours or not.
    pub(crate) fn new(colour: bool) -> Self {
        Painter { colour }
    }

    /// `text` in `style`.
    pub(crate) fn paint(&self, text: &str, style: Style) -> String {
        if self.colour && style != Style::new() {
            format!("{style}{text}{style:#}")
        } else {
            text.to_string()
        }
    }

    /// `text` in a tone.
    pub(crate) fn tone(&self, text: &str, tone: Tone) -> String {
        self.paint(text, tone.style())
    }

    /// A table cell in a tone.
    pub(crate) fn cell(&self, text: &str, tone: Tone) -> Cell {
        match tone.table_colour() {
            Some(colour) if self.colour => Cell::new(text).fg(colour),
            _ => Cell::new(text),
        }
    }

    /// A borderless table with kubectl-like spacing, styled only when colours are on.
    pub(crate) fn table(&self, header: &[&str]) -> Table {
        let mut table = Table::new();
        table.load_style(presets::NOTHING);
        if self.colour {
            table.enforce_styling();
        } else {
            table.force_no_tty();
        }
        table.set_header(header.to_vec());
        let last = header.len().saturating_sub(1);
        for (index, column) in table.column_iter_mut().enumerate() {
            column.set_padding((0, if index == last { 0 } else { 3 }));
        }
        table
    }
}

/// A colour per pod, by first appearance, so that neighbouring pods differ.
#[derive(Debug, Default)]
pub(crate) struct PodPalette {
    seen: Vec<String>,
}

impl PodPalette {
    /// The style of a pod's prefix.
    pub(crate) fn style_of(&mut self, pod: &str) -> Style {
        let index = match self.seen.iter().position(|p| p == pod) {
            Some(index) => index,
            None => {
                self.seen.push(pod.to_string());
                self.seen.len() - 1
            }
        };
        Style::new().fg_color(Some(POD_COLOURS[index % POD_COLOURS.len()].into()))
    }
}

/// Renders a table as text, without the trailing spaces of the last column.
pub(crate) fn table_text(table: &Table) -> String {
    let mut text = String::new();
    for line in table.lines() {
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tones_follow_the_verdicts() {
        assert_eq!(health_tone(HealthCode::Healthy), Tone::Good);
        assert_eq!(health_tone(HealthCode::Progressing), Tone::Warning);
        assert_eq!(health_tone(HealthCode::Degraded), Tone::Bad);
        assert_eq!(health_tone(HealthCode::Missing), Tone::Bad);
        assert_eq!(sync_tone(SyncCode::Synced), Tone::Good);
        assert_eq!(sync_tone(SyncCode::OutOfSync), Tone::Warning);
        assert_eq!(phase_tone(OperationPhase::Failed), Tone::Bad);
        assert_eq!(phase_tone(OperationPhase::Running), Tone::Warning);
    }

    #[test]
    fn painting_is_a_no_op_without_colour() {
        assert_eq!(Painter::new(false).tone("healthy", Tone::Good), "healthy");
        let coloured = Painter::new(true).tone("healthy", Tone::Good);
        assert!(coloured.starts_with('\u{1b}') && coloured.contains("healthy"));
        assert_eq!(Painter::new(true).tone("x", Tone::Plain), "x");
    }

    #[test]
    fn tables_have_colour_codes_only_when_colour_is_on() {
        for colour in [false, true] {
            let painter = Painter::new(colour);
            let mut table = painter.table(&["NAME", "HEALTH"]);
            table.add_row(vec![
                painter.cell("shop", Tone::Plain),
                painter.cell("healthy", Tone::Good),
            ]);
            let text = table_text(&table);
            assert_eq!(text.contains('\u{1b}'), colour, "{text:?}");
            if !colour {
                assert_eq!(text, "NAME   HEALTH\nshop   healthy\n");
            }
        }
    }

    #[test]
    fn pods_keep_their_colour_and_neighbours_differ() {
        let mut palette = PodPalette::default();
        let a = palette.style_of("a");
        let b = palette.style_of("b");
        assert_ne!(a, b);
        assert_eq!(palette.style_of("a"), a);
    }
}
