//! Table-driven tests of the core: whole texts with the value they give, malformed texts with the
//! error kind and the byte offset of the first offending byte, cut-off texts with their
//! `EofWhileParsing…` kind at the text's length, the depth limit, surrogates and the status the
//! parser reports as fragments arrive.
//!
//! The tables are shared with `core_splits.rs`, which feeds every text cut in every way.

// A test fails by panicking; indexing a table it built itself is part of reading it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
// The tables are long on purpose: one line per case.
#![allow(clippy::too_many_lines)]
// `core_splits.rs` includes this file for its tables and does not call every helper.
#![allow(dead_code)]

use tooljson::{
    parse, parse_fragments, Error, ErrorKind, IgnoreSink, Literal, Sink, Status, StreamParser,
    Value, ValueBuilder, DEFAULT_MAX_DEPTH,
};

use ErrorKind::{
    ControlCharacterInString, EofWhileParsingList, EofWhileParsingLiteral, EofWhileParsingNumber,
    EofWhileParsingObject, EofWhileParsingString, EofWhileParsingValue, ExpectedColon,
    ExpectedIdent, ExpectedListCommaOrEnd, ExpectedObjectCommaOrEnd, ExpectedValue, InvalidEscape,
    InvalidNumber, InvalidUnicodeEscape, KeyMustBeAString, RecursionLimitExceeded,
    TrailingCharacters, TrailingComma,
};

// ---------------------------------------------------------------------------------------------
// Building expected values

pub(crate) fn s(text: &str) -> Value {
    Value::String(text.to_owned())
}

pub(crate) fn int(n: i64) -> Value {
    Value::Int(n)
}

pub(crate) fn big(digits: &str) -> Value {
    Value::BigInt(digits.to_owned())
}

pub(crate) fn float(x: f64) -> Value {
    Value::Float(x)
}

pub(crate) fn arr(items: Vec<Value>) -> Value {
    Value::Array(items)
}

