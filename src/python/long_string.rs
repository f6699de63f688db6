//! A long string value decoded as it streams, so that its closing quote does not pay for all of it.
//!
//! The parser keeps the open string's decoded UTF-8; each scan that ends inside a string value
//! hands it here. Once the string has passed [`STREAMED_FROM`] bytes, what it gained since the
//! last scan is decoded onto the end of a buffer of the width the largest of its characters needs
//! so far (`Narrow`, `Wide`, `Full`; made wider when a wider character comes), by the loop that
//! writes `tooljson.loads`' strings (`strings::write_utf8`). When the closing quote comes, only the rest is decoded and the
//! buffer is copied into a `str` of its width: one allocation of the final size and one copy (past
//! `FIRST_PIECES` characters, the buffer is cut into `str` pieces as it fills, joined there). A
//! shorter string, and every string of the abi3 build, is decoded once, at its closing quote.
//!
//! The buffers are kept between strings (one-byte ones by `crate::spare`, the wider ones here, one
//! of each width of at most `KEPT_CHARACTERS` characters), so that a long call after another
//! takes no fresh pages. Growing the `str` itself instead, by `PyUnicode_Resize` (a `realloc`),
//! cost 90 page faults a call on the held-out file write with astral characters, and accumulate +
//! finish 1.6× the time (644 µs against 393 µs a call, one run each); with the kept buffers, none.
//!
//! Before, a string under 256 KB was decoded whole at its closing quote: `finish` after the last
//! delta decoded all of a file write's content. On that held-out file write (105 KB, deltas of
//! 12-20 characters, a new `str` each) `finish` took 82 µs a call against 15 µs now, and
//! accumulate + finish 1.08× the time (574 µs against 531 µs; both builds in one process, nine rounds,
//! load 10).

use pyo3::prelude::*;
use pyo3::types::PyString;

use super::strings::decode;

/// Bytes of decoded content from which an open string is decoded as it streams.
#[cfg(not(Py_LIMITED_API))]
const STREAMED_FROM: usize = 4 * 1024;

/// The open string value's characters so far, when they are decoded as it streams.
#[derive(Default)]
pub(crate) struct LongString {
    #[cfg(not(Py_LIMITED_API))]
    written: Option<streamed::Written>,
    /// Set when the content was not generalised UTF-8 as this module reads it: the string is then
    /// decoded whole at its closing quote, by the decoder that judges such bytes.
    #[cfg(not(Py_LIMITED_API))]
    whole: bool,
}

impl LongString {
    /// Decodes what the open string value's `content` has gained since the last call.
    #[cfg_attr(Py_LIMITED_API, allow(clippy::unused_self, clippy::unnecessary_wraps))]
    pub(crate) fn grow(&mut self, py: Python<'_>, content: &[u8]) -> PyResult<()> {
        #[cfg(not(Py_LIMITED_API))]
        if !self.whole && content.len() >= STREAMED_FROM {
            let written = match self.written.take() {
                Some(written) => written,
                None => streamed::Written::new(),
            };
            match written.extend(py, content)? {
                Some(written) => self.written = Some(written),
                None => self.whole = true,
            }
        }
        let _ = (py, content);
        Ok(())
    }

    /// The `str` of a string value whose whole decoded `content` has arrived.
    #[cfg_attr(Py_LIMITED_API, allow(clippy::unused_self))]
    pub(crate) fn finish<'py>(
        &mut self,
        py: Python<'py>,
        content: &[u8],
    ) -> PyResult<Bound<'py, PyString>> {
        #[cfg(not(Py_LIMITED_API))]
        {
            let whole = std::mem::take(&mut self.whole);
            if let Some(written) = self.written.take() {
                if !whole {
                    if let Some(written) = written.extend(py, content)? {
                        return written.into_string(py);
                    }
                }
            }
        }
        decode(py, content)
    }
}

#[cfg(not(Py_LIMITED_API))]
mod streamed {
    use std::sync::Mutex;

