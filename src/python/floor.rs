//! `tooljson._native.CallFloor`: the benchmarks' floor, the least a call into the module costs.
//!
//! `take` does nothing with its one `str` argument: timed beside `ToolCallAccumulator.add_delta` in
//! one process, it says how much of a delta's cost is merely calling a PyO3 method with a `str`,
//! and how much is the accumulator's own. It is not part of the public API.

use pyo3::prelude::*;
use pyo3::types::PyString;

/// The benchmarks' floor: a method that takes one `str` and does nothing.
#[pyclass(module = "tooljson._native", name = "CallFloor", frozen)]
pub(crate) struct PyCallFloor;

#[pymethods]
impl PyCallFloor {
    #[new]
    fn new() -> Self {
        Self
    }

    /// Takes one `str` and does nothing: the cost of calling in. A method, as `add_delta` is, so
    /// that the call is the same kind of call.
    #[allow(clippy::unused_self)]
    fn take(&self, fragment: &Bound<'_, PyString>) {
        let _ = fragment;
    }
}
