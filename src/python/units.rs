//! A `str`'s characters as they are stored (PEP 393: one, two or four bytes each, as its kind
//! says), read and written without going through UTF-8: the runs of plain string content found
//! a block at a time, and `str`s made from a run of characters at the kind its widest one needs.
//!
//! A character's width in the source is a [`Unit`]: `u8` for ASCII and Latin-1 `str`s, `u16` for
//! those with a character from U+0100, `u32` for those with one beyond U+FFFF. The kind a run of
//! them needs is read from the bitwise OR of its characters: below 0x80 all are ASCII, below 0x100
//! all are Latin-1, below 0x1_0000 all fit two bytes (the OR is below a power of two exactly when
//! every character is).

use pyo3::prelude::*;
use pyo3::types::PyString;

/// A character of a `str` as it is stored.
pub(crate) trait Unit: Copy + Into<u32> + Default + 'static {
    /// The unit of `character`, when it fits.
    fn from_char(character: u32) -> Option<Self>;

    /// The units as bytes, when they are bytes.
    fn bytes(units: &[Self]) -> Option<&[u8]>;

    /// The index of the first unit at or after `from` that ends a run of plain string content (a
    /// `"`, a `\` or a control character below U+0020; `units.len()` when none does), and the
    /// bitwise OR of the units from `from` up to it.
    fn run_end(units: &[Self], from: usize) -> (usize, u32);
}

/// Whether a character ends a run of plain string content.
fn ends_run(character: u32) -> bool {
    character == u32::from(b'"') || character == u32::from(b'\\') || character < 0x20
}

/// [`Unit::run_end`] a unit at a time: the whole scan without SSE2, and the tail of one with it.
fn run_end_units<T: Unit>(units: &[T], from: usize, mut bits: u32) -> (usize, u32) {
    let mut at = from;
    while let Some(&unit) = units.get(at) {
        let character = unit.into();
        if ends_run(character) {
            break;
        }
        bits |= character;
        at += 1;
    }
    (at, bits)
}

impl Unit for u8 {
    fn from_char(character: u32) -> Option<Self> {
        Self::try_from(character).ok()
    }

    fn bytes(units: &[Self]) -> Option<&[u8]> {
        Some(units)
    }

    fn run_end(units: &[Self], from: usize) -> (usize, u32) {
        #[cfg(all(target_arch = "x86_64", not(tooljson_portable)))]
        {
            let (at, bits) = sse2::run_end_u8(units, from);
            run_end_units(units, at, bits)
        }
        #[cfg(any(not(target_arch = "x86_64"), tooljson_portable))]
        run_end_units(units, from, 0)
    }
}

impl Unit for u16 {
    fn from_char(character: u32) -> Option<Self> {
        Self::try_from(character).ok()
    }

    fn bytes(_units: &[Self]) -> Option<&[u8]> {
        None
    }

    fn run_end(units: &[Self], from: usize) -> (usize, u32) {
        #[cfg(all(target_arch = "x86_64", not(tooljson_portable)))]
        {
            let (at, bits) = sse2::run_end_u16(units, from);
            run_end_units(units, at, bits)
        }
        #[cfg(any(not(target_arch = "x86_64"), tooljson_portable))]
        run_end_units(units, from, 0)
    }
}

impl Unit for u32 {
    fn from_char(character: u32) -> Option<Self> {
        Some(character)
    }

    fn bytes(_units: &[Self]) -> Option<&[u8]> {
        None
    }

    fn run_end(units: &[Self], from: usize) -> (usize, u32) {
        #[cfg(all(target_arch = "x86_64", not(tooljson_portable)))]
        {
            let (at, bits) = sse2::run_end_u32(units, from);
            run_end_units(units, at, bits)
        }
        #[cfg(any(not(target_arch = "x86_64"), tooljson_portable))]
        run_end_units(units, from, 0)
    }
}

