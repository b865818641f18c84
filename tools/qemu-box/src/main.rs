//! `llv-qemu-box ELF [-append "WORDS"] [--json]`: boots the llv box image ELF
//! under QEMU with every port it serves forwarded to 127.0.0.1 (the box's own
//! numbers where they are free), prints the ports, then the box's log as
//! lines of text, and exits with the box's exit status. The QEMU board's
//! cargo runner: `cargo run --release -p llv-box-qemu -- -append "..."` in
//! `firmware/`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use llv_qemu_box::{Boot, Ports, QemuBox};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut elf = None;
    let mut append = String::new();
    let mut json = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "-append" => append = args.next().unwrap_or_default(),
            "--json" => json = true,
            "-h" | "--help" => {
                println!("{}", HELP);
                return ExitCode::SUCCESS;
            }
            _ if elf.is_none() => elf = Some(PathBuf::from(a)),
            other => {
                eprintln!("llv-qemu-box: unexpected {other:?}\n{HELP}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(elf) = elf else {
        eprintln!("llv-qemu-box: which image?\n{HELP}");
        return ExitCode::from(2);
    };
    let ports = match Ports::pick() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("llv-qemu-box: {e}");
            return ExitCode::from(2);
        }
    };
    if json {
        println!("{}", ports.json());
    } else {
        println!("the box under QEMU (10.0.2.15; the host is 10.0.2.2 from inside), reached on:\n{ports}");
        let control = ports.host("control").unwrap_or(11113);
        println!("  e.g. llv box 127.0.0.1:{control} status   (Ctrl-C stops the box)\n");
    }
    let boot = Boot {
        append: &append,
        ports: Some(&ports),
        nic: "",
    };
    let mut running = match QemuBox::boot(&elf, &boot, true) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("llv-qemu-box: {}: {e}", elf.display());
            return ExitCode::from(2);
        }
    };
    loop {
        if let Some(status) = running.wait_for(Duration::from_secs(3600)) {
            let code = status.code().unwrap_or(1);
            return ExitCode::from(u8::try_from(code).unwrap_or(1));
        }
    }
}

const HELP: &str = "usage: llv-qemu-box ELF [-append \"WORDS\"] [--json]
  Boots the box image ELF on QEMU's mps2-an386, forwards every port it serves
  (control, OSC, Art-Net timecode, mDNS) from 127.0.0.1, prints them (--json:
  one JSON line), then the box's log as text. Exits with the box's status.";
