//! Generates the C header from src/lib.rs into OUT_DIR/vksort.h. The committed include/vksort.h is the copy C
//! programs use; tests/c_api.rs fails when the two differ (regenerate with `VKSORT_WRITE_HEADER=1 cargo build
//! -p vksort-capi`, which also writes include/vksort.h: a developer's step, never a packaging one).
fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let out = std::env::var("OUT_DIR").unwrap();
    println!("cargo:rerun-if-changed=src/lib.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-env-changed=VKSORT_WRITE_HEADER");
    let config =
        cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen could not generate vksort.h");
    bindings.write_to_file(format!("{out}/vksort.h"));
    if std::env::var("VKSORT_WRITE_HEADER").is_ok_and(|v| v == "1") {
        bindings.write_to_file(format!("{dir}/include/vksort.h"));
    }
}
