//! Builds the Python value from parser events, in place, as the fragments arrive.
//!
//! Containers are inserted into their parent as soon as they open and filled in place, so when the
//! last delta has been fed the value is already whole and `finish` only checks that the text ended
//! well. The same value, with the open string shown at its place (`stand_in.rs`), is the preview.
//!
//! The objects held between calls are `Py` handles, released with `drop_ref` (or turned into
//! `Bound`s) on the hot paths: dropping a `Py` first asks a thread-local whether the thread is
//! attached, a lookup that took 1.5% of the profile of `tooljson.loads` on the 100 KB records, and
//! that `add_delta`'s own C entry point (see `accumulator.rs`) does not set up.

use std::sync::MutexGuard;

use pyo3::exceptions::PyBaseException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use super::convert::{dict_set, list_append, list_set_last, literal, number};
use super::events::{extend_path, EventKind, EventLog};
use super::key_cache::{self, KeyCache, SHORT_STRING};
use super::strings::decode;
use crate::sink::{Literal, Sink};

/// An open array or object of the value being built.
pub(super) struct Frame {
    pub(super) container: Py<PyAny>,
    pub(super) is_object: bool,
    /// The key of the member being read, or of the last one read (objects). It stays until the
    /// next key replaces it, so that it also names where an open child container sits.
    pub(super) key: Option<Py<PyString>>,
    /// Members completed or opened so far (arrays), or keys read so far (objects): the position
    /// of the next one.
    pub(super) count: usize,
    /// The container's last member is a preview's stand-in for a string still being read; the
    /// finished string replaces it in place.
    pub(super) holds_partial: bool,
    /// The container's own path, kept only when events are on.
    pub(super) path: Option<Py<PyTuple>>,
}

impl Frame {
    /// Releases the frame's objects without the attachment check of `Py`'s `Drop`.
    fn release(self, py: Python<'_>) {
        self.container.drop_ref(py);
        if let Some(key) = self.key {
            key.drop_ref(py);
        }
        if let Some(path) = self.path {
            path.drop_ref(py);
        }
    }

    /// Where the member being read sits: its key, or its array position.
    pub(super) fn member_position<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.is_object {
            Ok(self.key.as_ref().map_or_else(
                || PyString::new(py, "").into_any(),
                |key| key.bind(py).clone().into_any(),
            ))
        } else {
            Ok(self.count.into_pyobject(py)?.into_any())
        }
    }

    /// Where the open container that is this frame's last member sits in it.
    pub(super) fn child_position<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.is_object {
            self.member_position(py)
        } else {
            Ok(self.count.saturating_sub(1).into_pyobject(py)?.into_any())
        }
    }
}

/// The Python value under construction.
#[derive(Default)]
pub(crate) struct Builder {
    pub(super) root: Option<Py<PyAny>>,
    pub(super) stack: Vec<Frame>,
    /// Length in bytes of the open string when a preview last showed it: nothing to redo when the
    /// string did not grow since.
    pub(super) partial_shown: Option<usize>,
    /// The first conversion failure (an integer over the digit limit, memory). json.loads raises it
    /// when it reaches the number; here it is kept and raised by `finish`, since a delta must not fail.
    pub(super) failure: Option<Py<PyBaseException>>,
    /// Present when events are on.
    pub(super) events: Option<EventLog>,
    pub(super) long_string: super::long_string::LongString,
}

impl Builder {
    pub(crate) fn new(events: bool) -> Self {
        Self {
            events: events.then(EventLog::default),
            ..Self::default()
        }
    }

    pub(crate) fn root(&self, py: Python<'_>) -> Py<PyAny> {
        self.root
            .as_ref()
            .map_or_else(|| py.None(), |root| root.clone_ref(py))
    }

    /// The first conversion failure, as the exception to raise.
    pub(crate) fn failure(&self, py: Python<'_>) -> Option<PyErr> {
        self.failure
            .as_ref()
            .map(|failure| PyErr::from_value(failure.bind(py).clone().into_any()))
    }

