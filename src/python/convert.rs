//! Conversions between the core's bytes and Python objects, through the C API where PyO3 would
//! add a copy or a check the caller has already made.

use std::ffi::CString;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyString};

use super::strings::{length, utf8};
use crate::sink::Literal;

/// The UTF-8 bytes of a fragment. A `str` holding lone surrogates has no UTF-8 form; its
/// `surrogatepass` encoding (WTF-8) is what the parser and [`decode`] understand.
pub(crate) enum FragmentBytes<'a, 'py> {
    /// The UTF-8 the `str` holds: its own characters when ASCII, or the copy CPython keeps for it.
    Utf8(&'a [u8]),
    /// Encoded here from the `str`'s own storage, into a spare buffer given back when dropped.
    #[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
    Owned(Vec<u8>),
    Encoded(Bound<'py, PyBytes>),
}

impl FragmentBytes<'_, '_> {
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Utf8(text) => text,
            #[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
            Self::Owned(bytes) => bytes,
            Self::Encoded(bytes) => bytes.as_bytes(),
        }
    }
}

#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
impl Drop for FragmentBytes<'_, '_> {
    fn drop(&mut self) {
        if let Self::Owned(bytes) = self {
            crate::spare::give(std::mem::take(bytes));
        }
    }
}

/// The UTF-8 of a fragment. With the full API, a `str` that holds none is encoded here rather
/// than by CPython, whose encoder goes a character at a time and keeps its copy with the `str` for
/// as long as the caller keeps the `str`.
pub(crate) fn fragment_bytes<'a, 'py>(
    fragment: &'a Bound<'py, PyString>,
) -> PyResult<FragmentBytes<'a, 'py>> {
    #[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
    {
        if let Some(text) = super::strings::kept_utf8(fragment) {
            return Ok(FragmentBytes::Utf8(text));
        }
        let mut buffer = crate::spare::take();
        if super::strings::append_utf8(fragment, &mut buffer).is_some() {
            return Ok(FragmentBytes::Owned(buffer));
        }
        crate::spare::give(buffer);
    }
    if let Some(text) = utf8(fragment) {
        return Ok(FragmentBytes::Utf8(text));
    }
    let encoded = fragment.call_method1("encode", ("utf-8", "surrogatepass"))?;
    Ok(FragmentBytes::Encoded(encoded.cast_into::<PyBytes>()?))
}

/// The `int` or `float` of a number's text, as the parser checked it (ASCII: digits, at most one
/// `-`, and for a float `.`, `e`, `E`, `+`).
pub(crate) fn number<'py>(
    py: Python<'py>,
    text: &[u8],
    is_float: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if is_float {
        // Rust's parsing is correctly rounded like CPython's float(): the same bits, and overflow
        // to ±inf as json.loads gives for 1e400.
        let value: f64 = short_decimal(text)
            .or_else(|| std::str::from_utf8(text).ok()?.parse().ok())
            .unwrap_or(f64::NAN);
        return Ok(PyFloat::new(py, value).into_any());
    }
    let (negative, digits) = match text {
        [b'-', digits @ ..] => (true, digits),
        digits => (false, digits),
    };
    // Up to 38 digits fit an i128 whatever they are, and stay far below the smallest digit limit
    // `sys.set_int_max_str_digits` accepts (640): read here without the NUL-terminated copy and
    // the call that `PyLong_FromString` needs. The 20-digit integers of the escaped records took
    // 5% of `tooljson.loads`' time through it.
    if digits.len() <= 38 {
        let magnitude = magnitude(digits);
        let value = if negative { -magnitude } else { magnitude };
        return match i64::try_from(value) {
            Ok(small) => Ok(small.into_pyobject(py)?.into_any()),
            Err(_) => Ok(value.into_pyobject(py)?.into_any()),
        };
    }
    big_int(py, text)
}

/// The value of at most 38 decimal digits. The first 19 (which always fit a `u64`) are read in a
/// `u64`, whose multiply-add takes a fraction of an `i128`'s; the rest, if any, extend it as an
/// `i128`. Against the `i128` throughout, `tooljson.loads` took 0.85× the time on a list of the
/// escaped records' 20-digit integers and 0.97× on the escaped records (paired, 201 rounds).
fn magnitude(digits: &[u8]) -> i128 {
    let split = digits.len().min(19);
    let (head, tail) = digits.split_at(split);
    let head = head.iter().fold(0u64, |value, &digit| {
        value * 10 + u64::from(digit.wrapping_sub(b'0'))
    });
    tail.iter().fold(i128::from(head), |value, &digit| {
        value * 10 + i128::from(digit.wrapping_sub(b'0'))
    })
}

