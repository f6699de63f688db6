//! Structural events for UIs and agents that follow a value as it streams, rather than diffing
//! previews: a value begun, text appended to an open string, a value completed.
//!
//! `Event` is a native class whose fields are read as struct members, which CPython's attribute
//! specialisation serves directly: on the 100 KB records stream, reading kind, path and value of
//! every event took about a third of the time it took on a named tuple. Events whose fields are all
//! atomic (strings, numbers, literals) are taken off the cycle collector's lists at birth, as
//! CPython does for tuples of atomic items, so that a backlog of them does not make collections
//! longer.

use std::fmt::Write as _;

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

/// What happened to the value at a path.
#[derive(Clone, Copy, Debug)]
pub(crate) enum EventKind {
    Begin,
    Append,
    Complete,
}

impl EventKind {
    fn name(self, py: Python<'_>) -> &Bound<'_, PyString> {
        match self {
            Self::Begin => pyo3::intern!(py, "begin"),
            Self::Append => pyo3::intern!(py, "append"),
            Self::Complete => pyo3::intern!(py, "complete"),
        }
    }
}

/// One change to the value being streamed.
///
/// `kind` "begin": a container opened, or a string is still open at the end of a scan (`value` is
/// "object", "array" or "string"); "append": text added to that open string (`value` is the new
/// text; the appends of a string add up to the whole string); "complete": a value is whole
/// (`value` is the value, the very object the final result holds). `path` holds the keys and
/// array positions from the root.
#[pyclass(module = "tooljson._native", name = "Event", frozen, freelist = 16384)]
pub(crate) struct PyEvent {
    /// "begin", "append" or "complete".
    #[pyo3(get)]
    kind: Py<PyString>,
    /// Keys and array positions from the root to the value.
    #[pyo3(get)]
    path: Py<PyTuple>,
    /// The kind of value begun, the text appended, or the completed value.
    #[pyo3(get)]
    value: Py<PyAny>,
}

impl PyEvent {
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(
            py,
            [
                self.kind.bind(py).as_any(),
                self.path.bind(py).as_any(),
                self.value.bind(py),
            ],
        )
    }
}

#[pymethods]
impl PyEvent {
    #[new]
    fn py_new(
        kind: &Bound<'_, PyString>,
        path: &Bound<'_, PyAny>,
        value: Py<PyAny>,
    ) -> PyResult<Py<Self>> {
        let py = kind.py();
        let kind = [EventKind::Begin, EventKind::Append, EventKind::Complete]
            .into_iter()
            .find(|known| known.name(py).as_any().eq(kind).unwrap_or(false))
            .ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err(
                    "kind must be 'begin', 'append' or 'complete'",
                )
            })?;
        let path = py
            .get_type::<PyTuple>()
            .call1((path,))?
            .cast_into::<PyTuple>()?;
        // The path given here may hold anything, so the event stays on the collector's lists.
        let event = Self {
            kind: kind.name(py).clone().unbind(),
            path: path.unbind(),
            value,
        };
        Ok(allocate(py, event, true)?.unbind())
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.kind)?;
        visit.call(&self.path)?;
        visit.call(&self.value)
    }

    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("kind", "path", "value")
    }

    /// The path as an RFC 6901 JSON Pointer (`""` for the root).
    #[getter]
    fn pointer(&self, py: Python<'_>) -> PyResult<String> {
        let mut pointer = String::new();
        for part in self.path.bind(py) {
            let part = part.str()?;
            let part = part.to_cow()?;
            pointer.push('/');
            for character in part.chars() {
                match character {
                    '~' => pointer.push_str("~0"),
                    '/' => pointer.push_str("~1"),
                    other => pointer.push(other),
                }
            }
        }
        Ok(pointer)
    }

    /// `kind, path, value = event`.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.fields(py)?.try_iter()?.into_any())
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let Ok(other) = other.cast::<Self>() else {
            return Ok(py.NotImplemented());
        };
        let equal = self.fields(py)?.eq(other.get().fields(py)?)?;
        match op {
            CompareOp::Eq => Ok(PyBool::new(py, equal).to_owned().into_any().unbind()),
            CompareOp::Ne => Ok(PyBool::new(py, !equal).to_owned().into_any().unbind()),
            _ => Ok(py.NotImplemented()),
        }
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.fields(py)?.hash()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut repr = String::from("Event(kind=");
        let _ = write!(
            repr,
            "{}, path={}, value={})",
            self.kind.bind(py).repr()?,
            self.path.bind(py).repr()?,
            self.value.bind(py).repr()?
        );
        Ok(repr)
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        Ok((slf.get_type().into_any(), slf.get().fields(slf.py())?))
    }
}

