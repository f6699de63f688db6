//! Inputs of the fuzz targets in `fuzz/`, checked again with the very checks the targets run.
//!
//! Each input is a fuzz input as the targets read it (see `fuzz/src/checks.rs`): an options byte, a
//! cut count, two bytes per cut, then the text. Every input that ever made a target fail belongs
//! here, with a line saying what it found; the hand-made ones in front aim at the checks' branches.

// A test fails by panicking; the included checks assert and index fuzz bytes they just measured.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "../fuzz/src/checks.rs"]
mod checks;

use checks::{check_split_equivalence, check_status_consistency, Case};

/// A fuzz input: options byte, the cuts, the text.
fn input(options: u8, cuts: &[u16], text: &[u8]) -> Vec<u8> {
    let mut data = vec![options, cuts.len() as u8];
    for cut in cuts {
        data.extend_from_slice(&cut.to_le_bytes());
    }
    data.extend_from_slice(text);
    data
}

/// Hand-made inputs: each names the branch of the checks it reaches.
fn seeds() -> Vec<Vec<u8>> {
    vec![
        // Complete, cut inside a key, a surrogate pair and a number.
        input(0, &[3, 12, 20, 31], br#"{"key":"\ud83d\ude80","n":[-1.5e3,true]}"#),
        // Malformed in the last fragment, after a cut inside an escape.
        input(0, &[2, 4], br#"["\q"]"#),
        // Cut off inside a literal.
        input(0, &[1, 2], b"[tr"),
        // A top-level number: complete as it stands, ended by finish.
        input(0, &[1], b"12"),
        // Depth limit 2 (options 0x81), crossed in the second fragment.
        input(0x81, &[1], b"[[[1]]]"),
        // Size limit (options 0x40 | 32: about half the text), crossed in the second fragment.
        input(0x60, &[4], b"[1, 2, 3, 4, 5, 6]"),
        // Invalid UTF-8, mapped to U+FFFD inside and outside a string, cut through the mapped bytes.
        input(0, &[2, 3, 7], b"[\"\xff\xfe\", \xc3]"),
        // Empty fragments (repeated cuts) and an empty text.
        input(0, &[0, 0, 0], b""),
        input(0, &[2, 2, 2], b"[]  "),
        // Trailing characters after a complete value.
        input(0, &[1], b"{} x"),
    ]
}

#[test]
fn seeds_split_the_same_as_whole() {
    for data in seeds() {
        check_split_equivalence(&Case::from_bytes(&data, false));
    }
}

#[test]
fn seeds_have_consistent_status() {
    for data in seeds() {
        check_status_consistency(&Case::from_bytes(&data, true));
    }
}

#[test]
fn case_reading_takes_the_header_apart() {
    let case = Case::from_bytes(&input(0x81, &[5, 1, 300], b"[1,2]"), true);
    assert_eq!(case.max_depth, 2);
    assert_eq!(case.max_size, None);
    // Cut offsets wrap at the text's length plus one and come out sorted.
    assert_eq!(case.cuts, vec![0, 1, 5]);
    assert_eq!(case.fragments(), vec![&b""[..], b"[", b"1,2]", b""]);
}
