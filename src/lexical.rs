//! The byte-level pieces of the grammar that the state machine in `parser.rs` uses: whitespace,
//! the end of a run of plain string content (found sixteen bytes at a time), `\uXXXX` escapes
//! written out as (generalised) UTF-8, and the parts of a number.

/// The parts of a number, in the order the grammar allows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NumberPart {
    /// `-`
    Minus,
    /// A leading `0`, which no digit may follow.
    Zero,
    /// Integer digits.
    Integer,
    /// `.` awaiting its first digit.
    Dot,
    /// Fraction digits.
    Fraction,
    /// `e` or `E` awaiting a sign or digit.
    Exponent,
    /// The exponent's sign, awaiting a digit.
    ExponentSign,
    /// Exponent digits.
    ExponentDigits,
}

impl NumberPart {
    /// Whether the number may end here.
    pub(crate) fn is_complete(self) -> bool {
        matches!(
            self,
            Self::Zero | Self::Integer | Self::Fraction | Self::ExponentDigits
        )
    }

    pub(crate) fn is_float(self) -> bool {
        matches!(
            self,
            Self::Dot | Self::Fraction | Self::Exponent | Self::ExponentSign | Self::ExponentDigits
        )
    }

    /// Whether digits keep the number in this part: a run of them can be skipped at once.
    pub(crate) fn takes_digit_runs(self) -> bool {
        matches!(self, Self::Integer | Self::Fraction | Self::ExponentDigits)
    }

    /// The part after `byte`, or `None` when `byte` cannot continue the number.
    pub(crate) fn next(self, byte: u8) -> Option<Self> {
        match (self, byte) {
            (Self::Minus, b'0') => Some(Self::Zero),
            (Self::Minus | Self::Integer, b'0'..=b'9') => Some(Self::Integer),
            (Self::Zero | Self::Integer, b'.') => Some(Self::Dot),
            (Self::Dot | Self::Fraction, b'0'..=b'9') => Some(Self::Fraction),
            (Self::Zero | Self::Integer | Self::Fraction, b'e' | b'E') => Some(Self::Exponent),
            (Self::Exponent, b'+' | b'-') => Some(Self::ExponentSign),
            (Self::Exponent | Self::ExponentSign | Self::ExponentDigits, b'0'..=b'9') => {
                Some(Self::ExponentDigits)
            }
            _ => None,
        }
    }
}

pub(crate) const fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// Bytes that end a run of plain string content.
const fn ends_string_run(byte: u8) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20
}

/// The index of the first byte at or after `from` that is not JSON whitespace (`input.len()` when
/// there is none).
pub(crate) fn skip_whitespace(input: &[u8], from: usize) -> usize {
    let mut at = from;
    while input.get(at).is_some_and(|&byte| is_whitespace(byte)) {
        at += 1;
    }
    at
}

/// The index of the first byte at or after `from` that is not an ASCII digit (`input.len()` when
/// there is none).
pub(crate) fn skip_digits(input: &[u8], from: usize) -> usize {
    let mut at = from;
    while input.get(at).is_some_and(u8::is_ascii_digit) {
        at += 1;
    }
    at
}

/// The length of the run of plain string content at the start of `bytes`: the index of the first
/// `"`, `\` or control byte, or `bytes.len()`.
///
/// Sixteen bytes are tested at once with SSE2 (part of every x86-64 CPU): against the byte loop
/// that remains for the tail and for other targets, `tooljson.loads` went from 0.96× to 0.73× of
/// `json.loads`'s time on the ~100 KB file-write text (one long string), and from 0.75× to 0.70×
/// on the 100 KB records (paired rounds, medians of ten processes). Building with
/// `RUSTFLAGS="--cfg tooljson_portable"` leaves the SSE2 block out, so that `make test` runs the
/// byte loop alone on this machine as it runs on targets without SSE2.
pub(crate) fn string_run_length(bytes: &[u8]) -> usize {
    // Only the SSE2 block moves `at`; the byte loop alone starts and stays at 0.
    #[cfg_attr(any(not(target_arch = "x86_64"), tooljson_portable), allow(unused_mut))]
    let mut at = 0;
    #[cfg(all(target_arch = "x86_64", not(tooljson_portable)))]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8, _mm_setzero_si128, _mm_subs_epu8,
        };
        while let Some(chunk) = bytes.get(at..at + 16) {
            // SAFETY: SSE2 is part of the x86-64 baseline, so these intrinsics are always
            // available; `chunk` is exactly 16 readable bytes and `_mm_loadu_si128` accepts any
            // alignment.
            let mask = unsafe {
                #[allow(clippy::cast_ptr_alignment)] // `_mm_loadu_si128` takes any alignment.
                let block = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
                // 0x22 is `"`, 0x5C is `\`.
                let quote = _mm_cmpeq_epi8(block, _mm_set1_epi8(0x22));
                let backslash = _mm_cmpeq_epi8(block, _mm_set1_epi8(0x5C));
                // Unsigned saturating subtraction leaves zero exactly for bytes up to 0x1F.
                let control = _mm_cmpeq_epi8(
                    _mm_subs_epu8(block, _mm_set1_epi8(0x1F)),
                    _mm_setzero_si128(),
                );
                _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control))
            };
            if mask != 0 {
                return at + mask.trailing_zeros() as usize;
            }
            at += 16;
        }
    }
    let rest = bytes.get(at..).unwrap_or_default();
    at + rest
        .iter()
        .position(|&byte| ends_string_run(byte))
        .unwrap_or(rest.len())
}

