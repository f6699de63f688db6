//! A Python object's Rust state behind a borrow flag that takes no atomic instruction.
//!
//! PyO3 guards a mutable `#[pyclass]` with an atomic flag: every `&mut self` method pays a locked
//! compare-and-swap. The accumulator's `add_delta` runs once per delta: on 1-4-character deltas
//! (16 KiB of records) `perf` put a sixth of its samples on the instruction after that one, and with
//! this flag `add_delta` cost 1.86× a no-op method's time against 1.91× (paired, both builds in one
//! process, 31 rounds, load 11: less than the samples suggested, but the lane for short deltas in
//! `accumulator.rs` is built on it).
//! A frozen class keeps its state in a [`Guarded`] instead: the same rules as a `RefCell` (any
//! number of readers or one writer; a re-entrant call that breaks them gets `RuntimeError`, as
//! PyO3's own flag raises), on a plain integer wherever the GIL serialises the calls, and on an
//! atomic one where it may not (a free-threaded CPython, `Py_GIL_DISABLED`).

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};

use pyo3::exceptions::PyRuntimeError;
use pyo3::PyResult;

/// Readers (a positive count) or a writer (`WRITING`) of a [`Guarded`] value.
const WRITING: isize = -1;

#[cfg(not(Py_GIL_DISABLED))]
#[derive(Default)]
struct Flag(std::cell::Cell<isize>);

#[cfg(not(Py_GIL_DISABLED))]
impl Flag {
    fn swap_if(&self, from: impl Fn(isize) -> bool, to: impl Fn(isize) -> isize) -> bool {
        let now = self.0.get();
        if from(now) {
            self.0.set(to(now));
            true
        } else {
            false
        }
    }
}

#[cfg(Py_GIL_DISABLED)]
#[derive(Default)]
struct Flag(std::sync::atomic::AtomicIsize);

#[cfg(Py_GIL_DISABLED)]
impl Flag {
    fn swap_if(&self, from: impl Fn(isize) -> bool, to: impl Fn(isize) -> isize) -> bool {
        use std::sync::atomic::Ordering;
        let mut now = self.0.load(Ordering::Relaxed);
        loop {
            if !from(now) {
                return false;
            }
            match self
                .0
                .compare_exchange(now, to(now), Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(seen) => now = seen,
            }
        }
    }
}

/// A value lent out by the rules of a `RefCell`.
pub(crate) struct Guarded<T> {
    flag: Flag,
    value: UnsafeCell<T>,
}

// SAFETY: the value is only reached through `read` and `write`, which lend it by the flag's rules
// (readers or one writer). With the GIL (every CPython but a free-threaded one) only the thread
// holding it runs Python methods, and handing the GIL over orders memory between threads, so the
// plain flag is never touched by two threads at once; without the GIL the flag is atomic and
// acquired before the value is read. `T: Send` lets the value be used from whichever thread borrows
// it.
unsafe impl<T: Send> Sync for Guarded<T> {}

impl<T> Guarded<T> {
    pub(crate) fn new(value: T) -> Self {
        Self {
            flag: Flag::default(),
            value: UnsafeCell::new(value),
        }
    }

    /// The value to read; `RuntimeError` while it is being written (a re-entrant call).
    pub(crate) fn read(&self) -> PyResult<Reading<'_, T>> {
        if self.flag.swap_if(|now| now >= 0, |now| now + 1) {
            Ok(Reading(self))
        } else {
            Err(PyRuntimeError::new_err("Already mutably borrowed"))
        }
    }

    /// The value to write; `RuntimeError` while it is being read or written (a re-entrant call).
    pub(crate) fn write(&self) -> PyResult<Writing<'_, T>> {
        if self.flag.swap_if(|now| now == 0, |_| WRITING) {
            Ok(Writing(self))
        } else {
            Err(PyRuntimeError::new_err("Already borrowed"))
        }
    }
}

/// A reader's loan of a [`Guarded`] value.
pub(crate) struct Reading<'a, T>(&'a Guarded<T>);

impl<T> Deref for Reading<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the flag counts this reader, so no writer holds the value.
        unsafe { &*self.0.value.get() }
    }
}

impl<T> Drop for Reading<'_, T> {
    fn drop(&mut self) {
        self.0.flag.swap_if(|_| true, |now| now - 1);
    }
}

/// The writer's loan of a [`Guarded`] value.
pub(crate) struct Writing<'a, T>(&'a Guarded<T>);

impl<T> Deref for Writing<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: the flag marks this loan as the only one.
        unsafe { &*self.0.value.get() }
    }
}

impl<T> DerefMut for Writing<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the flag marks this loan as the only one.
        unsafe { &mut *self.0.value.get() }
    }
}

impl<T> Drop for Writing<'_, T> {
    fn drop(&mut self) {
        self.0.flag.swap_if(|_| true, |_| 0);
    }
}
