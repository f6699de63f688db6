//! Table-driven tests of the core on whole texts: valid texts give their value, malformed ones
//! their error kind at the first offending byte, cut-off ones their `EofWhileParsing…` kind at the
//! text's length; error wording and location; surrogates; the events a text gives.
//!
//! The tables are in `tables/mod.rs`, shared with `core_splits.rs`, which feeds every text cut in
//! every way.

// A test fails by panicking; indexing a table it built itself is part of reading it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod tables;

use tables::{cut_off_cases, malformed_cases, record, s, same, string_bytes, valid_cases, Event};
use tooljson::ErrorKind::{EofWhileParsingString, ExpectedValue, TrailingComma};
use tooljson::{parse, Error, IgnoreSink, Literal, StreamParser, Value};

// ---------------------------------------------------------------------------------------------
// Whole texts

#[test]
fn valid_texts_give_their_value() {
    for (text, expected) in valid_cases() {
        match parse(text) {
            Ok(value) => assert!(
                same(&value, &expected),
                "{text:?}: got {value:?}, expected {expected:?}"
            ),
            Err(error) => panic!("{text:?}: unexpected error {error:?}"),
        }
    }
}

#[test]
fn valid_texts_keep_the_sign_of_zero() {
    assert!(matches!(parse("-0.0"), Ok(Value::Float(x)) if x == 0.0 && x.is_sign_negative()));
    assert!(matches!(parse("0.0"), Ok(Value::Float(x)) if x == 0.0 && x.is_sign_positive()));
    assert!(matches!(parse("-0"), Ok(Value::Int(0))));
}

#[test]
fn malformed_texts_give_kind_and_first_offending_byte() {
    for (text, kind, offset) in malformed_cases() {
        let got = parse(text);
        assert_eq!(got, Err(Error { kind, offset }), "{text:?}");
        assert!(!kind.is_eof(), "{text:?}: {kind:?} is not a cut-off kind");
    }
}

#[test]
fn cut_off_texts_end_at_their_length() {
    for (text, kind) in cut_off_cases() {
        let got = parse(text);
        assert_eq!(
            got,
            Err(Error {
                kind,
                offset: text.len()
            }),
            "{text:?}"
        );
        assert!(kind.is_eof(), "{text:?}");
        assert!(got.as_ref().is_err_and(Error::is_eof), "{text:?}");
        // What the parser says is missing before finish is what finish reports.
        let mut parser = StreamParser::default();
        parser.feed(text.as_bytes(), &mut IgnoreSink).unwrap();
        assert_eq!(parser.cut_off_kind(), kind, "{text:?}");
    }
}

#[test]
fn every_prefix_of_a_valid_text_is_cut_off_or_complete() {
    // A valid text is a valid prefix all the way: cutting it anywhere gives a cut-off error at
    // the cut (or a complete value for a top-level number), never a malformed one.
    for (text, _) in valid_cases() {
        for end in (0..text.len()).filter(|&end| text.is_char_boundary(end)) {
            let prefix = &text[..end];
            match parse(prefix) {
                // Only a top-level number, or the whole value short of trailing whitespace.
                Ok(_) => assert!(
                    text[end..].trim().is_empty()
                        || prefix
                            .trim()
                            .bytes()
                            .all(|b| b"0123456789.eE+-".contains(&b)),
                    "{prefix:?} of {text:?} parsed"
                ),
                Err(error) => {
                    assert!(error.is_eof(), "{prefix:?} of {text:?}: {error:?}");
                    assert_eq!(error.offset, prefix.len(), "{prefix:?} of {text:?}");
                }
            }
        }
    }
}

#[test]
fn error_kinds_read_like_serde_json() {
    assert_eq!(TrailingComma.message(), "trailing comma");
    assert_eq!(
        EofWhileParsingString.message(),
        "EOF while parsing a string"
    );
    let error = parse("[1,]").unwrap_err();
    assert_eq!(error.to_string(), "trailing comma at byte 3");
}

#[test]
fn error_offset_is_in_bytes_and_counts_back_to_characters() {
    let text = "{\n  \"é\": [1,\n    x]}";
    let error = parse(text).unwrap_err();
    assert_eq!(
        (error.kind, error.offset),
        (ExpectedValue, text.find('x').unwrap())
    );
    assert_eq!(
        tooljson::error::char_count(&text.as_bytes()[..error.offset]),
        text.chars().position(|c| c == 'x').unwrap()
    );
}

