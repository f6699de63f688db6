//! The accumulator's block keys: any hashable object, found exactly as a dict finds a key.
//!
//! The pure accumulator keeps its buffers in a dict, so `start(1, ...)` and `add_delta(1.0, ...)`
//! or `add_delta(True, ...)` name the same call, a string item id or a `(choice, index)` tuple is as
//! good a key as an int, and an unhashable key is a `TypeError`. Here the keys sit in a short list
//! (a response has a handful of blocks); an exact `int` that fits in 64 bits, the key of every
//! Anthropic stream, is compared by value without calling into Python.

use pyo3::prelude::*;
use pyo3::types::PyInt;

/// A key as stored: its object (for `indices`, errors and callbacks) and its hash.
pub(crate) struct CallKey {
    object: Py<PyAny>,
    hash: isize,
    /// The value of an exact `int` that fits in 64 bits.
    small: Option<i64>,
}

/// The value of an exact `int` that fits in 64 bits (not a `bool`, nor another subclass, whose
/// equality may differ).
fn small_int(key: &Bound<'_, PyAny>) -> Option<i64> {
    if key.is_exact_instance_of::<PyInt>() {
        key.extract::<i64>().ok()
    } else {
        None
    }
}

impl CallKey {
    /// A key to store; raises `TypeError` for an unhashable object, as a dict does.
    pub(crate) fn new(key: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Self {
            object: key.clone().unbind(),
            hash: key.hash()?,
            small: small_int(key),
        })
    }

    pub(crate) fn object(&self) -> &Py<PyAny> {
        &self.object
    }
}

/// A key looked up: its small value when it has one, its hash computed only when needed.
pub(crate) struct Probe<'a, 'py> {
    key: &'a Bound<'py, PyAny>,
    small: Option<i64>,
    hash: Option<isize>,
}

impl<'a, 'py> Probe<'a, 'py> {
    pub(crate) fn new(key: &'a Bound<'py, PyAny>) -> Self {
        Self {
            key,
            small: small_int(key),
            hash: None,
        }
    }

    /// The position of the stored key equal to this one, as `dict` would compare them: same
    /// object, or equal hashes and `==` (the stored key on the left).
    pub(crate) fn position<'k>(
        &mut self,
        keys: impl Iterator<Item = &'k CallKey> + Clone,
    ) -> PyResult<Option<usize>> {
        if let Some(value) = self.small {
            // Two exact ints are equal exactly when their values are.
            if let Some(at) = keys.clone().position(|stored| stored.small == Some(value)) {
                return Ok(Some(at));
            }
            if keys.clone().all(|stored| stored.small.is_some()) {
                return Ok(None);
            }
        }
        let hash = match self.hash {
            Some(hash) => hash,
            None => *self.hash.insert(self.key.hash()?),
        };
        let py = self.key.py();
        for (at, stored) in keys.enumerate() {
            if stored.small.is_some() && self.small.is_some() {
                continue;
            }
            if stored.object.is(self.key)
                || (stored.hash == hash && stored.object.bind(py).eq(self.key)?)
            {
                return Ok(Some(at));
            }
        }
        Ok(None)
    }
}