/// Sixteen bytes of units compared at once: each width has its own comparisons, and a block's
/// end-of-run mask has one bit per byte (so two or four per unit). A block with no end of run
/// adds its units to a running OR, folded to one value at the end; the block with the end leaves
/// the units before it to the unit loop, which also takes the last block's tail.
#[cfg(all(target_arch = "x86_64", not(tooljson_portable)))]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi16, _mm_cmpeq_epi32, _mm_cmpeq_epi8,
        _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi16, _mm_set1_epi32,
        _mm_set1_epi8, _mm_setzero_si128, _mm_storeu_si128, _mm_subs_epu8,
    };

    /// The sixteen bytes at `units[at..]`, when the slice has them.
    fn load<T>(units: &[T], at: usize, lanes: usize) -> Option<__m128i> {
        let block = units.get(at..at + lanes)?;
        // SAFETY: SSE2 is part of the x86-64 baseline; `block` is `lanes` units of
        // `16 / lanes` bytes, sixteen readable bytes, and `_mm_loadu_si128` takes any alignment.
        #[allow(clippy::cast_ptr_alignment)]
        Some(unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) })
    }

    /// The OR of a vector's four 32-bit lanes.
    fn fold(vector: __m128i) -> u32 {
        let mut lanes = [0u32; 4];
        // SAFETY: `lanes` is sixteen writable bytes; `_mm_storeu_si128` takes any alignment.
        #[allow(clippy::cast_ptr_alignment)]
        unsafe {
            _mm_storeu_si128(lanes.as_mut_ptr().cast::<__m128i>(), vector);
        }
        lanes.iter().fold(0, |bits, &lane| bits | lane)
    }

    /// Where the first block with an end of run starts (or the last whole block ends), and the
    /// OR of the units before it, for units of `lanes` to the sixteen bytes whose end-of-run mask
    /// `ends` gives. `widen` turns the OR of whole blocks into the OR of their units.
    #[allow(clippy::cast_sign_loss)] // Masks of sixteen bits.
    fn scan<T>(
        units: &[T],
        from: usize,
        lanes: usize,
        ends: impl Fn(__m128i) -> i32,
        widen: impl Fn(u32) -> u32,
    ) -> (usize, u32) {
        let mut at = from;
        // SAFETY: SSE2 is part of the x86-64 baseline.
        let mut seen = unsafe { _mm_setzero_si128() };
        while let Some(block) = load(units, at, lanes) {
            if ends(block) != 0 {
                break;
            }
            // SAFETY: as above.
            seen = unsafe { _mm_or_si128(seen, block) };
            at += lanes;
        }
        (at, widen(fold(seen)))
    }

    /// One-byte units: the OR of the 32-bit lanes is the OR of their four bytes folded together.
    pub(super) fn run_end_u8(units: &[u8], from: usize) -> (usize, u32) {
        scan(
            units,
            from,
            16,
            |bytes| {
                // SAFETY: SSE2 is part of the x86-64 baseline.
                unsafe {
                    let quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(0x22));
                    let backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(0x5C));
                    // Unsigned saturating subtraction leaves zero exactly for bytes up to 0x1F.
                    let control = _mm_cmpeq_epi8(
                        _mm_subs_epu8(bytes, _mm_set1_epi8(0x1F)),
                        _mm_setzero_si128(),
                    );
                    _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control))
                }
            },
            |bits| (bits | bits >> 8 | bits >> 16 | bits >> 24) & 0xFF,
        )
    }

    /// Two-byte units: a control character is one with no bit above the low five.
    pub(super) fn run_end_u16(units: &[u16], from: usize) -> (usize, u32) {
        scan(
            units,
            from,
            8,
            |wide| {
                // SAFETY: SSE2 is part of the x86-64 baseline.
                unsafe {
                    let quote = _mm_cmpeq_epi16(wide, _mm_set1_epi16(0x22));
                    let backslash = _mm_cmpeq_epi16(wide, _mm_set1_epi16(0x5C));
                    #[allow(clippy::cast_possible_wrap)] // The bit pattern 0xFFE0.
                    let high = _mm_and_si128(wide, _mm_set1_epi16(0xFFE0_u16 as i16));
                    let control = _mm_cmpeq_epi16(high, _mm_setzero_si128());
                    _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control))
                }
            },
            |bits| (bits | bits >> 16) & 0xFFFF,
        )
    }

    /// Four-byte units, compared as 32-bit lanes.
    pub(super) fn run_end_u32(units: &[u32], from: usize) -> (usize, u32) {
        scan(
            units,
            from,
            4,
            |wide| {
                // SAFETY: SSE2 is part of the x86-64 baseline.
                unsafe {
                    let quote = _mm_cmpeq_epi32(wide, _mm_set1_epi32(0x22));
                    let backslash = _mm_cmpeq_epi32(wide, _mm_set1_epi32(0x5C));
                    let high = _mm_and_si128(wide, _mm_set1_epi32(!0x1F));
                    let control = _mm_cmpeq_epi32(high, _mm_setzero_si128());
                    _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control))
                }
            },
            |bits| bits,
        )
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
