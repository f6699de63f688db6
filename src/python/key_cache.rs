//! Object keys and short string values seen recently, shared by every parse in the process.
//!
//! Records in an array repeat the same keys, and often the same short values (a status, a city, a
//! tag); so do the calls of one tool. Handing out the same `str` for the same bytes saves decoding
//! and allocating it again, and CPython reuses the hash a key `str` keeps when it goes into the
//! next dict. The cache is set-associative (two ways per set, the newer entry first), so two common
//! keys that fall in the same set both stay (the single-entry slots it replaces lost "title" or
//! "priority" that way); a lookup compares a 64-bit tag (the hash and the length), then the bytes.
//! Caching string values of up to 16 bytes besides the keys took `tooljson.loads` of the 100 KB
//! records from 0.80× to 0.72× of `json.loads`'s time (paired rounds, medians of ten to twelve
//! processes each).
//!
//! Before the table, an object key is compared with the key last read at the same depth and
//! member position, whose bytes are kept beside it (see [`KeyCache::key`]).
//!
//! One cache serves the whole process: a scan takes it with `try_lock` when it starts and gives it
//! back when it ends, so a scan pays for one uncontended lock, not one per string. A scan that
//! finds it taken (another thread's scan, or a finalizer that parses during a scan) simply decodes
//! its strings.

use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::prelude::*;
use pyo3::types::PyString;

use super::strings::{decode, utf8};

/// Sets of the cache; a power of two.
const SETS: usize = 1024;
/// Entries per set.
const WAYS: usize = 2;
/// Longer strings are decoded every time: long keys are rare, and long values mostly unique.
const LONGEST_CACHED_KEY: usize = 32;

/// A cached string: its tag, its bytes when it has at most 16 (every cached value, most keys), and
/// the `str`, whose own UTF-8 a longer key is checked against. A hit on a short string then reads
/// only the entry, and the `str`'s reference count is written without the lookup waiting for it
/// (the `str`, made during an earlier parse, is seldom in the CPU's nearest caches). Against
/// 16-byte entries (tag and `str`, the bytes always read from the `str`), `tooljson.loads` took
/// 0.967× the time on the 100 KB records and 0.974× on the escaped records, accumulate + finish
/// 0.99× on both (paired, both builds in one process, 1001 and 201 rounds). Entries of 56 bytes,
/// holding keys of up to 32 bytes, were slower: loading the entry became the costliest
/// instruction of a lookup.
struct Entry {
    /// The hash of the bytes with its top byte replaced by their length: equal tags, equal lengths.
    tag: u64,
    /// The bytes of a string of up to [`INLINE`] bytes, checked here without reading the `str`.
    bytes: [u8; INLINE],
    string: Py<PyString>,
}

/// String values up to this many bytes go through the cache besides the keys; longer ones are
/// mostly unique (text, ids) and would only push the keys out.
pub(crate) const SHORT_STRING: usize = 16;

/// Strings up to this long are kept in their entry too: every cached value, and most keys.
const INLINE: usize = SHORT_STRING;

/// An entry's tag: `hash` with its top byte replaced by `length` (at most [`LONGEST_CACHED_KEY`]).
fn tag(hash: u64, length: usize) -> u64 {
    (hash & (u64::MAX >> 8)) | ((length as u64) << 56)
}

/// Depths told apart by the keys remembered per position (deeper ones share their slots).
const DEPTHS: usize = 8;
/// Members told apart per object (later ones share their slots).
const MEMBERS: usize = 16;
/// Longer keys are not remembered per position.
const POSITION_KEY_BYTES: usize = 24;

/// The last key read at one position (depth, member) of an object: its bytes, kept here so that
/// the next object's key at that position is checked against them without touching the `str`.
#[derive(Default)]
struct PositionKey {
    length: usize,
    bytes: [u8; POSITION_KEY_BYTES],
    string: Option<Py<PyString>>,
}

/// The table of cached strings.
pub(crate) struct KeyCache {
    /// `SETS * WAYS` entries, allocated on first use; set `s` is `entries[s * WAYS..][..WAYS]`.
    entries: Vec<Option<Entry>>,
    /// `DEPTHS * MEMBERS` keys by position, allocated on first use.
    positions: Vec<PositionKey>,
}

static CACHE: Mutex<KeyCache> = Mutex::new(KeyCache {
    entries: Vec::new(),
    positions: Vec::new(),
});

