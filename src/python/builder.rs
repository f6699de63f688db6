//! Builds the Python value from parser events, in place, as the fragments arrive.
//!
//! Containers are inserted into their parent as soon as they open and filled in place, so when the
//! last delta has been fed the value is already whole and `finish` only checks that the text ended
//! well. The same value, with the open string shown at its place, is the preview.

use pyo3::exceptions::PyBaseException;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use super::convert::{big_int, decode, dict_set, list_append, list_set_last, truncate_chars};
use super::events::{extend_path, EventKind, EventLog};
use crate::sink::{Literal, Sink};

/// How previews show strings that are still being read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PreviewOptions {
    /// Show open strings as they grow (else only complete strings appear).
    pub(crate) partial_strings: bool,
    /// Show at most this many characters of an open string.
    pub(crate) string_limit: Option<usize>,
}

impl Default for PreviewOptions {
    fn default() -> Self {
        Self {
            partial_strings: true,
            string_limit: None,
        }
    }
}

/// An open array or object of the value being built.
struct Frame {
    container: Py<PyAny>,
    is_object: bool,
    /// The key of the member being read (objects).
    key: Option<Py<PyString>>,
    /// Members completed or opened so far (arrays): the position of the next one.
    count: usize,
    /// The container's last member is a preview's stand-in for a string still being read; the
    /// finished string replaces it in place.
    holds_partial: bool,
    /// The container's own path, kept only when events are on.
    path: Option<Py<PyTuple>>,
    /// Where the container sits in its parent (`None` at the root), for `open_path`.
    slot: Option<Slot>,
}

/// A member's place in its container: an object key or an array position.
enum Slot {
    Key(Py<PyString>),
    Index(usize),
}

impl Slot {
    fn to_object<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Self::Key(key) => Ok(key.bind(py).clone().into_any()),
            Self::Index(index) => Ok(index.into_pyobject(py)?.into_any()),
        }
    }
}

