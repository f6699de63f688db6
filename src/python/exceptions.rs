//! Exception mapping: a parse error becomes the exception `json.loads` would raise in its place.
//!
//! The classes live in `tooljson.errors` (plain Python, so that they subclass
//! `json.JSONDecodeError`); they are imported once and kept, not looked up by name per error.

use pyo3::prelude::*;

use super::convert::big_int;
use crate::error::{Error, ErrorKind};

pyo3::import_exception!(tooljson.errors, IncompleteJSONError);
pyo3::import_exception!(tooljson.errors, MalformedJSONError);
pyo3::import_exception!(tooljson.errors, NestingTooDeepError);
pyo3::import_exception!(tooljson.errors, InputTooLargeError);

/// The `tooljson.JSONDecodeError` subclass for `error`, with json's fields: `msg`, `doc` (the
/// joined text) and `pos` (a character offset into it; `lineno` and `colno` follow from them).
pub(crate) fn parse_error(error: Error, doc: Py<PyAny>, pos: usize) -> PyErr {
    let arguments = (error.kind.message(), doc, pos);
    match error.kind {
        ErrorKind::RecursionLimitExceeded => NestingTooDeepError::new_err(arguments),
        ErrorKind::SizeLimitExceeded => InputTooLargeError::new_err(arguments),
        kind if kind.is_eof() => IncompleteJSONError::new_err(arguments),
        _ => MalformedJSONError::new_err(arguments),
    }
}

/// json.loads reads the longest number it can: before a `.` or `e` that no digit follows it takes
/// the integer alone and converts it, so an over-long one raises its `ValueError` before the broken
/// rest is noticed. For an error at `offset` in `text` (a number's), this finds that integer in
/// front of `offset` and returns its conversion failure, if any.
pub(crate) fn integer_prefix_failure(py: Python<'_>, text: &[u8], error: Error) -> Option<PyErr> {
    if !matches!(
        error.kind,
        ErrorKind::InvalidNumber | ErrorKind::EofWhileParsingNumber
    ) {
        return None;
    }
    let before = text.get(..error.offset)?;
    let start = before
        .iter()
        .rposition(|byte| !matches!(byte, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .map_or(0, |at| at + 1);
    let number = before.get(start..)?;
    let integer_length = number
        .iter()
        .position(|byte| matches!(byte, b'.' | b'e' | b'E'))?;
    let (integer, rest) = number.split_at(integer_length);
    let takes_more = match rest {
        [b'e' | b'E', b'+' | b'-', digit, ..] | [b'.' | b'e' | b'E', digit, ..] => {
            digit.is_ascii_digit()
        }
        _ => false,
    };
    if takes_more {
        return None;
    }
    big_int(py, integer).err()
}
