//! Gives the program its build id: the hash of the sources it is built from
//! (`src/build_id/hash.rs`). Cached results are keyed by it, so that a result
//! computed by other code is never read.

#[path = "src/build_id/hash.rs"]
mod hash;

fn main() {
    for name in hash::SOURCES {
        println!("cargo:rerun-if-changed={name}");
    }
    let root = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let id = hash::of_sources(&root).expect("the sources can be read");
    println!("cargo:rustc-env=FIFTYMOVE_BUILD_ID={id}");
}
