//! One JSON text being assembled from fragments: the parser, the text kept (`buffer.rs`) and the
//! value built from it (`builder.rs`).

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use super::buffer::TextBuffer;
use super::builder::{Builder, PythonSink};
use super::convert::fragment_bytes;
use super::exceptions::{integer_prefix_failure, parse_error};
use super::options::Options;
use super::stand_in::PreviewOptions;
use super::status::PyParseStatus;
use super::strings::decode;
use super::whole::WholeTextSink;
use crate::error::Error;
use crate::parser::{Status, StreamParser};

/// See `Document::snapshot`.
pub(crate) type Snapshot<'py> = (
    &'static str,
    Option<Bound<'py, PyAny>>,
    Option<Bound<'py, PyAny>>,
    Bound<'py, PyAny>,
    Option<Bound<'py, PyAny>>,
);

pub(crate) struct Document {
    parser: StreamParser,
    max_size: Option<usize>,
    builder: Builder,
    preview_options: PreviewOptions,
    /// The joined text, kept for `doc` in errors and for callers that need the raw input.
    buffer: TextBuffer,
    /// Character offset of the parse error, counted once when it is found.
    error_chars: Option<usize>,
}

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
            buffer: TextBuffer::default(),
            error_chars: None,
        }
    }

    pub(crate) fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        self.builder.traverse(visit)
    }

    pub(crate) fn clear(&mut self) {
        self.builder.clear();
    }

    /// Whether an open string is part of the preview (`partial_strings`).
    pub(crate) fn partial_strings(&self) -> bool {
        self.preview_options.partial_strings
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.buffer.is_empty()
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

    /// Scans UTF-8 bytes (checked by the caller) at once.
    pub(crate) fn feed_utf8(
        &mut self,
        py: Python<'_>,
        bytes: &[u8],
    ) -> PyResult<Result<(), Error>> {
        self.buffer.keep_utf8(bytes);
        self.flush(py)
    }

    /// Adds a fragment; with `defer`, short fragments are kept and scanned in batches (see
    /// `buffer.rs`). A size limit turns deferral off, so that the limit is checked on the fragment
    /// that crosses it.
    #[inline]
    pub(crate) fn append(
        &mut self,
        py: Python<'_>,
        fragment: &Bound<'_, PyString>,
        defer: bool,
    ) -> PyResult<Result<(), Error>> {
        if let Some(max_size) = self.max_size {
            let bytes = fragment_bytes(fragment)?;
            let bytes = bytes.as_bytes();
            let outcome = self
                .parser
                .feed(bytes, &mut PythonSink::new(py, &mut self.builder));
            self.buffer.keep_limited(bytes, max_size);
            return self.after_scan(py, outcome);
        }
        if self.buffer.keep(fragment, defer)? {
            self.flush(py)
        } else {
            Ok(Ok(()))
        }
    }

    /// The lane of `add_delta` for a short delta kept for a later scan (see
    /// [`TextBuffer::keep_short`]): scanned with the text waiting once `DEFERRED_BYTES` wait. `None`,
    /// keeping nothing, when the lane does not apply (a size limit, a long or a wide delta).
    #[inline]
    pub(crate) fn keep_short(
        &mut self,
        py: Python<'_>,
        fragment: &Bound<'_, PyString>,
    ) -> Option<PyResult<()>> {
        if self.max_size.is_some() || !self.buffer.keep_short(fragment) {
            return None;
        }
        if self.buffer.scan_due() {
            return Some(self.flush(py).map(drop));
        }
        Some(Ok(()))
    }

    /// Scans what was kept but not yet scanned.
    pub(crate) fn flush(&mut self, py: Python<'_>) -> PyResult<Result<(), Error>> {
        let unscanned = self.buffer.take_unscanned();
        if unscanned.is_empty() {
            return Ok(self.parser.error().map_or(Ok(()), Err));
        }
        let outcome = self
            .parser
            .feed(unscanned, &mut PythonSink::new(py, &mut self.builder));
        self.after_scan(py, outcome)
    }

    fn after_scan(
        &mut self,
        py: Python<'_>,
        outcome: Result<(), Error>,
    ) -> PyResult<Result<(), Error>> {
        if let (Err(error), None) = (outcome, self.error_chars) {
            // Counted once per text, when its error is found.
            self.error_chars = Some(self.buffer.chars_before(error.offset));
        }
        if outcome.is_ok() {
            if let Some((content, false)) = self.parser.open_string() {
                self.builder.report_open_string(py, content)?;
                self.builder.long_string.grow(py, content)?;
            }
        }
        Ok(outcome)
    }

    /// The strict result: the value, or the error `json.loads` would raise in its place.
    pub(crate) fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let _scan_outcome = self.flush(py)?;
        let mut sink = PythonSink::new(py, &mut self.builder);
        let outcome = self.parser.finish(&mut sink);
        if let (Err(_), Some((digits, is_float))) = (outcome, self.parser.open_number()) {
            // json.loads converts a number before it notices the missing closer after it, so an
            // integer over the digit limit at the cut (`[1111…`) raises its ValueError first.
            crate::sink::Sink::number(&mut sink, digits, is_float);
        }
        drop(sink);
        // A conversion failure (an over-long integer) comes before the text's end, as in json.loads.
        if let Some(failure) = self.builder.failure(py) {
            return Err(failure);
        }
        outcome.map_err(|error| self.error(py, error))?;
        Ok(self.builder.root(py))
    }

    /// The strict result of a text given whole, into a document that has been given nothing yet:
    /// what [`Document::feed`] and [`Document::finish`] give, with the value built bottom-up by a
    /// [`WholeTextSink`] instead of in place. The text is kept only when it is malformed, for the
    /// error.
    pub(crate) fn parse_whole(
        &mut self,
        py: Python<'_>,
        text: &Bound<'_, PyString>,
    ) -> PyResult<Py<PyAny>> {
        let bytes = fragment_bytes(text)?;
        let bytes = bytes.as_bytes();
        let mut sink = WholeTextSink::new(py, bytes.len());
        let scanned = self.parser.feed(bytes, &mut sink);
        let outcome = self.parser.finish(&mut sink);
        if let (Err(_), Some((digits, is_float))) = (outcome, self.parser.open_number()) {
            // As in `finish`: the integer at the cut is converted before the cut is reported.
            crate::sink::Sink::number(&mut sink, digits, is_float);
        }
        let value = sink.into_value()?;
        let Err(error) = outcome else {
            return Ok(value.map_or_else(|| py.None(), Bound::unbind));
        };
        match self.max_size {
            Some(max_size) => self.buffer.keep_limited(bytes, max_size),
            None => self.buffer.keep_utf8(bytes),
        }
        if let Err(error) = scanned {
            self.error_chars = Some(self.buffer.chars_before(error.offset));
        }
        Err(self.error(py, error))
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
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let _scan_outcome = self.flush(py)?;
        let in_string = matches!(self.parser.open_string(), Some((_, false)));
        self.builder.open_path(py, in_string)
    }

    /// What the text ends inside: "string" (a string value), "key", "number" or "value" (anything
    /// else); where the value being read goes (see `Builder::member`); the number's text so far, or
    /// with `string_text` the open string value's whole content (a preview may show less of a long
    /// one); the value with its open containers copied (see `Builder::spine_copy`), or the root
    /// when none is open; and the copy of the innermost open container.
    pub(crate) fn snapshot<'py>(
        &mut self,
        py: Python<'py>,
        string_text: bool,
    ) -> PyResult<Snapshot<'py>> {
        let _scan_outcome = self.flush(py)?;
        let member = self.builder.member(py)?;
        let (kind, text) = match self.parser.open_string() {
            Some((content, false)) => {
                let text = if string_text {
                    Some(decode(py, content)?.into_any())
                } else {
                    None
                };
                ("string", text)
            }
            Some((_, true)) => ("key", None),
            None => match self.parser.number_so_far() {
                Some(digits) => ("number", Some(decode(py, digits)?.into_any())),
                None => ("value", None),
            },
        };
        let (value, innermost) = match self.builder.spine_copy(py)? {
            Some((top, innermost)) => (top, Some(innermost)),
            None => (self.builder.root(py).into_bound(py), None),
        };
        Ok((kind, member, text, value, innermost))
    }

    /// Events recorded since the last call, or `None` when events are off.
    pub(crate) fn take_events(&mut self, py: Python<'_>) -> PyResult<Option<Vec<Py<PyAny>>>> {
        let _scan_outcome = self.flush(py)?;
        Ok(self.builder.events_mut().map(super::events::EventLog::take))
    }

    /// See [`StreamParser::has_lone_surrogate`].
    pub(crate) fn has_lone_surrogate(&self) -> bool {
        self.parser.has_lone_surrogate()
    }

    pub(crate) fn text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        decode(py, self.buffer.as_bytes())
    }

    /// Character offset of `error` in the text: the count made when it was found, or (for the end
    /// of a cut-off text) the running count.
    fn char_offset(&self, error: Error) -> usize {
        if error.kind.is_eof() {
            self.buffer.chars()
        } else {
            self.error_chars.unwrap_or(self.buffer.chars())
        }
    }

    pub(crate) fn status(&mut self, py: Python<'_>) -> PyResult<PyParseStatus> {
        let _scan_outcome = self.flush(py)?;
        Ok(match self.parser.status() {
            Status::Complete => PyParseStatus {
                state: "complete",
                pos: None,
                msg: None,
            },
            Status::Incomplete => PyParseStatus {
                state: "incomplete",
                pos: Some(self.buffer.chars()),
                msg: Some(self.parser.cut_off_kind().message()),
            },
            Status::Malformed(error) => PyParseStatus {
                state: "malformed",
                pos: Some(self.char_offset(error)),
                msg: Some(error.kind.message()),
            },
        })
    }

    /// The Python exception for a parse error, with json's fields. A conversion failure found
    /// earlier in the text (an over-long integer) takes precedence, as it does in json.loads.
    pub(crate) fn error(&self, py: Python<'_>, error: Error) -> PyErr {
        if let Some(failure) = self.builder.failure(py) {
            return failure;
        }
        if let Some(failure) = integer_prefix_failure(py, self.buffer.as_bytes(), error) {
            return failure;
        }
        match self.text(py) {
            Ok(doc) => parse_error(error, doc.into_any().unbind(), self.char_offset(error)),
            Err(failure) => failure,
        }
    }
}