    use pyo3::ffi;
    use pyo3::prelude::*;
    use pyo3::types::PyString;

    use super::super::blocks::Wide;
    use crate::python::strings::{measure_utf8, write_utf8};

    /// The largest character of each width a `str` stores its characters in.
    const MAX_CHARS: [u32; 4] = [0x7F, 0xFF, 0xFFFF, 0x10_FFFF];

    /// The most characters a kept buffer of two- or four-byte characters may hold: larger ones
    /// are freed. Each is kept once, process-wide (one-byte ones go to `crate::spare`).
    pub(super) const KEPT_CHARACTERS: usize = 256 * 1024;

    /// The characters a buffer holds before they become pieces: half of [`KEPT_CHARACTERS`], so
    /// that a buffer grown by doubling past it (by one scan's characters at most) is still kept.
    const FIRST_PIECES: usize = KEPT_CHARACTERS / 2;

    /// The characters of a piece: 16 K, at most 64 KB as a `str`, as the pieces of 16 KB of UTF-8
    /// before (larger ones raised the peak resident size of a 10 MB string streamed with a preview
    /// every megabyte, see `tests/test_adversarial.py`).
    const PIECE_CHARACTERS: usize = 16 * 1024;

    static KEPT_WIDE: Mutex<Vec<u16>> = Mutex::new(Vec::new());
    static KEPT_FULL: Mutex<Vec<u32>> = Mutex::new(Vec::new());

    /// The characters decoded so far, in the narrowest width that holds them all.
    enum Characters {
        Narrow(Vec<u8>),
        Wide(Vec<u16>),
        Full(Vec<u32>),
    }

    /// An open string's characters, decoded as it streams, and the width the largest of them
    /// needs (an index into [`MAX_CHARS`]).
    pub(super) struct Written {
        characters: Characters,
        class: usize,
        /// Bytes of the content decoded.
        decoded: usize,
        /// The characters before the buffer's, once a string has passed [`FIRST_PIECES`]: the
        /// buffer is then cut into `str` pieces each time it holds [`PIECE_CHARACTERS`], joined at
        /// the closing quote, so that it never grows beyond (a buffer grown by doubling, and
        /// pieces of 128 K characters, took the peak memory of a 10 MB string's streaming parse
        /// beyond its bound).
        pieces: Vec<Py<PyString>>,
    }

    impl Written {
        pub(super) fn new() -> Self {
            Self {
                characters: Characters::Narrow(crate::spare::take()),
                class: 0,
                decoded: 0,
                pieces: Vec::new(),
            }
        }

        /// Decodes `content` past what was decoded before, up to its last whole character, into
        /// the buffer. `None` when `content` is not the content decoded before and more, or not
        /// generalised UTF-8 (the decoder at the closing quote then says why).
        pub(super) fn extend(mut self, py: Python<'_>, content: &[u8]) -> PyResult<Option<Self>> {
            let Some(new) = content.get(self.decoded..) else {
                return Ok(None);
            };
            let bytes = new.get(..whole_characters(new)).unwrap_or_default();
            if bytes.is_empty() {
                return Ok(Some(self));
            }
            let (count, widest) = if bytes.is_ascii() {
                (bytes.len(), 0x7F)
            } else {
                measure_utf8(bytes)
            };
            let class = MAX_CHARS
                .iter()
                .position(|&max_char| widest <= max_char)
                .unwrap_or(3);
            if class > self.class {
                self.widen(class);
            }
            let written = match &mut self.characters {
                Characters::Narrow(kept) if class == 0 => {
                    kept.extend_from_slice(bytes);
                    Some(())
                }
                Characters::Narrow(kept) => write_at_end(kept, bytes, count),
                Characters::Wide(kept) => write_at_end(kept, bytes, count),
                Characters::Full(kept) => write_at_end(kept, bytes, count),
            };
            if written.is_none() {
                return Ok(None);
            }
            self.decoded += bytes.len();
            // A long string goes on in pieces (see `pieces`): its first `FIRST_PIECES`
            // characters, then every `PIECE_CHARACTERS`.
            let due = if self.pieces.is_empty() {
                FIRST_PIECES
            } else {
                PIECE_CHARACTERS
            };
            if self.length() >= due {
                self.seal(py)?;
            }
            Ok(Some(self))
        }

