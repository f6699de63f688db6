//! `tooljson.ToolCallAccumulator`: the drop-in replacement of the pure-Python accumulator.

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use super::call_key::{CallKey, Probe};
use super::document::Document;
use super::guarded::Guarded;
use super::options::Options;
use super::status::PyParseStatus;

/// A tool call being streamed: its name and id once started, and its arguments.
struct Call {
    key: CallKey,
    header: Option<(Py<PyAny>, Py<PyAny>)>,
    document: Document,
}

/// Tool-call argument buffers keyed by content-block index, parsed as the fragments arrive.
///
/// Frozen, its state behind a [`Guarded`] flag: PyO3's own flag for a mutable class is atomic, and
/// `add_delta` paid for it with every delta (see `guarded.rs`).
#[pyclass(
    module = "tooljson._native",
    name = "ToolCallAccumulator",
    subclass,
    frozen
)]
pub(crate) struct PyToolCallAccumulator {
    state: Guarded<State>,
}

/// What the accumulator holds.
struct State {
    /// Open calls in the order they appeared. A response has a handful of blocks, so a linear
    /// search beats hashing here.
    calls: Vec<Call>,
    options: Options,
    on_event: Option<Py<PyAny>>,
    /// Events that `finish` caused (the last scan, the closing of the value) for a block that is
    /// then forgotten, kept for one more `events(index)` when no callback takes them.
    finished_events: Vec<(CallKey, Vec<Py<PyAny>>)>,
}

type OwedEvents = Option<(Py<PyAny>, Py<PyAny>, Vec<Py<PyAny>>)>;

fn missing(index: &Bound<'_, PyAny>) -> PyErr {
    // A one-element tuple of arguments, so that a tuple key is the message as a whole.
    PyKeyError::new_err((index.clone().unbind(),))
}

impl State {
    #[inline]
    fn position(&self, index: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
        // The same object as a stored key is that key, as in a dict; a stream passes the same
        // small int (a cached object) with every delta of a block, so this settles most lookups
        // with one pointer comparison.
        if let Some(at) = self
            .calls
            .iter()
            .position(|call| call.key.object().is(index))
        {
            return Ok(Some(at));
        }
        Probe::new(index).position(self.calls.iter().map(|call| &call.key))
    }

    fn call(&self, index: &Bound<'_, PyAny>) -> PyResult<&Call> {
        self.position(index)?
            .and_then(|at| self.calls.get(at))
            .ok_or_else(|| missing(index))
    }

    fn call_mut(&mut self, index: &Bound<'_, PyAny>) -> PyResult<&mut Call> {
        let at = self.position(index)?.ok_or_else(|| missing(index))?;
        self.calls.get_mut(at).ok_or_else(|| missing(index))
    }

    /// The call at `index`, opened if it is new (fragments may come before `start`).
    #[inline]
    fn call_or_open(&mut self, index: &Bound<'_, PyAny>) -> PyResult<&mut Call> {
        let at = if let Some(at) = self.position(index)? {
            at
        } else {
            self.calls.push(Call {
                key: CallKey::new(index)?,
                header: None,
                document: Document::new(self.options),
            });
            self.calls.len() - 1
        };
        self.calls.get_mut(at).ok_or_else(|| missing(index))
    }

    fn owed_events(
        &mut self,
        py: Python<'_>,
        key: CallKey,
        document: &mut Document,
    ) -> PyResult<OwedEvents> {
        let Some(events) = document.take_events(py).ok().flatten() else {
            return Ok(None);
        };
        let Some(callback) = &self.on_event else {
            let object = key.object().bind(py).clone();
            let mut probe = Probe::new(&object);
            if let Some(at) = probe.position(self.finished_events.iter().map(|(kept, _)| kept))? {
                self.finished_events.remove(at);
            }
            self.finished_events.push((key, events));
            return Ok(None);
        };
        Ok(Some((
            callback.clone_ref(py),
            key.object().clone_ref(py),
            events,
        )))
    }
}

/// Calls the callback with each event owed. Handles become `Bound`s first, whose release needs no
/// attachment check (see `add_delta_fast`).
fn deliver(py: Python<'_>, owed: OwedEvents) -> PyResult<()> {
    if let Some((callback, index, events)) = owed {
        let callback = callback.into_bound(py);
        let index = index.into_bound(py);
        for event in events {
            callback.call1((&index, event.into_bound(py)))?;
        }
    }
    Ok(())
}

