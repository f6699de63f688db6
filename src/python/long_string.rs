//! A long string value decoded as it streams, so that its closing quote does not pay for all of it.
//!
//! The parser keeps the open string's decoded UTF-8; each scan that ends inside a string value
//! hands it here, and every whole [`PIECE_BYTES`] of it not yet decoded is decoded then. When the
//! closing quote comes, only the rest is decoded. A string shorter than a piece is decoded once at
//! its end.
//!
//! With the full API each piece is copied, as it is decoded, into one `str` that grows (see
//! [`Value`]); with the stable ABI the pieces are kept and joined at the closing quote.

use pyo3::prelude::*;
use pyo3::types::PyString;

use super::strings::decode;

/// Bytes of decoded content per piece: large enough that few pieces are made, small enough that
/// little is left to decode at the closing quote.
const PIECE_BYTES: usize = 16 * 1024;

/// The open string value's content decoded so far.
#[derive(Default)]
pub(crate) struct LongString {
    /// How many bytes of the open string's content have been decoded.
    decoded: usize,
    value: Value,
}

impl LongString {
    /// Decodes what the open string value's `content` has gained, in whole pieces.
    pub(crate) fn grow(&mut self, py: Python<'_>, content: &[u8]) -> PyResult<()> {
        while content.len().saturating_sub(self.decoded) >= PIECE_BYTES {
            let mut end = self.decoded + PIECE_BYTES;
            // A piece ends before a character's lead byte, never inside a character.
            while content.get(end).is_some_and(|&byte| byte & 0xC0 == 0x80) {
                end -= 1;
            }
            let Some(piece) = content.get(self.decoded..end) else {
                return Ok(());
            };
            self.value.push(py, &decode(py, piece)?)?;
            self.decoded = end;
        }
        Ok(())
    }

    /// The `str` of a string value whose whole decoded `content` has arrived.
    pub(crate) fn finish<'py>(
        &mut self,
        py: Python<'py>,
        content: &[u8],
    ) -> PyResult<Bound<'py, PyString>> {
        let decoded = std::mem::take(&mut self.decoded);
        let mut value = std::mem::take(&mut self.value);
        match content.get(decoded..) {
            Some(rest) if !value.is_empty() => {
                value.push(py, &decode(py, rest)?)?;
                value.finish(py)
            }
            _ => decode(py, content),
        }
    }
}

#[cfg(not(Py_LIMITED_API))]
use growing::Value;
#[cfg(Py_LIMITED_API)]
use joined::Value;

/// One `str` written piece by piece. Against the pieces kept and joined at the closing quote,
/// accumulate + finish (1–32-character deltas) took 0.86× and 0.85× the time on the prose write,
/// 0.96× and 0.99× on the file write, 0.97× on the code file write (paired, 21 rounds, both builds
/// in one process, loaded in either order; quartiles about ±0.05–0.10 on a loaded machine): the
/// pieces were as much memory again as the value, fresh pages for every long string (a page fault
/// each: 151 a call on the prose write before, 85 after, most of them now the value's own), and
/// the join a copy.
#[cfg(not(Py_LIMITED_API))]
mod growing {
    use pyo3::exceptions::PyOverflowError;
    use pyo3::prelude::*;
    use pyo3::types::PyString;

    use crate::python::convert::check;
    use crate::python::strings::length;

    /// The value so far: a `str` of `capacity` characters whose first `written` are the value's
    /// and the rest not written yet. It is never handed out before [`Value::finish`] cuts it to
    /// `written`, and is its only reference until then, so CPython lets it be resized and written.
    #[derive(Default)]
    pub(super) struct Value {
        string: Option<Py<PyString>>,
        written: usize,
        capacity: usize,
    }

    /// The greatest character a `str`'s kind holds (what `PyUnicode_New` takes to pick the kind).
    fn widest(string: &Bound<'_, PyString>) -> u32 {
        // SAFETY: `string` is a live, ready str; the macros only read its header.
        unsafe {
            let object = string.as_ptr();
            if pyo3::ffi::PyUnicode_IS_ASCII(object) != 0 {
                return 0x7F;
            }
            match pyo3::ffi::PyUnicode_KIND(object) {
                pyo3::ffi::PyUnicode_1BYTE_KIND => 0xFF,
                pyo3::ffi::PyUnicode_2BYTE_KIND => 0xFFFF,
                _ => 0x10_FFFF,
            }
        }
    }

    fn size(count: usize) -> PyResult<isize> {
        isize::try_from(count).map_err(|_| PyOverflowError::new_err("string too long"))
    }

    impl Value {
        pub(super) fn is_empty(&self) -> bool {
            self.string.is_none()
        }