        fn length(&self) -> usize {
            match &self.characters {
                Characters::Narrow(kept) => kept.len(),
                Characters::Wide(kept) => kept.len(),
                Characters::Full(kept) => kept.len(),
            }
        }

        /// Moves the buffer's characters into pieces of at most [`PIECE_CHARACTERS`], each a
        /// `str` of the narrowest kind for its characters (they may all be narrower than the
        /// buffer, whose width an earlier piece set).
        fn seal(&mut self, py: Python<'_>) -> PyResult<()> {
            let (kind, width, data, length) = match &self.characters {
                Characters::Narrow(kept) => (
                    ffi::PyUnicode_1BYTE_KIND,
                    1,
                    kept.as_ptr().cast::<u8>(),
                    kept.len(),
                ),
                Characters::Wide(kept) => (
                    ffi::PyUnicode_2BYTE_KIND,
                    2,
                    kept.as_ptr().cast::<u8>(),
                    kept.len(),
                ),
                Characters::Full(kept) => (
                    ffi::PyUnicode_4BYTE_KIND,
                    4,
                    kept.as_ptr().cast::<u8>(),
                    kept.len(),
                ),
            };
            let kind = i32::try_from(kind).unwrap_or(4);
            for start in (0..length).step_by(PIECE_CHARACTERS) {
                let size = isize::try_from(PIECE_CHARACTERS.min(length - start))
                    .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("string too long"))?;
                // SAFETY: the buffer holds `length` characters of `width` bytes from `data`, so
                // `size` of them from `start` lie inside it; PyUnicode_FromKindAndData copies them
                // into a new str of the narrowest kind for them and returns a new reference, or
                // NULL with an exception set.
                let piece = unsafe {
                    Bound::from_owned_ptr_or_err(
                        py,
                        ffi::PyUnicode_FromKindAndData(kind, data.add(start * width).cast(), size),
                    )?
                    .cast_into_unchecked::<PyString>()
                };
                self.pieces.push(piece.unbind());
            }
            match &mut self.characters {
                Characters::Narrow(kept) => kept.clear(),
                Characters::Wide(kept) => kept.clear(),
                Characters::Full(kept) => kept.clear(),
            }
            Ok(())
        }

        fn widen(&mut self, class: usize) {
            let narrower = std::mem::replace(&mut self.characters, Characters::Narrow(Vec::new()));
            self.characters = match (narrower, class) {
                (Characters::Narrow(kept), 2) => {
                    let mut wide = take(&KEPT_WIDE);
                    wide.extend(kept.iter().map(|&c| u16::from(c)));
                    crate::spare::give(kept);
                    Characters::Wide(wide)
                }
                (Characters::Narrow(kept), 3) => {
                    let mut full = take(&KEPT_FULL);
                    full.extend(kept.iter().map(|&c| u32::from(c)));
                    crate::spare::give(kept);
                    Characters::Full(full)
                }
                (Characters::Wide(kept), 3) => {
                    let mut full = take(&KEPT_FULL);
                    full.extend(kept.iter().map(|&c| u32::from(c)));
                    give(&KEPT_WIDE, kept);
                    Characters::Full(full)
                }
                (same, _) => same,
            };
            self.class = class;
        }