pub(crate) fn obj(members: Vec<(&str, Value)>) -> Value {
    Value::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

/// Equality that treats two NaNs as equal and tells `0.0` from `-0.0`: `Value`'s `PartialEq`
/// follows `f64`'s, which does neither. The debug form spells out every float exactly.
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

// ---------------------------------------------------------------------------------------------
// The tables

/// Texts `json.loads` accepts, with what it gives.
pub(crate) fn valid_cases() -> Vec<(&'static str, Value)> {
    vec![
        // Scalars at the top level, with and without surrounding whitespace.
        ("null", Value::Null),
        ("true", Value::Bool(true)),
        ("false", Value::Bool(false)),
        (" \t\r\n null \t\r\n", Value::Null),
        ("\"\"", s("")),
        ("\"abc\"", s("abc")),
        // Numbers: integers stay exact, anything with a fraction or exponent is a float.
        ("0", int(0)),
        ("-0", int(0)),
        ("7", int(7)),
        ("-12", int(-12)),
        ("9223372036854775807", int(i64::MAX)),
        ("-9223372036854775808", int(i64::MIN)),
        ("9223372036854775808", big("9223372036854775808")),
        ("-9223372036854775809", big("-9223372036854775809")),
        (
            "123456789012345678901234567890",
            big("123456789012345678901234567890"),
        ),
        ("9007199254740993", int(9_007_199_254_740_993)),
        ("1.5", float(1.5)),
        ("-0.0", float(-0.0)),
        ("0.1", float(0.1)),
        ("0.30000000000000004", float(0.300_000_000_000_000_04)),
        ("1e2", float(100.0)),
        ("1E2", float(100.0)),
        ("1e+2", float(100.0)),
        ("1e-2", float(0.01)),
        ("0e0", float(0.0)),
        ("-1.25E-3", float(-0.001_25)),
        (
            "2.2250738585072011e-308",
            float(f64::from_bits(0x000F_FFFF_FFFF_FFFF)),
        ),
        ("1e400", float(f64::INFINITY)),
        ("-1e400", float(f64::NEG_INFINITY)),
        ("1e-400", float(0.0)),
        // The three names json.loads accepts beyond RFC 8259.
        ("NaN", float(f64::NAN)),
        ("Infinity", float(f64::INFINITY)),
        ("-Infinity", float(f64::NEG_INFINITY)),
        (
            "[NaN,Infinity,-Infinity]",
            arr(vec![
                float(f64::NAN),
                float(f64::INFINITY),
                float(f64::NEG_INFINITY),
            ]),
        ),
        // Strings: every escape, raw non-ASCII, DEL (not a control character for JSON).
        (
            r#""\" \\ \/ \b \f \n \r \t""#,
            s("\" \\ / \u{8} \u{c} \n \r \t"),
        ),
        (r#""\u0041\u00e9\u00E9\u20AC""#, s("Aéé€")),
        (r#""\u0000""#, s("\0")),
        ("\"é€😀 ünïcödé\"", s("é€😀 ünïcödé")),
        ("\"\u{7f}\"", s("\u{7f}")),
        (r#""a\nb""#, s("a\nb")),
        // A surrogate pair, escaped, makes one character.
        (r#""\ud83d\ude80""#, s("🚀")),
        (r#""\uD834\uDD1E""#, s("𝄞")),
        // Containers.
        ("[]", arr(vec![])),
        ("{}", obj(vec![])),
        ("[ ]", arr(vec![])),
        ("{ }", obj(vec![])),
        (
            "[1,2.5,-3,\"x\",true,false,null]",
            arr(vec![
                int(1),
                float(2.5),
                int(-3),
                s("x"),
                Value::Bool(true),
                Value::Bool(false),
                Value::Null,
            ]),
        ),
        (
            " [ 1 , [ 2 , [ ] ] , { } ] ",
            arr(vec![int(1), arr(vec![int(2), arr(vec![])]), obj(vec![])]),
        ),
        (r#"{"city": "Lisbon"}"#, obj(vec![("city", s("Lisbon"))])),
        (r#"{"b":1,"a":2}"#, obj(vec![("b", int(1)), ("a", int(2))])),
        (r#"{"":0}"#, obj(vec![("", int(0))])),
        (r#"{"\u0061":1}"#, obj(vec![("a", int(1))])),
        (r#"{"🚀\ud83d\ude80":[]}"#, obj(vec![("🚀🚀", arr(vec![]))])),
        (
            r#"{"a":{"b":[1,{"c":null}]},"d":"e"}"#,
            obj(vec![
                (
                    "a",
                    obj(vec![(
                        "b",
                        arr(vec![int(1), obj(vec![("c", Value::Null)])]),
                    )]),
                ),
                ("d", s("e")),
            ]),
        ),
        (
            "{\n  \"path\": \"/tmp/x.txt\",\n  \"content\": \"line 1\\nline \\\"2\\\"\\n\"\n}",
            obj(vec![
                ("path", s("/tmp/x.txt")),
                ("content", s("line 1\nline \"2\"\n")),
            ]),
        ),
        // Duplicate keys: the last value wins, the key keeps its first position.
        (
            r#"{"a":1,"b":2,"a":3}"#,
            obj(vec![("a", int(3)), ("b", int(2))]),
        ),
        (r#"{"a":1,"\u0061":2}"#, obj(vec![("a", int(2))])),
        (
            r#"{"a":{"x":1},"b":0,"a":[2]}"#,
            obj(vec![("a", arr(vec![int(2)])), ("b", int(0))]),
        ),
        // Numbers as members, ended by every kind of byte that may follow them.
        ("[0,1 ,2\t,3\n]", arr(vec![int(0), int(1), int(2), int(3)])),
        (r#"{"a":1.5e3}"#, obj(vec![("a", float(1500.0))])),
        (r#"{"a":-0 }"#, obj(vec![("a", int(0))])),
        ("[-Infinity]", arr(vec![float(f64::NEG_INFINITY)])),
    ]
}

/// Texts that can never become JSON, with the kind and the byte offset of the first offending byte.
pub(crate) fn malformed_cases() -> Vec<(&'static str, ErrorKind, usize)> {
    vec![
        // Structure.
        ("[1,]", TrailingComma, 3),
        ("{\"a\":1,}", TrailingComma, 7),
        ("[1 , ]", TrailingComma, 5),
        ("{\"a\" 1}", ExpectedColon, 5),
        ("{\"a\"}", ExpectedColon, 4),
        ("{\"a\",1}", ExpectedColon, 4),
        ("{\"a\":}", ExpectedValue, 5),
        ("{1:2}", KeyMustBeAString, 1),
        ("{,}", KeyMustBeAString, 1),
        ("{]", KeyMustBeAString, 1),
        ("{'a':1}", KeyMustBeAString, 1),
        ("{\"a\":1,1}", KeyMustBeAString, 7),
        ("{\"a\":1 \"b\":2}", ExpectedObjectCommaOrEnd, 7),
        ("{\"a\":1]", ExpectedObjectCommaOrEnd, 6),
        ("[1 2]", ExpectedListCommaOrEnd, 3),
        ("[1}", ExpectedListCommaOrEnd, 2),
        ("[\"a\" \"b\"]", ExpectedListCommaOrEnd, 5),
        ("[,]", ExpectedValue, 1),
        ("[1,,2]", ExpectedValue, 3),
        ("[}", ExpectedValue, 1),
        ("]", ExpectedValue, 0),
        ("}", ExpectedValue, 0),
        (":", ExpectedValue, 0),
        ("'a'", ExpectedValue, 0),
        ("[é]", ExpectedValue, 1),
        ("[\"é\",x]", ExpectedValue, 6),
        ("\u{c}1", ExpectedValue, 0),
        ("[1,\u{c}2]", ExpectedValue, 3),
        ("\u{a0}1", ExpectedValue, 0),
        // Something after the value.
        ("{} {}", TrailingCharacters, 3),
        ("[]]", TrailingCharacters, 2),
        ("1 2", TrailingCharacters, 2),
        ("\"a\"\"b\"", TrailingCharacters, 3),
        ("{\"a\":1}é", TrailingCharacters, 7),
        ("{}\u{feff}", TrailingCharacters, 2),
        ("nulll", TrailingCharacters, 4),
        ("truex", TrailingCharacters, 4),
        ("Infinityy", TrailingCharacters, 8),
        ("-Infinityx", TrailingCharacters, 9),
        ("1.5.3", TrailingCharacters, 3),
        ("1e5.0", TrailingCharacters, 3),
        ("0x1", TrailingCharacters, 1),
        ("0-1", TrailingCharacters, 1),
        // A byte order mark is not whitespace.
        ("\u{feff}{}", ExpectedValue, 0),
        ("\u{feff}", ExpectedValue, 0),
        // Numbers.
        ("01", InvalidNumber, 1),
        ("00", InvalidNumber, 1),
        ("-01", InvalidNumber, 2),
        ("[01]", InvalidNumber, 2),
        ("1.e5", InvalidNumber, 2),
        ("[1.]", InvalidNumber, 3),
        ("1.x", InvalidNumber, 2),
        ("1ex", InvalidNumber, 2),
        ("1e+x", InvalidNumber, 3),
        ("1e+]", InvalidNumber, 3),
        ("-x", InvalidNumber, 1),
        ("--1", InvalidNumber, 1),
        ("[-]", InvalidNumber, 2),
        ("- 1", InvalidNumber, 1),
        ("-NaN", InvalidNumber, 1),
        ("-infinity", InvalidNumber, 1),
        (".5", ExpectedValue, 0),
        ("+1", ExpectedValue, 0),
        // Names.
        ("trux", ExpectedIdent, 3),
        ("[falsy]", ExpectedIdent, 5),
        ("nuLl", ExpectedIdent, 2),
        ("NAN", ExpectedIdent, 1),
        ("Nan", ExpectedIdent, 2),
        ("Infinit y", ExpectedIdent, 7),
        ("-Infinitx", ExpectedIdent, 8),
        ("True", ExpectedValue, 0),
        ("nan", ExpectedIdent, 1),
        ("infinity", ExpectedValue, 0),
        // Strings.
        ("\"\\x\"", InvalidEscape, 2),
        ("\"\\U0041\"", InvalidEscape, 2),
        ("\"\\'\"", InvalidEscape, 2),
        ("\"ab\\ \"", InvalidEscape, 4),
        ("\"é\\é\"", InvalidEscape, 4),
        ("\"\\u12G4\"", InvalidUnicodeEscape, 5),
        ("\"\\u\"", InvalidUnicodeEscape, 3),
        ("\"\\ud800\\uZ\"", InvalidUnicodeEscape, 9),
        ("\"a\nb\"", ControlCharacterInString, 2),
        ("\"\t\"", ControlCharacterInString, 1),
        ("\"\u{0}\"", ControlCharacterInString, 1),
        ("\"\u{1f}\"", ControlCharacterInString, 1),
        ("\"é\r\"", ControlCharacterInString, 3),
        ("{\"a\nb\":1}", ControlCharacterInString, 3),
    ]
}

/// Valid prefixes that stopped early: the kind, at the text's length.
pub(crate) fn cut_off_cases() -> Vec<(&'static str, ErrorKind)> {
    vec![
        ("", EofWhileParsingValue),
        ("   ", EofWhileParsingValue),
        ("\n", EofWhileParsingValue),
        ("[", EofWhileParsingList),
        ("[1", EofWhileParsingList),
        ("[1,", EofWhileParsingList),
        ("[1, ", EofWhileParsingList),
        ("[[]", EofWhileParsingList),
        ("[\"a\"", EofWhileParsingList),
        ("[true", EofWhileParsingList),
        ("{", EofWhileParsingObject),
        ("{ ", EofWhileParsingObject),
        ("{\"a\"", EofWhileParsingObject),
        ("{\"a\" ", EofWhileParsingObject),
        ("{\"a\":", EofWhileParsingObject),
        ("{\"a\":1", EofWhileParsingObject),
        ("{\"a\":1,", EofWhileParsingObject),
        ("{\"a\":{}", EofWhileParsingObject),
        ("\"", EofWhileParsingString),
        ("\"abc", EofWhileParsingString),
        ("\"é", EofWhileParsingString),
        ("\"\\", EofWhileParsingString),
        ("\"\\u", EofWhileParsingString),
        ("\"\\u12", EofWhileParsingString),
        ("\"\\ud83d", EofWhileParsingString),
        ("\"\\ud83d\\", EofWhileParsingString),
        ("\"\\ud83d\\ude8", EofWhileParsingString),
        ("{\"a", EofWhileParsingString),
        ("[\"a", EofWhileParsingString),
        ("-", EofWhileParsingNumber),
        ("1.", EofWhileParsingNumber),
        ("1e", EofWhileParsingNumber),
        ("1E-", EofWhileParsingNumber),
        ("[-", EofWhileParsingNumber),
        ("{\"a\":1.", EofWhileParsingNumber),
        ("t", EofWhileParsingLiteral),
        ("tru", EofWhileParsingLiteral),
        ("fals", EofWhileParsingLiteral),
        ("nul", EofWhileParsingLiteral),
        ("N", EofWhileParsingLiteral),
        ("Infinit", EofWhileParsingLiteral),
        ("-I", EofWhileParsingLiteral),
        ("-Inf", EofWhileParsingLiteral),
        ("[t", EofWhileParsingLiteral),
    ]
}

// ---------------------------------------------------------------------------------------------
// A sink that keeps every event, bytes and all

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Event {
    StartArray,
    StartObject,
    EndArray,
    EndObject,
    Key(Vec<u8>),
    String(Vec<u8>),
    Number(Vec<u8>, bool),
    Literal(Literal),
}

#[derive(Debug, Default)]
pub(crate) struct Recorder(pub(crate) Vec<Event>);

impl Sink for Recorder {
    fn start_array(&mut self) {
        self.0.push(Event::StartArray);
    }
    fn start_object(&mut self) {
        self.0.push(Event::StartObject);
    }
    fn end_array(&mut self) {
        self.0.push(Event::EndArray);
    }
    fn end_object(&mut self) {
        self.0.push(Event::EndObject);
    }
    fn key(&mut self, key: &[u8]) {
        self.0.push(Event::Key(key.to_vec()));
    }
    fn string(&mut self, value: &[u8]) {
        self.0.push(Event::String(value.to_vec()));
    }
    fn number(&mut self, text: &[u8], is_float: bool) {
        self.0.push(Event::Number(text.to_vec(), is_float));
    }
    fn literal(&mut self, literal: Literal) {
        self.0.push(Event::Literal(literal));
    }
}

/// The events a whole text gives, and how it ends.
fn record(text: &[u8]) -> (Vec<Event>, Result<(), Error>) {
    let mut parser = StreamParser::default();
    let mut recorder = Recorder::default();
    let result = parser
        .feed(text, &mut recorder)
        .and_then(|()| parser.finish(&mut recorder));
    (recorder.0, result)
}

/// The one string a text holds, as the raw (WTF-8) bytes the sink received.
fn string_bytes(text: &str) -> Vec<u8> {
    match record(text.as_bytes()) {
        (events, Ok(())) => match events.as_slice() {
            [Event::String(bytes)] => bytes.clone(),
            other => panic!("{text:?}: expected one string event, got {other:?}"),
        },
        (_, Err(error)) => panic!("{text:?}: {error}"),
    }
}

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
fn error_location_counts_lines_and_characters() {
    let text = "{\n  \"é\": [1,\n    x]}";
    let error = parse(text).unwrap_err();
    assert_eq!(
        (error.kind, error.offset),
        (ExpectedValue, text.find('x').unwrap())
    );
    let location = error.location(text.as_bytes());
    assert_eq!((location.line, location.column), (3, 5));
    assert_eq!(
        location.char_offset,
        text.chars().position(|c| c == 'x').unwrap()
    );
}

// ---------------------------------------------------------------------------------------------
// Depth

fn nested(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

fn depth_result(text: &str, max_depth: usize) -> Result<(), Error> {
    let mut parser = StreamParser::new(max_depth);
    parser.feed(text.as_bytes(), &mut IgnoreSink)?;
    parser.finish(&mut IgnoreSink)
}

#[test]
fn depth_limit_allows_exactly_max_depth() {
    for max_depth in [1, 2, 5, 64] {
        assert_eq!(
            depth_result(&nested(max_depth), max_depth),
            Ok(()),
            "max_depth {max_depth}"
        );
        assert_eq!(
            depth_result(&nested(max_depth + 1), max_depth),
            Err(Error {
                kind: RecursionLimitExceeded,
                offset: max_depth
            }),
            "max_depth {max_depth}"
        );
    }
    // Scalars need no depth at all.
    assert_eq!(depth_result("1", 0), Ok(()));
    assert_eq!(
        depth_result("{}", 0),
        Err(Error {
            kind: RecursionLimitExceeded,
            offset: 0
        })
    );
}

#[test]
fn depth_limit_counts_open_containers_of_both_kinds() {
    let text = r#"{"a":[{"b":[]}]}"#;
    assert_eq!(depth_result(text, 4), Ok(()));
    assert_eq!(
        depth_result(text, 3),
        Err(Error {
            kind: RecursionLimitExceeded,
            offset: text.rfind('[').unwrap()
        })
    );
    // Closed siblings do not add up.
    assert_eq!(depth_result("[[],[[]],{},[{}]]", 3), Ok(()));
    assert_eq!(
        depth_result("[[],[[]],{},[{}]]", 2),
        Err(Error {
            kind: RecursionLimitExceeded,
            offset: 5
        })
    );
}

#[test]
fn default_depth_limit_is_the_documented_one() {
    assert_eq!(DEFAULT_MAX_DEPTH, 1000);
    assert!(parse(&nested(DEFAULT_MAX_DEPTH)).is_ok());
    assert_eq!(
        parse(&nested(DEFAULT_MAX_DEPTH + 1)),
        Err(Error {
            kind: RecursionLimitExceeded,
            offset: DEFAULT_MAX_DEPTH
        })
    );
    // The limit is a malformed error, reported before the text is complete.
    let mut parser = StreamParser::default();
    let opening = "[".repeat(DEFAULT_MAX_DEPTH + 1);
    assert!(parser.feed(opening.as_bytes(), &mut IgnoreSink).is_err());
    assert_eq!(
        parser.status(),
        Status::Malformed(Error {
            kind: RecursionLimitExceeded,
            offset: DEFAULT_MAX_DEPTH
        })
    );
}

#[test]
fn very_deep_nesting_does_not_recurse() {
    // No limit to speak of: the explicit stack must carry this without touching the call stack.
    let depth = 200_000;
    assert_eq!(depth_result(&nested(depth), usize::MAX), Ok(()));
    let mut parser = StreamParser::new(usize::MAX);
    parser
        .feed("[{\"a\":".repeat(depth).as_bytes(), &mut IgnoreSink)
        .unwrap();
    assert_eq!(parser.depth(), 2 * depth);
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

// ---------------------------------------------------------------------------------------------
// Status as fragments arrive

fn feed(parser: &mut StreamParser, fragment: &str) -> Result<(), Error> {
    parser.feed(fragment.as_bytes(), &mut IgnoreSink)
}

#[test]
fn status_follows_the_text() {
    let mut parser = StreamParser::default();
    assert_eq!(parser.status(), Status::Incomplete);
    let steps: [(&str, Status, usize); 9] = [
        ("", Status::Incomplete, 0),
        (" ", Status::Incomplete, 0),
        ("{", Status::Incomplete, 1),
        ("\"a\":", Status::Incomplete, 1),
        ("[1", Status::Incomplete, 2),
        ("]", Status::Incomplete, 1),
        ("}", Status::Complete, 0),
        (" \n", Status::Complete, 0),
        ("", Status::Complete, 0),
    ];
    for (fragment, status, depth) in steps {
        assert_eq!(feed(&mut parser, fragment), Ok(()), "{fragment:?}");
        assert_eq!(parser.status(), status, "after {fragment:?}");
        assert_eq!(parser.depth(), depth, "after {fragment:?}");
    }
    assert_eq!(parser.consumed(), 12);
    assert_eq!(parser.error(), None);
    let error = Error {
        kind: TrailingCharacters,
        offset: 12,
    };
    assert_eq!(feed(&mut parser, "x"), Err(error));
    assert_eq!(parser.status(), Status::Malformed(error));
    assert_eq!(parser.error(), Some(error));
    // Once malformed, always malformed, with the first error.
    assert_eq!(feed(&mut parser, "{}"), Err(error));
    assert_eq!(feed(&mut parser, ""), Err(error));
    assert_eq!(parser.finish(&mut IgnoreSink), Err(error));
    assert_eq!(parser.status(), Status::Malformed(error));
}

#[test]
fn status_of_a_top_level_number() {
    let mut parser = StreamParser::default();
    for (fragment, status) in [
        ("-", Status::Incomplete),
        ("1", Status::Complete),
        ("2", Status::Complete),
        (".", Status::Incomplete),
        ("5", Status::Complete),
        ("e", Status::Incomplete),
        ("-", Status::Incomplete),
        ("3", Status::Complete),
        (" ", Status::Complete),
    ] {
        assert_eq!(feed(&mut parser, fragment), Ok(()), "{fragment:?}");
        assert_eq!(parser.status(), status, "after {fragment:?}");
    }
    assert_eq!(parser.finish(&mut IgnoreSink), Ok(()));
    assert_eq!(parser.status(), Status::Complete);
}

#[test]
fn error_offset_counts_earlier_fragments() {
    let mut parser = StreamParser::default();
    assert_eq!(feed(&mut parser, "[1,"), Ok(()));
    assert_eq!(
        feed(&mut parser, " é,"),
        Err(Error {
            kind: ExpectedValue,
            offset: 4
        })
    );
    let mut parser = StreamParser::default();
    assert_eq!(feed(&mut parser, "[1,"), Ok(()));
    assert_eq!(feed(&mut parser, "  "), Ok(()));
    assert_eq!(
        feed(&mut parser, "]"),
        Err(Error {
            kind: TrailingComma,
            offset: 5
        })
    );
}

#[test]
fn finish_on_a_cut_off_text_keeps_it_open() {
    // A cut-off text is still a valid prefix: finish reports it and the text may go on.
    let mut parser = StreamParser::default();
    let mut builder = ValueBuilder::default();
    parser.feed(b"{\"a\":\"b", &mut builder).unwrap();
    assert_eq!(
        parser.finish(&mut builder),
        Err(Error {
            kind: EofWhileParsingString,
            offset: 7
        })
    );
    assert_eq!(parser.status(), Status::Incomplete);
    parser.feed(b"c\"}", &mut builder).unwrap();
    assert_eq!(parser.finish(&mut builder), Ok(()));
    assert_eq!(builder.into_value(), Some(obj(vec![("a", s("bc"))])));

    let mut parser = StreamParser::default();
    feed(&mut parser, "1.").unwrap();
    assert_eq!(
        parser.finish(&mut IgnoreSink),
        Err(Error {
            kind: EofWhileParsingNumber,
            offset: 2
        })
    );
    feed(&mut parser, "5").unwrap();
    assert_eq!(parser.finish(&mut IgnoreSink), Ok(()));
}

#[test]
fn finish_on_a_cut_off_number_inside_a_container_keeps_it_open() {
    // The same promise for a number that could still grow: `[1` cut off, then `2]`, is `[12]`.
    let mut parser = StreamParser::default();
    let mut builder = ValueBuilder::default();
    parser.feed(b"[1", &mut builder).unwrap();
    assert_eq!(
        parser.finish(&mut builder),
        Err(Error {
            kind: EofWhileParsingList,
            offset: 2
        })
    );
    assert_eq!(parser.feed(b"2]", &mut builder), Ok(()));
    assert_eq!(parser.finish(&mut builder), Ok(()));
    assert_eq!(builder.into_value(), Some(arr(vec![int(12)])));
}

#[test]
fn parse_fragments_joins_fragments() {
    assert_eq!(
        parse_fragments(["{\"ci", "ty\": \"Lis", "bon\"}"]),
        Ok(obj(vec![("city", s("Lisbon"))]))
    );
    assert_eq!(
        parse_fragments(Vec::<&str>::new()),
        Err(Error {
            kind: EofWhileParsingValue,
            offset: 0
        })
    );
    assert_eq!(
        parse_fragments(["[1,", "", "]"]),
        Err(Error {
            kind: TrailingComma,
            offset: 3
        })
    );
}
