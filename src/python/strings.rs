//! Python `str`s made from the parser's decoded bytes, and read back: for the key cache, and a
//! fragment's UTF-8 for the parser (with the full API, encoded from the `str`'s own storage).
//!
//! The bytes are generalised UTF-8: lone surrogates (from `"\ud800"` escapes, or from fragments
//! that held them) are encoded as three bytes each, and come back as the same lone surrogates.
//!
//! Built against the stable ABI (the `abi3` feature), a `str` is made by CPython's UTF-8 decoder,
//! which starts from the narrowest kind and widens (copying) at the first wider character. With the
//! full API the `str` is allocated once with its final kind, from one pass that counts the
//! characters and finds the widest, and written in place (ASCII: one copy).
//!
//! Long text with wide characters went to CPython's decoder too until it was measured where it
//! counts: a string of four-byte characters is allocated there at four characters per byte of its
//! UTF-8 and shrunk at the end, and in a process that has just freed a `str` of the final size that
//! allocation is served with fresh pages (glibc's thresholds follow the sizes freed). The prose
//! write's 94 KB string took 84 page faults a call that way and none allocated at its size here.

use std::ffi::c_char;

use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::types::PyString;

#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
use super::blocks::Narrow;

/// Decodes generalised UTF-8 into a `str`.
pub(crate) fn decode<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyString>> {
    #[cfg(not(Py_LIMITED_API))]
    if let Some(string) = in_place::make(py, bytes) {
        return string;
    }
    decode_utf8(py, bytes)
}

/// CPython's decoder, `surrogatepass`: also the judge of bytes that are not generalised UTF-8.
fn decode_utf8<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyString>> {
    let length =
        isize::try_from(bytes.len()).map_err(|_| PyOverflowError::new_err("string too long"))?;
    // SAFETY: the pointer and length describe `bytes`, which outlives the call; the error handler
    // name is a NUL-terminated literal; the result is a new reference or NULL with an exception set.
    unsafe {
        let object = pyo3::ffi::PyUnicode_DecodeUTF8(
            bytes.as_ptr().cast::<c_char>(),
            length,
            c"surrogatepass".as_ptr(),
        );
        Ok(Bound::from_owned_ptr_or_err(py, object)?.cast_into_unchecked())
    }
}

/// The UTF-8 of a `str`, `None` when it has none (lone surrogates). An ASCII `str` holds it inline
/// (read without a call with the full API); any other keeps it once made.
pub(crate) fn utf8<'a>(string: &'a Bound<'_, PyString>) -> Option<&'a [u8]> {
    #[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
    if let Some(text) = kept_utf8(string) {
        return Some(text);
    }
    let mut length: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: `string` is a live str, borrowed for 'a, and CPython keeps the UTF-8 buffer it returns
    // alive as long as the str; on failure (NULL) the exception it set is cleared here.
    unsafe {
        let data = pyo3::ffi::PyUnicode_AsUTF8AndSize(string.as_ptr(), &raw mut length);
        if data.is_null() {
            pyo3::ffi::PyErr_Clear();
            return None;
        }
        Some(std::slice::from_raw_parts(
            data.cast::<u8>(),
            usize::try_from(length).ok()?,
        ))
    }
}

/// The UTF-8 a `str` holds already, without a call: a compact ASCII `str`'s own characters, or the
/// copy CPython made and keeps for another compact `str`; `None` when it holds none.
#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
pub(crate) fn kept_utf8<'a>(string: &'a Bound<'_, PyString>) -> Option<&'a [u8]> {
    let object = string.as_ptr();
    // SAFETY: `string` is a live str, borrowed for 'a. A compact ASCII str's data is its UTF-8,
    // `length` bytes long; another compact str's UTF-8 copy, when made, is `utf8_length` bytes at
    // `utf8`. Both live as long as the str.
    unsafe {
        if pyo3::ffi::PyUnicode_IS_COMPACT(object) == 0 {
            return None;
        }
        if pyo3::ffi::PyUnicode_IS_ASCII(object) != 0 {
            let length = usize::try_from(pyo3::ffi::PyUnicode_GET_LENGTH(object)).ok()?;
            let data = pyo3::ffi::PyUnicode_DATA(object).cast::<u8>();
            return Some(std::slice::from_raw_parts(data, length));
        }
        let compact = object.cast::<pyo3::ffi::PyCompactUnicodeObject>();
        let cached = (*compact).utf8;
        if cached.is_null() {
            return None;
        }
        let length = usize::try_from((*compact).utf8_length).ok()?;
        Some(std::slice::from_raw_parts(cached.cast::<u8>(), length))
    }
}

