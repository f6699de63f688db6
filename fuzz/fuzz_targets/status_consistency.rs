//! `status()` and the open-value accessors after every fragment: no panic, consistent answers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tooljson_fuzz::checks::{check_status_consistency, Case};

fuzz_target!(|data: &[u8]| {
    check_status_consistency(&Case::from_bytes(data));
});
