//! `tooljson.Parser`: one JSON document fed in fragments.

use pyo3::exceptions::{PyBaseException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::{PyTraverseError, PyVisit};

use super::document::Document;
use super::options::Options;
use super::status::PyParseStatus;

/// One JSON document fed in fragments; see the stub for the contract.
#[pyclass(module = "tooljson._native", name = "Parser", subclass)]
pub(crate) struct PyParser {
    document: Document,
    /// What `finish` returned or raised, returned or raised again by later calls.
    result: Option<Result<Py<PyAny>, Py<PyBaseException>>>,
    on_event: Option<Py<PyAny>>,
}

impl PyParser {
    /// The callback and the events it is owed, taken while the parser is borrowed so that the
    /// callback runs after the borrow ends and may call back into the parser.
    fn owed_events(&mut self, py: Python<'_>) -> Option<(Py<PyAny>, Vec<Py<PyAny>>)> {
        let callback = self.on_event.as_ref()?.clone_ref(py);
        Some((callback, self.document.take_events(py).ok()??))
    }
}

fn deliver(py: Python<'_>, owed: Option<(Py<PyAny>, Vec<Py<PyAny>>)>) -> PyResult<()> {
    if let Some((callback, events)) = owed {
        for event in events {
            callback.call1(py, (event,))?;
        }
    }
    Ok(())
}

#[pymethods]
impl PyParser {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        self.document.traverse(&visit)?;
        match &self.result {
            Some(Ok(value)) => visit.call(value)?,
            Some(Err(error)) => visit.call(error)?,
            None => {}
        }
        visit.call(&self.on_event)
    }

    fn __clear__(&mut self) {
        self.document.clear();
        self.result = None;
        self.on_event = None;
    }

    #[new]
    #[pyo3(signature = (
        *,
        max_depth = 1000,
        max_size = None,
        partial_strings = true,
        preview_string_limit = None,
        events = false,
        on_event = None,
    ))]
    fn new(
        py: Python<'_>,
        max_depth: i64,
        max_size: Option<i64>,
        partial_strings: bool,
        preview_string_limit: Option<i64>,
        events: bool,
        on_event: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let options = Options::from_python(
            py,
            max_depth,
            max_size,
            partial_strings,
            preview_string_limit,
            events,
            on_event.as_ref(),
        )?;
        Ok(Self {
            document: Document::new(options),
            result: None,
            on_event,
        })
    }

    /// Scans the next fragment; raises `MalformedJSONError` as soon as the text cannot be JSON.
    fn feed(slf: &Bound<'_, Self>, fragment: &Bound<'_, PyString>) -> PyResult<()> {
        let py = slf.py();
        let (outcome, owed) = {
            let mut this = slf.try_borrow_mut()?;
            if this.result.is_some() {
                return Err(PyRuntimeError::new_err(
                    "Parser.feed() called after finish()",
                ));
            }
            let outcome = this
                .document
                .feed(py, fragment)?
                .map_err(|error| this.document.error(py, error));
            (outcome, this.owed_events(py))
        };
        deliver(py, owed)?;
        outcome
    }

    /// The value of the whole text, exactly as `json.loads` gives it, or its error.
    fn finish(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let (outcome, owed) = {
            let mut this = slf.try_borrow_mut()?;
            let this = &mut *this;
            let result = this.result.get_or_insert_with(|| {
                this.document
                    .finish(py)
                    .map_err(|error| error.into_value(py))
            });
            let outcome = match result {
                Ok(value) => Ok(value.clone_ref(py)),
                Err(error) => Err(PyErr::from_value(error.bind(py).clone().into_any())),
            };
            (outcome, this.owed_events(py))
        };
        deliver(py, owed)?;
        outcome
    }

    /// The best value for the text so far; never raises on any input.
    fn preview(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Some(Ok(value)) = &self.result {
            return Ok(value.clone_ref(py));
        }
        self.document.preview(py)
    }

    /// The path of the value being filled now (the deepest open container, or the open string),
    /// `None` when no value is open. Everything else in the preview is complete.
    fn open_path<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, pyo3::types::PyTuple>>> {
        if self.result.is_some() {
            return Ok(None);
        }
        self.document.open_path(py)
    }

    /// Events since the last call (when created with `events=True`).
    fn events(&mut self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        self.document.take_events(py)?.ok_or_else(|| {
            PyValueError::new_err("events are off: create the Parser with events=True")
        })
    }

    #[getter]
    fn status(&mut self, py: Python<'_>) -> PyResult<PyParseStatus> {
        self.document.status(py)
    }

    #[getter]
    fn text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        self.document.text(py)
    }
}
