//! The streaming decoder on table files made of arbitrary bytes; see
//! `checks::check_sweep`.
#![no_main]

#[path = "checks.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_sweep(data));
