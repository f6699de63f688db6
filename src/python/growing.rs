//! `tooljson._native.GrowingText`: a text read as the caller's buffer grows, the native half of the
//! drop-in functions in `tooljson.compat` (see `python/tooljson/compat/resume.py`).
//!
//! The caller passes its whole buffer and where the new part starts; only the new part is read. A
//! `bytes` buffer is read as UTF-8 without a `str` made of it: a character cut off at the end is held
//! until the rest arrives, and bytes that are not UTF-8 (or a str holding a lone surrogate, which
//! has no UTF-8 form) end the reading: the caller then parses the whole buffer by its own rules.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PySlice, PyString};
use pyo3::{PyTraverseError, PyVisit};

use super::document::{Document, Snapshot};
use super::options::Options;
use super::status::PyParseStatus;

#[pyclass(module = "tooljson._native", name = "GrowingText")]
pub(crate) struct PyGrowingText {
    document: Document,
    /// The bytes of a character cut off at the end of the bytes read so far.
    held: Vec<u8>,
    /// The text was refused (malformed, too deep, not UTF-8): nothing more is read.
    failed: bool,
    /// An `N` or an `I` was read, anywhere (inside a string too): jiter's `allow_inf_nan=False`
    /// refuses a value that starts with either before its word is whole.
    has_inf_nan: bool,
    /// The caller's buffer as last given to `advance` (the caller's own object), and its length in
    /// its own units (bytes or characters): what a [`super::resume_cache`] entry has read.
    pub(crate) source: Option<Py<PyAny>>,
    pub(crate) length: usize,
    /// Made for a `bytes` buffer (`False`: a `str`).
    pub(crate) binary: bool,
}

/// Whether `bytes` hold an `N` or an `I`.
fn holds_inf_nan(bytes: &[u8]) -> bool {
    bytes.iter().any(|&byte| byte == b'N' || byte == b'I')
}

impl PyGrowingText {
    /// An open string is part of the snapshot (`partial_strings`).
    pub(crate) fn strings(&self) -> bool {
        self.document.partial_strings()
    }

    /// Reads what `source` (`length` long in its own units) adds to the buffer last given here,
    /// which it starts with (the caller checks), and keeps `source` as the buffer read.
    pub(crate) fn advance(
        &mut self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        length: usize,
    ) -> PyResult<()> {
        let start = std::mem::replace(&mut self.length, length);
        self.source = Some(source.clone().unbind());
        self.read(py, source, start)?;
        Ok(())
    }

    /// Reads UTF-8 bytes; `false` when they are not UTF-8 or make the text malformed.
    fn read_utf8(&mut self, py: Python<'_>, added: &[u8]) -> PyResult<bool> {
        let joined;
        let bytes = if self.held.is_empty() {
            added
        } else {
            let mut held = std::mem::take(&mut self.held);
            held.extend_from_slice(added);
            joined = held;
            joined.as_slice()
        };
        self.has_inf_nan = self.has_inf_nan || holds_inf_nan(bytes);
        let whole = match std::str::from_utf8(bytes) {
            Ok(_) => bytes,
            Err(error) if error.error_len().is_none() => {
                let (whole, cut) = bytes.split_at(error.valid_up_to());
                self.held = cut.to_vec();
                whole
            }
            Err(_) => return Ok(false),
        };
        Ok(self.document.feed_utf8(py, whole)?.is_ok())
    }
}

#[pymethods]
impl PyGrowingText {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        self.document.traverse(&visit)
    }

    fn __clear__(&mut self) {
        self.document.clear();
    }

    #[new]
    #[pyo3(signature = (*, partial_strings, max_depth, binary = false))]
    pub(crate) fn new(
        py: Python<'_>,
        partial_strings: bool,
        max_depth: i64,
        binary: bool,
    ) -> PyResult<Self> {
        let options =
            Options::from_python(py, max_depth, None, partial_strings, None, false, None)?;
        Ok(Self {
            document: Document::new(options),
            held: Vec::new(),
            failed: false,
            has_inf_nan: false,
            source: None,
            length: 0,
            binary,
        })
    }

    /// Reads `data[start:]` (`data` a `bytes` or a `str`); `False` once the text is refused (a str
    /// holding a lone surrogate is, as bytes that are not UTF-8 are).
    pub(crate) fn read(
        &mut self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        start: usize,
    ) -> PyResult<bool> {
        if self.failed {
            return Ok(false);
        }
        let read = if let Ok(bytes) = data.cast::<PyBytes>() {
            let added = bytes.as_bytes().get(start..).unwrap_or_default();
            self.read_utf8(py, added)?
        } else {
            let from = isize::try_from(start).unwrap_or(isize::MAX);
            let added = data.get_item(PySlice::new(py, from, isize::MAX, 1))?;
            let added = added.cast::<PyString>()?;
            // A str with a lone surrogate has no UTF-8 form: refused, as its bytes would be.
            match added.to_str() {
                Ok(text) => {
                    self.has_inf_nan = self.has_inf_nan || holds_inf_nan(text.as_bytes());
                    self.document.feed(py, added)?.is_ok()
                }
                Err(_) => false,
            }
        };
        self.failed = !read;
        Ok(read)
    }

    /// `Parser.snapshot` for the text read so far; `None` when it was refused or ends inside a
    /// character.
    #[pyo3(signature = (*, string_text = false))]
    fn snapshot<'py>(
        &mut self,
        py: Python<'py>,
        string_text: bool,
    ) -> PyResult<Option<Snapshot<'py>>> {
        if self.failed || !self.held.is_empty() {
            return Ok(None);
        }
        self.document.snapshot(py, string_text).map(Some)
    }

    /// Whether the text read so far holds a surrogate escape that is not half of a pair (one at the
    /// end still waiting for its low half does not count).
    #[getter]
    fn has_lone_surrogate(&self) -> bool {
        self.document.has_lone_surrogate()
    }

    /// Whether an `N` or an `I` was read, anywhere in the text (inside a string too).
    #[getter]
    fn has_inf_nan(&self) -> bool {
        self.has_inf_nan
    }

    /// The text was refused (malformed, too deep, not UTF-8): nothing more is read.
    #[getter]
    pub(crate) fn failed(&self) -> bool {
        self.failed
    }

    /// Made for a `bytes` buffer.
    #[getter]
    fn binary(&self) -> bool {
        self.binary
    }

    /// The length of the buffer last given to `advance`.
    #[getter]
    fn length(&self) -> usize {
        self.length
    }

    #[getter]
    fn status(&mut self, py: Python<'_>) -> PyResult<PyParseStatus> {
        self.document.status(py)
    }
}