/// Whether an object can hold no reference to a container (so can be in no reference cycle).
fn is_atomic(value: &Bound<'_, PyAny>) -> bool {
    value.is_none()
        || value.is_exact_instance_of::<PyString>()
        || value.is_exact_instance_of::<PyInt>()
        || value.is_exact_instance_of::<PyFloat>()
        || value.is_exact_instance_of::<PyBool>()
}

/// Takes a new object holding only atomic objects off the cycle collector's lists.
fn untrack(object: &Bound<'_, PyAny>) {
    // SAFETY: the object is alive (borrowed), and PyObject_GC_UnTrack accepts objects that are
    // tracked or not. The caller guarantees the object holds atomic objects only, and its fields
    // cannot change (a frozen Event, a tuple), so it can never be part of a cycle.
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(object.as_ptr().cast()) };
}

/// A new event object holding `event`, on the cycle collector's lists only when `tracked`.
///
/// Events come from a free list (`#[pyclass(freelist)]`, at most 16,384 objects of 56 bytes kept):
/// an object taken from it skips the allocator, and is neither put back on the collector's lists
/// nor counted towards the next young collection. Fresh events were: the 8,218 events of the 100
/// KB records, pulled after `finish`, set off 22 young collections and a middle one per call
/// (against 2 young ones without events); taken from the list, 11 young ones, the rest being
/// their path tuples. So the tracking is set here, both ways.
fn allocate(py: Python<'_>, event: PyEvent, tracked: bool) -> PyResult<Bound<'_, PyEvent>> {
    let event = Bound::new(py, event)?;
    let object = event.as_ptr().cast();
    // SAFETY: the object is alive and fully initialised (its fields are set). Untracking accepts
    // tracked and untracked objects; tracking is done only when it is not tracked yet (tracking
    // twice is a fatal error).
    unsafe {
        if !tracked {
            pyo3::ffi::PyObject_GC_UnTrack(object);
        } else if pyo3::ffi::PyObject_GC_IsTracked(event.as_ptr()) == 0 {
            pyo3::ffi::PyObject_GC_Track(object);
        }
    }
    Ok(event)
}

/// Builds an event made by the parser. Paths hold keys and positions only, so an event whose value
/// is atomic can be in no cycle and stays off the collector's lists.
fn new_event<'py>(
    py: Python<'py>,
    kind: EventKind,
    path: Bound<'py, PyTuple>,
    value: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyEvent>> {
    let tracked = !is_atomic(&value);
    let event = PyEvent {
        kind: kind.name(py).clone().unbind(),
        path: path.unbind(),
        value: value.unbind(),
    };
    allocate(py, event, tracked)
}

/// `parent + (last,)`, built in place. Paths hold keys and positions only, so they are untracked.
pub(crate) fn extend_path<'py>(
    py: Python<'py>,
    parent: Option<&Py<PyTuple>>,
    last: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let parent = parent.map(|parent| parent.bind(py));
    let length = parent.map_or(0, PyTupleMethods::len);
    let length = isize::try_from(length)
        .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("path too deep"))?;
    // SAFETY: PyTuple_New returns a new tuple of `length + 1` NULL items or NULL with an
    // exception set; every slot is filled once below. PyTuple_GetItem returns a borrowed item of
    // the live parent, which is increfed before PyTuple_SetItem steals it.
    unsafe {
        let path = Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyTuple_New(length + 1))?;
        if let Some(parent) = parent {
            for at in 0..length {
                let item = pyo3::ffi::PyTuple_GetItem(parent.as_ptr(), at);
                if item.is_null() {
                    return Err(PyErr::fetch(py));
                }
                pyo3::ffi::Py_IncRef(item);
                pyo3::ffi::PyTuple_SetItem(path.as_ptr(), at, item);
            }
        }
        if pyo3::ffi::PyTuple_SetItem(path.as_ptr(), length, last.into_ptr()) != 0 {
            return Err(PyErr::fetch(py));
        }
        untrack(&path);
        Ok(path.cast_into_unchecked())
    }
}

