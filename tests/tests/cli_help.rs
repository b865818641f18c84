//! Every command's `--help` ends with examples, and every example parses as
//! the command line it shows (the whole clap tree of `llv`, walked).

use clap::error::ErrorKind;
use clap::CommandFactory;
use llv::cli::Cli;

/// The shell words of each `llv` command on an example line: quotes
/// honoured, a `#` comment dropped, `;` between commands, what follows a
/// pipe or a redirection left out.
fn llv_commands(line: &str) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    let (mut words, mut word) = (Vec::new(), String::new());
    let (mut in_word, mut quote, mut piped) = (false, None, false);
    let end_word = |words: &mut Vec<String>, word: &mut String, in_word: &mut bool, piped: bool| {
        if *in_word && !piped {
            words.push(std::mem::take(word));
        }
        word.clear();
        *in_word = false;
    };
    for c in line.chars() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            } else {
                word.push(c);
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                in_word = true;
            }
            ' ' | '\t' => end_word(&mut words, &mut word, &mut in_word, piped),
            '#' if !in_word => break,
            ';' => {
                end_word(&mut words, &mut word, &mut in_word, piped);
                all.push(std::mem::take(&mut words));
                piped = false;
            }
            '|' | '>' | '<' | '&' => {
                end_word(&mut words, &mut word, &mut in_word, piped);
                piped = true;
            }
            _ => {
                word.push(c);
                in_word = true;
            }
        }
    }
    end_word(&mut words, &mut word, &mut in_word, piped);
    all.push(words);
    all.retain(|w| w.first().is_some_and(|w| w == "llv"));
    all
}

/// Every subcommand below `cmd`, with its path of names.
fn walk(cmd: &clap::Command, path: &[String], out: &mut Vec<(Vec<String>, clap::Command)>) {
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let mut here = path.to_vec();
        here.push(sub.get_name().to_string());
        out.push((here.clone(), sub.clone()));
        walk(sub, &here, out);
    }
}

/// The subcommand path a parsed command line chose.
fn chosen(matches: &clap::ArgMatches) -> Vec<String> {
    let mut path = Vec::new();
    let mut at = matches;
    while let Some((name, sub)) = at.subcommand() {
        path.push(name.to_string());
        at = sub;
    }
    path
}

#[test]
fn every_help_ends_with_examples_that_parse() {
    let mut root = Cli::command();
    root.build();
    let mut commands = Vec::new();
    walk(&root, &[], &mut commands);
    assert!(commands.len() > 30, "{} subcommands", commands.len());
    let mut problems = Vec::new();
    for (path, mut cmd) in commands {
        let name = format!("llv {}", path.join(" "));
        let help = cmd.render_long_help().to_string();
        let Some((_, examples)) = help.rsplit_once("\nExamples:\n") else {
            problems.push(format!("{name}: its --help has no Examples"));
            continue;
        };
        let mut shown = 0;
        let mut of_this = 0;
        for line in examples.lines().filter(|l| !l.trim().is_empty()) {
            if !line.starts_with("  ") {
                problems.push(format!("{name}: after its examples: {line:?}"));
                continue;
            }
            for words in llv_commands(line) {
                shown += 1;
                match Cli::command().try_get_matches_from(&words) {
                    Ok(m) => of_this += usize::from(chosen(&m).starts_with(&path)),
                    Err(e) if e.kind() == ErrorKind::DisplayHelp => {}
                    Err(e) => {
                        problems.push(format!("{name}: `{}` does not parse: {e}", words.join(" ")))
                    }
                }
            }
        }
        if shown == 0 || of_this == 0 {
            problems.push(format!("{name}: no example runs {name} itself"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn example_lines_split_as_a_shell_does() {
    assert_eq!(
        llv_commands("  llv tc send --start '00:59:59;28'   # drop-frame"),
        [vec!["llv", "tc", "send", "--start", "00:59:59;28"]]
    );
    assert_eq!(
        llv_commands("  llv card list a; llv card check b"),
        [
            vec!["llv", "card", "list", "a"],
            vec!["llv", "card", "check", "b"]
        ]
    );
    assert_eq!(llv_commands("  llv man | man -l -"), [vec!["llv", "man"]]);
    assert_eq!(
        llv_commands("  truncate -s 256M card.img; llv card format card.img"),
        [vec!["llv", "card", "format", "card.img"]]
    );
}
