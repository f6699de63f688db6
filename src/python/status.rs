//! `tooljson.ParseStatus`: where a text stands, as Python sees it.

use pyo3::prelude::*;

/// Where a text stands, as Python sees it.
#[pyclass(module = "tooljson._native", name = "ParseStatus", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct PyParseStatus {
    /// "complete", "incomplete" or "malformed".
    #[pyo3(get)]
    pub(crate) state: &'static str,
    /// Character offset of the first offending character (malformed) or of the end (incomplete).
    #[pyo3(get)]
    pub(crate) pos: Option<usize>,
    /// What is wrong, when something is.
    #[pyo3(get)]
    pub(crate) msg: Option<&'static str>,
}

#[pymethods]
impl PyParseStatus {
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
