//! The PyO3 bindings: `tooljson._native`.
//!
//! Python objects are built straight from parser events, as the fragments arrive: containers are
//! inserted into their parent as soon as they open and filled in place, so when the last delta has
//! been fed the value is already whole and `finish` only checks that the text ended well.

use std::ffi::{c_char, CString};

use pyo3::exceptions::{PyKeyError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyList, PyString};

use crate::error::{char_count, Error, ErrorKind};
use crate::parser::{Status, StreamParser, DEFAULT_MAX_DEPTH};
use crate::sink::{Literal, Sink};

/// Decodes generalised UTF-8: lone surrogates (from `"\ud800"` escapes or from fragments that held
/// them) come back as the same lone surrogates.
fn decode<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyString>> {
    let length = isize::try_from(bytes.len())
        .map_err(|_| pyo3::exceptions::PyOverflowError::new_err("string too long"))?;
    // SAFETY: the pointer and length describe `bytes`, which outlives the call; the error handler
    // name is a NUL-terminated literal; the result is a new reference or NULL with an exception set.
    unsafe {
        let object = pyo3::ffi::PyUnicode_DecodeUTF8(
            bytes.as_ptr().cast::<c_char>(),
            length,
            c"surrogatepass".as_ptr(),
        );
        Ok(Bound::from_owned_ptr_or_err(py, object)?.cast_into_unchecked())
    }
}

/// An integer too long for a machine word, converted by CPython itself so that the
/// `sys.get_int_max_str_digits()` limit applies exactly as in `int()` and `json.loads`.
fn big_int<'py>(py: Python<'py>, digits: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let digits = CString::new(digits)
        .map_err(|_| pyo3::exceptions::PyValueError::new_err("number contains a NUL byte"))?;
    // SAFETY: `digits` is NUL-terminated and lives across the call; a NULL end pointer is allowed;
    // the result is a new reference or NULL with an exception set.
    unsafe {
        let object = pyo3::ffi::PyLong_FromString(digits.as_ptr(), std::ptr::null_mut(), 10);
        Bound::from_owned_ptr_or_err(py, object)
    }
}

/// An open array or object of the value being built.
struct Frame {
    container: Py<PyAny>,
    is_object: bool,
    key: Option<Py<PyString>>,
    /// The container's last member is a preview's stand-in for a string still being read; the
    /// finished string replaces it in place.
    holds_partial: bool,
}

/// The Python value under construction, fed by parser events.
#[derive(Default)]
struct Builder {
    root: Option<Py<PyAny>>,
    stack: Vec<Frame>,
    keys: KeyCache,
    /// Length in bytes of the open string when a preview last showed it: nothing to redo when the
    /// string did not grow since.
    partial_shown: Option<usize>,
    /// The first conversion failure (an integer over the digit limit, memory). json.loads raises it
    /// when it reaches the number; here it is kept and raised by `finish`, since a delta must not fail.
    failure: Option<PyErr>,
}