/// Appends the `length` bytes of `input` from `start` to `out`. A run of fewer than sixteen bytes,
/// as the pieces of a string between its escapes mostly are, is copied as the sixteen bytes from
/// its start when the input has them, and the bytes past the run dropped: a copy of a size fixed
/// at compile time is two moves, one of a size known only at run time a call to `memcpy`. On
/// lists of the escaped records' `bio` strings, names and emails, `tooljson.loads` took 0.95×,
/// 0.97× and 0.96× the time, on the file writes 0.94–0.97× (paired, 2001 rounds).
pub(crate) fn append_run(out: &mut Vec<u8>, input: &[u8], start: usize, length: usize) {
    if length < 16 {
        if let Some(block) = input.get(start..start + 16) {
            let kept = out.len() + length;
            let mut bytes = [0; 16];
            bytes.copy_from_slice(block);
            out.extend_from_slice(&bytes);
            out.truncate(kept);
            return;
        }
    }
    out.extend_from_slice(input.get(start..start + length).unwrap_or_default());
}

/// Each byte's value as a hexadecimal digit, 0xFF for a byte that is not one.
#[allow(clippy::indexing_slicing)] // Evaluated at compile time; `byte` stays below 256.
const HEX_VALUES: [u8; 256] = {
    let mut table = [0xFF; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = match byte as u8 {
            digit @ b'0'..=b'9' => digit - b'0',
            letter @ b'a'..=b'f' => letter - b'a' + 10,
            letter @ b'A'..=b'F' => letter - b'A' + 10,
            _ => 0xFF,
        };
        byte += 1;
    }
    table
};

/// The value of four hexadecimal digits, when `digits` is exactly that: four table reads and one
/// test of them all together. Against a `match` on each digit in turn, `tooljson.loads` took 0.98×
/// the time on the escaped records and 0.97× on them written with every non-ASCII character
/// escaped (paired, 1501 rounds, both orders).
#[inline]
pub(crate) fn parse_hex4(digits: &[u8]) -> Option<u16> {
    let digits = <[u8; 4]>::try_from(digits).ok()?;
    let [a, b, c, d] =
        digits.map(|digit| HEX_VALUES.get(usize::from(digit)).copied().unwrap_or(0xFF));
    if (a | b | c | d) & 0xF0 != 0 {
        return None;
    }
    Some((u16::from(a) << 12) | (u16::from(b) << 8) | (u16::from(c) << 4) | u16::from(d))
}

pub(crate) fn hex_value(byte: u8) -> Option<u16> {
    HEX_VALUES
        .get(usize::from(byte))
        .filter(|&&value| value < 16)
        .map(|&value| u16::from(value))
}

/// Appends one UTF-16 code unit or scalar value as (generalised) UTF-8. Lone surrogates take the
/// three-byte form `char` refuses, which Python decodes back with the `surrogatepass` handler.
/// Each length is appended as an array of that size, which compiles to a few stores: a length
/// known only at run time is a call to `memcpy`. Against `char::encode_utf8` and its slice,
/// `tooljson.loads` took 0.96× the time on a list of the escaped records' `bio` strings and 0.95×
/// on their names (paired, 2001 rounds).
pub(crate) fn push_code_point(out: &mut Vec<u8>, code: u32) {
    let continuation = |shift: u32| 0x80 | ((code >> shift) & 0x3F) as u8;
    match code {
        0..=0x7F => out.push(code as u8),
        0x80..=0x7FF => out.extend_from_slice(&[0xC0 | (code >> 6) as u8, continuation(0)]),
        // Surrogates (U+D800..=U+DFFF) included: 1110xxxx 10xxxxxx 10xxxxxx.
        0x800..=0xFFFF => {
            out.extend_from_slice(&[0xE0 | (code >> 12) as u8, continuation(6), continuation(0)]);
        }
        _ => out.extend_from_slice(&[
            0xF0 | ((code >> 18) & 0x07) as u8,
            continuation(12),
            continuation(6),
            continuation(0),
        ]),
    }
}

#[cfg(test)]
mod tests {
    use super::{hex_value, parse_hex4};

    #[test]
    fn hex_digits_are_read_as_char_reads_them() {
        for byte in 0..=u8::MAX {
            let expected = char::from(byte).to_digit(16).map(|digit| digit as u16);
            assert_eq!(hex_value(byte), expected, "byte {byte:#04x}");
            for position in 0..4 {
                let mut digits = *b"0000";
                if let Some(digit) = digits.get_mut(position) {
                    *digit = byte;
                }
                let value = expected.map(|digit| digit << (4 * (3 - position)));
                assert_eq!(parse_hex4(&digits), value, "{digits:?}");
            }
        }
        assert_eq!(parse_hex4(b"D83d"), Some(0xD83D));
        assert_eq!(parse_hex4(b"fFfF"), Some(0xFFFF));
        assert_eq!(parse_hex4(b"123"), None);
        assert_eq!(parse_hex4(b"12345"), None);
    }
}