#[pymethods]
impl PyToolCallAccumulator {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        // While a method writes the state (the collector ran inside it), it is not visited, as
        // PyO3 does for a mutable class it cannot borrow.
        let Ok(state) = self.state.read() else {
            return Ok(());
        };
        for call in &state.calls {
            visit.call(call.key.object())?;
            if let Some((name, tool_id)) = &call.header {
                visit.call(name)?;
                visit.call(tool_id)?;
            }
            call.document.traverse(&visit)?;
        }
        for (key, events) in &state.finished_events {
            visit.call(key.object())?;
            for event in events {
                visit.call(event)?;
            }
        }
        visit.call(&state.on_event)
    }

    fn __clear__(&self) {
        if let Ok(mut state) = self.state.write() {
            state.calls.clear();
            state.finished_events.clear();
            state.on_event = None;
        }
    }

    /// `models` and `on_error` are `tooljson.ToolCallAccumulator`'s (its `__init__` reads them):
    /// taken here so that the Python class needs no `__new__` of its own, which cost a tiny call a
    /// sixth of its time; this class does nothing with them.
    #[new]
    #[pyo3(signature = (
        *,
        max_depth = 1000,
        max_size = None,
        partial_strings = true,
        preview_string_limit = None,
        events = false,
        on_event = None,
        models = None,
        on_error = None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        max_depth: i64,
        max_size: Option<i64>,
        partial_strings: bool,
        preview_string_limit: Option<i64>,
        events: bool,
        on_event: Option<Py<PyAny>>,
        models: Option<&Bound<'_, PyAny>>,
        on_error: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let _ = (models, on_error);
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
            state: Guarded::new(State {
                calls: Vec::new(),
                options,
                on_event,
                finished_events: Vec::new(),
            }),
        })
    }

    /// Hands every structural event to `router` from now on, in place of the `on_event` given at
    /// creation (which the router then calls itself), events on: for a subclass setting itself up,
    /// before any fragment. Refused once a block is open.
    fn _route_events(&self, router: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut state = self.state.write()?;
        if !state.calls.is_empty() {
            return Err(PyValueError::new_err(
                "events can be routed only before the first block opens",
            ));
        }
        if !router.is_callable() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "the router must be callable",
            ));
        }
        state.options.events = true;
        state.on_event = Some(router.clone().unbind());
        Ok(())
    }

    /// Records a tool block's name and id (from `content_block_start`).
    fn start(&self, index: &Bound<'_, PyAny>, name: Py<PyAny>, tool_id: Py<PyAny>) -> PyResult<()> {
        self.state.write()?.call_or_open(index)?.header = Some((name, tool_id));
        Ok(())
    }

    /// Scans one `partial_json` fragment of block `index`. Never raises for bad JSON: the error
    /// comes from `finish`, and `status(index)` shows it as soon as it is found.
    fn add_delta(
        slf: &Bound<'_, Self>,
        index: &Bound<'_, PyAny>,
        fragment: &Bound<'_, PyString>,
    ) -> PyResult<()> {
        add_delta(slf, index, fragment)
    }

    /// `{"name": ..., "id": ..., "input": value}` for block `index`, which is then forgotten.
    fn finish<'py>(
        slf: &Bound<'py, Self>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let (outcome, owed) = {
            let mut this = slf.get().state.write()?;
            let at = this.position(index)?.ok_or_else(|| missing(index))?;
            if this.calls.get(at).is_none_or(|call| call.header.is_none()) {
                // Like the pure accumulator: an index that was never started is an error, and the
                // fragments it already has are kept.
                return Err(missing(index));
            }
            let mut call = this.calls.remove(at);
            let Some((name, tool_id)) = call.header.take() else {
                return Err(missing(index));
            };
            let input = if call.document.is_empty() {
                // A tool without arguments streams no text: its input is `{}`.
                Ok(PyDict::new(py).into_any().unbind())
            } else {
                call.document.finish(py)
            };
            let owed = this.owed_events(py, call.key, &mut call.document)?;
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
    fn preview(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.state.write()?.call_mut(index)?.document.preview(py)
    }

    /// The path of the value block `index` is filling now (the deepest open container, or the
    /// open string), `None` when no value is open. Everything else in the preview is complete.
    fn open_path<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        self.state.write()?.call_mut(index)?.document.open_path(py)
    }

    /// Events of block `index` since the last call (when created with `events=True`).
    /// A finished block's last events can be collected once more after `finish`.
    fn events(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<Vec<Py<PyAny>>> {
        let mut state = self.state.write()?;
        if !state.options.events {
            return Err(PyValueError::new_err(
                "events are off: create the accumulator with events=True",
            ));
        }
        let finished =
            Probe::new(index).position(state.finished_events.iter().map(|(kept, _)| kept))?;
        let open = state.position(index)?;
        let mut events = match (finished, open) {
            (Some(at), _) => state.finished_events.remove(at).1,
            (None, None) => return Err(missing(index)),
            (None, Some(_)) => Vec::new(),
        };
        if let Some(call) = open.and_then(|at| state.calls.get_mut(at)) {
            events.extend(call.document.take_events(py)?.unwrap_or_default());
        }
        Ok(events)
    }

    /// The joined text of block `index` so far.
    fn text<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyString>> {
        self.state.read()?.call(index)?.document.text(py)
    }

    /// Where the text of block `index` stands.
    fn status(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<PyParseStatus> {
        self.state.write()?.call_mut(index)?.document.status(py)
    }

    /// Forgets block `index` without parsing it (an abandoned stream). Unknown indices are ignored.
    fn discard(&self, index: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut state = self.state.write()?;
        if let Some(at) = state.position(index)? {
            state.calls.remove(at);
        }
        Ok(())
    }

    /// Open block indices, in the order they appeared.
    #[getter]
    fn indices(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        Ok(self
            .state
            .read()?
            .calls
            .iter()
            .map(|call| call.key.object().clone_ref(py))
            .collect())
    }

    fn __contains__(&self, index: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.state.read()?.position(index)?.is_some())
    }

    fn __len__(&self) -> PyResult<usize> {
        Ok(self.state.read()?.calls.len())
    }

    /// Gives each Python subclass its own fast `add_delta` (unless it defines one): CPython
    /// specialises `obj.add_delta(...)` on a C method only when `obj`'s type is exactly the type
    /// the method was made for, so the base class's method would take the slow general call for
    /// every instance of a subclass such as `tooljson.ToolCallAccumulator`.
    #[classmethod]
    fn __init_subclass__(cls: &Bound<'_, pyo3::types::PyType>) -> PyResult<()> {
        if cls.getattr("__dict__")?.contains("add_delta")? {
            return Ok(());
        }
        install_add_delta(cls)
    }
}