        /// The `str` of the characters: one of their width, one copy (or the pieces joined).
        pub(super) fn into_string(mut self, py: Python<'_>) -> PyResult<Bound<'_, PyString>> {
            if !self.pieces.is_empty() {
                self.seal(py)?;
                let list = pyo3::types::PyList::new(py, std::mem::take(&mut self.pieces))?;
                // SAFETY: both arguments are live references; PyUnicode_Join returns a new
                // reference to a str, or NULL with an exception set.
                return unsafe {
                    let joined =
                        ffi::PyUnicode_Join(PyString::intern(py, "").as_ptr(), list.as_ptr());
                    Ok(Bound::from_owned_ptr_or_err(py, joined)?.cast_into_unchecked())
                };
            }
            let max_char = MAX_CHARS.get(self.class).copied().unwrap_or(0x10_FFFF);
            let (source, length, bytes) = match &self.characters {
                Characters::Narrow(kept) => (kept.as_ptr().cast::<u8>(), kept.len(), kept.len()),
                Characters::Wide(kept) => (kept.as_ptr().cast::<u8>(), kept.len(), kept.len() * 2),
                Characters::Full(kept) => (kept.as_ptr().cast::<u8>(), kept.len(), kept.len() * 4),
            };
            let size = isize::try_from(length)
                .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("string too long"))?;
            // SAFETY: PyUnicode_New returns a new compact str of `length` characters of the width
            // `max_char` picks (the buffer's: its largest character needs it, so the str is of
            // the narrowest kind, as CPython requires), or NULL with an exception set; its data
            // has room for the `bytes` copied from the buffer, which holds them.
            let string = unsafe {
                let string = Bound::from_owned_ptr_or_err(py, ffi::PyUnicode_New(size, max_char))?;
                std::ptr::copy_nonoverlapping(
                    source,
                    ffi::PyUnicode_DATA(string.as_ptr()).cast::<u8>(),
                    bytes,
                );
                string.cast_into_unchecked()
            };
            Ok(string)
        }
    }

    impl Drop for Written {
        fn drop(&mut self) {
            match std::mem::replace(&mut self.characters, Characters::Narrow(Vec::new())) {
                Characters::Narrow(kept) => crate::spare::give(kept),
                Characters::Wide(kept) => give(&KEPT_WIDE, kept),
                Characters::Full(kept) => give(&KEPT_FULL, kept),
            }
        }
    }

    /// Decodes the `count` characters of `bytes` onto the end of `kept` (made longer by as many
    /// zeros first); `None`, `kept` as it was, when they are not generalised UTF-8.
    fn write_at_end<T: Wide>(kept: &mut Vec<T>, bytes: &[u8], count: usize) -> Option<()> {
        let at = kept.len();
        kept.resize(at + count, T::from(0));
        let written = kept
            .get_mut(at..)
            .and_then(|slots| write_utf8(bytes, slots));
        if written.is_none() {
            kept.truncate(at);
        }
        written
    }

    /// The kept buffer, emptied, or a new one (also when another thread holds the lock).
    fn take<T>(kept: &Mutex<Vec<T>>) -> Vec<T> {
        kept.try_lock()
            .map(|mut kept| std::mem::take(&mut *kept))
            .unwrap_or_default()
    }

    /// Keeps a buffer for the next string when it is not too large and none is kept.
    fn give<T>(kept: &Mutex<Vec<T>>, mut buffer: Vec<T>) {
        if buffer.capacity() > KEPT_CHARACTERS {
            return;
        }
        if let Ok(mut kept) = kept.try_lock() {
            if kept.capacity() < buffer.capacity() {
                buffer.clear();
                *kept = buffer;
            }
        }
    }

    /// The bytes of `new` up to its last character's lead byte when that character is cut.
    fn whole_characters(new: &[u8]) -> usize {
        let end = new.len();
        let lead = new
            .iter()
            .rposition(|&byte| byte & 0xC0 != 0x80)
            .unwrap_or(0);
        let expected = match new.get(lead).copied().unwrap_or(0) {
            0xF0.. => 4,
            0xE0.. => 3,
            0xC0.. => 2,
            _ => 1,
        };
        if end - lead < expected {
            lead
        } else {
            end
        }
    }
}
