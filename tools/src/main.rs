//! The `vksort` binary: see [`vksort_tools::cli`].

fn main() {
    std::process::exit(vksort_tools::cli::main());
}
