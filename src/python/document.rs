//! One JSON text being assembled from fragments: the parser, the value it builds, and the text.

use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::{PyTraverseError, PyVisit};

use super::builder::{Builder, PreviewOptions, PythonSink};
use super::convert::{decode, fragment_bytes};
use crate::error::{char_count, Error, ErrorKind};
use crate::parser::{Status, StreamParser, DEFAULT_MAX_DEPTH};

/// What a `Parser` or an accumulator's calls are created with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    pub(crate) max_depth: usize,
    pub(crate) max_size: Option<usize>,
    pub(crate) preview: PreviewOptions,
    pub(crate) events: bool,
}

impl Options {
    /// The options as the Python constructors take them; a callback turns the events on.
    pub(crate) fn new(
        max_depth: usize,
        max_size: Option<usize>,
        partial_strings: bool,
        preview_string_limit: Option<usize>,
        events: bool,
    ) -> Self {
        Self {
            max_depth,
            max_size,
            preview: PreviewOptions {
                partial_strings,
                string_limit: preview_string_limit,
            },
            events,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            max_depth: DEFAULT_MAX_DEPTH,
            max_size: None,
            preview: PreviewOptions::default(),
            events: false,
        }
    }
}

/// Where a text stands, as Python sees it.
#[pyclass(module = "tooljson._native", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct ParseStatus {
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
            (Some(pos), Some(msg)) => format!(
                "ParseStatus(state='{}', pos={pos}, msg='{msg}')",
                self.state
            ),
            _ => format!("ParseStatus(state='{}')", self.state),
        }
    }
}

pub(crate) struct Document {
    parser: StreamParser,
    max_size: Option<usize>,
    builder: Builder,
    preview_options: PreviewOptions,
    /// The joined text, kept for `doc` in errors and for callers that need the raw input.
    text: Vec<u8>,
    /// Characters in `text`, counted as it grows so that a status never rescans it.
    chars: usize,
    /// Character offset of the parse error, counted once when it is found.
    error_chars: Option<usize>,
    /// Bytes of `text` the parser has scanned.
    parsed: usize,
}

/// How many bytes of deferred fragments are gathered before they are scanned (see `append`).
/// On the 100 KB records stream (deltas of 1 to 32 characters) this cut accumulate + finish by
/// about a fifth.
const DEFERRED_BYTES: usize = 512;

impl Document {
    pub(crate) fn new(options: Options) -> Self {
        let mut parser = StreamParser::new(options.max_depth);
        if let Some(max_size) = options.max_size {
            parser = parser.with_max_size(max_size);
        }
        Self {
            parser,
            max_size: options.max_size,
            builder: Builder::new(options.events),
            preview_options: options.preview,
            text: Vec::new(),
            chars: 0,
            error_chars: None,
            parsed: 0,
        }
    }