/// The value of a decimal without an exponent whose digits, read as an integer, are exact in an
/// `f64` (up to 2^53) and whose fraction has at most 22 digits: that integer divided by a power
/// of ten that is exact too, which one correctly rounded division makes the correctly rounded
/// value (Clinger's fast path). `None` for anything else. Floats such as `370.51599` are most
/// floats in JSON; against Rust's parser, `tooljson.loads`
/// took 0.97× the time on the records and on the escaped records (paired, 61 rounds, load 2.8).
fn short_decimal(text: &[u8]) -> Option<f64> {
    const POWERS: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let (negative, digits) = match text {
        [b'-', digits @ ..] => (true, digits),
        digits => (false, digits),
    };
    let mut mantissa: u64 = 0;
    let mut fraction_digits = None;
    for &byte in digits {
        match byte {
            b'0'..=b'9' => {
                mantissa = mantissa
                    .checked_mul(10)?
                    .checked_add(u64::from(byte - b'0'))?;
                fraction_digits = fraction_digits.map(|count: usize| count + 1);
            }
            b'.' if fraction_digits.is_none() => fraction_digits = Some(0),
            _ => return None,
        }
    }
    if mantissa > 1 << 53 {
        return None;
    }
    #[allow(clippy::cast_precision_loss)] // Exact: at most 2^53.
    let value = mantissa as f64 / *POWERS.get(fraction_digits.unwrap_or(0))?;
    Some(if negative { -value } else { value })
}

/// An integer too long for a machine word, converted by CPython itself so that the
/// `sys.get_int_max_str_digits()` limit applies exactly as in `int()` and `json.loads`.
pub(crate) fn big_int<'py>(py: Python<'py>, digits: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let digits =
        CString::new(digits).map_err(|_| PyValueError::new_err("number contains a NUL byte"))?;
    // SAFETY: `digits` is NUL-terminated and lives across the call; a NULL end pointer is allowed;
    // the result is a new reference or NULL with an exception set.
    unsafe {
        let object = pyo3::ffi::PyLong_FromString(digits.as_ptr(), std::ptr::null_mut(), 10);
        Bound::from_owned_ptr_or_err(py, object)
    }
}

/// The Python value of a literal.
pub(crate) fn literal(py: Python<'_>, literal: Literal) -> Bound<'_, PyAny> {
    match literal {
        Literal::True => PyBool::new(py, true).to_owned().into_any(),
        Literal::False => PyBool::new(py, false).to_owned().into_any(),
        Literal::Null => py.None().into_bound(py),
        Literal::NaN => PyFloat::new(py, f64::NAN).into_any(),
        Literal::Infinity => PyFloat::new(py, f64::INFINITY).into_any(),
        Literal::NegInfinity => PyFloat::new(py, f64::NEG_INFINITY).into_any(),
    }
}

/// Turns a C API status (0 = success, -1 = exception set) into a `PyResult`.
pub(crate) fn check(py: Python<'_>, status: i32) -> PyResult<()> {
    if status == 0 {
        Ok(())
    } else {
        Err(PyErr::fetch(py))
    }
}

/// `dict[key] = value`; keeps the first position of a repeated key, as json.loads does.
pub(crate) fn dict_set(
    py: Python<'_>,
    dict: &Py<PyAny>,
    key: &Bound<'_, PyString>,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    // SAFETY: callers pass a dict they created; all three are live references and PyDict_SetItem
    // steals none of them.
    check(py, unsafe {
        pyo3::ffi::PyDict_SetItem(dict.as_ptr(), key.as_ptr(), value.as_ptr())
    })
}

/// `list.append(value)`.
pub(crate) fn list_append(
    py: Python<'_>,
    list: &Py<PyAny>,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    // SAFETY: callers pass a list they created; PyList_Append does not steal the value.
    check(py, unsafe {
        pyo3::ffi::PyList_Append(list.as_ptr(), value.as_ptr())
    })
}

/// `list[-1] = value` (appends to an empty list).
pub(crate) fn list_set_last(
    py: Python<'_>,
    list: &Py<PyAny>,
    value: Bound<'_, PyAny>,
) -> PyResult<()> {
    // SAFETY: callers pass a list they created. The size is read before use, and PyList_SetItem
    // steals the reference handed over by `into_ptr` (also on failure).
    unsafe {
        let length = pyo3::ffi::PyList_Size(list.as_ptr());
        if length < 1 {
            return list_append(py, list, &value);
        }
        check(
            py,
            pyo3::ffi::PyList_SetItem(list.as_ptr(), length - 1, value.into_ptr()),
        )
    }
}

/// The first `limit` characters of UTF-8 text (all of it without a limit).
pub(crate) fn truncate_chars(text: &[u8], limit: Option<usize>) -> &[u8] {
    let Some(limit) = limit else { return text };
    let mut seen = 0;
    for (at, &byte) in text.iter().enumerate() {
        if byte & 0xC0 != 0x80 {
            if seen == limit {
                return text.get(..at).unwrap_or(text);
            }
            seen += 1;
        }
    }
    text
}

/// Appends a fragment's UTF-8 (WTF-8 for lone surrogates) to `out`; returns its length in
/// characters.
pub(crate) fn append_fragment(
    fragment: &Bound<'_, PyString>,
    out: &mut Vec<u8>,
) -> PyResult<usize> {
    #[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
    if let Some(characters) = super::strings::append_utf8(fragment, out) {
        return Ok(characters);
    }
    let bytes = fragment_bytes(fragment)?;
    if let [byte] = bytes.as_bytes() {
        // One-character deltas are common enough for a push to beat a copy of unknown length.
        out.push(*byte);
        return Ok(1);
    }
    out.extend_from_slice(bytes.as_bytes());
    // The str knows its length in characters: no count over the bytes (a whole text given to
    // `loads` would pay one).
    Ok(length(fragment))
}
