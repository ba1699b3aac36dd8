//! The `vksort` binary: see [`cli`].

mod cli;

fn main() {
    std::process::exit(cli::main());
}
