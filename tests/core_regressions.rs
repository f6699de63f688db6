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
use tooljson::{IgnoreSink, StreamParser};

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
        input(
            0,
            &[3, 12, 20, 31],
            br#"{"key":"\ud83d\ude80","n":[-1.5e3,true]}"#,
        ),
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

/// Inputs the fuzz targets failed on, byte for byte as they found them.
fn found() -> Vec<Vec<u8>> {
    vec![
        // status_consistency: size limit 1 inside a three-byte character (U+FFFD from the mapped
        // bytes), cut inside it. The size error names the character that crosses the limit, at
        // offset 0, and the fragment is read up to it; the check had expected the limit itself.
        b"[\"\xed\xa0\x80\"".to_vec(),
        // split_equivalence and status_consistency: under a size limit, cuts inside a character
        // changed the verdict (see the ignored test below); the targets now cut only between
        // characters when a size limit is set, as Python fragments are cut.
        vec![
            0x5b, 0x67, 0x27, 0x65, 0x0a, 0x00, 0x5b, 0x5d, 0x5d, 0x5d, 0xfa,
        ],
        [
            &b"[0.4e\\r{[\"\\{\xdb\"\\{[\":[{\"{\"^f<[\":\xf9{\""[..],
            &[0xf7; 45],
            b"\\\x84\\{",
        ]
        .concat(),
    ]
}

/// Feeds `text` cut at `cuts` to a parser limited to `max_size` bytes; the first error, if any.
fn size_limited(text: &[u8], max_size: usize, cuts: &[usize]) -> Result<(), tooljson::Error> {
    let mut parser = StreamParser::default().with_max_size(max_size);
    let mut start = 0;
    for &end in cuts.iter().chain(std::iter::once(&text.len())) {
        parser.feed(&text[start..end], &mut IgnoreSink)?;
        start = end;
    }
    Ok(())
}

#[test]
#[ignore = "core: under max_size, a fragment that ends inside a character changes the verdict"]
fn size_limit_verdict_does_not_depend_on_cuts_inside_characters() {
    // U+FFFD (3 bytes) with a 1-byte limit: whole, the character crosses the limit at 0; cut after
    // its first byte, that byte fits and is refused as the start of a value.
    let replacement = "\u{fffd}".as_bytes();
    assert_eq!(
        size_limited(replacement, 1, &[1]),
        size_limited(replacement, 1, &[])
    );
    // `"é"` with a 2-byte limit: whole, `é` (at byte 1) crosses it; cut inside `é`, the error is
    // placed at byte 2, inside the character.
    let accented = "\"é\"".as_bytes();
    assert_eq!(
        size_limited(accented, 2, &[2]),
        size_limited(accented, 2, &[])
    );
}

#[test]
fn found_inputs_split_the_same_as_whole() {
    for data in found() {
        check_split_equivalence(&Case::from_bytes(&data));
    }
}

#[test]
fn found_inputs_have_consistent_status() {
    for data in found() {
        check_status_consistency(&Case::from_bytes(&data));
    }
}

#[test]
fn seeds_split_the_same_as_whole() {
    for data in seeds() {
        check_split_equivalence(&Case::from_bytes(&data));
    }
}

#[test]
fn seeds_have_consistent_status() {
    for data in seeds() {
        check_status_consistency(&Case::from_bytes(&data));
    }
}

#[test]
fn case_reading_takes_the_header_apart() {
    let case = Case::from_bytes(&input(0x81, &[5, 1, 300], b"[1,2]"));
    assert_eq!(case.max_depth, 2);
    assert_eq!(case.max_size, None);
    // Cut offsets wrap at the text's length plus one and come out sorted.
    assert_eq!(case.cuts, vec![0, 1, 5]);
    assert_eq!(case.fragments(), vec![&b""[..], b"[", b"1,2]", b""]);
}
