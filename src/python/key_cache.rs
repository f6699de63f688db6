//! Object keys seen recently, shared by every parse in the process.
//!
//! Records in an array repeat the same keys, and so do the calls of one tool: handing out the same
//! `str` for a key saves decoding it again, and CPython reuses the hash the `str` keeps when it is
//! inserted into the next dict. The cache is set-associative (two ways per set, the newer entry
//! first), so two common keys that fall in the same set both stay; a key is compared by its bytes,
//! kept in the entry, after a full 64-bit hash. On the 100 KB records stream it saves about 1,200
//! decodes per document against the single-entry slots it replaces, and `tooljson.loads` of that
//! text took 0.82× the time it took with them.
//!
//! One cache serves the whole process: a parse takes it with `try_lock` when a scan starts and
//! gives it back when the scan ends, so a scan pays for one uncontended lock, not one per key. A
//! scan that finds it taken (another thread's scan, or a finalizer that parses during a scan)
//! simply decodes its keys.

use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::prelude::*;
use pyo3::types::PyString;

use super::convert::decode;

/// Sets of the cache; a power of two.
const SETS: usize = 512;
/// Entries per set.
const WAYS: usize = 2;
/// Longer keys are decoded every time: they are rare, and the bytes are kept inside the entry.
const LONGEST_CACHED_KEY: usize = 32;

/// A cached key: its hash, its bytes (the first `length` of `bytes`) and its `str`.
struct Entry {
    hash: u64,
    length: u8,
    bytes: [u8; LONGEST_CACHED_KEY],
    string: Py<PyString>,
}

/// The table of cached keys.
pub(crate) struct KeyCache {
    /// `SETS * WAYS` entries, allocated on first use; set `s` is `entries[s * WAYS..][..WAYS]`.
    entries: Vec<Option<Entry>>,
}

static CACHE: Mutex<KeyCache> = Mutex::new(KeyCache {
    entries: Vec::new(),
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

/// A 64-bit hash of short byte strings, eight bytes at a time (the multiply-rotate mix of
/// `FxHash`). An adversary who makes keys collide gains only cache misses.
fn hash(bytes: &[u8]) -> u64 {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut hash = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        hash = (hash.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(SEED);
    }
    let mut last = [0u8; 8];
    let tail = chunks.remainder();
    if let Some(prefix) = last.get_mut(..tail.len()) {
        prefix.copy_from_slice(tail);
    }
    (hash.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(SEED)
}

impl KeyCache {
    /// The `str` for a key's decoded bytes, from the cache when it holds them.
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
        for entry in ways.iter().flatten() {
            if entry.hash == hash && entry.bytes.get(..usize::from(entry.length)) == Some(key) {
                return Ok(entry.string.bind(py).clone());
            }
        }
        let string = decode(py, key)?;
        let mut bytes = [0u8; LONGEST_CACHED_KEY];
        if let Some(prefix) = bytes.get_mut(..key.len()) {
            prefix.copy_from_slice(key);
        }
        // The newest entry goes first; the oldest of the set is dropped.
        ways.rotate_right(1);
        let evicted = ways.first_mut().and_then(|first| {
            first.replace(Entry {
                hash,
                length: key.len() as u8,
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