/// Appends the UTF-8 of a `str` to `out`, read from the `str`'s own storage (one, two or four
/// bytes a character, as its kind says) rather than through the UTF-8 copy CPython would make and
/// keep for it; lone surrogates become three bytes each, as `surrogatepass` writes them (the
/// generalised UTF-8 the parser reads). Returns the length in characters; `None` for a `str` that
/// is not compact (made by the legacy API), left to [`utf8`].
///
/// A delta is a new `str` each time: its UTF-8 made by CPython is a buffer allocated, written and
/// kept until the delta is freed, for a few dozen bytes. Against that, accumulate + finish with
/// deltas made anew for each run (as a stream makes them) took 0.92× and 0.91× the time on the
/// prose write, 0.94× and 0.92× on the code file write, 0.87× and 0.85× on the file write, 1.03×
/// and 0.99× on the escaped records (paired, 21 rounds, both builds in one process, loaded in
/// either order; quartiles ±0.05–0.10). The benchmarks pass the same delta objects every round,
/// whose UTF-8 the build before had CPython make once and then copied: there `python
/// benches/workloads.py` (one build per process) reads the prose write at 0.74–0.76× the pure
/// accumulator against 0.70–0.71×, the code file write 0.59–0.61× against 0.57–0.60×.
#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
pub(crate) fn append_utf8(string: &Bound<'_, PyString>, out: &mut Vec<u8>) -> Option<usize> {
    if let Some(bytes) = kept_utf8(string) {
        if let [byte] = bytes {
            // One-character deltas are common enough for a push to beat a copy of unknown length.
            out.push(*byte);
        } else {
            out.extend_from_slice(bytes);
        }
        return Some(length(string));
    }
    let object = string.as_ptr();
    // SAFETY: `string` is a live str. A compact one holds its characters right after its header,
    // `length` of them, of the width its kind gives, unchanged while it is borrowed here.
    unsafe {
        if pyo3::ffi::PyUnicode_IS_COMPACT(object) == 0 {
            return None;
        }
        let length = usize::try_from(pyo3::ffi::PyUnicode_GET_LENGTH(object)).ok()?;
        let data = pyo3::ffi::PyUnicode_DATA(object);
        match pyo3::ffi::PyUnicode_KIND(object) {
            pyo3::ffi::PyUnicode_1BYTE_KIND => {
                encode_latin1(std::slice::from_raw_parts(data.cast::<u8>(), length), out);
            }
            pyo3::ffi::PyUnicode_2BYTE_KIND => {
                encode_wide(std::slice::from_raw_parts(data.cast::<u16>(), length), out);
            }
            _ => encode_wide(std::slice::from_raw_parts(data.cast::<u32>(), length), out),
        }
        Some(length)
    }
}

/// The length of a `str`'s UTF-8 (a lone surrogate three bytes, as `surrogatepass` writes it),
/// counted from the `str`'s own storage without encoding it; `None` for a `str` that is not
/// compact. Every character is one byte and one more from each of U+0080, U+0800 and U+10000 on.
#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
pub(crate) fn utf8_length(string: &Bound<'_, PyString>) -> Option<usize> {
    let object = string.as_ptr();
    // SAFETY: as in `append_utf8`: a compact str holds `length` characters of its kind's width
    // right after its header, unchanged while it is borrowed here.
    unsafe {
        if pyo3::ffi::PyUnicode_IS_COMPACT(object) == 0 {
            return None;
        }
        let length = usize::try_from(pyo3::ffi::PyUnicode_GET_LENGTH(object)).ok()?;
        if pyo3::ffi::PyUnicode_IS_ASCII(object) != 0 {
            return Some(length);
        }
        let data = pyo3::ffi::PyUnicode_DATA(object);
        let extra = match pyo3::ffi::PyUnicode_KIND(object) {
            pyo3::ffi::PyUnicode_1BYTE_KIND => {
                extra_utf8_bytes(std::slice::from_raw_parts(data.cast::<u8>(), length))
            }
            pyo3::ffi::PyUnicode_2BYTE_KIND => {
                extra_utf8_bytes(std::slice::from_raw_parts(data.cast::<u16>(), length))
            }
            _ => extra_utf8_bytes(std::slice::from_raw_parts(data.cast::<u32>(), length)),
        };
        Some(length + extra)
    }
}

