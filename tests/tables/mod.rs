//! What the core's tests share: builders for expected values, the tables of valid, malformed and
//! cut-off texts, and a sink that records every event. `core_table.rs` checks each table's texts
//! whole; `core_splits.rs` feeds them cut in every way.
// Each test crate uses part of this module.
#![allow(dead_code)]
// The tables are long on purpose: one line per case.
#![allow(clippy::too_many_lines)]

use tooljson::{Error, ErrorKind, Literal, Sink, StreamParser, Value};

use ErrorKind::{
    ControlCharacterInString, EofWhileParsingList, EofWhileParsingLiteral, EofWhileParsingNumber,
    EofWhileParsingObject, EofWhileParsingString, EofWhileParsingValue, ExpectedColon,
    ExpectedIdent, ExpectedListCommaOrEnd, ExpectedObjectCommaOrEnd, ExpectedValue, InvalidEscape,
    InvalidNumber, InvalidUnicodeEscape, KeyMustBeAString, TrailingCharacters, TrailingComma,
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
pub(crate) fn record(text: &[u8]) -> (Vec<Event>, Result<(), Error>) {
    let mut parser = StreamParser::default();
    let mut recorder = Recorder::default();
    let result = parser
        .feed(text, &mut recorder)
        .and_then(|()| parser.finish(&mut recorder));
    (recorder.0, result)
}

/// The one string a text holds, as the raw (WTF-8) bytes the sink received.
pub(crate) fn string_bytes(text: &str) -> Vec<u8> {
    match record(text.as_bytes()) {
        (events, Ok(())) => match events.as_slice() {
            [Event::String(bytes)] => bytes.clone(),
            other => panic!("{text:?}: expected one string event, got {other:?}"),
        },
        (_, Err(error)) => panic!("{text:?}: {error}"),
    }
}
