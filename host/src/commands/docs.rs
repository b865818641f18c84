//! `llv completions` and `llv man`: shell completions and man pages generated
//! from the command line's own definitions (clap_complete, clap_mangen), as
//! ripgrep and cargo ship theirs.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap_complete::Shell;

/// `llv completions SHELL`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  llv completions bash > ~/.local/share/bash-completion/completions/llv
  llv completions zsh > ~/.zfunc/_llv
  llv completions fish > ~/.config/fish/completions/llv.fish
  llv completions powershell >> $PROFILE")]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish.
    shell: Shell,
}

/// `llv man [--dir DIR]`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  llv man | man -l -                 # read llv(1) now
  llv man --dir /usr/local/share/man/man1   # llv.1 and llv-<command>.1 for every command")]
pub struct ManArgs {
    /// Write llv.1 and one llv-<command>.1 per command into DIR (default: llv.1 to standard output).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Prints the completion script for a shell; `command` is llv's whole command line.
pub fn completions(args: &CompletionsArgs, mut command: clap::Command) -> Result<()> {
    // clap_complete panics when its output fails: it writes to memory, and
    // the script goes out as a whole (a closed pipe ends llv quietly).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "llv", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)
        .and_then(|()| out.flush())
        .context("standard output")
}

/// Prints llv(1), or writes every page into a folder; `command` is llv's whole command line.
pub fn man(args: &ManArgs, command: clap::Command) -> Result<()> {
    let Some(dir) = &args.dir else {
        let mut out = std::io::stdout().lock();
        let usage = synopsis("llv", &command);
        clap_mangen::Man::new(command.override_usage(usage)).render(&mut out)?;
        return out.flush().context("standard output");
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    let mut page = |name: String, cmd: clap::Command| -> Result<()> {
        let path = dir.join(format!("{name}.1"));
        let mut text = Vec::new();
        let usage = synopsis(&name, &cmd);
        clap_mangen::Man::new(cmd.name(name.clone()).override_usage(usage)).render(&mut text)?;
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
        Ok(())
    };
    page("llv".into(), command.clone())?;
    for sub in command.get_subcommands() {
        page(format!("llv-{}", sub.get_name()), sub.clone())?;
    }
    eprintln!("wrote {} man pages to {}", written.len(), dir.display());
    Ok(())
}

/// The synopsis of a page, with every option's value name (`--width <WIDTH>`),
/// which clap_mangen's own synopsis leaves out.
fn synopsis(name: &str, cmd: &clap::Command) -> String {
    use clap::ArgAction;
    let mut words = vec![name.to_string()];
    let value = |arg: &clap::Arg| -> String {
        let names = arg.get_value_names().map_or_else(
            || vec![arg.get_id().as_str().to_uppercase()],
            |v| v.iter().map(|n| n.to_string()).collect(),
        );
        let names = names
            .iter()
            .map(|n| format!("<{n}>"))
            .collect::<Vec<_>>()
            .join(" ");
        match arg.get_num_args() {
            Some(range) if range.min_values() == 0 => format!("[={names}]"),
            _ => format!(" {names}"),
        }
    };
    let (mut optional, mut required) = (Vec::new(), Vec::new());
    for arg in cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_positional())
    {
        let flag = match (arg.get_short(), arg.get_long()) {
            (Some(s), Some(l)) => format!("-{s}|--{l}"),
            (Some(s), None) => format!("-{s}"),
            (None, Some(l)) => format!("--{l}"),
            (None, None) => continue,
        };
        let takes_value = matches!(arg.get_action(), ArgAction::Set | ArgAction::Append);
        let text = if takes_value {
            format!("{flag}{}", value(arg))
        } else {
            flag
        };
        let repeat = if matches!(arg.get_action(), ArgAction::Append | ArgAction::Count) {
            "..."
        } else {
            ""
        };
        if arg.is_required_set() {
            required.push(format!("{text}{repeat}"));
        } else {
            optional.push(format!("[{text}]{repeat}"));
        }
    }
    words.extend(optional);
    words.extend(required);
    for arg in cmd.get_positionals().filter(|a| !a.is_hide_set()) {
        let names = arg
            .get_value_names()
            .map_or_else(|| arg.get_id().as_str().to_uppercase(), |v| v.join(" "));
        let many = matches!(arg.get_action(), ArgAction::Append);
        let text = format!("{names}{}", if many { "..." } else { "" });
        words.push(if arg.is_required_set() {
            format!("<{text}>")
        } else {
            format!("[{text}]")
        });
    }
    if cmd.has_subcommands() {
        words.push("<COMMAND>".into());
    }
    words.join(" ")
}
