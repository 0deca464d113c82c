//! Table files made of arbitrary bytes, opened and probed the way the
//! binary does; see `checks::check_table_probe`.
//!
//! A panic inside table reading is turned into an exit-code-3 error by
//! `guard_table_read`, and is not a failure here. With
//! `FIFTYMOVE_FUZZ_STRICT=1` it is: every panic aborts, which finds the
//! inputs shakmaty-syzygy panics on, to keep as regression tests.
#![no_main]

#[path = "checks.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        if std::env::var_os("FIFTYMOVE_FUZZ_STRICT").is_none() {
            // Silent inside the guard; libFuzzer's abort everywhere else.
            fiftymove::error::quiet_table_panics();
        }
    });
    checks::check_table_probe(data);
});