    /// Visits every Python object held, for the cycle collector.
    pub(crate) fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.root)?;
        for frame in &self.stack {
            visit.call(&frame.container)?;
            visit.call(&frame.key)?;
            visit.call(&frame.path)?;
        }
        visit.call(&self.failure)?;
        if let Some(log) = &self.events {
            log.traverse(visit)?;
        }
        Ok(())
    }

    /// Drops every Python object held (the cycle collector breaking a cycle).
    pub(crate) fn clear(&mut self) {
        let events = self.events.is_some();
        *self = Self::new(events);
    }

    pub(crate) fn events_mut(&mut self) -> Option<&mut EventLog> {
        self.events.as_mut()
    }

    /// The path of the member being read in the innermost open container (events only).
    pub(super) fn member_path<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let Some(frame) = self.stack.last() else {
            return Ok(PyTuple::empty(py));
        };
        extend_path(py, frame.path.as_ref(), frame.member_position(py)?)
    }

    /// Where the member being read goes in the innermost open container (its key, or its array
    /// position); `None` at the top level.
    pub(crate) fn member<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.stack
            .last()
            .map(|frame| frame.member_position(py))
            .transpose()
    }

    /// Puts a value at its place.
    fn place(&mut self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.partial_shown = None;
        let Some(frame) = self.stack.last_mut() else {
            if let Some(old) = self.root.replace(value.clone().unbind()) {
                old.drop_ref(py);
            }
            return Ok(());
        };
        let replaces_partial = std::mem::take(&mut frame.holds_partial);
        if frame.is_object {
            match &frame.key {
                Some(key) => dict_set(py, &frame.container, key.bind(py), value),
                None => dict_set(py, &frame.container, &PyString::intern(py, ""), value),
            }
        } else {
            frame.count += 1;
            if replaces_partial {
                list_set_last(py, &frame.container, value.clone())
            } else {
                list_append(py, &frame.container, value)
            }
        }
    }

    /// Puts a complete scalar at its place and, with events on, reports it under `known_path` (or
    /// the member's path).
    fn add_scalar<'py>(
        &mut self,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
        known_path: Option<Bound<'py, PyTuple>>,
    ) -> PyResult<()> {
        if self.events.is_none() {
            return self.place(py, value);
        }
        let path = match known_path {
            Some(path) => path,
            None => self.member_path(py)?,
        };
        self.place(py, value)?;
        if let Some(log) = &mut self.events {
            log.push(py, EventKind::Complete, path, value.clone())?;
        }
        Ok(())
    }

    /// The path of the value being filled now: the deepest open container, or the open string
    /// when `in_string` (the text ends inside a string value). `None` when nothing is open.
    pub(crate) fn open_path<'py>(
        &self,
        py: Python<'py>,
        in_string: bool,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        if self.stack.is_empty() && !in_string {
            return Ok(None);
        }
        let mut parts = Vec::with_capacity(self.stack.len() + 1);
        // Every open container but the root is the last member of the one before it.
        for parent in self.stack.iter().rev().skip(1).rev() {
            parts.push(parent.child_position(py)?);
        }
        if in_string {
            if let Some(frame) = self.stack.last() {
                parts.push(frame.member_position(py)?);
            }
        }
        PyTuple::new(py, parts).map(Some)
    }

    fn open<'py>(
        &mut self,
        py: Python<'py>,
        container: Bound<'py, PyAny>,
        is_object: bool,
    ) -> PyResult<()> {
        let path = if self.events.is_some() {
            let path = self.member_path(py)?;
            let kind = if is_object {
                pyo3::intern!(py, "object")
            } else {
                pyo3::intern!(py, "array")
            };
            if let Some(log) = &mut self.events {
                log.push(py, EventKind::Begin, path.clone(), kind.clone().into_any())?;
            }
            Some(path.unbind())
        } else {
            None
        };
        self.place(py, &container)?;
        self.stack.push(Frame {
            container: container.unbind(),
            is_object,
            key: None,
            count: 0,
            holds_partial: false,
            path,
        });
        Ok(())
    }

    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(mut frame) = self.stack.pop() else {
            return Ok(());
        };
        let outcome = match (&mut self.events, frame.path.take()) {
            (Some(log), path) => {
                let path = path.map_or_else(|| PyTuple::empty(py), |path| path.into_bound(py));
                log.push(
                    py,
                    EventKind::Complete,
                    path,
                    frame.container.bind(py).clone(),
                )
            }
            (None, path) => {
                if let Some(path) = path {
                    path.drop_ref(py);
                }
                Ok(())
            }
        };
        frame.release(py);
        outcome
    }

    fn string(
        &mut self,
        py: Python<'_>,
        keys: Option<&mut KeyCache>,
        content: &[u8],
    ) -> PyResult<()> {
        self.release_partial(py)?;
        let value = match keys {
            Some(keys) if content.len() <= SHORT_STRING => keys.get(py, content)?,
            _ => self.long_string.finish(py, content)?,
        }
        .into_any();
        let path = self.close_open_string(py, content)?;
        self.add_scalar(py, &value, path)
    }

    fn key(&mut self, py: Python<'_>, keys: Option<&mut KeyCache>, key: &[u8]) -> PyResult<()> {
        let depth = self.stack.len();
        let Some(frame) = self.stack.last_mut() else {
            return Ok(());
        };
        let key = match keys {
            Some(keys) => keys.key(py, depth, frame.count, key)?,
            None => decode(py, key)?,
        };
        frame.count += 1;
        if let Some(old) = frame.key.replace(key.unbind()) {
            old.drop_ref(py);
        }
        Ok(())
    }
}

