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
    while let Some(block) = bytes.get(at..).and_then(<[u8]>::first_chunk) {
        let mask = sse2::run_ends(block);
        if mask != 0 {
            return at + mask.trailing_zeros() as usize;
        }
        at += 16;
    }
    let rest = bytes.get(at..).unwrap_or_default();
    at + rest
        .iter()
        .position(|&byte| ends_string_run(byte))
        .unwrap_or(rest.len())
}

/// What each byte after a backslash stands for, in the escapes of one character; 0 for `u` and
/// for bytes that begin no escape.
#[allow(clippy::indexing_slicing)] // A byte's value always indexes a table of 256.
pub(crate) const SHORT_ESCAPES: [u8; 256] = {
    let mut table = [0; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0C;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// Bytes of input [`copy_string_content`] makes room for at a time, so that the room it takes
/// beyond the string itself stays small however long the input is.
const COPY_WINDOW: usize = 4096;

/// Copies the string content of `input` from `start` to `out`, decoding the escapes of one
/// character (`\n`, `\"`, ...) on the way, and returns the index it stopped at: the closing
/// quote, a control byte, a backslash it leaves to the caller (`\u`, one that begins no escape, or
/// one the input ends after), or `input.len()`.
///
/// Text with many escapes (prose with a `\n` ending every line, quoted words, Windows paths) is
/// where this counts: finding the end of each run and then copying it, with a call per escape,
/// took longer than the runs themselves. Here each sixteen bytes are loaded once, stored to `out`
/// whole (the bytes past a run's end are written over next), and an escape is one table look-up.
pub(crate) fn copy_string_content(input: &[u8], start: usize, out: &mut Vec<u8>) -> usize {
    let mut at = start;
    loop {
        let limit = input.len().min(at.saturating_add(COPY_WINDOW));
        let window = at;
        out.reserve(limit - window + 16);
        let length = out.len();
        let room = out.spare_capacity_mut();
        let mut written = 0;
        // `written` never passes `at - window` (an escape writes one byte for two), and every
        // write below is made while `at < limit`, of at most sixteen bytes: it stays within the
        // `limit - window + 16` bytes of room made above.
        let stop = loop {
            #[cfg(all(target_arch = "x86_64", not(tooljson_portable)))]
            while at < limit {
                let (Some(block), Some(slots)) = (
                    input.get(at..).and_then(<[u8]>::first_chunk),
                    room.get_mut(written..).and_then(<[_]>::first_chunk_mut),
                ) else {
                    break;
                };
                let mask = sse2::copy_block(block, slots);
                if mask == 0 {
                    at += 16;
                    written += 16;
                } else {
                    let run = mask.trailing_zeros() as usize;
                    at += run;
                    written += run;
                    break;
                }
            }
            while at < limit {
                let (Some(&byte), Some(slot)) = (input.get(at), room.get_mut(written)) else {
                    break;
                };
                if ends_string_run(byte) {
                    break;
                }
                slot.write(byte);
                at += 1;
                written += 1;
            }
            if at >= limit {
                break None;
            }
            let decoded = match input.get(at..at + 2) {
                Some(&[b'\\', escaped]) => SHORT_ESCAPES.get(usize::from(escaped)).copied(),
                _ => None,
            };
            match (decoded, room.get_mut(written)) {
                (Some(decoded @ 1..), Some(slot)) => {
                    slot.write(decoded);
                    at += 2;
                    written += 1;
                }
                _ => break Some(at),
            }
        };
        // SAFETY: the first `written` bytes of the room were all written above.
        unsafe { out.set_len(length + written) };
        match stop {
            Some(at) => return at,
            None if at >= input.len() => return input.len(),
            None => {}
        }
    }
}

/// With SSE2 (part of every x86-64 CPU) sixteen bytes are tested at once.
#[cfg(all(target_arch = "x86_64", not(tooljson_portable)))]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_setzero_si128, _mm_storeu_si128, _mm_subs_epu8,
    };
    use std::mem::MaybeUninit;

    /// The sixteen bytes of `block`, loaded.
    fn load(block: &[u8; 16]) -> __m128i {
        // SAFETY: SSE2 is part of the x86-64 baseline; `block` is sixteen readable bytes and
        // `_mm_loadu_si128` accepts any alignment.
        #[allow(clippy::cast_ptr_alignment)]
        unsafe {
            _mm_loadu_si128(block.as_ptr().cast::<__m128i>())
        }
    }

    /// One bit per byte of `bytes` that ends a run of string content: `"`, `\\` or a control byte.
    #[allow(clippy::cast_sign_loss)] // The mask's sixteen bits.
    fn ends(bytes: __m128i) -> u32 {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe {
            // 0x22 is `"`, 0x5C is `\\`.
            let quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(0x22));
            let backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8(0x5C));
            // Unsigned saturating subtraction leaves zero exactly for bytes up to 0x1F.
            let control = _mm_cmpeq_epi8(
                _mm_subs_epu8(bytes, _mm_set1_epi8(0x1F)),
                _mm_setzero_si128(),
            );
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
        }
    }

    /// The bytes of `block` that end a run of string content, one bit each.
    pub(super) fn run_ends(block: &[u8; 16]) -> u32 {
        ends(load(block))
    }

    /// [`run_ends`], with the sixteen bytes stored into `slots` as well.
    pub(super) fn copy_block(block: &[u8; 16], slots: &mut [MaybeUninit<u8>; 16]) -> u32 {
        let bytes = load(block);
        // SAFETY: SSE2 is part of the x86-64 baseline; `slots` is sixteen writable bytes and
        // `_mm_storeu_si128` accepts any alignment.
        #[allow(clippy::cast_ptr_alignment)]
        unsafe {
            _mm_storeu_si128(slots.as_mut_ptr().cast::<__m128i>(), bytes);
        }
        ends(bytes)
    }
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
    use super::{copy_string_content, hex_value, parse_hex4, COPY_WINDOW, SHORT_ESCAPES};

    /// [`copy_string_content`] a byte at a time: the content before the stop, and the stop.
    #[allow(clippy::indexing_slicing)] // A byte's value always indexes a table of 256.
    fn copied_slowly(input: &[u8], start: usize) -> (Vec<u8>, usize) {
        let mut out = Vec::new();
        let mut at = start;
        while let Some(&byte) = input.get(at) {
            match byte {
                b'\\' => match input
                    .get(at + 1)
                    .map(|&next| SHORT_ESCAPES[usize::from(next)])
                {
                    Some(decoded @ 1..) => {
                        out.push(decoded);
                        at += 2;
                    }
                    _ => break,
                },
                b'"' | 0..=0x1F => break,
                _ => {
                    out.push(byte);
                    at += 1;
                }
            }
        }
        (out, at)
    }

    #[test]
    #[allow(clippy::indexing_slicing)] // The texts are built here, the offsets within them.
    fn string_content_is_copied_as_a_byte_loop_copies_it() {
        // Plain bytes, non-ASCII included, with one thing placed at every offset around the
        // sixteen-byte steps and the window's end, from starts at several offsets.
        let plain: Vec<u8> = "abcdefghé中🌍xyz"
            .bytes()
            .cycle()
            .take(COPY_WINDOW + 80)
            .collect();
        let things: [&[u8]; 9] = [
            b"\\n", b"\\\\", b"\\\"", b"\\/", b"\\u00e9", b"\\x", b"\"", b"\x01", b"\\",
        ];
        for start in [0, 1, 7, 15] {
            for thing in things {
                for at in (0..48).chain(COPY_WINDOW - 24..COPY_WINDOW + 40) {
                    let mut input = plain.clone();
                    input.splice(start + at..start + at, thing.iter().copied());
                    for end in [input.len(), start + at + thing.len(), start + at + 1] {
                        let input = &input[..end];
                        let mut out = b"kept".to_vec();
                        let stop = copy_string_content(input, start, &mut out);
                        let (expected, expected_stop) = copied_slowly(input, start);
                        assert_eq!(stop, expected_stop, "{thing:?} at {at} from {start}, {end}");
                        assert_eq!(&out[..4], b"kept");
                        assert_eq!(out[4..], expected, "{thing:?} at {at} from {start}, {end}");
                    }
                }
            }
        }
    }

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
