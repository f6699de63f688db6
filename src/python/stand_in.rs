//! Preview stand-ins: the string still being read, shown at its place in the value.
//!
//! A preview puts a `str` of the open string's content where the finished string will go (as the
//! value of its key, or as the last item of its array) and marks the frame; the finished string
//! replaces the stand-in in place, and a later preview replaces it with a longer one.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use super::builder::Builder;
use super::convert::{dict_set, list_append, list_set_last, truncate_chars};
use super::strings::decode;

/// How previews show strings that are still being read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PreviewOptions {
    /// Show open strings as they grow (else only complete strings appear).
    pub(crate) partial_strings: bool,
    /// Show at most this many characters of an open string.
    pub(crate) string_limit: Option<usize>,
}

impl Default for PreviewOptions {
    fn default() -> Self {
        Self {
            partial_strings: true,
            string_limit: None,
        }
    }
}

/// Open strings up to this many bytes are shown in full by every preview.
const EXACT_PARTIAL_BYTES: usize = 8 * 1024;

/// Whether a preview shows the open string anew. A longer open string is shown again once it has
/// grown by a sixteenth since it was last shown: every preview re-creates the whole `str`, so this
/// keeps the total work of a preview after every delta linear in the string's length (at most 17
/// times it), at the cost of holding back at most a sixteenth of a long string's newest text. The
/// events give every piece of text as it arrives, for views that follow a long string closely.
/// On the ~100 KB file-write stream this took a preview after every delta from 324 ms to 9 ms.
fn needs_refresh(shown: Option<usize>, length: usize) -> bool {
    match shown {
        None => true,
        Some(shown) if shown == length => false,
        Some(shown) => length <= EXACT_PARTIAL_BYTES || (length - shown) * 16 >= shown,
    }
}

impl Builder {
    /// The value so far, with the string being read (`open`, decoded bytes) shown in its place.
    ///
    /// The preview is the value under construction itself: completed members are never rebuilt,
    /// so a call costs O(1) plus the length of the open string (capped by `string_limit`).
    pub(crate) fn preview(
        &mut self,
        py: Python<'_>,
        open: Option<&[u8]>,
        options: PreviewOptions,
    ) -> PyResult<Py<PyAny>> {
        if let (Some(content), true, None) = (open, options.partial_strings, &self.failure) {
            if needs_refresh(self.partial_shown, content.len()) {
                self.show_partial(py, truncate_chars(content, options.string_limit))?;
                self.partial_shown = Some(content.len());
            }
        }
        Ok(self.root(py))
    }

    /// A snapshot of the value to hand out: the root with every open container replaced by a
    /// shallow copy (complete members are shared: nothing changes them any more), and the copy of
    /// the innermost open container. `None` when no container is open.
    pub(crate) fn spine_copy<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)>> {
        let mut spine: Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)> = None;
        let mut previous: Option<&super::builder::Frame> = None;
        for frame in &self.stack {
            let container = frame.container.bind(py);
            let copy = if frame.is_object {
                container.cast::<PyDict>()?.copy()?.into_any()
            } else {
                let list = container.cast::<PyList>()?;
                list.get_slice(0, list.len()).into_any()
            };
            spine = Some(match (spine, previous) {
                (Some((top, parent)), Some(parent_frame)) => {
                    let position = parent_frame.child_position(py)?;
                    if parent_frame.is_object {
                        parent
                            .cast::<PyDict>()?
                            .set_item(position.cast::<PyString>()?, &copy)?;
                    } else {
                        parent
                            .cast::<PyList>()?
                            .set_item(position.extract::<usize>()?, &copy)?;
                    }
                    (top, copy)
                }
                _ => (copy.clone(), copy),
            });
            previous = Some(frame);
        }
        Ok(spine)
    }

    fn show_partial(&mut self, py: Python<'_>, content: &[u8]) -> PyResult<()> {
        self.release_partial(py)?;
        let partial = decode(py, content)?.into_any();
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(partial.unbind());
            return Ok(());
        };
        if frame.is_object {
            let Some(key) = &frame.key else { return Ok(()) };
            dict_set(py, &frame.container, key.bind(py), &partial)?;
        } else if frame.holds_partial {
            list_set_last(py, &frame.container, partial)?;
        } else {
            list_append(py, &frame.container, &partial)?;
        }
        frame.holds_partial = true;
        Ok(())
    }

    /// Drops the preview's stand-in for the open string before a new `str` is made for it, so that
    /// a long string is not held twice at once. Nothing can observe the gap: the GIL is held.
    pub(super) fn release_partial(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(frame) = self.stack.last_mut() else {
            if self.partial_shown.is_some() {
                if let Some(root) = self.root.take() {
                    root.drop_ref(py);
                }
            }
            return Ok(());
        };
        if !frame.holds_partial {
            return Ok(());
        }
        if frame.is_object {
            if let Some(key) = &frame.key {
                dict_set(
                    py,
                    &frame.container,
                    key.bind(py),
                    &py.None().into_bound(py),
                )?;
            }
        } else {
            list_set_last(py, &frame.container, py.None().into_bound(py))?;
        }
        Ok(())
    }
}