/// The bytes the UTF-8 of `characters` takes beyond one a character. Summed in a `u32` for each
/// run of 4,096 characters (at most three a character), which the compiler adds four at a time.
#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
fn extra_utf8_bytes<T: Copy + Into<u32>>(characters: &[T]) -> usize {
    characters
        .chunks(4096)
        .map(|run| {
            let extra: u32 = run
                .iter()
                .map(|&character| {
                    let character: u32 = character.into();
                    u32::from(character >= 0x80)
                        + u32::from(character >= 0x800)
                        + u32::from(character >= 0x1_0000)
                })
                .sum();
            extra as usize
        })
        .sum()
}

/// The UTF-8 of one-byte-a-character text (below U+0100). Up to [`LONG_TEXT`] characters (a
/// delta), every character is written as two bytes, the first of which is the character itself
/// when it is ASCII, and the cursor moves past one or both: no branch on the character, which
/// text with a few accented letters mispredicted. Accumulate + finish took 0.97–0.98× the time on
/// the Latin-script file write (paired, both builds in one process, 41 rounds, either order).
#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
fn encode_latin1(characters: &[u8], out: &mut Vec<u8>) {
    if characters.len() > LONG_TEXT {
        encode_into(characters, 2, out);
        return;
    }
    out.reserve(characters.len() * 2);
    let length = out.len();
    let start = out.spare_capacity_mut().as_mut_ptr().cast::<u8>();
    let mut cursor = start;
    // SAFETY: the room after `length` holds two bytes per character, and the cursor has moved
    // at most two bytes for each character before this one, so each pair written fits. The bytes
    // up to the cursor, all written, are then counted into the length.
    unsafe {
        for &character in characters {
            let wide = character >> 7;
            let first = if wide == 0 {
                character
            } else {
                0xC0 | (character >> 6)
            };
            cursor
                .cast::<[u8; 2]>()
                .write_unaligned([first, 0x80 | (character & 0x3F)]);
            cursor = cursor.add(1 + usize::from(wide));
        }
        out.set_len(length + usize::try_from(cursor.offset_from(start)).unwrap_or_default());
    }
}

/// The generalised UTF-8 of two- or four-byte-a-character text; a surrogate (which a `str` may
/// hold alone) is written as any other character of its range, in three bytes.
#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
fn encode_wide<T: Narrow>(characters: &[T], out: &mut Vec<u8>) {
    encode_into(characters, 4, out);
}