impl Builder {
    fn add(&mut self, py: Python<'_>, value: Bound<'_, PyAny>) -> PyResult<()> {
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(value.unbind());
            self.partial_shown = None;
            return Ok(());
        };
        let replaces_partial = std::mem::take(&mut frame.holds_partial);
        self.partial_shown = None;
        let status = if frame.is_object {
            let key = frame.key.take().unwrap_or_else(|| PyString::intern(py, "").unbind());
            // SAFETY: `container` was created as a dict by `start_object` and is kept alive by the
            // frame; key and value are live references; PyDict_SetItem does not steal them.
            unsafe { pyo3::ffi::PyDict_SetItem(frame.container.as_ptr(), key.as_ptr(), value.as_ptr()) }
        } else if replaces_partial {
            set_last_item(frame.container.bind(py), value)
        } else {
            // SAFETY: `container` was created as a list by `start_array` and is kept alive by the
            // frame; PyList_Append does not steal the value's reference.
            unsafe { pyo3::ffi::PyList_Append(frame.container.as_ptr(), value.as_ptr()) }
        };
        if status == 0 {
            Ok(())
        } else {
            Err(PyErr::fetch(py))
        }
    }

    fn open(&mut self, py: Python<'_>, container: Bound<'_, PyAny>, is_object: bool) -> PyResult<()> {
        self.add(py, container.clone())?;
        self.stack.push(Frame { container: container.unbind(), is_object, key: None, holds_partial: false });
        Ok(())
    }

    /// The value so far, with the string being read (`open`, decoded bytes) shown in its place.
    ///
    /// The preview is the value under construction itself: completed members are never rebuilt,
    /// so a call costs O(1) plus the length of the open string (capped by `limit` characters).
    fn preview(&mut self, py: Python<'_>, open: Option<&[u8]>, options: PreviewOptions) -> PyResult<Py<PyAny>> {
        if let (Some(content), true, None) = (open, options.partial_strings, &self.failure) {
            if self.partial_shown != Some(content.len()) {
                self.show_partial(py, truncate_chars(content, options.string_limit))?;
                self.partial_shown = Some(content.len());
            }
        }
        Ok(self.root.as_ref().map_or_else(|| py.None(), |root| root.clone_ref(py)))
    }

    fn show_partial(&mut self, py: Python<'_>, content: &[u8]) -> PyResult<()> {
        let partial = decode(py, content)?.into_any();
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(partial.unbind());
            return Ok(());
        };
        let container = frame.container.bind(py);
        if frame.is_object {
            let Some(key) = &frame.key else { return Ok(()) };
            // SAFETY: `container` is the frame's dict (see `add`); no reference is stolen.
            let status = unsafe { pyo3::ffi::PyDict_SetItem(container.as_ptr(), key.as_ptr(), partial.as_ptr()) };
            if status != 0 {
                return Err(PyErr::fetch(py));
            }
        } else if frame.holds_partial {
            if set_last_item(container, partial) != 0 {
                return Err(PyErr::fetch(py));
            }
        } else {
            // SAFETY: `container` is the frame's list (see `add`); the value is not stolen.
            if unsafe { pyo3::ffi::PyList_Append(container.as_ptr(), partial.as_ptr()) } != 0 {
                return Err(PyErr::fetch(py));
            }
        }
        frame.holds_partial = true;
        Ok(())
    }
}

/// Replaces the last item of a list (the stand-in of a partial string). Returns the C status.
fn set_last_item(list: &Bound<'_, PyAny>, value: Bound<'_, PyAny>) -> i32 {
    // SAFETY: `list` is a list owned by a frame. PyList_Size is checked before use, and
    // PyList_SetItem steals the reference handed over by `into_ptr`.
    unsafe {
        let length = pyo3::ffi::PyList_Size(list.as_ptr());
        if length < 1 {
            return pyo3::ffi::PyList_Append(list.as_ptr(), value.as_ptr());
        }
        pyo3::ffi::PyList_SetItem(list.as_ptr(), length - 1, value.into_ptr())
    }
}

/// The first `limit` characters of UTF-8 text (all of it without a limit).
fn truncate_chars(text: &[u8], limit: Option<usize>) -> &[u8] {
    let Some(limit) = limit else { return text };
    let mut seen = 0;
    for (at, &byte) in text.iter().enumerate() {
        if byte & 0xC0 != 0x80 {
            if seen == limit {
                return text.get(..at).unwrap_or(text);
            }
            seen += 1;
        }
    }
    text
}

/// How previews show strings that are still being read.
#[derive(Clone, Copy, Debug)]
struct PreviewOptions {
    /// Show open strings as they grow (else only complete strings appear).
    partial_strings: bool,
    /// Show at most this many characters of an open string.
    string_limit: Option<usize>,
}

impl Default for PreviewOptions {
    fn default() -> Self {
        Self { partial_strings: true, string_limit: None }
    }
}

/// Object keys seen recently. Records in an array repeat the same keys: reusing one `str` per key
/// saves decoding it again and lets CPython reuse its cached hash when inserting into the dict.
/// On the 100 KB records workload this cut the whole-text parse by about a fifth.
#[derive(Default)]
struct KeyCache {
    slots: Vec<Option<(Box<[u8]>, Py<PyString>)>>,
}

const KEY_CACHE_SLOTS: usize = 128;
const LONGEST_CACHED_KEY: usize = 64;