/// Feeds parser events into a [`Builder`] while the GIL is held.
pub(crate) struct PythonSink<'a, 'py> {
    py: Python<'py>,
    builder: &'a mut Builder,
    /// The shared key cache, held for the whole scan (`None` when another scan holds it).
    keys: Option<MutexGuard<'static, KeyCache>>,
}

impl<'a, 'py> PythonSink<'a, 'py> {
    pub(crate) fn new(py: Python<'py>, builder: &'a mut Builder) -> Self {
        Self {
            py,
            builder,
            keys: key_cache::acquire(),
        }
    }

    /// Runs one building step unless an earlier one failed; keeps the first failure.
    fn step(&mut self, build: impl FnOnce(Python<'_>, &mut Builder) -> PyResult<()>) {
        if self.builder.failure.is_some() {
            return;
        }
        if let Err(error) = build(self.py, self.builder) {
            self.builder.failure = Some(error.into_value(self.py));
        }
    }

    fn value(&mut self, make: impl FnOnce(Python<'_>) -> PyResult<Bound<'_, PyAny>>) {
        self.step(|py, builder| {
            let value = make(py)?;
            builder.add_scalar(py, &value, None)
        });
    }
}

impl Sink for PythonSink<'_, '_> {
    fn start_array(&mut self) {
        self.step(|py, builder| builder.open(py, PyList::empty(py).into_any(), false));
    }

    fn start_object(&mut self) {
        self.step(|py, builder| builder.open(py, PyDict::new(py).into_any(), true));
    }

    fn end_array(&mut self) {
        self.step(|py, builder| builder.close(py));
    }

    fn end_object(&mut self) {
        self.step(|py, builder| builder.close(py));
    }

    fn key(&mut self, key: &[u8]) {
        if self.builder.failure.is_some() {
            return;
        }
        if let Err(error) = self.builder.key(self.py, self.keys.as_deref_mut(), key) {
            self.builder.failure = Some(error.into_value(self.py));
        }
    }

    fn string(&mut self, value: &[u8]) {
        if self.builder.failure.is_some() {
            return;
        }
        if let Err(error) = self
            .builder
            .string(self.py, self.keys.as_deref_mut(), value)
        {
            self.builder.failure = Some(error.into_value(self.py));
        }
    }

    fn number(&mut self, text: &[u8], is_float: bool) {
        self.value(|py| number(py, text, is_float));
    }

    fn literal(&mut self, value: Literal) {
        self.value(|py| Ok(literal(py, value)));
    }
}
