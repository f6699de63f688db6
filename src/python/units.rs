//! A `str`'s characters as they are stored (PEP 393: one, two or four bytes each, as its kind
//! says), read and written without going through UTF-8: the runs of plain string content found
//! a block at a time, and `str`s made from a run of characters at the kind its widest one needs.
//!
//! A character's width in the source is a [`Unit`]: `u8` for ASCII and Latin-1 `str`s, `u16` for
//! those with a character from U+0100, `u32` for those with one beyond U+FFFF. The kind a run of
//! them needs is read from the bitwise OR of its characters: below 0x80 all are ASCII, below 0x100
//! all are Latin-1, below U+10000 all fit two bytes (the OR is below a power of two exactly when
//! every character is).

use pyo3::prelude::*;
use pyo3::types::PyString;

/// A character of a `str` as it is stored.
pub(crate) trait Unit: Copy + Into<u32> + Default + 'static {
    /// Units in a block: sixteen, whose bytes (16, 32 or 64) are compared a register at a time.
    const LANES: usize = 16;

    /// The unit of `character`, when it fits.
    fn from_char(character: u32) -> Option<Self>;

    /// The units as bytes, when they are bytes.
    fn bytes(units: &[Self]) -> Option<&[u8]>;

    /// The index in the first [`Self::LANES`] units of `units` of the first that ends a run of
    /// plain string content (a `"`, a `\` or a control character below U+0020), `LANES` when
    /// none does; `None` when `units` holds fewer than `LANES` units.
    fn block_end(units: &[Self]) -> Option<usize>;
}

/// Whether a character ends a run of plain string content.
fn ends_run(character: u32) -> bool {
    character == u32::from(b'"') || character == u32::from(b'\\') || character < 0x20
}

/// [`Unit::block_end`] a unit at a time, the way targets without SSE2 go.
#[cfg(any(not(target_arch = "x86_64"), tooljson_portable))]
fn block_end_units<T: Unit>(units: &[T]) -> Option<usize> {
    let block = units.get(..T::LANES)?;
    Some(
        block
            .iter()
            .position(|&unit| ends_run(unit.into()))
            .unwrap_or(T::LANES),
    )
}

/// The index of the first unit at or after `from` that ends a run of plain string content
/// (`units.len()` when none does): a block at a time, then a unit at a time for the tail.
pub(crate) fn run_end<T: Unit>(units: &[T], from: usize) -> usize {
    let mut at = from;
    while let Some(stop) = units.get(at..).and_then(T::block_end) {
        if stop < T::LANES {
            return at + stop;
        }
        at += T::LANES;
    }
    while units.get(at).is_some_and(|&unit| !ends_run(unit.into())) {
        at += 1;
    }
    at
}

/// [`run_end`], with the units from `from` up to the end copied to `out` on the way: each block
/// is appended whole (a copy of a size fixed at compile time), and the units past the end taken
/// off again.
pub(crate) fn copy_run<T: Unit>(units: &[T], from: usize, out: &mut Vec<T>) -> usize {
    let mut at = from;
    while let Some(block) = units.get(at..at + T::LANES) {
        let Some(stop) = T::block_end(block) else {
            break;
        };
        out.extend_from_slice(block);
        if stop < T::LANES {
            out.truncate(out.len() - (T::LANES - stop));
            return at + stop;
        }
        at += T::LANES;
    }
    while let Some(&unit) = units.get(at) {
        if ends_run(unit.into()) {
            break;
        }
        out.push(unit);
        at += 1;
    }
    at
}

/// The bitwise OR of `units`, from which [`make_str`] takes the kind they need.
pub(crate) fn bits<T: Unit>(units: &[T]) -> u32 {
    units.iter().fold(0, |bits, &unit| bits | unit.into())
}

impl Unit for u8 {
    fn from_char(character: u32) -> Option<Self> {
        Self::try_from(character).ok()
    }

    fn bytes(units: &[Self]) -> Option<&[u8]> {
        Some(units)
    }

    fn block_end(units: &[Self]) -> Option<usize> {
        #[cfg(all(target_arch = "x86_64", not(tooljson_portable)))]
        return units.first_chunk().map(sse2::block_end_u8);
        #[cfg(any(not(target_arch = "x86_64"), tooljson_portable))]
        block_end_units(units)
    }
}