impl KeyCache {
    fn get(&mut self, py: Python<'_>, key: &[u8]) -> PyResult<Py<PyString>> {
        if key.len() > LONGEST_CACHED_KEY {
            return Ok(decode(py, key)?.unbind());
        }
        // FNV-1a: short keys, no adversary gains more than a cache miss.
        let hash = key.iter().fold(0x811c_9dc5_u32, |hash, &byte| (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193));
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
struct PythonSink<'a, 'py> {
    py: Python<'py>,
    builder: &'a mut Builder,
}

impl PythonSink<'_, '_> {
    /// Runs one building step unless an earlier one failed; keeps the first failure.
    fn step(&mut self, build: impl FnOnce(Python<'_>, &mut Builder) -> PyResult<()>) {
        if self.builder.failure.is_some() {
            return;
        }
        if let Err(error) = build(self.py, self.builder) {
            self.builder.failure = Some(error);
        }
    }

    fn value(&mut self, make: impl FnOnce(Python<'_>) -> PyResult<Bound<'_, PyAny>>) {
        self.step(|py, builder| {
            let value = make(py)?;
            builder.add(py, value)
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
        if self.builder.failure.is_none() {
            self.builder.stack.pop();
        }
    }

    fn end_object(&mut self) {
        self.end_array();
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
        self.value(|py| Ok(decode(py, value)?.into_any()));
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

/// Where a text stands, as Python sees it.
#[pyclass(module = "tooljson._native", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
struct ParseStatus {
    /// "complete", "incomplete" or "malformed".
    #[pyo3(get)]
    state: &'static str,
    /// Character offset of the first offending character (malformed) or of the end (incomplete).
    #[pyo3(get)]
    pos: Option<usize>,
    /// What is wrong, when something is.
    #[pyo3(get)]
    msg: Option<&'static str>,
}

#[pymethods]
impl ParseStatus {
    fn __repr__(&self) -> String {
        match (self.pos, self.msg) {
            (Some(pos), Some(msg)) => {
                format!("ParseStatus(state={:?}, pos={pos}, msg={msg:?})", self.state)
            }
            _ => format!("ParseStatus(state={:?})", self.state),
        }
    }
}

/// One JSON text being assembled from fragments: the parser, the value it builds, and the text.
struct Document {
    parser: StreamParser,
    builder: Builder,
    preview_options: PreviewOptions,
    /// The joined text, kept for `doc` in errors and for callers that need the raw input.
    text: Vec<u8>,
}

impl Document {
    fn new(max_depth: usize, preview_options: PreviewOptions) -> Self {
        Self {
            parser: StreamParser::new(max_depth),
            builder: Builder::default(),
            preview_options,
            text: Vec::new(),
        }
    }

    /// The best value for the text so far; see `Builder::preview`.
    fn preview(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let open = match self.parser.open_string() {
            Some((content, false)) => Some(content),
            _ => None,
        };
        self.builder.preview(py, open, self.preview_options)
    }

    /// Scans a fragment. Returns the parse error once the text is malformed (every call after too).
    fn feed(&mut self, py: Python<'_>, fragment: &Bound<'_, PyString>) -> PyResult<Result<(), Error>> {
        // A str holding lone surrogates has no UTF-8 form; its surrogatepass encoding (WTF-8) is
        // what the parser and `decode` understand.
        let fallback;
        let bytes = if let Ok(text) = fragment.to_str() {
            text.as_bytes()
        } else {
            fallback = fragment.call_method1("encode", ("utf-8", "surrogatepass"))?;
            fallback.cast::<PyBytes>()?.as_bytes()
        };
        self.text.extend_from_slice(bytes);
        let mut sink = PythonSink { py, builder: &mut self.builder };
        Ok(self.parser.feed(bytes, &mut sink))
    }

    /// The strict result: the value, or the error `json.loads` would raise in its place.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut sink = PythonSink { py, builder: &mut self.builder };
        let outcome = self.parser.finish(&mut sink);
        if let (Err(_), Some((digits, is_float))) = (outcome, self.parser.open_number()) {
            // json.loads converts a number before it notices the missing closer after it, so an
            // integer over the digit limit at the cut (`[1111…`) raises its ValueError first.
            sink.number(digits, is_float);
        }
        // A conversion failure (an over-long integer) comes before the text's end, as in json.loads.
        if let Some(failure) = &self.builder.failure {
            return Err(failure.clone_ref(py));
        }
        outcome.map_err(|error| self.error(py, error))?;
        Ok(self.builder.root.as_ref().map_or_else(|| py.None(), |root| root.clone_ref(py)))
    }

    fn text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        decode(py, &self.text)
    }

    fn char_offset(&self, byte_offset: usize) -> usize {
        char_count(self.text.get(..byte_offset).unwrap_or(&self.text))
    }

    fn status(&self) -> ParseStatus {
        match self.parser.status() {
            Status::Complete => ParseStatus { state: "complete", pos: None, msg: None },
            Status::Incomplete => ParseStatus {
                state: "incomplete",
                pos: Some(self.char_offset(self.text.len())),
                msg: Some(eof_kind(&self.parser).message()),
            },
            Status::Malformed(error) => ParseStatus {
                state: "malformed",
                pos: Some(self.char_offset(error.offset)),
                msg: Some(error.kind.message()),
            },
        }
    }

    /// The Python exception for a parse error, with json's fields.
    fn error(&self, py: Python<'_>, error: Error) -> PyErr {
        let class_name = if error.kind == ErrorKind::RecursionLimitExceeded {
            "NestingTooDeepError"
        } else if error.is_eof() {
            "IncompleteJSONError"
        } else {
            "MalformedJSONError"
        };
        let build = || -> PyResult<PyErr> {
            let class = py.import("tooljson.errors")?.getattr(class_name)?;
            let doc = self.text(py)?;
            let instance = class.call1((error.kind.message(), doc, self.char_offset(error.offset)))?;
            Ok(PyErr::from_value(instance))
        };
        build().unwrap_or_else(|failure| failure)
    }
}

/// The kind a cut-off text would report at its end, for `status()` of an incomplete text.
fn eof_kind(parser: &StreamParser) -> ErrorKind {
    let mut probe = parser.clone();
    match probe.finish(&mut crate::sink::IgnoreSink) {
        Err(error) => error.kind,
        Ok(()) => ErrorKind::EofWhileParsingValue,
    }
}

/// One JSON document fed in fragments; see the stub for the contract.
#[pyclass(module = "tooljson._native", subclass)]
struct Parser {
    document: Document,
    result: Option<Result<Py<PyAny>, PyErr>>,
}

#[pymethods]
impl Parser {
    #[new]
    #[pyo3(signature = (*, max_depth = DEFAULT_MAX_DEPTH, partial_strings = true, preview_string_limit = None))]
    fn new(max_depth: usize, partial_strings: bool, preview_string_limit: Option<usize>) -> Self {
        let options = PreviewOptions { partial_strings, string_limit: preview_string_limit };
        Self { document: Document::new(max_depth, options), result: None }
    }

    /// The best value for the text so far. Never raises on any input; see the stub for the
    /// guarantees between successive previews.
    fn preview(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Some(Ok(value)) = &self.result {
            return Ok(value.clone_ref(py));
        }
        self.document.preview(py)
    }

    /// Scans the next fragment; raises `MalformedJSONError` as soon as the text cannot be JSON.
    fn feed(&mut self, py: Python<'_>, fragment: &Bound<'_, PyString>) -> PyResult<()> {
        if self.result.is_some() {
            return Err(PyRuntimeError::new_err("Parser.feed() called after finish()"));
        }
        self.document.feed(py, fragment)?.map_err(|error| self.document.error(py, error))
    }

    /// The value of the whole text, exactly as `json.loads` gives it, or its error.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let result = self.result.get_or_insert_with(|| self.document.finish(py));
        match result {
            Ok(value) => Ok(value.clone_ref(py)),
            Err(error) => Err(error.clone_ref(py)),
        }
    }

    #[getter]
    fn status(&self) -> ParseStatus {
        self.document.status()
    }

    #[getter]
    fn text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        self.document.text(py)
    }
}

/// A tool call being streamed: its name and id once started, and its arguments.
struct Call {
    index: i64,
    header: Option<(Py<PyAny>, Py<PyAny>)>,
    document: Document,
}

/// Tool-call argument buffers keyed by content-block index, parsed as the fragments arrive.
#[pyclass(module = "tooljson._native", subclass)]
struct ToolCallAccumulator {
    /// Open calls in the order they appeared. A response has a handful of blocks, so a linear
    /// search beats hashing here.
    calls: Vec<Call>,
    max_depth: usize,
    preview_options: PreviewOptions,
}

impl ToolCallAccumulator {
    fn position(&self, index: i64) -> Option<usize> {
        self.calls.iter().position(|call| call.index == index)
    }

    fn call_mut(&mut self, index: i64) -> PyResult<&mut Call> {
        let at = if let Some(at) = self.position(index) {
            at
        } else {
            self.calls.push(Call {
                index,
                header: None,
                document: Document::new(self.max_depth, self.preview_options),
            });
            self.calls.len() - 1
        };
        self.calls
            .get_mut(at)
            .ok_or_else(|| PyRuntimeError::new_err("tooljson: call table out of step"))
    }

    fn call(&self, index: i64) -> PyResult<&Call> {
        self.position(index)
            .and_then(|at| self.calls.get(at))
            .ok_or_else(|| PyKeyError::new_err(index))
    }
}

#[pymethods]
impl ToolCallAccumulator {
    #[new]
    #[pyo3(signature = (*, max_depth = DEFAULT_MAX_DEPTH, partial_strings = true, preview_string_limit = None))]
    fn new(max_depth: usize, partial_strings: bool, preview_string_limit: Option<usize>) -> Self {
        let preview_options = PreviewOptions { partial_strings, string_limit: preview_string_limit };
        Self { calls: Vec::new(), max_depth, preview_options }
    }

    /// The best value for block `index`'s arguments so far (`None` before anything is shown).
    /// Never raises on any input; raises `KeyError` for an unknown index.
    fn preview(&mut self, py: Python<'_>, index: i64) -> PyResult<Py<PyAny>> {
        let at = self.position(index).ok_or_else(|| PyKeyError::new_err(index))?;
        match self.calls.get_mut(at) {
            Some(call) => call.document.preview(py),
            None => Err(PyKeyError::new_err(index)),
        }
    }

    /// Records a tool block's name and id (from `content_block_start`).
    fn start(&mut self, index: i64, name: Py<PyAny>, tool_id: Py<PyAny>) -> PyResult<()> {
        self.call_mut(index)?.header = Some((name, tool_id));
        Ok(())
    }

    /// Scans one `partial_json` fragment of block `index`. Never raises for bad JSON: the error
    /// comes from `finish`, and `status(index)` shows it as soon as it is found.
    fn add_delta(&mut self, py: Python<'_>, index: i64, fragment: &Bound<'_, PyString>) -> PyResult<()> {
        self.call_mut(index)?.document.feed(py, fragment).map(|_| ())
    }

    /// `{"name": ..., "id": ..., "input": value}` for block `index`, which is then forgotten.
    fn finish<'py>(&mut self, py: Python<'py>, index: i64) -> PyResult<Bound<'py, PyDict>> {
        let at = self.position(index).ok_or_else(|| PyKeyError::new_err(index))?;
        if self.calls.get(at).is_none_or(|call| call.header.is_none()) {
            // Like the pure accumulator: an index that was never started is an error, and the
            // fragments it already has are kept.
            return Err(PyKeyError::new_err(index));
        }
        let mut call = self.calls.remove(at);
        let Some((name, tool_id)) = call.header.take() else {
            return Err(PyKeyError::new_err(index));
        };
        let input = if call.document.text.is_empty() {
            // A tool without arguments streams no text: its input is `{}`.
            PyDict::new(py).into_any().unbind()
        } else {
            call.document.finish(py)?
        };
        let result = PyDict::new(py);
        result.set_item(pyo3::intern!(py, "name"), name)?;
        result.set_item(pyo3::intern!(py, "id"), tool_id)?;
        result.set_item(pyo3::intern!(py, "input"), input)?;
        Ok(result)
    }

    /// The joined text of block `index` so far.
    fn text<'py>(&self, py: Python<'py>, index: i64) -> PyResult<Bound<'py, PyString>> {
        self.call(index)?.document.text(py)
    }

    /// Where the text of block `index` stands.
    fn status(&self, index: i64) -> PyResult<ParseStatus> {
        Ok(self.call(index)?.document.status())
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
        index.extract::<i64>().is_ok_and(|index| self.position(index).is_some())
    }

    fn __len__(&self) -> usize {
        self.calls.len()
    }
}

/// Parses a whole text strictly: `json.loads` semantics with tooljson's errors.
#[pyfunction]
#[pyo3(signature = (text, *, max_depth = DEFAULT_MAX_DEPTH))]
fn loads(py: Python<'_>, text: &Bound<'_, PyString>, max_depth: usize) -> PyResult<Py<PyAny>> {
    let mut document = Document::new(max_depth, PreviewOptions::default());
    if let Err(error) = document.feed(py, text)? {
        if document.builder.failure.is_none() {
            return Err(document.error(py, error));
        }
    }
    document.finish(py)
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_class::<ParseStatus>()?;
    module.add_class::<Parser>()?;
    module.add_class::<ToolCallAccumulator>()?;
    module.add_function(wrap_pyfunction!(loads, module)?)?;
    Ok(())
}