/// Appends the UTF-8 of `characters`, each of at most `widest` bytes, to `out`: written into room
/// reserved once, without a check of the room per character. Against a push per character, the
/// prose write's accumulate + finish took 0.99× the time (paired, both builds in one process, 41
/// rounds; the same build against itself 1.00–1.01×).
///
/// Text of more than [`LONG_TEXT`] characters (a whole text given to `loads`, a long delta) is
/// narrowed eight characters at a time, and the cursor moves past the ASCII ones among them (the
/// bytes after those are written over next); a character that is not ASCII is encoded alone.
/// `tooljson.loads` of a text (joined anew for each call, as a stream's text is), encoded so
/// rather than by CPython's encoder, took 0.68× the time on the Latin-script file write (110 µs
/// against 160 µs), 0.94× on the prose write, 0.95× on the file write and 0.97–1.00× on the code
/// file write and the records (one build per process, three processes each, alternating). On
/// deltas (about 16 characters in the prose write) the blocks bought nothing: accumulate + finish
/// took 1.00–1.02× the time, so text up to this length is encoded a character at a time.
#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
fn encode_into<T: Narrow>(characters: &[T], widest: usize, out: &mut Vec<u8>) {
    out.reserve(characters.len() * widest);
    let length = out.len();
    let start = out.spare_capacity_mut().as_mut_ptr().cast::<u8>();
    let mut cursor = start;
    let mut rest = characters;
    // SAFETY: the room after `length` holds at least `widest` (2 or 4) bytes per character. A
    // block of eight is narrowed only while eight characters are left, so its bytes fit in the
    // room those take at the least; the cursor then moves past the ASCII ones alone, each of
    // which took one byte of its room, and any other character writes at most `widest`. The
    // bytes up to the cursor, all written, are then counted into the length.
    unsafe {
        if characters.len() > LONG_TEXT {
            while let Some((block, _)) = rest.split_first_chunk::<8>() {
                let (bytes, ascii) = T::narrow(block);
                cursor.cast::<[u8; 8]>().write_unaligned(bytes);
                cursor = cursor.add(ascii);
                if let Some(&character) = block.get(ascii) {
                    cursor = encode_one(character.into(), cursor);
                    rest = rest.get(ascii + 1..).unwrap_or_default();
                } else {
                    rest = rest.get(8..).unwrap_or_default();
                }
            }
        }
        for &character in rest {
            cursor = encode_one(character.into(), cursor);
        }
        out.set_len(length + usize::try_from(cursor.offset_from(start)).unwrap_or_default());
    }
}

/// Text longer than this many characters is encoded eight characters a step where they are ASCII.
#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
const LONG_TEXT: usize = 64;

/// Writes the UTF-8 of one character (a surrogate as any other of its range, in three bytes) at
/// `cursor` and returns the cursor past it.
///
/// # Safety
/// `cursor` must have room for the character's bytes.
#[cfg(not(any(Py_LIMITED_API, Py_3_14)))]
#[inline]
unsafe fn encode_one(character: u32, cursor: *mut u8) -> *mut u8 {
    // SAFETY: the caller gives room for the character's bytes. The casts keep the low bits of
    // values already shifted and masked below 0x100.
    #[allow(clippy::cast_possible_truncation)]
    unsafe {
        match character {
            0..=0x7F => {
                cursor.write(character as u8);
                cursor.add(1)
            }
            0x80..=0x7FF => {
                cursor.write(0xC0 | (character >> 6) as u8);
                cursor.add(1).write(0x80 | (character & 0x3F) as u8);
                cursor.add(2)
            }
            0x800..=0xFFFF => {
                cursor.write(0xE0 | (character >> 12) as u8);
                cursor.add(1).write(0x80 | ((character >> 6) & 0x3F) as u8);
                cursor.add(2).write(0x80 | (character & 0x3F) as u8);
                cursor.add(3)
            }
            _ => {
                cursor.write(0xF0 | (character >> 18) as u8);
                cursor.add(1).write(0x80 | ((character >> 12) & 0x3F) as u8);
                cursor.add(2).write(0x80 | ((character >> 6) & 0x3F) as u8);
                cursor.add(3).write(0x80 | (character & 0x3F) as u8);
                cursor.add(4)
            }
        }
    }
}

/// A `str`'s length in characters.
pub(crate) fn length(string: &Bound<'_, PyString>) -> usize {
    // SAFETY: `string` is a live str; both only read its length, which is never negative.
    let length = unsafe {
        #[cfg(not(Py_LIMITED_API))]
        let length = pyo3::ffi::PyUnicode_GET_LENGTH(string.as_ptr());
        #[cfg(Py_LIMITED_API)]
        let length = pyo3::ffi::PyUnicode_GetLength(string.as_ptr());
        length
    };
    usize::try_from(length).unwrap_or_default()
}

/// The characters of generalised UTF-8 and the width they need, and their decoding into a buffer of
/// that width: what `long_string.rs` decodes a streaming string with, into a buffer of its own.
#[cfg(not(Py_LIMITED_API))]
pub(crate) use in_place::{measure_long as measure_utf8, write as write_utf8};

#[cfg(not(Py_LIMITED_API))]
mod in_place {
    use pyo3::prelude::*;
    use pyo3::types::PyString;

