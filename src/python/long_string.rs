//! A long string value decoded as it streams, so that its closing quote does not pay for all of it.
//!
//! The parser keeps the open string's decoded UTF-8; each scan that ends inside a string value
//! hands it here, and every whole [`PIECE_BYTES`] of it not yet decoded becomes a `str` piece
//! then. When the closing quote comes, only the rest is decoded and the pieces are joined into the
//! one `str` (a copy, not a decode). A string shorter than a piece is decoded once at its end, as
//! before.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use super::strings::decode;

/// Bytes of decoded content per piece: large enough that the join copies a few big pieces, small
/// enough that little is left to decode at the closing quote.
const PIECE_BYTES: usize = 16 * 1024;

/// The pieces decoded so far of the string value still open.
#[derive(Default)]
pub(crate) struct LongString {
    /// How many bytes of the open string's content the pieces hold.
    decoded: usize,
    pieces: Vec<Py<PyString>>,
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
            self.pieces.push(decode(py, piece)?.unbind());
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
        let pieces = std::mem::take(&mut self.pieces);
        let rest = match content.get(decoded..) {
            Some(rest) if !pieces.is_empty() => rest,
            _ => return decode(py, content),
        };
        let list = PyList::new(py, pieces)?;
        list.append(decode(py, rest)?)?;
        // SAFETY: both arguments are live references; PyUnicode_Join returns a new reference to a
        // str, or NULL with an exception set.
        unsafe {
            let joined =
                pyo3::ffi::PyUnicode_Join(PyString::intern(py, "").as_ptr(), list.as_ptr());
            Ok(Bound::from_owned_ptr_or_err(py, joined)?.cast_into_unchecked())
        }
    }
}
