//! Document buffering: the joined text of a document, and when its unscanned end is scanned.
//!
//! Every fragment is kept (for `doc` in errors, `text`, and the `INVALID_JSON` answer). Without a
//! callback waiting for events, short fragments are only kept, and scanned together once
//! `DEFERRED_BYTES` have gathered or when anything asks where the text stands: every byte is still
//! scanned exactly once, but the fixed cost of a scan is paid per batch rather than per delta.

use pyo3::prelude::*;
use pyo3::types::PyString;

use super::convert::append_fragment;
use crate::error::char_count;

/// How many bytes of deferred fragments are gathered before they are scanned. On the 100 KB
/// records stream (deltas of 1 to 32 characters) deferring 512 bytes cut accumulate + finish by
/// about a fifth. 4 KB rather than 512 bytes: on the held-out ASCII records (new `str` deltas),
/// accumulate + finish over the pure accumulator's went from 0.56× to 0.52× (deltas of 12-20
/// characters) and from 0.59× to 0.57× (1-32), `finish` alone unchanged (0.09-0.13× `json.loads`);
/// both builds in one process, 15 rounds, load 10.
const DEFERRED_BYTES: usize = 4096;

/// The longest fragment [`push_short`] copies.
#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
const SHORT: usize = 32;

/// Appends up to [`SHORT`] bytes with two overlapping copies of a fixed size, not a call to
/// `memmove`, whose call and dispatch on the length cost more than the copy of a delta. Taking
/// deltas of up to 32 bytes this way rather than 16: accumulate + finish on the held-out ASCII
/// records in 1-32-character deltas 0.53× the pure accumulator's time against 0.60× (paired, both
/// builds in one process, 11 rounds, load 12).
#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
#[inline]
fn push_short(out: &mut Vec<u8>, bytes: &[u8]) {
    let length = bytes.len();
    out.reserve(SHORT);
    let at = out.len();
    let from = bytes.as_ptr();
    let to = out.spare_capacity_mut().as_mut_ptr().cast::<u8>();
    // SAFETY: `length` is at most SHORT and SHORT bytes of room were reserved after `at`. Each pair
    // of copies reads and writes `width` bytes at the start and at the end of the `length` bytes
    // (`width <= length`), so both stay inside `bytes` and inside the room, and together they cover
    // every byte; the `length` bytes written are then counted into the vector.
    unsafe {
        let copy = |width: usize| {
            std::ptr::copy_nonoverlapping(from, to, width);
            std::ptr::copy_nonoverlapping(from.add(length - width), to.add(length - width), width);
        };
        match length {
            16.. => copy(16),
            8..=15 => copy(8),
            4..=7 => copy(4),
            2..=3 => copy(2),
            1 => copy(1),
            0 => {}
        }
        out.set_len(at + length);
    }
}

/// The joined text, how much of it the parser has scanned, and its length in characters.
pub(crate) struct TextBuffer {
    text: Vec<u8>,
    /// Characters in `text`, counted as it grows so that a status never rescans it.
    chars: usize,
    /// Bytes of `text` the parser has scanned.
    scanned: usize,
}

impl Default for TextBuffer {
    fn default() -> Self {
        Self {
            text: crate::spare::take(),
            chars: 0,
            scanned: 0,
        }
    }
}

impl Drop for TextBuffer {
    fn drop(&mut self) {
        crate::spare::give(std::mem::take(&mut self.text));
    }
}

impl TextBuffer {
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.text
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Characters in the text.
    pub(crate) fn chars(&self) -> usize {
        self.chars
    }

    /// Keeps a fragment; says whether the unscanned text should be scanned now (always, unless
    /// `defer` and fewer than `DEFERRED_BYTES` wait).
    pub(crate) fn keep(&mut self, fragment: &Bound<'_, PyString>, defer: bool) -> PyResult<bool> {
        if !self.keep_short(fragment) {
            self.chars += append_fragment(fragment, &mut self.text)?;
        }
        Ok(!defer || self.scan_due())
    }

    /// Keeps a fragment of at most [`SHORT`] bytes whose UTF-8 the `str` holds (an ASCII one's
    /// own data, or the copy CPython keeps with another); `false`, keeping nothing, for any other.
    #[inline]
    #[cfg_attr(any(Py_LIMITED_API, Py_3_14), allow(clippy::unused_self))]
    pub(crate) fn keep_short(&mut self, fragment: &Bound<'_, PyString>) -> bool {
        #[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
        if let Some(bytes) = super::strings::kept_utf8(fragment) {
            if bytes.len() <= SHORT {
                push_short(&mut self.text, bytes);
                self.chars += super::strings::length(fragment);
                return true;
            }
        }
        let _ = fragment;
        false
    }

    /// Whether `DEFERRED_BYTES` of kept text wait to be scanned.
    #[inline]
    pub(crate) fn scan_due(&self) -> bool {
        self.text.len() - self.scanned >= DEFERRED_BYTES
    }

    /// Keeps UTF-8 bytes (checked by the caller), to be scanned now.
    pub(crate) fn keep_utf8(&mut self, bytes: &[u8]) {
        self.text.extend_from_slice(bytes);
        self.chars += char_count(bytes);
    }

    /// Keeps the part of a fragment that fits under `max_size` bytes, cut between characters, and
    /// counts it as scanned (a size-limited document scans every fragment at once, so that the
    /// limit is checked on the fragment that crosses it). The limit bounds memory as well as work;
    /// below it everything is kept, also after an error (an invalid call is answered with its text).
    pub(crate) fn keep_limited(&mut self, bytes: &[u8], max_size: usize) {
        let room = max_size.saturating_sub(self.text.len());
        let mut keep = bytes.len().min(room);
        while keep > 0 && bytes.get(keep).is_some_and(|&byte| byte & 0xC0 == 0x80) {
            keep -= 1;
        }
        let kept = bytes.get(..keep).unwrap_or(bytes);
        self.text.extend_from_slice(kept);
        self.chars += char_count(kept);
        self.scanned = self.text.len();
    }

    /// The text kept but not scanned yet, marked as scanned: the caller scans it now.
    pub(crate) fn take_unscanned(&mut self) -> &[u8] {
        let from = std::mem::replace(&mut self.scanned, self.text.len());
        self.text.get(from..).unwrap_or_default()
    }

    /// Characters before byte `offset` (counted on demand: only for an error's position).
    pub(crate) fn chars_before(&self, offset: usize) -> usize {
        char_count(self.text.get(..offset).unwrap_or(&self.text))
    }
}