/// Events waiting to be collected, and the open string reported so far.
#[derive(Default)]
pub(crate) struct EventLog {
    pending: Vec<Py<PyAny>>,
    /// The path of the open string that got a "begin", and how many of its bytes were sent as
    /// "append" events; `None` when no "begin" was sent for it (a string that starts and ends
    /// within one scan gets only its "complete"). Its events share the one path tuple.
    open_string: Option<(Py<PyTuple>, usize)>,
}

impl EventLog {
    pub(crate) fn push(
        &mut self,
        py: Python<'_>,
        kind: EventKind,
        path: Bound<'_, PyTuple>,
        value: Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.pending
            .push(new_event(py, kind, path, value)?.into_any().unbind());
        Ok(())
    }

    pub(crate) fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        for event in &self.pending {
            visit.call(event)?;
        }
        if let Some((path, _)) = &self.open_string {
            visit.call(path)?;
        }
        Ok(())
    }

    pub(crate) fn take(&mut self) -> Vec<Py<PyAny>> {
        std::mem::take(&mut self.pending)
    }

    /// The open string's path and the bytes already reported, if it got a "begin".
    pub(crate) fn open_string(&self) -> Option<&(Py<PyTuple>, usize)> {
        self.open_string.as_ref()
    }

    /// Ends the open string's run of events: its path and the bytes already reported.
    pub(crate) fn take_open_string(&mut self) -> Option<(Py<PyTuple>, usize)> {
        self.open_string.take()
    }

    pub(crate) fn set_open_string(
        &mut self,
        py: Python<'_>,
        open_string: Option<(Py<PyTuple>, usize)>,
    ) {
        if let Some((path, _)) = std::mem::replace(&mut self.open_string, open_string) {
            path.drop_ref(py);
        }
    }
}

/// The events of a string value that is still open at the end of a scan: "begin" the first time,
/// then "append" with the text that arrived since the last report.
impl super::builder::Builder {
    /// Reports the growth of the open string since the last report. Called at the end of each
    /// scan that ends inside a string value.
    pub(crate) fn report_open_string(&mut self, py: Python<'_>, content: &[u8]) -> PyResult<()> {
        if self.failure.is_some() || self.events.is_none() {
            return Ok(());
        }
        let reported = self
            .events
            .as_ref()
            .and_then(EventLog::open_string)
            .map(|(path, reported)| (path.bind(py).clone(), *reported));
        let (path, reported) = if let Some(known) = reported {
            known
        } else {
            let path = self.member_path(py)?;
            if let Some(log) = &mut self.events {
                let kind = pyo3::intern!(py, "string").clone().into_any();
                log.push(py, EventKind::Begin, path.clone(), kind)?;
            }
            (path, 0)
        };
        let Some(log) = &mut self.events else {
            return Ok(());
        };
        if let Some(new_text) = content.get(reported..).filter(|text| !text.is_empty()) {
            log.push(
                py,
                EventKind::Append,
                path.clone(),
                super::strings::decode(py, new_text)?.into_any(),
            )?;
        }
        log.set_open_string(py, Some((path.unbind(), content.len())));
        Ok(())
    }

    /// Ends the run of "append" events of a string that just closed, so that they add up to the
    /// whole string (`content`); returns the path they shared, for its "complete" event.
    pub(super) fn close_open_string<'py>(
        &mut self,
        py: Python<'py>,
        content: &[u8],
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let Some(log) = &mut self.events else {
            return Ok(None);
        };
        let Some((path, reported)) = log.take_open_string() else {
            return Ok(None);
        };
        let path = path.into_bound(py);
        let rest = content.get(reported..).unwrap_or_default();
        if !rest.is_empty() {
            log.push(
                py,
                EventKind::Append,
                path.clone(),
                super::strings::decode(py, rest)?.into_any(),
            )?;
        }
        Ok(Some(path))
    }
}
