//! The Python value of a text given whole (`tooljson.loads`), built from the bottom up.
//!
//! A streamed text needs its value in place after every fragment (`builder.rs`): each container goes
//! into its parent when it opens and grows member by member. A text given whole needs only the
//! finished value, so here every member waits on one stack of owned references and each container
//! is made when it closes: a list allocated at its final size and filled without a call per item,
//! a dict filled from its key, value pairs. The parser and its rules are the same; only the sink
//! differs. Against the in-place builder, `tooljson.loads` took 0.94× the time on the 100 KB
//! records and on the escaped records, 0.93–0.94× on the small and medium documents (paired, both
//! builds in one process, 41 rounds).
//!
//! The stack holds `Bound`s, whose drop releases them: whatever a malformed text or a failed
//! conversion leaves on it is released with the sink.

use std::sync::MutexGuard;

use pyo3::prelude::*;

use super::convert::{check, literal, number};
use super::key_cache::{self, KeyCache, SHORT_STRING};
use super::strings::decode;
use crate::sink::{Literal, Sink};

/// Builds the value of a whole text from the parser's events.
pub(crate) struct WholeTextSink<'py> {
    py: Python<'py>,
    /// The members of the open containers, in document order (an object's as key, value, key,
    /// value…), and at the end the top-level value.
    values: Vec<Bound<'py, PyAny>>,
    /// Where each open container's members begin in `values`, innermost last.
    open: Vec<usize>,
    /// The shared key cache, held for the whole parse (`None` when another parse holds it).
    keys: Option<MutexGuard<'static, KeyCache>>,
    /// The first conversion failure (an integer over the digit limit, memory); nothing is built
    /// after it.
    failure: Option<PyErr>,
    /// The cyclic garbage collector, paused while the value of a longer text is built.
    _collector: Option<CollectorPause>,
}

impl<'py> WholeTextSink<'py> {
    /// A sink for a text of `length` bytes.
    pub(crate) fn new(py: Python<'py>, length: usize) -> Self {
        Self {
            py,
            values: Vec::new(),
            open: Vec::new(),
            keys: key_cache::acquire(),
            failure: None,
            _collector: (length >= PAUSE_COLLECTOR_FROM).then(CollectorPause::new),
        }
    }

    /// The top-level value (`None` when the text held none), or the first conversion failure.
    pub(crate) fn into_value(mut self) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self.failure.take() {
            Some(failure) => Err(failure),
            None if self.open.is_empty() => Ok(self.values.pop()),
            None => Ok(None),
        }
    }

    /// Pushes the value `make` returns unless an earlier step failed; keeps the first failure.
    fn push(&mut self, make: impl FnOnce(&mut Self) -> PyResult<Bound<'py, PyAny>>) {
        if self.failure.is_some() {
            return;
        }
        match make(self) {
            Ok(value) => self.values.push(value),
            Err(error) => self.failure = Some(error),
        }
    }

    /// Pushes the `str` `make` returns, an object key or a string value, made by the caller
    /// (`direct.rs`, from a text read in its own width).
    #[cfg(not(Py_LIMITED_API))]
    pub(crate) fn made_string(
        &mut self,
        make: impl FnOnce(Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyString>>,
    ) {
        self.push(|sink| Ok(make(sink.py)?.into_any()));
    }

    /// The list of the innermost open container's members.
    fn list(&mut self) -> PyResult<Bound<'py, PyAny>> {
        let start = self.open.pop().unwrap_or_default();
        let members = self.values.get(start..).unwrap_or_default();
        let length = isize::try_from(members.len()).unwrap_or(isize::MAX);
        // SAFETY: PyList_New returns a new list of `length` empty slots, or NULL with an exception
        // set; every slot is filled below, each item's reference handed over (stolen) by
        // `into_ptr`, before the list is used.
        let list = unsafe { Bound::from_owned_ptr_or_err(self.py, pyo3::ffi::PyList_New(length))? };
        for (index, member) in (0..).zip(self.values.drain(start..)) {
            // SAFETY: `index` is below the list's length; the slot is empty.
            #[cfg(not(Py_LIMITED_API))]
            unsafe {
                pyo3::ffi::PyList_SET_ITEM(list.as_ptr(), index, member.into_ptr());
            }
            // SAFETY: as above; PyList_SetItem steals the reference even when it fails.
            #[cfg(Py_LIMITED_API)]
            check(self.py, unsafe {
                pyo3::ffi::PyList_SetItem(list.as_ptr(), index, member.into_ptr())
            })?;
        }
        Ok(list)
    }

    /// The dict of the innermost open object's keys and values.
    fn dict(&mut self) -> PyResult<Bound<'py, PyAny>> {
        let start = self.open.pop().unwrap_or_default();
        let dict = new_dict(self.py)?;
        let mut members = self.values.drain(start..);
        while let (Some(key), Some(value)) = (members.next(), members.next()) {
            // SAFETY: all three are live; PyDict_SetItem steals neither the key nor the value, and
            // keeps the first position of a repeated key with its last value, as json.loads does.
            check(self.py, unsafe {
                pyo3::ffi::PyDict_SetItem(dict.as_ptr(), key.as_ptr(), value.as_ptr())
            })?;
        }
        Ok(dict)
    }
}