// ---------------------------------------------------------------------------------------------
// Surrogates: pairs combine, lone halves are kept as three-byte WTF-8 (Python's surrogatepass)

#[test]
fn escaped_surrogate_pairs_make_one_character() {
    assert_eq!(string_bytes(r#""\ud83d\ude80""#), "🚀".as_bytes());
    assert_eq!(string_bytes(r#""\uD83D\uDE80""#), "🚀".as_bytes());
    assert_eq!(string_bytes(r#""\udbff\udfff""#), "\u{10ffff}".as_bytes());
    assert_eq!(string_bytes(r#""\ud800\udc00""#), "\u{10000}".as_bytes());
    // A lone high surrogate, then a pair.
    assert_eq!(
        string_bytes(r#""\ud800\ud83d\ude80""#),
        [&[0xED, 0xA0, 0x80], "🚀".as_bytes()].concat()
    );
}

#[test]
fn lone_surrogates_are_kept() {
    let high = [0xED, 0xA0, 0x80]; // U+D800
    let low = [0xED, 0xB0, 0x80]; // U+DC00
    assert_eq!(string_bytes(r#""\ud800""#), high);
    assert_eq!(string_bytes(r#""\udc00""#), low);
    assert_eq!(string_bytes(r#""\ud800x""#), [&high[..], b"x"].concat());
    assert_eq!(string_bytes(r#""\ud800\n""#), [&high[..], b"\n"].concat());
    assert_eq!(
        string_bytes(r#""\ud800\u0041""#),
        [&high[..], b"A"].concat()
    );
    assert_eq!(string_bytes(r#""\ud800\ud800""#), [high, high].concat());
    assert_eq!(string_bytes(r#""\udc00\ud800""#), [low, high].concat());
    // Inverted pair: two lone halves, not one character.
    assert_eq!(
        string_bytes(r#""\ude80\ud83d""#),
        [[0xED, 0xBA, 0x80], [0xED, 0xA0, 0xBD]].concat()
    );
    // A raw character between the halves keeps them apart.
    assert_eq!(
        string_bytes(r#""\ud83dé\ude80""#),
        [&[0xED, 0xA0, 0xBD][..], "é".as_bytes(), &[0xED, 0xBA, 0x80]].concat()
    );
}

#[test]
fn surrogates_in_keys() {
    let (events, result) = record(br#"{"\ud83d\ude80":1,"\udc00":2}"#);
    assert_eq!(result, Ok(()));
    assert_eq!(
        events,
        vec![
            Event::StartObject,
            Event::Key("🚀".as_bytes().to_vec()),
            Event::Number(b"1".to_vec(), false),
            Event::Key(vec![0xED, 0xB0, 0x80]),
            Event::Number(b"2".to_vec(), false),
            Event::EndObject,
        ]
    );
}

#[test]
fn lone_surrogate_becomes_one_replacement_character_in_value() {
    // `Value::String` documents a lone surrogate as U+FFFD (one character per surrogate).
    assert_eq!(parse(r#""\ud800""#), Ok(s("\u{fffd}")));
    assert_eq!(parse(r#""a\udc00b""#), Ok(s("a\u{fffd}b")));
}

// ---------------------------------------------------------------------------------------------
// Events and literals

#[test]
fn events_come_in_document_order() {
    let (events, result) = record(br#"[{"k":"v","n":-1.5e3},NaN,-Infinity,12,null]"#);
    assert_eq!(result, Ok(()));
    assert_eq!(
        events,
        vec![
            Event::StartArray,
            Event::StartObject,
            Event::Key(b"k".to_vec()),
            Event::String(b"v".to_vec()),
            Event::Key(b"n".to_vec()),
            Event::Number(b"-1.5e3".to_vec(), true),
            Event::EndObject,
            Event::Literal(Literal::NaN),
            Event::Literal(Literal::NegInfinity),
            Event::Number(b"12".to_vec(), false),
            Event::Literal(Literal::Null),
            Event::EndArray,
        ]
    );
}

#[test]
fn number_texts_are_passed_on_verbatim() {
    for text in [
        "0",
        "-0",
        "1E+2",
        "1e-0",
        "-0.000",
        "123456789012345678901234567890",
        "1.5E300",
    ] {
        let (events, result) = record(text.as_bytes());
        assert_eq!(result, Ok(()), "{text:?}");
        let is_float = text.contains(['.', 'e', 'E']);
        assert_eq!(
            events,
            vec![Event::Number(text.as_bytes().to_vec(), is_float)],
            "{text:?}"
        );
    }
}
