//! Material parsing (and its suggestions) on arbitrary text; see
//! `checks::check_material`.
#![no_main]

#[path = "checks.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_material(data));