/// The Python value under construction.
#[derive(Default)]
pub(crate) struct Builder {
    root: Option<Py<PyAny>>,
    stack: Vec<Frame>,
    keys: KeyCache,
    /// Length in bytes of the open string when a preview last showed it: nothing to redo when the
    /// string did not grow since.
    partial_shown: Option<usize>,
    /// The first conversion failure (an integer over the digit limit, memory). json.loads raises it
    /// when it reaches the number; here it is kept and raised by `finish`, since a delta must not fail.
    failure: Option<Py<PyBaseException>>,
    /// Present when events are on.
    events: Option<EventLog>,
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
            if let Some(Slot::Key(key)) = &frame.slot {
                visit.call(key)?;
            }
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
    fn member_path<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let Some(frame) = self.stack.last() else {
            return Ok(PyTuple::empty(py));
        };
        let position = if frame.is_object {
            frame.key.as_ref().map_or_else(
                || PyString::new(py, "").into_any(),
                |key| key.bind(py).clone().into_any(),
            )
        } else {
            frame.count.into_pyobject(py)?.into_any()
        };
        extend_path(py, frame.path.as_ref(), position)
    }

    /// Puts a value at its place. With events on, returns its path (`known_path` if given).
    fn add<'py>(
        &mut self,
        py: Python<'py>,
        value: Bound<'py, PyAny>,
        is_container: bool,
        known_path: Option<Bound<'py, PyTuple>>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let path = match (&self.events, known_path) {
            (None, _) => None,
            (Some(_), Some(path)) => Some(path),
            (Some(_), None) => Some(self.member_path(py)?),
        };
        self.partial_shown = None;
        if let Some(frame) = self.stack.last_mut() {
            let replaces_partial = std::mem::take(&mut frame.holds_partial);
            if frame.is_object {
                let key = frame
                    .key
                    .take()
                    .unwrap_or_else(|| PyString::intern(py, "").unbind());
                dict_set(py, &frame.container, &key, &value)?;
            } else {
                frame.count += 1;
                if replaces_partial {
                    list_set_last(py, &frame.container, value.clone())?;
                } else {
                    list_append(py, &frame.container, &value)?;
                }
            }
        } else {
            self.root = Some(value.clone().unbind());
        }
        if let (Some(log), Some(path)) = (&mut self.events, &path) {
            if !is_container {
                log.push(py, EventKind::Complete, path.clone(), value)?;
            }
        }
        Ok(path)
    }

    /// The slot of the member being read in the innermost open container.
    fn member_slot(&self, py: Python<'_>) -> Option<Slot> {
        let frame = self.stack.last()?;
        Some(if frame.is_object {
            Slot::Key(frame.key.as_ref()?.clone_ref(py))
        } else {
            Slot::Index(frame.count)
        })
    }

    /// The path of the innermost value still being read: the deepest open container, or the open
    /// string when `in_string` (the text ends inside a string value). `None` when nothing is open.
    pub(crate) fn open_path<'py>(
        &self,
        py: Python<'py>,
        in_string: bool,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        if self.stack.is_empty() && !in_string {
            return Ok(None);
        }
        let mut parts = Vec::with_capacity(self.stack.len() + 1);
        for frame in self.stack.iter().skip(1) {
            if let Some(slot) = &frame.slot {
                parts.push(slot.to_object(py)?);
            }
        }
        if in_string {
            if let Some(slot) = self.member_slot(py) {
                parts.push(slot.to_object(py)?);
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
        let slot = self.member_slot(py);
        let path = self.add(py, container.clone(), true, None)?;
        if let (Some(log), Some(path)) = (&mut self.events, &path) {
            log.push(
                py,
                EventKind::Begin,
                path.clone(),
                if is_object {
                    pyo3::intern!(py, "object")
                } else {
                    pyo3::intern!(py, "array")
                }
                .clone()
                .into_any(),
            )?;
        }
        self.stack.push(Frame {
            container: container.unbind(),
            is_object,
            key: None,
            count: 0,
            holds_partial: false,
            path: path.map(Bound::unbind),
            slot,
        });
        Ok(())
    }

    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        if let Some(log) = &mut self.events {
            let path = frame
                .path
                .map_or_else(|| PyTuple::empty(py), |path| path.into_bound(py));
            log.push(
                py,
                EventKind::Complete,
                path,
                frame.container.into_bound(py),
            )?;
        }
        Ok(())
    }

    /// Drops the preview's stand-in for the open string before a new `str` is made for it, so that
    /// a long string is not held twice at once. Nothing can observe the gap: the GIL is held.
    fn release_partial(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(frame) = self.stack.last_mut() else {
            if self.partial_shown.is_some() {
                self.root = None;
            }
            return Ok(());
        };
        if !frame.holds_partial {
            return Ok(());
        }
        if frame.is_object {
            if let Some(key) = &frame.key {
                dict_set(py, &frame.container, key, &py.None().into_bound(py))?;
            }
        } else {
            list_set_last(py, &frame.container, py.None().into_bound(py))?;
        }
        Ok(())
    }

    fn string(&mut self, py: Python<'_>, content: &[u8]) -> PyResult<()> {
        self.release_partial(py)?;
        let value = decode(py, content)?.into_any();
        let mut path = None;
        if let Some(log) = &mut self.events {
            if let Some((open_path, reported)) = log.take_open_string() {
                // Close the run of appends so that they add up to the whole string.
                let open_path = open_path.into_bound(py);
                let rest = content.get(reported..).unwrap_or_default();
                if !rest.is_empty() {
                    log.push(
                        py,
                        EventKind::Append,
                        open_path.clone(),
                        decode(py, rest)?.into_any(),
                    )?;
                }
                path = Some(open_path);
            }
        }
        self.add(py, value, false, path).map(|_| ())
    }

    /// Reports the growth of the open string since the last report: "begin" the first time, then
    /// "append" with the new text. Called at the end of each scan.
    pub(crate) fn report_open_string(&mut self, py: Python<'_>, content: &[u8]) -> PyResult<()> {
        if self.failure.is_some() {
            return Ok(());
        }
        let Some(log) = &self.events else {
            return Ok(());
        };
        let (path, reported) = if let Some((path, reported)) = log.open_string() {
            (path.bind(py).clone(), *reported)
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
                decode(py, new_text)?.into_any(),
            )?;
        }
        log.set_open_string(Some((path.unbind(), content.len())));
        Ok(())
    }

    /// The value so far, with the string being read (`open`, decoded bytes) shown in its place.
    ///
    /// The preview is the value under construction itself: completed members are never rebuilt,
    /// so a call costs O(1) plus the length of the open string (capped by `string_limit`).
    pub(crate) fn preview(
        &mut self,
        py: Python<'_>,
        open: Option<&[u8]>,
        options: PreviewOptions,
    ) -> PyResult<Py<PyAny>> {
        if let (Some(content), true, None) = (open, options.partial_strings, &self.failure) {
            if needs_refresh(self.partial_shown, content.len()) {
                self.show_partial(py, truncate_chars(content, options.string_limit))?;
                self.partial_shown = Some(content.len());
            }
        }
        Ok(self.root(py))
    }

    fn show_partial(&mut self, py: Python<'_>, content: &[u8]) -> PyResult<()> {
        self.release_partial(py)?;
        let partial = decode(py, content)?.into_any();
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(partial.unbind());
            return Ok(());
        };
        if frame.is_object {
            let Some(key) = &frame.key else { return Ok(()) };
            dict_set(py, &frame.container, key, &partial)?;
        } else if frame.holds_partial {
            list_set_last(py, &frame.container, partial)?;
        } else {
            list_append(py, &frame.container, &partial)?;
        }
        frame.holds_partial = true;
        Ok(())
    }
}

