//! The PyO3 bindings: the extension module `tooljson._native`.
//!
//! Everything that touches Python lives under this module, one concern per file; the parser core
//! does not know Python.
//!
//! - `parser.rs`, `accumulator.rs`, `events.rs`, `status.rs`: the Python classes (`Py…` structs).
//! - `document.rs`: one text being assembled; `buffer.rs` keeps its text and decides when to scan.
//! - `builder.rs`: the Python value built from the parser's events, in place (`whole.rs`: built
//!   bottom-up, for a text given whole; `direct.rs`: a whole `str` read in its own width into that
//!   sink, `units.rs` the characters of each width); `key_cache.rs` the
//!   keys it reuses; `stand_in.rs` the open string a preview shows; `long_string.rs` a long string
//!   value decoded in pieces as it streams.
//! - `call_key.rs`: the accumulator's block keys, compared as dict keys are; `guarded.rs` its state
//!   behind a borrow flag without an atomic instruction.
//! - `growing.rs`: a caller's growing buffer read as it grows (the drop-in functions' native half);
//!   `resume_cache.rs` the ones recently read, found by the new buffer starting with theirs.
//! - `exceptions.rs`: parse errors as `tooljson.errors` exceptions; `options.rs` the checked options;
//!   `convert.rs` the C-API conversions; `floor.rs` the benchmarks' floor (a method that does nothing);
//!   `strings.rs` the `str`s made from decoded bytes (written in place with the full API), and a
//!   `str`'s UTF-8 read from its own storage; `blocks.rs` the blocks of characters both move at a
//!   time.

mod accumulator;
#[cfg(not(Py_LIMITED_API))]
mod blocks;
mod buffer;
mod builder;
mod call_key;
mod convert;
#[cfg(not(Py_LIMITED_API))]
mod direct;
mod document;
mod events;
mod exceptions;
mod floor;
mod growing;
mod guarded;
mod key_cache;
mod long_string;
mod options;
mod parser;
mod resume_cache;
mod stand_in;
mod status;
mod strings;
#[cfg(not(Py_LIMITED_API))]
mod units;
mod whole;

use pyo3::prelude::*;
use pyo3::types::PyString;

use document::Document;
use options::Options;

/// Parses a whole text strictly: `json.loads` semantics with tooljson's errors.
#[pyfunction]
#[pyo3(signature = (text, *, max_depth = 1000, max_size = None))]
fn loads(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    max_depth: i64,
    max_size: Option<i64>,
) -> PyResult<Py<PyAny>> {
    let options = Options::strict(max_depth, max_size)?;
    #[cfg(not(Py_LIMITED_API))]
    if let Some(value) = direct::loads(py, text, options.max_depth, options.max_size) {
        return value;
    }
    Document::new(options).parse_whole(py, text)
}

/// The length in bytes of a `str`'s UTF-8, lone surrogates counted as `surrogatepass` writes them:
/// `len(text.encode("utf-8", "surrogatepass"))`, counted without encoding with the full API.
#[pyfunction]
fn utf8_size(text: &Bound<'_, PyString>) -> PyResult<usize> {
    #[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
    if let Some(size) = strings::utf8_length(text) {
        return Ok(size);
    }
    text.call_method1("encode", ("utf-8", "surrogatepass"))?
        .len()
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_class::<status::PyParseStatus>()?;
    module.add_class::<events::PyEvent>()?;
    module.add_class::<parser::PyParser>()?;
    module.add_class::<accumulator::PyToolCallAccumulator>()?;
    module.add_class::<growing::PyGrowingText>()?;
    module.add_class::<resume_cache::PyResumeCache>()?;
    module.add_class::<floor::PyCallFloor>()?;
    accumulator::install_fast_methods(module.py())?;
    module.add_function(wrap_pyfunction!(loads, module)?)?;
    module.add_function(wrap_pyfunction!(utf8_size, module)?)?;
    Ok(())
}
