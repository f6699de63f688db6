//! Structural events for UIs and agents that follow a value as it streams, rather than diffing
//! previews: a value begun, text appended to an open string, a value completed.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::{PyTraverseError, PyVisit};

/// One change to the value being streamed.
#[pyclass(module = "tooljson._native", frozen)]
pub(crate) struct Event {
    /// "begin", "append" or "complete".
    #[pyo3(get)]
    kind: &'static str,
    /// Keys and array positions from the root to the value.
    #[pyo3(get)]
    path: Py<PyTuple>,
    /// begin: "object", "array" or "string"; append: the new text; complete: the value.
    #[pyo3(get)]
    value: Py<PyAny>,
}

#[pymethods]
impl Event {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.path)?;
        visit.call(&self.value)
    }

    /// The path as an RFC 6901 JSON Pointer (`""` for the root).
    #[getter]
    fn pointer(&self, py: Python<'_>) -> PyResult<String> {
        let mut pointer = String::new();
        for part in self.path.bind(py).iter() {
            let text = part.str()?;
            pointer.push('/');
            pointer.push_str(&text.to_str()?.replace('~', "~0").replace('/', "~1"));
        }
        Ok(pointer)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Event(kind={:?}, path={}, value={})",
            self.kind,
            self.path.bind(py).repr()?,
            self.value.bind(py).repr()?
        ))
    }
}

/// Events waiting to be collected, and how far the open string has been reported.
#[derive(Default)]
pub(crate) struct EventLog {
    pending: Vec<Py<Event>>,
    /// Bytes of the open string already sent as "append" events; `None` when no "begin" was sent
    /// for it (a string that starts and ends within one fragment gets only its "complete").
    open_string_reported: Option<usize>,
}

impl EventLog {
    pub(crate) fn push(&mut self, py: Python<'_>, kind: &'static str, path: Bound<'_, PyTuple>, value: Bound<'_, PyAny>) -> PyResult<()> {
        let event = Py::new(py, Event { kind, path: path.unbind(), value: value.unbind() })?;
        self.pending.push(event);
        Ok(())
    }

    pub(crate) fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        for event in &self.pending {
            visit.call(event)?;
        }
        Ok(())
    }

    pub(crate) fn take(&mut self) -> Vec<Py<Event>> {
        std::mem::take(&mut self.pending)
    }

    pub(crate) fn open_string_reported(&self) -> Option<usize> {
        self.open_string_reported
    }

    pub(crate) fn set_open_string_reported(&mut self, reported: Option<usize>) {
        self.open_string_reported = reported;
    }
}