/// The shared cache for one scan, or `None` when it is taken.
pub(crate) fn acquire() -> Option<MutexGuard<'static, KeyCache>> {
    match CACHE.try_lock() {
        Ok(guard) => Some(guard),
        // A scan that panicked while holding it cannot have left an entry half-written in a way
        // that matters: every entry is replaced whole.
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// A 64-bit hash of short byte strings: the multiply-rotate mix of `FxHash` over eight-byte
/// words, the last one read overlapping the one before (short keys are read as two overlapping
/// halves or three bytes), so no byte is copied to a buffer first. An adversary who makes keys
/// collide gains only cache misses.
fn hash(bytes: &[u8]) -> u64 {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mix = |hash: u64, word: u64| (hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    let word_at = |at: usize| {
        bytes
            .get(at..at + 8)
            .and_then(|word| <[u8; 8]>::try_from(word).ok())
            .map_or(0, u64::from_le_bytes)
    };
    let half_at = |at: usize| {
        bytes
            .get(at..at + 4)
            .and_then(|half| <[u8; 4]>::try_from(half).ok())
            .map_or(0, |half| u64::from(u32::from_le_bytes(half)))
    };
    let length = bytes.len();
    let mut hash = mix(0, length as u64);
    if length >= 8 {
        let mut at = 0;
        while at + 8 < length {
            hash = mix(hash, word_at(at));
            at += 8;
        }
        hash = mix(hash, word_at(length - 8));
    } else if length >= 4 {
        hash = mix(hash, half_at(0) | (half_at(length - 4) << 32));
    } else if let (Some(&first), Some(&middle), Some(&last)) =
        (bytes.first(), bytes.get(length / 2), bytes.last())
    {
        hash = mix(
            hash,
            u64::from(first) | (u64::from(middle) << 8) | (u64::from(last) << 16),
        );
    }
    hash
}

/// Whether two byte strings of the same length are equal, read eight (or four) bytes at a time
/// with the last read overlapping the one before, as [`hash`] reads them: for keys this short, a
/// call to `memcmp` cost more than the comparison (3.4% of `tooljson.loads` on the records).
fn same_bytes(left: &[u8], right: &[u8]) -> bool {
    let length = left.len();
    if length != right.len() {
        return false;
    }
    let word = |bytes: &[u8], at: usize| {
        bytes
            .get(at..at + 8)
            .and_then(|word| <[u8; 8]>::try_from(word).ok())
            .map(u64::from_ne_bytes)
    };
    let half = |bytes: &[u8], at: usize| {
        bytes
            .get(at..at + 4)
            .and_then(|half| <[u8; 4]>::try_from(half).ok())
            .map(u32::from_ne_bytes)
    };
    if length >= 8 {
        let mut at = 0;
        while at + 8 < length {
            if word(left, at) != word(right, at) {
                return false;
            }
            at += 8;
        }
        word(left, length - 8) == word(right, length - 8)
    } else if length >= 4 {
        half(left, 0) == half(right, 0) && half(left, length - 4) == half(right, length - 4)
    } else {
        left == right
    }
}

impl KeyCache {
    /// The `str` of an object key, the `member`-th (from 0) of an object at `depth`. Records in an
    /// array repeat their keys in the same order, so the key last read at the same position is
    /// compared first: a few bytes kept here, where a lookup in the table below loads an entry and
    /// the `str` it names from memory the rest of the parse has pushed out of the nearest caches.
    /// Against the table alone, `tooljson.loads` took 0.93–0.94× the time on the 100 KB records
    /// and 0.94–0.97× on the escaped records (paired rounds, two runs at load 1–1.7).
    pub(crate) fn key<'py>(
        &mut self,
        py: Python<'py>,
        depth: usize,
        member: usize,
        key: &[u8],
    ) -> PyResult<Bound<'py, PyString>> {
        if key.len() > POSITION_KEY_BYTES {
            return self.get(py, key);
        }
        if self.positions.is_empty() {
            self.positions
                .resize_with(DEPTHS * MEMBERS, PositionKey::default);
        }
        let index = (depth % DEPTHS) * MEMBERS + member % MEMBERS;
        if let Some(PositionKey {
            length,
            bytes,
            string: Some(string),
        }) = self.positions.get(index)
        {
            if *length == key.len() && same_bytes(bytes.get(..*length).unwrap_or_default(), key) {
                return Ok(string.bind(py).clone());
            }
        }
        let string = self.get(py, key)?;
        if let Some(slot) = self.positions.get_mut(index) {
            let mut bytes = [0; POSITION_KEY_BYTES];
            if let Some(prefix) = bytes.get_mut(..key.len()) {
                prefix.copy_from_slice(key);
            }
            let old = std::mem::replace(
                slot,
                PositionKey {
                    length: key.len(),
                    bytes,
                    string: Some(string.clone().unbind()),
                },
            );
            if let Some(old) = old.string {
                old.drop_ref(py);
            }
        }
        Ok(string)
    }

    /// The `str` for decoded string bytes, from the cache when it holds them.
    pub(crate) fn get<'py>(
        &mut self,
        py: Python<'py>,
        key: &[u8],
    ) -> PyResult<Bound<'py, PyString>> {
        if key.len() > LONGEST_CACHED_KEY {
            return decode(py, key);
        }
        let hash = hash(key);
        if self.entries.is_empty() {
            self.entries.resize_with(SETS * WAYS, || None);
        }
        let set = (hash as usize) & (SETS - 1);
        let Some(ways) = self.entries.get_mut(set * WAYS..(set + 1) * WAYS) else {
            return decode(py, key);
        };
        let tag = tag(hash, key.len());
        for entry in ways.iter().flatten() {
            if entry.tag == tag
                && match entry.bytes.get(..key.len()) {
                    Some(inline) => same_bytes(inline, key),
                    None => {
                        utf8(entry.string.bind(py)).is_some_and(|cached| same_bytes(cached, key))
                    }
                }
            {
                return Ok(entry.string.bind(py).clone());
            }
        }
        let string = decode(py, key)?;
        if key
            .windows(2)
            .any(|pair| matches!(pair, [0xED, 0xA0..=0xBF]))
        {
            // A lone surrogate (three-byte form ED A0..BF xx): such a str has no UTF-8 of its own to
            // check against, so it is not cached.
            return Ok(string);
        }
        // The newest entry goes first; the oldest of the set is dropped.
        ways.rotate_right(1);
        let evicted = ways.first_mut().and_then(|first| {
            let mut bytes = [0; INLINE];
            if let Some(inline) = bytes.get_mut(..key.len()) {
                inline.copy_from_slice(key);
            }
            first.replace(Entry {
                tag,
                bytes,
                string: string.clone().unbind(),
            })
        });
        if let Some(evicted) = evicted {
            evicted.string.drop_ref(py);
        }
        Ok(string)
    }
}
