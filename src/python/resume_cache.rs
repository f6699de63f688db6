//! `tooljson._native.ResumeCache`: the buffers recently read by the drop-in functions, each with the
//! `GrowingText` that read it, found by the new buffer starting with the one read.
//!
//! A call on a growing buffer takes the entry whose buffer is the longest prefix of its own (almost
//! always the last call's), has it read what was added, and gives it back when done. Taking the
//! entry out, rather than using it in place, keeps two threads (or a call made from a finalizer
//! during another) from sharing a parser. The lock is held only to pick or put back an entry:
//! nothing in it calls Python or releases an object, so no code can run while it is held, and a
//! call that finds it held (which only re-entry could cause) goes on without the cache.

use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use super::growing::PyGrowingText;

/// The buffer read by one entry, and what it was read for.
struct Kept {
    text: Py<PyGrowingText>,
    source: Py<PyAny>,
    /// The buffer's length in its own units (bytes or characters).
    length: usize,
    strings: bool,
    binary: bool,
}

#[derive(Default)]
struct Entries {
    /// Least recently used first.
    kept: Vec<Kept>,
    /// The kept buffers' lengths added up.
    total: usize,
}

#[pyclass(module = "tooljson._native", name = "ResumeCache", frozen)]
pub(crate) struct PyResumeCache {
    /// At most this many entries are kept…
    #[pyo3(get)]
    max_entries: usize,
    /// …holding at most this much text together (the least recently used go first).
    #[pyo3(get)]
    max_chars: usize,
    /// The nesting limit of the texts read.
    max_depth: i64,
    entries: Mutex<Entries>,
}

/// Whether `data` starts with `prefix`, both `bytes` or both `str` (subclasses read as their base
/// type: no method of theirs is called).
fn starts_with(data: &Bound<'_, PyAny>, prefix: &Bound<'_, PyAny>) -> bool {
    if let (Ok(data), Ok(prefix)) = (data.cast::<PyBytes>(), prefix.cast::<PyBytes>()) {
        return data.as_bytes().starts_with(prefix.as_bytes());
    }
    if let (Ok(data), Ok(prefix)) = (data.cast::<PyString>(), prefix.cast::<PyString>()) {
        // SAFETY: both are live strs; PyUnicode_Tailmatch compares `prefix` with the start
        // (direction -1) of `data[0:PY_SSIZE_T_MAX]` and returns 1, 0, or -1 with an exception set
        // (it sets none for two strs).
        let matched = unsafe {
            pyo3::ffi::PyUnicode_Tailmatch(
                data.as_ptr(),
                prefix.as_ptr(),
                0,
                pyo3::ffi::PY_SSIZE_T_MAX,
                -1,
            )
        };
        if matched == -1 {
            // SAFETY: clears the exception the call set, if any.
            unsafe { pyo3::ffi::PyErr_Clear() };
        }
        return matched == 1;
    }
    false
}

impl PyResumeCache {
    /// The entries, unless another call holds them (re-entry): that call then goes without.
    fn lock(&self) -> Option<MutexGuard<'_, Entries>> {
        match self.entries.try_lock() {
            Ok(guard) => Some(guard),
            // Every change under the lock leaves the entries whole.
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        }
    }

    /// The kept entry whose buffer is the longest prefix of `source`, taken out.
    fn take(
        &self,
        source: &Bound<'_, PyAny>,
        length: usize,
        strings: bool,
        binary: bool,
    ) -> Option<Py<PyGrowingText>> {
        let py = source.py();
        let mut entries = self.lock()?;
        let fits = |kept: &Kept| {
            kept.strings == strings
                && kept.binary == binary
                && kept.length <= length
                && starts_with(source, kept.source.bind(py))
        };
        // The usual case: the buffer of the last call, grown.
        let position = match entries.kept.last() {
            Some(last) if fits(last) => Some(entries.kept.len() - 1),
            _ => {
                let mut best: Option<(usize, usize)> = None;
                for (position, kept) in entries.kept.iter().enumerate().rev() {
                    if best.is_some_and(|(_, longest)| kept.length <= longest) {
                        continue;
                    }
                    if fits(kept) {
                        best = Some((position, kept.length));
                    }
                }
                best.map(|(position, _)| position)
            }
        }?;
        let kept = entries.kept.remove(position);
        entries.total -= kept.length;
        drop(entries);
        // The kept `source` is released here, with the lock given back.
        Some(kept.text)
    }
}

#[pymethods]
impl PyResumeCache {
    #[new]
    // `max_chars`: 32 Mi, written out for the signature Python reads.
    #[pyo3(signature = (*, max_depth, max_entries = 8, max_chars = 33_554_432))]
    fn new(max_depth: i64, max_entries: usize, max_chars: usize) -> Self {
        Self {
            max_entries,
            max_chars,
            max_depth,
            entries: Mutex::new(Entries::default()),
        }
    }

    /// A `GrowingText` that has read all of `data` (`bytes`, `bytearray` or `str`), taken out: the
    /// kept one whose buffer is the longest prefix of `data`, resumed; else a new one. Give it back
    /// with `give` when done.
    #[pyo3(signature = (data, *, strings))]
    fn read<'py>(
        &self,
        data: &Bound<'py, PyAny>,
        strings: bool,
    ) -> PyResult<Bound<'py, PyGrowingText>> {
        let py = data.py();
        let binary = !data.is_exact_instance_of::<PyString>();
        let source = match data.cast::<PyByteArray>() {
            Ok(array) => PyBytes::new(py, &array.to_vec()).into_any(),
            Err(_) => data.clone(),
        };
        let length = source.len()?;
        let entry = match self.take(&source, length, strings, binary) {
            Some(entry) => entry.into_bound(py),
            None => Bound::new(py, PyGrowingText::new(py, strings, self.max_depth, binary)?)?,
        };
        entry.borrow_mut().advance(py, &source, length)?;
        Ok(entry)
    }

    /// Keeps `entry` as the most recently used (unless it was refused, or its buffer alone is over
    /// the bound), dropping the least recently used beyond the bounds.
    fn give(&self, entry: &Bound<'_, PyGrowingText>) {
        let kept = {
            let text = entry.borrow();
            let Some(source) = text
                .source
                .as_ref()
                .map(|source| source.clone_ref(entry.py()))
            else {
                return;
            };
            if text.failed() || text.length > self.max_chars {
                return;
            }
            Kept {
                text: entry.clone().unbind(),
                source,
                length: text.length,
                strings: text.strings(),
                binary: text.binary,
            }
        };
        let mut dropped = Vec::new();
        {
            let Some(mut entries) = self.lock() else {
                return;
            };
            entries.total += kept.length;
            entries.kept.push(kept);
            while entries.kept.len() > self.max_entries || entries.total > self.max_chars {
                let oldest = entries.kept.remove(0);
                entries.total -= oldest.length;
                dropped.push(oldest);
            }
        }
        // Released with the lock given back: a finalizer they set off may call in again.
        drop(dropped);
    }

    /// Drops every entry.
    fn clear(&self) {
        let dropped = self.lock().map(|mut entries| {
            entries.total = 0;
            std::mem::take(&mut entries.kept)
        });
        drop(dropped);
    }

    /// The kept buffers' lengths added up.
    #[getter]
    fn chars(&self) -> usize {
        self.lock().map_or(0, |entries| entries.total)
    }

    fn __len__(&self) -> usize {
        self.lock().map_or(0, |entries| entries.kept.len())
    }
}
