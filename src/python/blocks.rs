//! Blocks of text moved between UTF-8 and a `str`'s storage (one, two or four bytes a character)
//! several characters a step: sixteen bytes widened to characters when a `str` is written
//! ([`Wide`]), eight characters cut to bytes when a `str`'s UTF-8 is read ([`Narrow`]). Each
//! returns how many of its characters, from the first, are ASCII, which is as far as the copy is
//! right; the caller decodes or encodes the character after those alone.
//!
//! With SSE2 (part of every x86-64 CPU) a block is one load, a few unpacks or packs and one or two
//! stores; elsewhere, and with `RUSTFLAGS="--cfg tooljson_portable"`, a character at a time (the
//! compiler did not vectorise that loop on x86-64: the mask was built bit by bit).

/// A character of a `str`, written from UTF-8 (one byte wide for text beyond ASCII below U+0100:
/// the bytes are then copied as they are, not widened).
pub(crate) trait Wide: From<u8> + TryFrom<u32> + Copy {
    /// Stores the sixteen bytes of `block` into `slots`, each widened to a character, and
    /// returns how many of them, from the first, are ASCII (16 when all are).
    fn widen(block: &[u8; 16], slots: &mut [Self; 16]) -> usize;
}

/// A character of a `str`, one, two or four bytes wide, read out as UTF-8.
#[cfg(not(Py_3_14))]
pub(crate) trait Narrow: Copy + Into<u32> {
    /// The eight characters of `block`, each cut to its low byte, and how many of them, from the
    /// first, are ASCII (8 when all are): the bytes up to there are their UTF-8.
    fn narrow(block: &[Self; 8]) -> ([u8; 8], usize);
}

/// One-byte characters are already bytes: eight read as a word, their top bits masked.
#[cfg(not(Py_3_14))]
impl Narrow for u8 {
    fn narrow(block: &[u8; 8]) -> ([u8; 8], usize) {
        let high = u64::from_le_bytes(*block) & 0x8080_8080_8080_8080;
        (*block, (high.trailing_zeros() / 8) as usize)
    }
}

/// [`Wide::widen`] a byte at a time.
#[cfg(any(not(target_arch = "x86_64"), tooljson_portable))]
fn widen_bytes<T: From<u8>>(block: &[u8; 16], slots: &mut [T; 16]) -> usize {
    for (slot, &byte) in slots.iter_mut().zip(block) {
        *slot = T::from(byte);
    }
    let high = u128::from_le_bytes(*block) & 0x8080_8080_8080_8080_8080_8080_8080_8080;
    (high.trailing_zeros() / 8) as usize
}

/// [`Narrow::narrow`] a character at a time.
#[cfg(all(not(Py_3_14), any(not(target_arch = "x86_64"), tooljson_portable)))]
fn narrow_characters<T: Copy + Into<u32>>(block: &[T; 8]) -> ([u8; 8], usize) {
    let mut bytes = [0; 8];
    for (byte, &character) in bytes.iter_mut().zip(block) {
        // The low byte is all that is kept: it is the character where the character is ASCII.
        #[allow(clippy::cast_possible_truncation)]
        {
            *byte = character.into() as u8;
        }
    }
    let ascii = block
        .iter()
        .position(|&character| character.into() >= 0x80)
        .unwrap_or(8);
    (bytes, ascii)
}

#[cfg(any(not(target_arch = "x86_64"), tooljson_portable))]
impl Wide for u8 {
    fn widen(block: &[u8; 16], slots: &mut [Self; 16]) -> usize {
        widen_bytes(block, slots)
    }
}

#[cfg(any(not(target_arch = "x86_64"), tooljson_portable))]
impl Wide for u16 {
    fn widen(block: &[u8; 16], slots: &mut [Self; 16]) -> usize {
        widen_bytes(block, slots)
    }
}

#[cfg(any(not(target_arch = "x86_64"), tooljson_portable))]
impl Wide for u32 {
    fn widen(block: &[u8; 16], slots: &mut [Self; 16]) -> usize {
        widen_bytes(block, slots)
    }
}

#[cfg(all(not(Py_3_14), any(not(target_arch = "x86_64"), tooljson_portable)))]
impl Narrow for u16 {
    fn narrow(block: &[Self; 8]) -> ([u8; 8], usize) {
        narrow_characters(block)
    }
}

#[cfg(all(not(Py_3_14), any(not(target_arch = "x86_64"), tooljson_portable)))]
impl Narrow for u32 {
    fn narrow(block: &[Self; 8]) -> ([u8; 8], usize) {
        narrow_characters(block)
    }
}