    use super::super::blocks::Wide;

    /// Text longer than this many bytes is first checked for ASCII as a whole (a pass that stops
    /// at the first byte that is not), which is then one copy.
    const SHORT: usize = 64;

    /// The characters of generalised UTF-8 and the greatest code point its widest one can have
    /// (0x7F, 0xFF, 0xFFFF or 0x10FFFF: all that picks the `str`'s kind), counted without decoding.
    /// Every byte that is not a continuation byte (`10xxxxxx`) begins a character, and the widest
    /// character's range follows from the greatest byte: up to 0x7F ASCII, up to 0xC3 (the lead
    /// bytes of U+0080..U+00FF) one byte a character, up to 0xEF two, beyond four. Exact for
    /// generalised UTF-8; for anything else `write`, which decodes and checks every sequence, fails
    /// and the decoder says why. Against decoding each character to measure (the loop `write`
    /// runs), `tooljson.loads` took 0.95–0.98× the time on the escaped records, the same on the
    /// others (paired, 301 rounds, both builds in one process, either order). The continuation
    /// bytes are counted in a `u8` (at most [`SHORT`] bytes come here), which the compiler counts
    /// sixteen bytes a step; counted in a `usize`, every byte was widened to 64 bits first. On a
    /// list of the escaped records' `bio` strings, `tooljson.loads` took 0.94× the time (paired,
    /// 2001 rounds); the records as a whole did not move beyond noise.
    fn measure(bytes: &[u8]) -> (usize, u32) {
        debug_assert!(bytes.len() <= SHORT);
        let mut continuations: u8 = 0;
        let mut greatest = 0;
        for &byte in bytes {
            continuations += u8::from(byte & 0xC0 == 0x80);
            greatest = greatest.max(byte);
        }
        let widest = match greatest {
            0x00..=0x7F => 0x7F,
            0x80..=0xC3 => 0xFF,
            0xC4..=0xEF => 0xFFFF,
            _ => 0x10_FFFF,
        };
        (bytes.len() - usize::from(continuations), widest)
    }

    /// [`measure`] for text of any length, [`SHORT`] bytes at a time.
    pub(crate) fn measure_long(bytes: &[u8]) -> (usize, u32) {
        bytes
            .chunks(SHORT)
            .map(measure)
            .fold((0, 0), |(characters, widest), (more, wider)| {
                (characters + more, widest.max(wider))
            })
    }