    pub(crate) fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        self.builder.traverse(visit)
    }

    pub(crate) fn clear(&mut self) {
        self.builder.clear();
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Scans a fragment. The inner result is the parse error once the text is malformed (on every
    /// call after that too); the outer one a Python failure (memory, a str that cannot be read).
    pub(crate) fn feed(
        &mut self,
        py: Python<'_>,
        fragment: &Bound<'_, PyString>,
    ) -> PyResult<Result<(), Error>> {
        self.append(py, fragment, false)
    }

    /// Adds a fragment. With `defer`, short fragments are only kept, and scanned together once
    /// `DEFERRED_BYTES` have gathered or when anything asks where the text stands (`flush`):
    /// every byte is still scanned exactly once, but the fixed cost of a scan is paid per batch
    /// rather than per delta. A size limit turns deferral off, so that the limit is checked on the
    /// fragment that crosses it.
    pub(crate) fn append(
        &mut self,
        py: Python<'_>,
        fragment: &Bound<'_, PyString>,
        defer: bool,
    ) -> PyResult<Result<(), Error>> {
        let bytes = fragment_bytes(fragment)?;
        let bytes = bytes.as_bytes();
        if self.max_size.is_some() {
            return self.feed_limited(py, bytes);
        }
        self.text.extend_from_slice(bytes);
        self.chars += char_count(bytes);
        if defer && self.text.len() - self.parsed < DEFERRED_BYTES {
            return Ok(Ok(()));
        }
        self.flush(py)
    }

    /// Scans what was kept but not yet scanned.
    pub(crate) fn flush(&mut self, py: Python<'_>) -> PyResult<Result<(), Error>> {
        let unscanned = self.text.get(self.parsed..).unwrap_or_default();
        if unscanned.is_empty() {
            return Ok(self.parser.error().map_or(Ok(()), Err));
        }
        let outcome = self.parser.feed(
            unscanned,
            &mut PythonSink {
                py,
                builder: &mut self.builder,
            },
        );
        self.parsed = self.text.len();
        self.after_scan(py, outcome)
    }

    fn feed_limited(&mut self, py: Python<'_>, bytes: &[u8]) -> PyResult<Result<(), Error>> {
        let outcome = self.parser.feed(
            bytes,
            &mut PythonSink {
                py,
                builder: &mut self.builder,
            },
        );
        // The text is kept only up to the size limit, so that the limit bounds memory too; below
        // it everything is kept, also after an error (an invalid call is answered with its text).
        let room = self.max_size.map_or(usize::MAX, |max_size| {
            max_size.saturating_sub(self.text.len())
        });
        let mut keep = bytes.len().min(room);
        while keep > 0 && bytes.get(keep).is_some_and(|&byte| byte & 0xC0 == 0x80) {
            keep -= 1;
        }
        let kept = bytes.get(..keep).unwrap_or(bytes);
        self.text.extend_from_slice(kept);
        self.chars += char_count(kept);
        self.parsed = self.text.len();
        self.after_scan(py, outcome)
    }

    fn after_scan(
        &mut self,
        py: Python<'_>,
        outcome: Result<(), Error>,
    ) -> PyResult<Result<(), Error>> {
        if let (Err(error), None) = (outcome, self.error_chars) {
            // Counted once per text, when its error is found.
            self.error_chars = Some(char_count(
                self.text.get(..error.offset).unwrap_or(&self.text),
            ));
        }
        if outcome.is_ok() {
            if let Some((content, false)) = self.parser.open_string() {
                self.builder.report_open_string(py, content)?;
            }
        }
        Ok(outcome)
    }

    /// The strict result: the value, or the error `json.loads` would raise in its place.
    pub(crate) fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let _scan_outcome = self.flush(py)?;
        let mut sink = PythonSink {
            py,
            builder: &mut self.builder,
        };
        let outcome = self.parser.finish(&mut sink);
        if let (Err(_), Some((digits, is_float))) = (outcome, self.parser.open_number()) {
            // json.loads converts a number before it notices the missing closer after it, so an
            // integer over the digit limit at the cut (`[1111…`) raises its ValueError first.
            crate::sink::Sink::number(&mut sink, digits, is_float);
        }
        // A conversion failure (an over-long integer) comes before the text's end, as in json.loads.
        if let Some(failure) = self.builder.failure(py) {
            return Err(failure);
        }
        outcome.map_err(|error| self.error(py, error))?;
        Ok(self.builder.root(py))
    }

    /// The best value for the text so far; see `Builder::preview`.
    pub(crate) fn preview(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let _scan_outcome = self.flush(py)?;
        let open = match self.parser.open_string() {
            Some((content, false)) => Some(content),
            _ => None,
        };
        self.builder.preview(py, open, self.preview_options)
    }

    /// The path of the innermost value still being read (see `Builder::open_path`).
    pub(crate) fn open_path<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, pyo3::types::PyTuple>>> {
        let _scan_outcome = self.flush(py)?;
        let in_string = matches!(self.parser.open_string(), Some((_, false)));
        self.builder.open_path(py, in_string)
    }

    /// Events recorded since the last call, or `None` when events are off.
    pub(crate) fn take_events(&mut self, py: Python<'_>) -> PyResult<Option<Vec<Py<PyAny>>>> {
        let _scan_outcome = self.flush(py)?;
        Ok(self.builder.events_mut().map(super::events::EventLog::take))
    }

    pub(crate) fn text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        decode(py, &self.text)
    }

    /// Character offset of `error` in the text: the count made when it was found, or (for the end
    /// of a cut-off text) the running count.
    fn char_offset(&self, error: Error) -> usize {
        if error.kind.is_eof() {
            self.chars
        } else {
            self.error_chars.unwrap_or(self.chars)
        }
    }

    pub(crate) fn status(&mut self, py: Python<'_>) -> PyResult<ParseStatus> {
        let _scan_outcome = self.flush(py)?;
        Ok(match self.parser.status() {
            Status::Complete => ParseStatus {
                state: "complete",
                pos: None,
                msg: None,
            },
            Status::Incomplete => ParseStatus {
                state: "incomplete",
                pos: Some(self.chars),
                msg: Some(self.parser.cut_off_kind().message()),
            },
            Status::Malformed(error) => ParseStatus {
                state: "malformed",
                pos: Some(self.char_offset(error)),
                msg: Some(error.kind.message()),
            },
        })
    }

    /// json.loads reads the longest number it can: before a `.` or `e` that no digit follows it
    /// takes the integer alone and converts it, so an over-long one raises its `ValueError` before
    /// the broken rest is noticed. This finds that integer in front of `offset` and converts it.
    fn integer_prefix_failure(&self, py: Python<'_>, offset: usize) -> Option<PyErr> {
        let before = self.text.get(..offset)?;
        let start = before
            .iter()
            .rposition(|byte| !matches!(byte, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            .map_or(0, |at| at + 1);
        let number = before.get(start..)?;
        let integer_length = number
            .iter()
            .position(|byte| matches!(byte, b'.' | b'e' | b'E'))?;
        let (integer, rest) = number.split_at(integer_length);
        let takes_more = match rest {
            [b'e' | b'E', b'+' | b'-', digit, ..] | [b'.' | b'e' | b'E', digit, ..] => {
                digit.is_ascii_digit()
            }
            _ => false,
        };
        if takes_more {
            return None;
        }
        super::convert::big_int(py, integer).err()
    }

    /// The Python exception for a parse error, with json's fields. A conversion failure found
    /// earlier in the text (an over-long integer) takes precedence, as it does in json.loads.
    pub(crate) fn error(&self, py: Python<'_>, error: Error) -> PyErr {
        if let Some(failure) = self.builder.failure(py) {
            return failure;
        }
        if matches!(
            error.kind,
            ErrorKind::InvalidNumber | ErrorKind::EofWhileParsingNumber
        ) {
            if let Some(failure) = self.integer_prefix_failure(py, error.offset) {
                return failure;
            }
        }
        let class_name = match error.kind {
            ErrorKind::RecursionLimitExceeded => "NestingTooDeepError",
            ErrorKind::SizeLimitExceeded => "InputTooLargeError",
            kind if kind.is_eof() => "IncompleteJSONError",
            _ => "MalformedJSONError",
        };
        let build = || -> PyResult<PyErr> {
            let class = py.import("tooljson.errors")?.getattr(class_name)?;
            let doc = self.text(py)?;
            let instance = class.call1((error.kind.message(), doc, self.char_offset(error)))?;
            Ok(PyErr::from_value(instance))
        };
        build().unwrap_or_else(|failure| failure)
    }
}