/// Bytes widened by interleaving them with zeros; characters narrowed by packing them (with
/// saturation, which keeps every ASCII character as it is).
#[cfg(all(target_arch = "x86_64", not(tooljson_portable)))]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128, _mm_storeu_si128,
        _mm_unpackhi_epi16, _mm_unpackhi_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi8,
    };
    #[cfg(not(Py_3_14))]
    use std::arch::x86_64::{
        _mm_cmpeq_epi16, _mm_packs_epi32, _mm_packus_epi16, _mm_srli_epi16, _mm_storel_epi64,
    };

    /// Sixteen bytes loaded from `from`, which may be unaligned.
    ///
    /// # Safety
    /// `from` must point to sixteen readable bytes.
    #[allow(clippy::cast_ptr_alignment)] // `_mm_loadu_si128` takes any alignment.
    unsafe fn load<T>(from: *const T) -> __m128i {
        // SAFETY: SSE2 is part of the x86-64 baseline; the caller gives sixteen readable bytes.
        unsafe { _mm_loadu_si128(from.cast::<__m128i>()) }
    }

    /// The block loaded, and the number of ASCII bytes at its start.
    fn load_bytes(block: &[u8; 16]) -> (__m128i, usize) {
        // SAFETY: `block` is sixteen readable bytes; the mask has one bit per byte, so its
        // trailing zeros are at most 16 (the `| 1 << 16` stops a mask of all-ASCII bytes there).
        unsafe {
            let bytes = load(block.as_ptr());
            let mask = _mm_movemask_epi8(bytes) | (1 << 16);
            (bytes, mask.trailing_zeros() as usize)
        }
    }

    impl super::Wide for u8 {
        fn widen(block: &[u8; 16], slots: &mut [Self; 16]) -> usize {
            *slots = *block;
            load_bytes(block).1
        }
    }

    impl super::Wide for u16 {
        fn widen(block: &[u8; 16], slots: &mut [Self; 16]) -> usize {
            let (bytes, ascii) = load_bytes(block);
            // SAFETY: SSE2 is part of the x86-64 baseline; `slots` is 32 writable bytes, stored
            // in two unaligned halves of 16.
            unsafe {
                let zero = _mm_setzero_si128();
                #[allow(clippy::cast_ptr_alignment)] // `_mm_storeu_si128` takes any alignment.
                let out = slots.as_mut_ptr().cast::<__m128i>();
                _mm_storeu_si128(out, _mm_unpacklo_epi8(bytes, zero));
                _mm_storeu_si128(out.add(1), _mm_unpackhi_epi8(bytes, zero));
            }
            ascii
        }
    }

    impl super::Wide for u32 {
        fn widen(block: &[u8; 16], slots: &mut [Self; 16]) -> usize {
            let (bytes, ascii) = load_bytes(block);
            // SAFETY: SSE2 is part of the x86-64 baseline; `slots` is 64 writable bytes, stored
            // in four unaligned quarters of 16.
            unsafe {
                let zero = _mm_setzero_si128();
                let low = _mm_unpacklo_epi8(bytes, zero);
                let high = _mm_unpackhi_epi8(bytes, zero);
                #[allow(clippy::cast_ptr_alignment)] // `_mm_storeu_si128` takes any alignment.
                let out = slots.as_mut_ptr().cast::<__m128i>();
                _mm_storeu_si128(out, _mm_unpacklo_epi16(low, zero));
                _mm_storeu_si128(out.add(1), _mm_unpackhi_epi16(low, zero));
                _mm_storeu_si128(out.add(2), _mm_unpacklo_epi16(high, zero));
                _mm_storeu_si128(out.add(3), _mm_unpackhi_epi16(high, zero));
            }
            ascii
        }
    }

    /// Eight two-byte characters in `wide` packed to bytes, and the number of ASCII ones at its
    /// start. A character is ASCII when nothing is left of it shifted right by seven; the
    /// comparison marks both bytes of each such one, so the count is half the mask's trailing
    /// ones.
    #[cfg(not(Py_3_14))]
    fn pack(wide: __m128i) -> ([u8; 8], usize) {
        let mut bytes = [0; 8];
        // SAFETY: SSE2 is part of the x86-64 baseline; `bytes` is eight writable bytes, and
        // `_mm_storel_epi64` stores the low eight bytes at any alignment.
        unsafe {
            let ascii = _mm_cmpeq_epi16(_mm_srli_epi16(wide, 7), _mm_setzero_si128());
            #[allow(clippy::cast_sign_loss)] // The mask's sixteen bits.
            let mask = _mm_movemask_epi8(ascii) as u32;
            #[allow(clippy::cast_ptr_alignment)]
            _mm_storel_epi64(
                bytes.as_mut_ptr().cast::<__m128i>(),
                _mm_packus_epi16(wide, wide),
            );
            (bytes, ((!mask).trailing_zeros() / 2) as usize)
        }
    }

    #[cfg(not(Py_3_14))]
    impl super::Narrow for u16 {
        fn narrow(block: &[Self; 8]) -> ([u8; 8], usize) {
            // SAFETY: `block` is sixteen readable bytes.
            pack(unsafe { load(block.as_ptr()) })
        }
    }

    #[cfg(not(Py_3_14))]
    impl super::Narrow for u32 {
        fn narrow(block: &[Self; 8]) -> ([u8; 8], usize) {
            // SAFETY: `block` is 32 readable bytes, loaded in two halves of sixteen; SSE2 is part
            // of the x86-64 baseline. Packing to two bytes with signed saturation keeps each
            // character below U+8000 as it is and makes any other 0x7FFF, not ASCII either way.
            pack(unsafe { _mm_packs_epi32(load(block.as_ptr()), load(block.as_ptr().add(4))) })
        }
    }
}