        /// Appends `piece` (a str of the decoder's, whose kind is that of its widest character).
        pub(super) fn push(&mut self, py: Python<'_>, piece: &Bound<'_, PyString>) -> PyResult<()> {
            let characters = length(piece);
            let piece_widest = widest(piece);
            let needed = self.written + characters;
            let current = self.string.as_ref().map(|string| widest(string.bind(py)));
            if current.is_none_or(|current| current < piece_widest) {
                // A wider kind: a new str, the characters so far copied (widened) into it.
                let capacity = needed.max(self.capacity).max(needed * 2);
                let widest = current.map_or(piece_widest, |current| current.max(piece_widest));
                // SAFETY: PyUnicode_New returns a new str or NULL with an exception set.
                let wider: Bound<'_, PyString> = unsafe {
                    Bound::from_owned_ptr_or_err(
                        py,
                        pyo3::ffi::PyUnicode_New(size(capacity)?, widest),
                    )?
                    .cast_into_unchecked()
                };
                if let Some(old) = &self.string {
                    copy(py, &wider, 0, old.bind(py), self.written)?;
                }
                self.string = Some(wider.unbind());
                self.capacity = capacity;
            } else if needed > self.capacity {
                let capacity = needed.max(self.capacity * 2);
                self.resize(py, capacity)?;
                self.capacity = capacity;
            }
            let Some(string) = &self.string else {
                return Ok(());
            };
            copy(py, string.bind(py), self.written, piece, characters)?;
            self.written = needed;
            Ok(())
        }

        /// The value, cut to the characters written.
        pub(super) fn finish(mut self, py: Python<'_>) -> PyResult<Bound<'_, PyString>> {
            self.resize(py, self.written)?;
            let string = self.string.take().map(|string| string.into_bound(py));
            Ok(string.unwrap_or_else(|| PyString::new(py, "")))
        }

        fn resize(&mut self, py: Python<'_>, characters: usize) -> PyResult<()> {
            let Some(string) = self.string.take() else {
                return Ok(());
            };
            let mut object = string.into_ptr();
            // SAFETY: `object` is the one reference to a str made here, which PyUnicode_Resize
            // reallocates in place (or replaces by a copy) and puts back in `object`; on failure
            // it has released it and set NULL there with an exception set.
            let status = unsafe { pyo3::ffi::PyUnicode_Resize(&raw mut object, size(characters)?) };
            check(py, status)?;
            // SAFETY: on success `object` is a new reference to the resized str.
            self.string =
                Some(unsafe { Bound::from_owned_ptr(py, object).cast_into_unchecked() }.unbind());
            Ok(())
        }
    }

    /// Copies the first `count` characters of `from` into `to` at `at` (widening them if `to`'s
    /// kind is wider).
    fn copy(
        py: Python<'_>,
        to: &Bound<'_, PyString>,
        at: usize,
        from: &Bound<'_, PyString>,
        count: usize,
    ) -> PyResult<()> {
        // SAFETY: both are live strs; `to` is the only reference to a str made here (CPython
        // checks it may be written, and that the characters fit its kind and length).
        let copied = unsafe {
            pyo3::ffi::PyUnicode_CopyCharacters(
                to.as_ptr(),
                size(at)?,
                from.as_ptr(),
                0,
                size(count)?,
            )
        };
        if copied < 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(())
    }
}

/// The stable ABI has no way to write a `str`'s characters in place: the pieces are joined.
#[cfg(Py_LIMITED_API)]
mod joined {
    use pyo3::prelude::*;
    use pyo3::types::{PyList, PyString};

    #[derive(Default)]
    pub(super) struct Value {
        pieces: Vec<Py<PyString>>,
    }

    impl Value {
        pub(super) fn is_empty(&self) -> bool {
            self.pieces.is_empty()
        }

        #[allow(clippy::unnecessary_wraps)] // The full-API build's signature: its push can fail.
        pub(super) fn push(
            &mut self,
            _py: Python<'_>,
            piece: &Bound<'_, PyString>,
        ) -> PyResult<()> {
            self.pieces.push(piece.clone().unbind());
            Ok(())
        }

        pub(super) fn finish(self, py: Python<'_>) -> PyResult<Bound<'_, PyString>> {
            let list = PyList::new(py, self.pieces)?;
            // SAFETY: both arguments are live references; PyUnicode_Join returns a new reference
            // to a str, or NULL with an exception set.
            unsafe {
                let joined =
                    pyo3::ffi::PyUnicode_Join(PyString::intern(py, "").as_ptr(), list.as_ptr());
                Ok(Bound::from_owned_ptr_or_err(py, joined)?.cast_into_unchecked())
            }
        }
    }
}
