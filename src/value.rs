//! A plain Rust value tree built from parser events: how Rust callers (and the core's own tests)
//! get a result without Python.

use std::collections::HashMap;

use crate::error::Error;
use crate::parser::StreamParser;
use crate::sink::{Literal, Sink};

/// A JSON value as `json.loads` would type it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// An integer that fits in 64 bits.
    Int(i64),
    /// A larger integer, as its decimal text.
    BigInt(String),
    /// A number with a fraction or exponent, correctly rounded; also `NaN` and the infinities.
    Float(f64),
    /// A string. Lone surrogate escapes become U+FFFD here (Python keeps them).
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object's members in first-seen key order; a repeated key keeps its first position and
    /// takes its last value.
    Object(Vec<(String, Value)>),
}

/// A container being filled.
#[derive(Debug)]
enum Frame {
    Array(Vec<Value>),
    Object {
        members: Vec<(String, Value)>,
        positions: HashMap<String, usize>,
        key: String,
    },
}

/// Builds a [`Value`] from parser events.
#[derive(Debug, Default)]
pub struct ValueBuilder {
    stack: Vec<Frame>,
    root: Option<Value>,
}

impl ValueBuilder {
    /// The finished value, once the top-level value is complete.
    #[must_use]
    pub fn into_value(self) -> Option<Value> {
        self.root
    }

    fn add(&mut self, value: Value) {
        match self.stack.last_mut() {
            None => self.root = Some(value),
            Some(Frame::Array(items)) => items.push(value),
            Some(Frame::Object {
                members,
                positions,
                key,
            }) => {
                let key = std::mem::take(key);
                if let Some(member) = positions.get(&key).and_then(|&at| members.get_mut(at)) {
                    member.1 = value;
                } else {
                    positions.insert(key.clone(), members.len());
                    members.push((key, value));
                }
            }
        }
    }

    fn end(&mut self) {
        let value = match self.stack.pop() {
            Some(Frame::Array(items)) => Value::Array(items),
            Some(Frame::Object { members, .. }) => Value::Object(members),
            None => return,
        };
        self.add(value);
    }
}

/// Converts decoded string bytes to a `String`. They are UTF-8 except for lone surrogates, which
/// the parser writes as three-byte generalised UTF-8; each becomes one U+FFFD.
fn text(bytes: &[u8]) -> String {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                break;
            }
            Err(error) => {
                let (valid, after) = rest.split_at(error.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push(char::REPLACEMENT_CHARACTER);
                // A surrogate is ED A0..BF xx: skip all three bytes as one character.
                let skip = match after {
                    [0xED, second, _, ..] if (0xA0..=0xBF).contains(second) => 3,
                    _ => error.error_len().unwrap_or(after.len()),
                };
                rest = after.get(skip..).unwrap_or_default();
            }
        }
    }
    out
}

impl Sink for ValueBuilder {
    fn start_array(&mut self) {
        self.stack.push(Frame::Array(Vec::new()));
    }
    fn start_object(&mut self) {
        self.stack.push(Frame::Object {
            members: Vec::new(),
            positions: HashMap::new(),
            key: String::new(),
        });
    }
    fn end_array(&mut self) {
        self.end();
    }
    fn end_object(&mut self) {
        self.end();
    }
    fn key(&mut self, key: &[u8]) {
        if let Some(Frame::Object { key: slot, .. }) = self.stack.last_mut() {
            *slot = text(key);
        }
    }
    fn string(&mut self, value: &[u8]) {
        self.add(Value::String(text(value)));
    }
    fn number(&mut self, digits: &[u8], is_float: bool) {
        let digits = text(digits);
        let value = if is_float {
            // Rust's float parsing is correctly rounded, like Python's float(); overflow gives inf.
            Value::Float(digits.parse().unwrap_or(f64::NAN))
        } else {
            digits.parse().map_or(Value::BigInt(digits), Value::Int)
        };
        self.add(value);
    }
    fn literal(&mut self, literal: Literal) {
        self.add(match literal {
            Literal::True => Value::Bool(true),
            Literal::False => Value::Bool(false),
            Literal::Null => Value::Null,
            Literal::NaN => Value::Float(f64::NAN),
            Literal::Infinity => Value::Float(f64::INFINITY),
            Literal::NegInfinity => Value::Float(f64::NEG_INFINITY),
        });
    }
}

/// Parses a whole text strictly.
pub fn parse(text: &str) -> Result<Value, Error> {
    parse_fragments(std::iter::once(text))
}

/// Parses a text given as consecutive fragments, cut anywhere (even inside a character is not
/// allowed: each fragment is a `&str`).
pub fn parse_fragments<'a>(fragments: impl IntoIterator<Item = &'a str>) -> Result<Value, Error> {
    let mut parser = StreamParser::default();
    let mut builder = ValueBuilder::default();
    for fragment in fragments {
        parser.feed(fragment.as_bytes(), &mut builder)?;
    }
    parser.finish(&mut builder)?;
    Ok(builder.into_value().unwrap_or(Value::Null))
}