/// `add_delta`: keeps the fragment (scanned now or with the next batch) and, with a callback,
/// hands it the events the fragment caused.
fn add_delta(
    slf: &Bound<'_, PyToolCallAccumulator>,
    index: &Bound<'_, PyAny>,
    fragment: &Bound<'_, PyString>,
) -> PyResult<()> {
    let py = slf.py();
    let owed = {
        let mut this = slf.get().state.write()?;
        // Without a callback to serve promptly, short deltas are gathered and scanned in batches
        // (see `buffer.rs`). A malformed text is reported by finish() and status(); the fragment
        // is kept either way.
        let defer = this.on_event.is_none();
        let call = this.call_or_open(index)?;
        let _parse_outcome = call.document.append(py, fragment, defer)?;
        if defer {
            return Ok(());
        }
        let events = call.document.take_events(py)?;
        let key = call.key.object().clone_ref(py);
        let callback = this
            .on_event
            .as_ref()
            .map(|callback| callback.clone_ref(py));
        callback
            .zip(events)
            .map(|(callback, events)| (callback, key, events))
    };
    deliver(py, owed)
}

// ------------------------------------------------------------------------------------------------
// `add_delta` as a C method of its own
//
// `add_delta` runs once per delta, thousands of times per call, so what it costs beside its work
// counts: PyO3's generated wrapper matches arguments against the signature (keywords included) on
// every call. The method the class exposes is a plain `METH_FASTCALL | METH_KEYWORDS` C function
// that takes the two positional arguments straight from the argument array; anything else (a
// keyword, a wrong count or type) is handed to the PyO3 method, kept aside, so that keywords and
// error messages stay exactly as they were. Accumulate + finish against the pure accumulator went
// from 0.66× to 0.56× on the 100 KB records cut into one-character deltas, from 0.61× to 0.51× on
// the file-write text, and from 0.71× to 0.67× on the records in 1-32-character deltas (paired
// rounds, medians of ten processes). Recognising the block by the identity of its key object and
// the fragment by its exact type, and pushing a one-byte fragment rather than copying it, then
// took the one-character cases to 0.49× and 0.45× and the records in 1-32-character deltas to
// 0.65×.

