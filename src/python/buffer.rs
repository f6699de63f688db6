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
/// records stream (deltas of 1 to 32 characters) deferring cut accumulate + finish by about a
/// fifth.
const DEFERRED_BYTES: usize = 512;

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
        self.chars += append_fragment(fragment, &mut self.text)?;
        Ok(!defer || self.text.len() - self.scanned >= DEFERRED_BYTES)
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
