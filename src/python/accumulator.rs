//! `tooljson.ToolCallAccumulator`: the drop-in replacement of the pure-Python accumulator.

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use pyo3::{PyTraverseError, PyVisit};

use super::document::{Document, Options, ParseStatus};

/// A tool call being streamed: its name and id once started, and its arguments.
struct Call {
    index: i64,
    header: Option<(Py<PyAny>, Py<PyAny>)>,
    document: Document,
}

/// Tool-call argument buffers keyed by content-block index, parsed as the fragments arrive.
#[pyclass(module = "tooljson._native", subclass)]
pub(crate) struct ToolCallAccumulator {
    /// Open calls in the order they appeared. A response has a handful of blocks, so a linear
    /// search beats hashing here.
    calls: Vec<Call>,
    options: Options,
    on_event: Option<Py<PyAny>>,
    /// Events that `finish` caused (the last scan, the closing of the value) for a block that is
    /// then forgotten, kept for one more `events(index)` when no callback takes them.
    finished_events: Vec<(i64, Vec<Py<PyAny>>)>,
}

type OwedEvents = Option<(Py<PyAny>, i64, Vec<Py<PyAny>>)>;

impl ToolCallAccumulator {
    fn position(&self, index: i64) -> Option<usize> {
        self.calls.iter().position(|call| call.index == index)
    }

    fn call(&self, index: i64) -> PyResult<&Call> {
        self.position(index)
            .and_then(|at| self.calls.get(at))
            .ok_or_else(|| PyKeyError::new_err(index))
    }

    fn call_mut(&mut self, index: i64) -> PyResult<&mut Call> {
        let at = self
            .position(index)
            .ok_or_else(|| PyKeyError::new_err(index))?;
        self.calls
            .get_mut(at)
            .ok_or_else(|| PyKeyError::new_err(index))
    }

    /// The call at `index`, opened if it is new (fragments may come before `start`).
    fn call_or_open(&mut self, index: i64) -> PyResult<&mut Call> {
        if self.position(index).is_none() {
            self.calls.push(Call {
                index,
                header: None,
                document: Document::new(self.options),
            });
        }
        self.call_mut(index)
    }

    fn owed_events(&mut self, py: Python<'_>, index: i64, document: &mut Document) -> OwedEvents {
        let events = document.take_events(py).ok()??;
        let Some(callback) = &self.on_event else {
            self.finished_events.retain(|(kept, _)| *kept != index);
            self.finished_events.push((index, events));
            return None;
        };
        Some((callback.clone_ref(py), index, events))
    }
}

fn deliver(py: Python<'_>, owed: OwedEvents) -> PyResult<()> {
    if let Some((callback, index, events)) = owed {
        for event in events {
            callback.call1(py, (index, event))?;
        }
    }
    Ok(())
}