/// The PyO3-generated `add_delta` descriptor, for the calls the fast path does not take.
static GENERAL_ADD_DELTA: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();

/// The fast path: two positional arguments, the second a `str`. `Ok(false)` when the call has to
/// take the general path.
///
/// # Safety
/// `slf` is an instance of the class (the method descriptor checked it) and `args` holds `nargs`
/// borrowed references, all valid for the call; the GIL is held.
unsafe fn add_delta_positional(
    py: Python<'_>,
    slf: *mut pyo3::ffi::PyObject,
    args: *const *mut pyo3::ffi::PyObject,
    nargs: pyo3::ffi::Py_ssize_t,
    kwnames: *mut pyo3::ffi::PyObject,
) -> PyResult<bool> {
    if nargs != 2 || !kwnames.is_null() {
        return Ok(false);
    }
    // SAFETY: the caller guarantees `args` holds two valid borrowed references and `slf` a valid
    // instance of the class (or of a subclass), which is what the unchecked cast assumes.
    let (slf, index, fragment) = unsafe {
        let (Some(slf), Some(index), Some(fragment)) = (
            pyo3::Borrowed::from_ptr_or_opt(py, slf),
            pyo3::Borrowed::from_ptr_or_opt(py, *args),
            pyo3::Borrowed::from_ptr_or_opt(py, *args.add(1)),
        ) else {
            return Ok(false);
        };
        (
            slf.cast_unchecked::<PyToolCallAccumulator>(),
            index,
            fragment,
        )
    };
    // An exact str is recognised by its type pointer; `cast` asks CPython for the type's flags.
    let fragment = if fragment.is_exact_instance_of::<PyString>() {
        // SAFETY: just checked that it is a str.
        unsafe { fragment.cast_unchecked::<PyString>() }
    } else if let Ok(fragment) = fragment.cast::<PyString>() {
        fragment
    } else {
        return Ok(false);
    };
    if let Some(outcome) = add_short_delta(&slf, &index, &fragment) {
        outcome?;
    } else {
        add_delta(&slf, &index, &fragment)?;
    }
    Ok(true)
}

/// `add_delta`'s lane for the commonest delta: a short one, for a block found by the identity of
/// its key, with no callback waiting for events. `None`, having done nothing, when it does not
/// apply (also when the state is lent out: the general path then raises). On 1-4-character deltas
/// (16 KiB of records, new `str`s) `add_delta` cost 1.45× a no-op PyO3 method's time (`CallFloor`)
/// with this lane against 1.80× through the general path (paired, both in one process, 21 rounds,
/// load 11).
#[inline]
fn add_short_delta(
    slf: &Bound<'_, PyToolCallAccumulator>,
    index: &Bound<'_, PyAny>,
    fragment: &Bound<'_, PyString>,
) -> Option<PyResult<()>> {
    let mut state = slf.get().state.write().ok()?;
    if state.on_event.is_some() {
        return None;
    }
    let call = state
        .calls
        .iter_mut()
        .find(|call| call.key.object().is(index))?;
    call.document.keep_short(slf.py(), fragment)
}

/// The C entry point CPython calls.
unsafe extern "C" fn add_delta_fast(
    slf: *mut pyo3::ffi::PyObject,
    args: *const *mut pyo3::ffi::PyObject,
    nargs: pyo3::ffi::Py_ssize_t,
    kwnames: *mut pyo3::ffi::PyObject,
) -> *mut pyo3::ffi::PyObject {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: CPython calls a method with the GIL held.
        let py = unsafe { Python::assume_attached() };
        // SAFETY: CPython passes the instance and the argument array as documented above.
        let result = match unsafe { add_delta_positional(py, slf, args, nargs, kwnames) } {
            Ok(true) => Ok(py.None().into_ptr()),
            Ok(false) => general_add_delta(py, slf, args, nargs, kwnames),
            Err(error) => Err(error),
        };
        result.unwrap_or_else(|error| {
            error.restore(py);
            std::ptr::null_mut()
        })
    }));
    outcome.unwrap_or_else(|_| {
        // SAFETY: the GIL is held; the message is a NUL-terminated literal.
        unsafe {
            pyo3::ffi::PyErr_SetString(
                pyo3::ffi::PyExc_SystemError,
                c"tooljson: internal error in add_delta".as_ptr(),
            );
        }
        std::ptr::null_mut()
    })
}