impl Unit for u16 {
    fn from_char(character: u32) -> Option<Self> {
        Self::try_from(character).ok()
    }

    fn bytes(_units: &[Self]) -> Option<&[u8]> {
        None
    }

    fn block_end(units: &[Self]) -> Option<usize> {
        #[cfg(all(target_arch = "x86_64", not(tooljson_portable)))]
        return units.first_chunk().map(sse2::block_end_u16);
        #[cfg(any(not(target_arch = "x86_64"), tooljson_portable))]
        block_end_units(units)
    }
}

impl Unit for u32 {
    fn from_char(character: u32) -> Option<Self> {
        Some(character)
    }

    fn bytes(_units: &[Self]) -> Option<&[u8]> {
        None
    }

    fn block_end(units: &[Self]) -> Option<usize> {
        #[cfg(all(target_arch = "x86_64", not(tooljson_portable)))]
        return units.first_chunk().map(sse2::block_end_u32);
        #[cfg(any(not(target_arch = "x86_64"), tooljson_portable))]
        block_end_units(units)
    }
}

/// Sixteen units compared a register of sixteen bytes at a time, each width with its own
/// comparisons. A register's mask has one bit per byte, so two or four per unit; the masks of a
/// block's registers are put side by side, and the first unit that ends a run is their trailing
/// zeros over the unit's size. Sixteen units a step rather than one register's worth: on a file
/// write with 6% non-ASCII characters and 77 backslashes per KB (a four-byte text, runs of about
/// 13 characters between escapes), `loads` went from 0.64× to 0.56× of `json.loads`' time (two
/// runs of 61 paired rounds, `scripts/compare_loads.py`, load 10), and with the four-byte units
/// packed to bytes first (`block_end_u32`) from 0.62× to 0.55× (101 rounds each, load 11–13).
#[cfg(all(target_arch = "x86_64", not(tooljson_portable)))]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi16, _mm_cmpeq_epi8, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_packs_epi32, _mm_packus_epi16, _mm_set1_epi16,
        _mm_set1_epi8, _mm_setzero_si128, _mm_subs_epu8,
    };

    /// The sixteen bytes of `block` from its `R`-th sixteen.
    fn load<const R: usize, T, const N: usize>(block: &[T; N]) -> __m128i {
        const { assert!((R + 1) * 16 <= size_of::<[T; N]>()) };
        // SAFETY: SSE2 is part of the x86-64 baseline; `block` holds the `R`-th sixteen bytes
        // (checked at compile time), and `_mm_loadu_si128` takes any alignment.
        #[allow(clippy::cast_ptr_alignment)]
        unsafe {
            _mm_loadu_si128(block.as_ptr().cast::<__m128i>().add(R))
        }
    }

    /// The mask of a register's bytes, in the low sixteen bits.
    #[allow(clippy::cast_sign_loss)] // A mask of sixteen bits.
    fn mask(compared: __m128i) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        u64::from(unsafe { _mm_movemask_epi8(compared) } as u32)
    }

    /// The first unit of `size` bytes whose bytes are set in `mask` (sixteen units' worth), or 16.
    fn first(mask: u64, size: u32) -> usize {
        (mask.trailing_zeros().min(16 * size) / size) as usize
    }

    /// The bytes among sixteen that end a run.
    fn ends_u8(bytes: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe {
            let quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(0x22));
            let backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(0x5C));
            // Unsigned saturating subtraction leaves zero exactly for bytes up to 0x1F.
            let control = _mm_cmpeq_epi8(
                _mm_subs_epu8(bytes, _mm_set1_epi8(0x1F)),
                _mm_setzero_si128(),
            );
            _mm_or_si128(_mm_or_si128(quote, backslash), control)
        }
    }

    pub(super) fn block_end_u8(block: &[u8; 16]) -> usize {
        first(mask(ends_u8(load::<0, _, 16>(block))), 1)
    }

    /// The ends among eight two-byte units.
    fn ends_u16(wide: __m128i) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        mask(unsafe {
            let quote = _mm_cmpeq_epi16(wide, _mm_set1_epi16(0x22));
            let backslash = _mm_cmpeq_epi16(wide, _mm_set1_epi16(0x5C));
            // A control character has no bit set above the low five.
            #[allow(clippy::cast_possible_wrap)] // The bit pattern 0xFFE0.
            let high = _mm_and_si128(wide, _mm_set1_epi16(0xFFE0_u16 as i16));
            let control = _mm_cmpeq_epi16(high, _mm_setzero_si128());
            _mm_or_si128(_mm_or_si128(quote, backslash), control)
        })
    }

    pub(super) fn block_end_u16(block: &[u16; 16]) -> usize {
        first(
            ends_u16(load::<0, _, 16>(block)) | ends_u16(load::<1, _, 16>(block)) << 16,
            2,
        )
    }

    /// Sixteen four-byte units are first packed to sixteen bytes, each saturated (a character
    /// from U+0100 becomes 0xFF, which ends no run), and those compared as one-byte units: three
    /// packs and one register's comparisons rather than four registers' comparisons.
    pub(super) fn block_end_u32(block: &[u32; 16]) -> usize {
        // SAFETY: SSE2 is part of the x86-64 baseline. The characters are below 0x11_0000, so
        // positive as signed 32-bit lanes: the signed pack to 16 bits keeps those below 0x8000
        // and makes the others 0x7FFF, and the unsigned pack to 8 bits keeps those below 0x100
        // and makes the others 0xFF.
        let bytes = unsafe {
            _mm_packus_epi16(
                _mm_packs_epi32(load::<0, _, 16>(block), load::<1, _, 16>(block)),
                _mm_packs_epi32(load::<2, _, 16>(block), load::<3, _, 16>(block)),
            )
        };
        first(mask(ends_u8(bytes)), 1)
    }
}

