//! The PyO3 bindings: `tooljson._native`.
//!
//! Everything that touches Python lives under this module; the parser core does not know Python.

mod accumulator;
mod builder;
mod convert;
mod document;
mod events;
mod parser;

use pyo3::prelude::*;
use pyo3::types::PyString;

use document::{Document, Options};

/// Parses a whole text strictly: `json.loads` semantics with tooljson's errors.
#[pyfunction]
#[pyo3(signature = (text, *, max_depth = 1000, max_size = None))]
fn loads(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    max_depth: usize,
    max_size: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let options = Options {
        max_depth,
        max_size,
        ..Options::default()
    };
    let mut document = Document::new(options);
    if let Err(error) = document.feed(py, text)? {
        return Err(document.error(py, error));
    }
    document.finish(py)
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_class::<document::ParseStatus>()?;
    module.add_class::<events::Event>()?;
    module.add_class::<parser::Parser>()?;
    module.add_class::<accumulator::ToolCallAccumulator>()?;
    module.add_function(wrap_pyfunction!(loads, module)?)?;
    Ok(())
}