/// Any other call, through the PyO3 method: bound to `slf`, with the arguments as a tuple and a
/// dict of keywords.
fn general_add_delta(
    py: Python<'_>,
    slf: *mut pyo3::ffi::PyObject,
    args: *const *mut pyo3::ffi::PyObject,
    nargs: pyo3::ffi::Py_ssize_t,
    kwnames: *mut pyo3::ffi::PyObject,
) -> PyResult<*mut pyo3::ffi::PyObject> {
    let general = GENERAL_ADD_DELTA
        .get(py)
        .ok_or_else(|| pyo3::exceptions::PySystemError::new_err("add_delta is not installed"))?;
    let positional = usize::try_from(nargs).unwrap_or_default();
    // SAFETY: `kwnames` is NULL or a tuple of names whose values follow the positional arguments
    // in `args`; every pointer is a valid borrowed reference for the call.
    let (slf, arguments, keywords) = unsafe {
        let slf = Bound::from_borrowed_ptr(py, slf);
        let keyword_names = Bound::from_borrowed_ptr_or_opt(py, kwnames)
            .map(Bound::cast_into::<PyTuple>)
            .transpose()?;
        let keyword_count = keyword_names.as_ref().map_or(0, PyTupleMethods::len);
        let values = std::slice::from_raw_parts(args, positional + keyword_count);
        let objects: Vec<Bound<'_, PyAny>> = values
            .iter()
            .map(|&value| Bound::from_borrowed_ptr(py, value))
            .collect();
        let (positional_values, keyword_values) = objects.split_at(positional);
        let keywords = PyDict::new(py);
        if let Some(names) = keyword_names {
            for (name, value) in names.iter().zip(keyword_values) {
                keywords.set_item(name, value)?;
            }
        }
        (slf, PyTuple::new(py, positional_values)?, keywords)
    };
    let bound = general.bind(py).call_method1("__get__", (slf,))?;
    Ok(bound.call(arguments, Some(&keywords))?.into_ptr())
}

/// The method definition behind the class's `add_delta`. Its doc carries the signature PyO3 gave
/// the general method, so that `inspect.signature` reads the same.
static mut ADD_DELTA_DEF: pyo3::ffi::PyMethodDef = pyo3::ffi::PyMethodDef {
    ml_name: c"add_delta".as_ptr(),
    ml_meth: pyo3::ffi::PyMethodDefPointer {
        PyCFunctionFastWithKeywords: add_delta_fast,
    },
    ml_flags: pyo3::ffi::METH_FASTCALL | pyo3::ffi::METH_KEYWORDS,
    ml_doc: c"add_delta($self, index, fragment)\n--\n\nScans one `partial_json` fragment of block `index`. Never raises for bad JSON: the error\ncomes from `finish`, and `status(index)` shows it as soon as it is found.".as_ptr(),
};

/// Replaces the class's `add_delta` by the fast method, keeping the PyO3 one for other calls.
pub(crate) fn install_fast_methods(py: Python<'_>) -> PyResult<()> {
    let class = py.get_type::<PyToolCallAccumulator>();
    let general = class.getattr("__dict__")?.get_item("add_delta")?;
    let _ = GENERAL_ADD_DELTA.set(py, general.unbind());
    install_add_delta(&class)
}

/// Sets the fast `add_delta` on `class` (this class or a subclass of it).
fn install_add_delta(class: &Bound<'_, pyo3::types::PyType>) -> PyResult<()> {
    // SAFETY: the method definition is a static that lives as long as the process, as
    // PyDescr_NewMethod requires; the class is a live type object. The result is a new reference
    // or NULL with an exception set.
    let descriptor = unsafe {
        Bound::from_owned_ptr_or_err(
            class.py(),
            pyo3::ffi::PyDescr_NewMethod(class.as_type_ptr(), &raw mut ADD_DELTA_DEF),
        )?
    };
    class.setattr("add_delta", descriptor)
}
