//! A long string value decoded as it streams, so that its closing quote does not pay for all of it.
//!
//! The parser keeps the open string's decoded UTF-8; each scan that ends inside a string value
//! hands it here. Once the string has passed [`DECODED_WHOLE_BELOW`] bytes, every whole
//! [`PIECE_BYTES`] of it not yet decoded becomes a `str` piece then. When the closing quote comes,
//! only the rest is decoded and the pieces are joined into the one `str` (a copy, not a decode). A
//! shorter string is decoded once, at its closing quote.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use super::strings::decode;

/// Bytes of decoded content below which a string is decoded once, at its closing quote, and not
/// in pieces: at most what the closing quote decodes.
///
/// The pieces cost a copy (the join) and the memory of a second copy of the string while it is
/// joined, fresh pages for each call once the allocator has handed the freed blocks back to the
/// system. With pieces from the first 16 KB on, the strings of the benchmarks' file writes (about
/// 100 KB) paid both; decoded once at the closing quote, accumulate + finish took 0.75-0.85x the
/// time on the prose write (one build per process, 300 calls each, three alternating processes;
/// 137 fresh pages a call against 193), while `finish` after the last delta went from 0.09x to
/// 0.25x `json.loads` on the file write and from 0.11x to 0.27x on the code file write.
const DECODED_WHOLE_BELOW: usize = 256 * 1024;

/// Bytes of decoded content per piece of a longer string. Pieces of 256 KB (up to 1 MB each as a
/// `str` of four-byte characters) raised the peak resident size of a 10 MB string streamed with a
/// preview every megabyte from 82.5 MB to 95.1 MB, in a process that had just freed a 23 MB value
/// (the allocator then serves blocks of that size from its heap, where the pieces and the growing
/// previews left holes neither could reuse).
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
        if content.len() < DECODED_WHOLE_BELOW {
            return Ok(());
        }
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