/// Open strings up to this many bytes are shown in full by every preview.
const EXACT_PARTIAL_BYTES: usize = 8 * 1024;

/// Whether a preview shows the open string anew. A longer open string is shown again once it has
/// grown by a sixteenth since it was last shown: every preview re-creates the whole `str`, so this
/// keeps the total work of a preview after every delta linear in the string's length (at most 17
/// times it), at the cost of holding back at most a sixteenth of a long string's newest text. The
/// events give every piece of text as it arrives, for views that follow a long string closely.
/// On the ~100 KB file-write stream this took a preview after every delta from 324 ms to 9 ms.
fn needs_refresh(shown: Option<usize>, length: usize) -> bool {
    match shown {
        None => true,
        Some(shown) if shown == length => false,
        Some(shown) => length <= EXACT_PARTIAL_BYTES || (length - shown) * 16 >= shown,
    }
}

/// Object keys seen recently. Records in an array repeat the same keys: reusing one `str` per key
/// saves decoding it again and lets CPython reuse its cached hash when inserting into the dict.
/// On the 100 KB records workload this cut the whole-text parse by about a fifth.
#[derive(Default)]
struct KeyCache {
    slots: Vec<Option<CachedKey>>,
}

/// A key's decoded bytes and its `str`.
type CachedKey = (Box<[u8]>, Py<PyString>);

const KEY_CACHE_SLOTS: usize = 128;
const LONGEST_CACHED_KEY: usize = 64;

impl KeyCache {
    fn get(&mut self, py: Python<'_>, key: &[u8]) -> PyResult<Py<PyString>> {
        if key.len() > LONGEST_CACHED_KEY {
            return Ok(decode(py, key)?.unbind());
        }
        // FNV-1a: short keys, and an adversary gains nothing but cache misses.
        let hash = key.iter().fold(0x811c_9dc5_u32, |hash, &byte| {
            (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
        });
        let slot = hash as usize % KEY_CACHE_SLOTS;
        if self.slots.is_empty() {
            self.slots.resize_with(KEY_CACHE_SLOTS, || None);
        }
        if let Some(Some((cached, string))) = self.slots.get(slot) {
            if **cached == *key {
                return Ok(string.clone_ref(py));
            }
        }
        let string = decode(py, key)?.unbind();
        if let Some(entry) = self.slots.get_mut(slot) {
            *entry = Some((key.into(), string.clone_ref(py)));
        }
        Ok(string)
    }
}

/// Feeds parser events into a [`Builder`] while the GIL is held.
pub(crate) struct PythonSink<'a, 'py> {
    pub(crate) py: Python<'py>,
    pub(crate) builder: &'a mut Builder,
}

impl PythonSink<'_, '_> {
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
            builder.add(py, value, false, None).map(|_| ())
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
        self.step(|py, builder| {
            let key = builder.keys.get(py, key)?;
            if let Some(frame) = builder.stack.last_mut() {
                frame.key = Some(key);
            }
            Ok(())
        });
    }

    fn string(&mut self, value: &[u8]) {
        self.step(|py, builder| builder.string(py, value));
    }

    fn number(&mut self, text: &[u8], is_float: bool) {
        self.value(|py| {
            let digits = std::str::from_utf8(text).unwrap_or_default();
            if is_float {
                // Rust's parsing is correctly rounded like CPython's float(): the same bits, and
                // overflow to ±inf as json.loads gives for 1e400.
                let value: f64 = digits.parse().unwrap_or(f64::NAN);
                return Ok(PyFloat::new(py, value).into_any());
            }
            match digits.parse::<i64>() {
                Ok(value) => Ok(value.into_pyobject(py)?.into_any()),
                Err(_) => big_int(py, text),
            }
        });
    }

    fn literal(&mut self, literal: Literal) {
        self.value(|py| {
            Ok(match literal {
                Literal::True => PyBool::new(py, true).to_owned().into_any(),
                Literal::False => PyBool::new(py, false).to_owned().into_any(),
                Literal::Null => py.None().into_bound(py),
                Literal::NaN => PyFloat::new(py, f64::NAN).into_any(),
                Literal::Infinity => PyFloat::new(py, f64::INFINITY).into_any(),
                Literal::NegInfinity => PyFloat::new(py, f64::NEG_INFINITY).into_any(),
            })
        });
    }
}