#[pymethods]
impl ToolCallAccumulator {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        for call in &self.calls {
            if let Some((name, tool_id)) = &call.header {
                visit.call(name)?;
                visit.call(tool_id)?;
            }
            call.document.traverse(&visit)?;
        }
        for (_, events) in &self.finished_events {
            for event in events {
                visit.call(event)?;
            }
        }
        visit.call(&self.on_event)
    }

    fn __clear__(&mut self) {
        self.calls.clear();
        self.finished_events.clear();
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
        max_depth: usize,
        max_size: Option<usize>,
        partial_strings: bool,
        preview_string_limit: Option<usize>,
        events: bool,
        on_event: Option<Py<PyAny>>,
    ) -> Self {
        let events = events || on_event.is_some();
        let options = Options::new(
            max_depth,
            max_size,
            partial_strings,
            preview_string_limit,
            events,
        );
        Self {
            calls: Vec::new(),
            options,
            on_event,
            finished_events: Vec::new(),
        }
    }

    /// Records a tool block's name and id (from `content_block_start`).
    fn start(&mut self, index: i64, name: Py<PyAny>, tool_id: Py<PyAny>) -> PyResult<()> {
        self.call_or_open(index)?.header = Some((name, tool_id));
        Ok(())
    }

    /// Scans one `partial_json` fragment of block `index`. Never raises for bad JSON: the error
    /// comes from `finish`, and `status(index)` shows it as soon as it is found.
    fn add_delta(
        slf: &Bound<'_, Self>,
        index: i64,
        fragment: &Bound<'_, PyString>,
    ) -> PyResult<()> {
        let py = slf.py();
        let owed = {
            let mut this = slf.try_borrow_mut()?;
            // Without a callback to serve promptly, short deltas are gathered and scanned in
            // batches (see `Document::append`). A malformed text is reported by finish() and
            // status(); the fragment is kept either way.
            let defer = this.on_event.is_none();
            let document = &mut this.call_or_open(index)?.document;
            let _parse_outcome = document.append(py, fragment, defer)?;
            if defer {
                return Ok(());
            }
            let callback = this
                .on_event
                .as_ref()
                .map(|callback| callback.clone_ref(py));
            let events = this.call_mut(index)?.document.take_events(py)?;
            callback
                .zip(events)
                .map(|(callback, events)| (callback, index, events))
        };
        deliver(py, owed)
    }

    /// `{"name": ..., "id": ..., "input": value}` for block `index`, which is then forgotten.
    fn finish<'py>(slf: &Bound<'py, Self>, index: i64) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let (outcome, owed) = {
            let mut this = slf.try_borrow_mut()?;
            let at = this
                .position(index)
                .ok_or_else(|| PyKeyError::new_err(index))?;
            if this.calls.get(at).is_none_or(|call| call.header.is_none()) {
                // Like the pure accumulator: an index that was never started is an error, and the
                // fragments it already has are kept.
                return Err(PyKeyError::new_err(index));
            }
            let mut call = this.calls.remove(at);
            let Some((name, tool_id)) = call.header.take() else {
                return Err(PyKeyError::new_err(index));
            };
            let input = if call.document.is_empty() {
                // A tool without arguments streams no text: its input is `{}`.
                Ok(PyDict::new(py).into_any().unbind())
            } else {
                call.document.finish(py)
            };
            let owed = this.owed_events(py, index, &mut call.document);
            (input.map(|input| (name, tool_id, input)), owed)
        };
        deliver(py, owed)?;
        let (name, tool_id, input) = outcome?;
        let result = PyDict::new(py);
        result.set_item(pyo3::intern!(py, "name"), name)?;
        result.set_item(pyo3::intern!(py, "id"), tool_id)?;
        result.set_item(pyo3::intern!(py, "input"), input)?;
        Ok(result)
    }

    /// The best value for block `index`'s arguments so far (`None` before anything is shown).
    /// Never raises on any input; raises `KeyError` for an unknown index.
    fn preview(&mut self, py: Python<'_>, index: i64) -> PyResult<Py<PyAny>> {
        self.call_mut(index)?.document.preview(py)
    }

    /// The path of the value block `index` is filling now (the deepest open container, or the
    /// open string), `None` when no value is open. Everything else in the preview is complete.
    fn open_path<'py>(
        &mut self,
        py: Python<'py>,
        index: i64,
    ) -> PyResult<Option<Bound<'py, pyo3::types::PyTuple>>> {
        self.call_mut(index)?.document.open_path(py)
    }

    /// Events of block `index` since the last call (when created with `events=True`).
    /// A finished block's last events can be collected once more after `finish`.
    fn events(&mut self, py: Python<'_>, index: i64) -> PyResult<Vec<Py<PyAny>>> {
        if !self.options.events {
            return Err(PyValueError::new_err(
                "events are off: create the accumulator with events=True",
            ));
        }
        let mut events = match self
            .finished_events
            .iter()
            .position(|(kept, _)| *kept == index)
        {
            Some(at) => self.finished_events.remove(at).1,
            None if self.position(index).is_none() => return Err(PyKeyError::new_err(index)),
            None => Vec::new(),
        };
        if self.position(index).is_some() {
            events.extend(
                self.call_mut(index)?
                    .document
                    .take_events(py)?
                    .unwrap_or_default(),
            );
        }
        Ok(events)
    }

    /// The joined text of block `index` so far.
    fn text<'py>(&self, py: Python<'py>, index: i64) -> PyResult<Bound<'py, PyString>> {
        self.call(index)?.document.text(py)
    }

    /// Where the text of block `index` stands.
    fn status(&mut self, py: Python<'_>, index: i64) -> PyResult<ParseStatus> {
        self.call_mut(index)?.document.status(py)
    }

    /// Forgets block `index` without parsing it (an abandoned stream). Unknown indices are ignored.
    fn discard(&mut self, index: i64) {
        if let Some(at) = self.position(index) {
            self.calls.remove(at);
        }
    }

    /// Open block indices, in the order they appeared.
    #[getter]
    fn indices(&self) -> Vec<i64> {
        self.calls.iter().map(|call| call.index).collect()
    }

    fn __contains__(&self, index: &Bound<'_, PyAny>) -> bool {
        index
            .extract::<i64>()
            .is_ok_and(|index| self.position(index).is_some())
    }

    fn __len__(&self) -> usize {
        self.calls.len()
    }
}