/// An empty dict. (Made presized by `_PyDict_NewPresized`, `tooljson.loads` took 1.03× the time
/// on the records and 1.01× on the escaped records: before 3.13 it makes a table for keys of any
/// type, not the one for `str` keys only that a dict starts with.)
fn new_dict(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    // SAFETY: PyDict_New returns a new dict or NULL with an exception set.
    unsafe { Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyDict_New()) }
}

impl Sink for WholeTextSink<'_> {
    fn start_array(&mut self) {
        self.open.push(self.values.len());
    }

    fn start_object(&mut self) {
        self.open.push(self.values.len());
    }

    fn end_array(&mut self) {
        self.push(Self::list);
    }

    fn end_object(&mut self) {
        self.push(Self::dict);
    }

    // Inlined into the reader of a text in its own width (`direct.rs`, where `emit` says why).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn key(&mut self, key: &[u8]) {
        self.push(|sink| {
            let start = sink.open.last().copied().unwrap_or_default();
            let member = sink.values.len().saturating_sub(start) / 2;
            Ok(match sink.keys.as_deref_mut() {
                Some(keys) => keys.key(sink.py, sink.open.len(), member, key)?,
                None => decode(sink.py, key)?,
            }
            .into_any())
        });
    }

    fn string(&mut self, value: &[u8]) {
        self.push(|sink| {
            Ok(match sink.keys.as_deref_mut() {
                Some(keys) if value.len() <= SHORT_STRING => keys.get(sink.py, value)?,
                _ => decode(sink.py, value)?,
            }
            .into_any())
        });
    }

    fn number(&mut self, text: &[u8], is_float: bool) {
        self.push(|sink| number(sink.py, text, is_float));
    }

    fn literal(&mut self, value: Literal) {
        self.push(|sink| Ok(literal(sink.py, value)));
    }
}

/// Texts from this many bytes on are built with the collector paused. A shorter one is built in a
/// few microseconds and seldom sets off a collection; pausing took `tooljson.loads` of the 20-byte
/// document 1.04× the time.
const PAUSE_COLLECTOR_FROM: usize = 4096;

/// Keeps CPython's cyclic garbage collector from running while it lives, and lets it run again
/// (unless it was already off) when dropped.
///
/// Every container a parse makes counts towards the next collection of the young generation, so
/// a 100 KB text set off one or two collections in the middle of its build, and a large one set
/// off collections of the older generations too, each walking every container made so far and
/// finding nothing: a value being built from text cannot hold a reference cycle, and no Python
/// code runs while it is built. Paused, the collector runs at the next allocation after the parse
/// if the allocations still call for it, once, over the same young objects; when the value is
/// released first, as a parsed tool input often is, it does not run at all.
struct CollectorPause {
    was_enabled: bool,
}

impl CollectorPause {
    fn new() -> Self {
        // SAFETY: called with the GIL held (the sink holds a `Python` token); PyGC_Disable only
        // clears the collector's flag and returns whether it was set.
        let was_enabled = unsafe { pyo3::ffi::PyGC_Disable() } != 0;
        Self { was_enabled }
    }
}

impl Drop for CollectorPause {
    fn drop(&mut self) {
        if self.was_enabled {
            // SAFETY: as in `new`: the sink, and so this guard, lives and dies under the GIL.
            unsafe { pyo3::ffi::PyGC_Enable() };
        }
    }
}
