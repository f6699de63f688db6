//! The options a `Parser` or an accumulator is created with, checked as Python passes them.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use super::stand_in::PreviewOptions;
use crate::parser::DEFAULT_MAX_DEPTH;

/// What a `Parser` or an accumulator's calls are created with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    pub(crate) max_depth: usize,
    pub(crate) max_size: Option<usize>,
    pub(crate) preview: PreviewOptions,
    pub(crate) events: bool,
}

/// A count given from Python: a negative one is refused with a message that names the option
/// (rather than the conversion's "can't convert negative int to unsigned").
fn count(name: &str, value: i64) -> PyResult<usize> {
    usize::try_from(value)
        .map_err(|_| PyValueError::new_err(format!("{name} must be a non-negative integer")))
}

impl Options {
    /// The options as the Python constructors take them; a callback turns the events on. A
    /// callback that cannot be called is refused here, not at the first event.
    pub(crate) fn from_python(
        py: Python<'_>,
        max_depth: i64,
        max_size: Option<i64>,
        partial_strings: bool,
        preview_string_limit: Option<i64>,
        events: bool,
        on_event: Option<&Py<PyAny>>,
    ) -> PyResult<Self> {
        if let Some(callback) = on_event {
            let callback = callback.bind(py);
            if !callback.is_callable() {
                return Err(PyTypeError::new_err(format!(
                    "on_event must be callable, not {}",
                    callback.get_type().name()?
                )));
            }
        }
        Ok(Self {
            max_depth: count("max_depth", max_depth)?,
            max_size: max_size.map(|size| count("max_size", size)).transpose()?,
            preview: PreviewOptions {
                partial_strings,
                string_limit: preview_string_limit
                    .map(|limit| count("preview_string_limit", limit))
                    .transpose()?,
            },
            events: events || on_event.is_some(),
        })
    }

    /// The options of `tooljson.loads`.
    pub(crate) fn strict(max_depth: i64, max_size: Option<i64>) -> PyResult<Self> {
        Ok(Self {
            max_depth: count("max_depth", max_depth)?,
            max_size: max_size.map(|size| count("max_size", size)).transpose()?,
            ..Self::default()
        })
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
