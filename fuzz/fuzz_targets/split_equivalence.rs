//! Any text, cut anywhere, gives the same events, value and verdict as the whole text, also under
//! depth and size limits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tooljson_fuzz::checks::{check_split_equivalence, Case};

fuzz_target!(|data: &[u8]| {
    check_split_equivalence(&Case::from_bytes(data));
});