/// The largest character of the kind that characters whose OR is `bits` need.
fn widest(bits: u32) -> u32 {
    match bits {
        0..0x80 => 0x7F,
        0x80..0x100 => 0xFF,
        0x100..0x1_0000 => 0xFFFF,
        _ => 0x10_FFFF,
    }
}

/// Writes `units` into `out` one by one, each cut to the width of `out` (which holds them all).
fn narrow<T: Unit, O: TryFrom<u32> + Default>(units: &[T], out: &mut [O]) {
    for (slot, &unit) in out.iter_mut().zip(units) {
        *slot = O::try_from(unit.into()).unwrap_or_default();
    }
}

/// The `str` of `units`, whose OR is `bits`: allocated once at the kind its widest character
/// needs and written in place (a copy when that is the source's width).
pub(crate) fn make_str<'py, T: Unit>(
    py: Python<'py>,
    units: &[T],
    bits: u32,
) -> PyResult<Bound<'py, PyString>> {
    if let [unit] = units {
        // CPython hands out its one shared `str` for each character below U+0100.
        // SAFETY: the character is below U+110000 (a `str` held it, or an escape made it); the
        // result is a new reference or NULL with an exception set.
        return unsafe {
            let object =
                pyo3::ffi::PyUnicode_FromOrdinal(i32::try_from((*unit).into()).unwrap_or_default());
            Ok(Bound::from_owned_ptr_or_err(py, object)?.cast_into_unchecked())
        };
    }
    let widest = widest(bits);
    let size = isize::try_from(units.len()).unwrap_or(isize::MAX);
    // SAFETY: PyUnicode_New returns a new, uninitialised str of `units.len()` characters of the
    // kind `widest` needs (one byte up to 0xFF, two up to 0xFFFF, four beyond), or NULL with an
    // exception set; its data is written whole below before the str is handed out. The OR of
    // the characters reaches the kind's lower bound, so the widest character does too, as
    // CPython requires of a str of that kind.
    unsafe {
        let object = pyo3::ffi::PyUnicode_New(size, widest);
        let string = Bound::from_owned_ptr_or_err(py, object)?;
        let data = pyo3::ffi::PyUnicode_DATA(object);
        let count = units.len();
        match widest {
            0x7F | 0xFF => narrow(
                units,
                std::slice::from_raw_parts_mut(data.cast::<u8>(), count),
            ),
            0xFFFF => narrow(
                units,
                std::slice::from_raw_parts_mut(data.cast::<u16>(), count),
            ),
            _ => narrow(
                units,
                std::slice::from_raw_parts_mut(data.cast::<u32>(), count),
            ),
        }
        Ok(string.cast_into_unchecked())
    }
}