    /// The character at `at` and its length in bytes; `None` when no valid sequence starts there.
    /// Inlined into `write`'s loop, `tooljson.loads` of the prose write's string took 0.91× the
    /// time (paired, both builds in one process, 41 rounds, either order).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn next(bytes: &[u8], at: usize) -> Option<(u32, usize)> {
        let lead = *bytes.get(at)?;
        let continuation = |offset: usize| {
            bytes
                .get(at + offset)
                .filter(|&&byte| byte & 0xC0 == 0x80)
                .map(|&byte| u32::from(byte & 0x3F))
        };
        match lead {
            0x00..=0x7F => Some((u32::from(lead), 1)),
            0xC2..=0xDF => Some(((u32::from(lead & 0x1F) << 6) | continuation(1)?, 2)),
            0xE0..=0xEF => {
                let character =
                    (u32::from(lead & 0x0F) << 12) | (continuation(1)? << 6) | continuation(2)?;
                (character >= 0x800).then_some((character, 3))
            }
            0xF0..=0xF4 => {
                let character = (u32::from(lead & 0x07) << 18)
                    | (continuation(1)? << 12)
                    | (continuation(2)? << 6)
                    | continuation(3)?;
                (0x1_0000..=0x10_FFFF)
                    .contains(&character)
                    .then_some((character, 4))
            }
            _ => None,
        }
    }

    /// Writes the characters of `bytes` (already measured: exactly `out.len()` of them) into `out`.
    /// Sixteen bytes are stored at a time, widened, and the cursors move past the ASCII ones among
    /// them (the slots after those are written again); a character that is not ASCII is decoded
    /// alone.
    ///
    /// Against CPython's decoder for text over 64 bytes, `tooljson.loads` took 0.43× the time on
    /// the prose write (1.60× `json.loads`' before, 0.69× now), 0.93–1.00× on the file write and
    /// 1.00× on the code file write, the records alike (paired, both builds in one process, 61
    /// rounds, either order). Eight bytes a step, stored one by one, took the file writes to
    /// 1.05–1.15×.
    pub(crate) fn write<T: Wide>(bytes: &[u8], out: &mut [T]) -> Option<()> {
        let mut at = 0;
        let mut written = 0;
        while written < out.len() {
            if let (Some(block), Some(slots)) =
                (bytes.get(at..at + 16), out.get_mut(written..written + 16))
            {
                let ascii = T::widen(block.try_into().ok()?, slots.try_into().ok()?);
                at += ascii;
                written += ascii;
                if ascii == 16 {
                    continue;
                }
            }
            // A character that is not ASCII, or one of the last fifteen bytes, and any that are
            // not ASCII right after it: CJK text is a run of them.
            loop {
                let (character, length) = next(bytes, at)?;
                *out.get_mut(written)? = T::try_from(character).ok()?;
                at += length;
                written += 1;
                if bytes.get(at).is_none_or(|&byte| byte < 0x80) {
                    break;
                }
            }
        }
        (at == bytes.len()).then_some(())
    }

    /// `write` for text whose characters all lie below U+0100, each an ASCII byte or a lead byte
    /// 0xC2 or 0xC3 and one continuation byte, into a one-byte-a-character `str`. On a list of
    /// 3,000 such strings of 20–60 bytes, `tooljson.loads` took 0.79× the time of `write`'s loop
    /// (paired, 201 rounds); a version without a branch on the bytes took 1.37×.
    fn write_latin1(bytes: &[u8], out: &mut [u8]) -> Option<()> {
        let mut input = bytes.iter();
        for slot in out {
            let lead = *input.next()?;
            *slot = match lead {
                0x00..=0x7F => lead,
                0xC2 | 0xC3 => {
                    let continuation = *input.next()?;
                    if continuation & 0xC0 != 0x80 {
                        return None;
                    }
                    (lead << 6) | (continuation & 0x3F)
                }
                _ => return None,
            };
        }
        input.next().is_none().then_some(())
    }

    /// The `str` of `bytes`, allocated with its final kind and written in place; `None` when the
    /// bytes are not generalised UTF-8 (CPython's decoder then says why).
    pub(super) fn make<'py>(
        py: Python<'py>,
        bytes: &[u8],
    ) -> Option<PyResult<Bound<'py, PyString>>> {
        if bytes.len() < 2 {
            // CPython hands out its one shared `str` for each of these.
            return None;
        }
        let (characters, widest) = if bytes.len() <= SHORT {
            measure(bytes)
        } else if bytes.is_ascii() {
            (bytes.len(), 0x7F)
        } else {
            measure_long(bytes)
        };
        let size = isize::try_from(characters).ok()?;
        // SAFETY: PyUnicode_New returns a new, uninitialised str of `characters` characters of the
        // kind that `widest` needs, or NULL with an exception set. Its data is written whole below
        // before the str is handed out; one that could not be written is released.
        unsafe {
            let object = pyo3::ffi::PyUnicode_New(size, widest);
            let string = match Bound::from_owned_ptr_or_err(py, object) {
                Ok(string) => string,
                Err(error) => return Some(Err(error)),
            };
            let data = pyo3::ffi::PyUnicode_DATA(object);
            let written = if widest < 0x80 {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), data.cast::<u8>(), characters);
                Some(())
            } else if widest < 0x100 {
                let out = std::slice::from_raw_parts_mut(data.cast::<u8>(), characters);
                if bytes.len() <= SHORT {
                    write_latin1(bytes, out)
                } else {
                    write(bytes, out)
                }
            } else if widest < 0x1_0000 {
                write(
                    bytes,
                    std::slice::from_raw_parts_mut(data.cast::<u16>(), characters),
                )
            } else {
                write(
                    bytes,
                    std::slice::from_raw_parts_mut(data.cast::<u32>(), characters),
                )
            };
            written.map(|()| Ok(string.cast_into_unchecked()))
        }
    }
}
