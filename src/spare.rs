//! Spare byte buffers, kept between texts. A text's buffers (its kept UTF-8, the open string's
//! content) grow with it, copying at each doubling, and are freed when it is done; a process that
//! parses one long call after another did that for each, and glibc, which returns the top of its
//! heap to the system once enough is free there, then served each call's buffers and its value's
//! long `str` with fresh pages: 134–136 page faults a call on the ~100 KB file writes. Taking the
//! buffers from here, no page fault and no copy: accumulate + finish took 0.61–0.77× the time on
//! the prose write and 0.56–0.59× on the file write (one build per process, 300 calls, two
//! processes per build, alternating), and went from 0.70–0.71× to 0.55× the pure-Python
//! accumulator's time on the prose write, 0.62–0.63× to 0.47× on the file write and 0.53–0.55× to
//! 0.38–0.39× on the code file write (a fresh process per build with the two accumulators alone, 41
//! paired rounds); the tiny call and the records did not move beyond noise.
//!
//! What is kept is bounded process-wide: at most [`KEPT`] buffers of at most [`LARGEST`] bytes
//! each. A buffer is taken and given back under a lock that is only tried: a thread that finds it
//! held makes a new buffer, or frees its own, rather than wait.

use std::sync::Mutex;

/// How many buffers are kept at most, process-wide.
const KEPT: usize = 4;

/// The largest capacity kept, in bytes; a larger buffer is freed.
const LARGEST: usize = 256 * 1024;

static SPARE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// An empty buffer: a spare one when there is one, else a new one.
pub(crate) fn take() -> Vec<u8> {
    SPARE
        .try_lock()
        .ok()
        .and_then(|mut spare| spare.pop())
        .unwrap_or_default()
}

/// Gives a buffer back, emptied, to be kept when there is room for it.
pub(crate) fn give(mut buffer: Vec<u8>) {
    if buffer.capacity() == 0 || buffer.capacity() > LARGEST {
        return;
    }
    if let Ok(mut spare) = SPARE.try_lock() {
        if spare.len() < KEPT {
            buffer.clear();
            spare.push(buffer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{give, take, KEPT, LARGEST, SPARE};

    #[test]
    fn a_buffer_given_back_comes_back_empty() {
        let mut buffer = take();
        buffer.extend_from_slice(b"{\"path\": \"notes.md\"}");
        give(buffer);
        // Other tests take and give concurrently: whichever buffer comes back, it is empty.
        assert!(take().is_empty());
    }

    #[test]
    fn what_is_kept_is_bounded() {
        for _ in 0..2 * KEPT {
            give(Vec::with_capacity(1024));
        }
        give(Vec::with_capacity(LARGEST + 1));
        let spare = SPARE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        assert!(spare.len() <= KEPT);
        assert!(spare
            .iter()
            .all(|buffer| buffer.capacity() <= LARGEST && buffer.is_empty()));
    }
}
