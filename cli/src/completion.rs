//! `weft completion bash|zsh|fish`: the shell's completion script for every `weft` command and flag, printed for
//! the shell to source (the README's Commands table has the install lines).

use clap_complete::Shell;

#[derive(Debug, clap::Args)]
pub(crate) struct CompletionArgs {
    /// The shell: `bash`, `zsh` or `fish`.
    #[arg(value_enum)]
    shell: CompletionShell,
}

/// The shells a script is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CompletionShell {
    /// Bash (`source <(weft completion bash)`).
    Bash,
    /// Zsh (`weft completion zsh > "${fpath[1]}/_weft"`).
    Zsh,
    /// Fish (`weft completion fish > ~/.config/fish/completions/weft.fish`).
    Fish,
}

/// The completion script for `command` in `shell`.
fn script(shell: CompletionShell, command: &mut clap::Command) -> Vec<u8> {
    let shell = match shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, command, "weft", &mut out);
    out
}

/// Prints the script for the `weft` command `command`.
pub(crate) fn run(args: CompletionArgs, mut command: clap::Command) -> anyhow::Result<u8> {
    let text = String::from_utf8(script(args.shell, &mut command))?;
    crate::print_stdout(&text)?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn each_shell_s_script_completes_the_app_verbs_and_their_flags() {
        for shell in [
            CompletionShell::Bash,
            CompletionShell::Zsh,
            CompletionShell::Fish,
        ] {
            let text = String::from_utf8(script(shell, &mut crate::Cli::command())).unwrap();
            for word in [
                "appset",
                "create",
                "history",
                "refresh",
                "dest-namespace",
                "completion",
            ] {
                assert!(text.contains(word), "{shell:?}'s script lacks {word}");
            }
        }
    }
}
