//! The `llv` command line: a thin shell over the `llv` library.

fn main() -> std::process::ExitCode {
    llv::cli::main()
}
