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
        clap_mangen::Man::new(command).render(&mut out)?;
        return out.flush().context("standard output");
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    let mut page = |name: String, cmd: clap::Command| -> Result<()> {
        let path = dir.join(format!("{name}.1"));
        let mut text = Vec::new();
        clap_mangen::Man::new(cmd.name(name.clone())).render(&mut text)?;
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
