//! `tooljson.loads` of a `str` read where it is stored, in its own width (PEP 393: one, two or
//! four bytes a character), without making its UTF-8 first.
//!
//! The streaming parser reads UTF-8, so a `str` with any character beyond ASCII was encoded (a
//! pass over the text and a copy of it) before it was parsed, and each of its strings decoded
//! back (another pass, counting its characters and finding the widest). Here the text is read as
//! it is stored, and each string is made from its span of the text (or, with escapes, from its
//! decoded content) at the kind its widest character needs. Against the streaming parser,
//! `tooljson.loads` took 0.47× the time on a file write with 6% non-ASCII characters (1% astral)
//! and 77 backslashes per KB, 0.83× on a 16 KiB document, 0.84× on ASCII records and 0.93× on
//! the benchmark records (paired, both builds in one process, 401 rounds, `python
//! scripts/compare_loads.py --baseline`, load 4).
//!
//! The grammar is the strict parser's (`crate::parser`), read straight through a whole text.
//! Whatever this reader does not take as it is (malformed text, nesting past the limit, a text
//! that may be over the size limit) it hands back, and the streaming parser reads the text again:
//! its errors, with their positions in characters, stay the one account of what is wrong with a
//! text, and a malformed text costs at most one read more.
//!
//! The value is built by the sink of the streaming parser's whole texts (`whole.rs`): the same key
//! cache, containers made when they close, the same number conversions.

use pyo3::prelude::*;
use pyo3::types::PyString;

use super::units::{bits, copy_run, make_str, run_end, Unit};
use super::whole::WholeTextSink;
use crate::lexical::{hex_value, SHORT_ESCAPES};
use crate::sink::{Literal, Sink};

/// The value of `text`, read in its own width; `None` when the streaming parser is to read it
/// (see the module's documentation).
pub(crate) fn loads(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    max_depth: usize,
    max_size: Option<usize>,
) -> Option<PyResult<Py<PyAny>>> {
    let object = text.as_ptr();
    // SAFETY: `text` is a live str, borrowed (so kept alive) for the whole parse. Once ready
    // (always from 3.12; made ready here before), a str holds `length` characters of its kind's
    // width at `data`, and they never change or move: nothing the parse calls, nor a finalizer a
    // collection might run meanwhile, can alter a str's characters.
    unsafe {
        if pyo3::ffi::PyUnicode_READY(object) != 0 {
            pyo3::ffi::PyErr_Clear();
            return None;
        }
        let length = usize::try_from(pyo3::ffi::PyUnicode_GET_LENGTH(object)).ok()?;
        let data = pyo3::ffi::PyUnicode_DATA(object);
        match pyo3::ffi::PyUnicode_KIND(object) {
            pyo3::ffi::PyUnicode_1BYTE_KIND => {
                let units = std::slice::from_raw_parts(data.cast::<u8>(), length);
                if let Some(max_size) = max_size {
                    // One byte of UTF-8 for an ASCII character, two for another below U+0100.
                    let size = length + units.iter().filter(|&&unit| unit >= 0x80).count();
                    if size > max_size {
                        return None;
                    }
                }
                #[cfg(not(Py_3_14))]
                let ascii = pyo3::ffi::PyUnicode_IS_ASCII(object) != 0;
                #[cfg(Py_3_14)]
                let ascii = units.is_ascii();
                parse(py, units, ascii, max_depth)
            }
            pyo3::ffi::PyUnicode_2BYTE_KIND => {
                if max_size.is_some_and(|max_size| length.saturating_mul(3) > max_size) {
                    return None;
                }
                parse(
                    py,
                    std::slice::from_raw_parts(data.cast::<u16>(), length),
                    false,
                    max_depth,
                )
            }
            pyo3::ffi::PyUnicode_4BYTE_KIND => {
                if max_size.is_some_and(|max_size| length.saturating_mul(4) > max_size) {
                    return None;
                }
                parse(
                    py,
                    std::slice::from_raw_parts(data.cast::<u32>(), length),
                    false,
                    max_depth,
                )
            }
            _ => None,
        }
    }
}

/// The value of the text `units`; `None` when it is not read here.
fn parse<T: Unit>(
    py: Python<'_>,
    units: &[T],
    ascii: bool,
    max_depth: usize,
) -> Option<PyResult<Py<PyAny>>> {
    let mut sink = WholeTextSink::new(py, units.len());
    let mut reader = Reader {
        units,
        at: 0,
        scratch: Vec::new(),
        wide: Vec::new(),
        ascii,
    };
    reader.document(&mut sink, max_depth)?;
    Some(
        sink.into_value()
            .map(|value| value.map_or_else(|| py.None(), Bound::unbind)),
    )
}

const QUOTE: u32 = b'"' as u32;
const BACKSLASH: u32 = b'\\' as u32;

/// Reads a whole text of units; each method returns `None` where the text is not taken here.
struct Reader<'a, T> {
    units: &'a [T],
    /// The index of the next unit to read.
    at: usize,
    /// The content of a string with escapes, in the text's width.
    scratch: Vec<T>,
    /// The content of a string with an escape wider than the text's width.
    wide: Vec<u32>,
    /// Whether every character of the text is ASCII: its strings' kind is then known.
    ascii: bool,
}

impl<T: Unit> Reader<'_, T> {
    fn unit(&self, at: usize) -> Option<u32> {
        self.units.get(at).map(|&unit| unit.into())
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.unit(self.at), Some(0x20 | 0x09 | 0x0A | 0x0D)) {
            self.at += 1;
        }
    }

    /// The whole text: one value, whitespace around it. Containers are an explicit stack (an
    /// object's flag per open one), so nesting costs no recursion.
    fn document(&mut self, sink: &mut WholeTextSink<'_>, max_depth: usize) -> Option<()> {
        let mut open: Vec<bool> = Vec::new();
        'value: loop {
            self.skip_whitespace();
            match self.unit(self.at)? {
                0x7B => {
                    // `{`
                    if open.len() >= max_depth {
                        return None;
                    }
                    self.at += 1;
                    sink.start_object();
                    self.skip_whitespace();
                    if self.unit(self.at)? == 0x7D {
                        self.at += 1;
                        sink.end_object();
                    } else {
                        open.push(true);
                        self.member_key(sink)?;
                        continue 'value;
                    }
                }
                0x5B => {
                    // `[`
                    if open.len() >= max_depth {
                        return None;
                    }
                    self.at += 1;
                    sink.start_array();
                    self.skip_whitespace();
                    if self.unit(self.at)? == 0x5D {
                        self.at += 1;
                        sink.end_array();
                    } else {
                        open.push(false);
                        continue 'value;
                    }
                }
                QUOTE => {
                    self.at += 1;
                    self.string(sink, false)?;
                }
                0x2D | 0x30..=0x39 => self.number(sink)?,
                0x74 => self.literal(b"true", Literal::True, sink)?,
                0x66 => self.literal(b"false", Literal::False, sink)?,
                0x6E => self.literal(b"null", Literal::Null, sink)?,
                0x4E => self.literal(b"NaN", Literal::NaN, sink)?,
                0x49 => self.literal(b"Infinity", Literal::Infinity, sink)?,
                _ => return None,
            }
            // After a value: close what it ends, up to the next value.
            loop {
                self.skip_whitespace();
                let Some(&object) = open.last() else {
                    return (self.at == self.units.len()).then_some(());
                };
                match self.unit(self.at)? {
                    0x2C => {
                        // `,`
                        self.at += 1;
                        if object {
                            self.skip_whitespace();
                            self.member_key(sink)?;
                        }
                        continue 'value;
                    }
                    0x5D if !object => {
                        self.at += 1;
                        open.pop();
                        sink.end_array();
                    }
                    0x7D if object => {
                        self.at += 1;
                        open.pop();
                        sink.end_object();
                    }
                    _ => return None,
                }
            }
        }
    }

    /// An object's key and the `:` after it.
    fn member_key(&mut self, sink: &mut WholeTextSink<'_>) -> Option<()> {
        if self.unit(self.at)? != QUOTE {
            return None;
        }
        self.at += 1;
        self.string(sink, true)?;
        self.skip_whitespace();
        if self.unit(self.at)? != 0x3A {
            return None;
        }
        self.at += 1;
        Some(())
    }

    fn literal(
        &mut self,
        text: &[u8],
        literal: Literal,
        sink: &mut WholeTextSink<'_>,
    ) -> Option<()> {
        let end = self.at + text.len();
        let units = self.units.get(self.at..end)?;
        if !units
            .iter()
            .zip(text)
            .all(|(&unit, &byte)| unit.into() == u32::from(byte))
        {
            return None;
        }
        self.at = end;
        sink.literal(literal);
        Some(())
    }

    fn digit(&self, at: usize) -> bool {
        matches!(self.unit(at), Some(0x30..=0x39))
    }

    fn digits(&self, mut at: usize) -> usize {
        while self.digit(at) {
            at += 1;
        }
        at
    }

    /// A number: `-`, an integer part without leading zeros, a fraction, an exponent.
    fn number(&mut self, sink: &mut WholeTextSink<'_>) -> Option<()> {
        let start = self.at;
        let mut at = start;
        if self.unit(at) == Some(0x2D) {
            at += 1;
            if self.unit(at) == Some(0x49) {
                self.at = at;
                return self.literal(b"Infinity", Literal::NegInfinity, sink);
            }
        }
        match self.unit(at)? {
            0x30 => at += 1,
            0x31..=0x39 => at = self.digits(at + 1),
            _ => return None,
        }
        let mut is_float = false;
        if self.unit(at) == Some(0x2E) {
            if !self.digit(at + 1) {
                return None;
            }
            at = self.digits(at + 1);
            is_float = true;
        }
        if matches!(self.unit(at), Some(0x45 | 0x65)) {
            at += 1;
            if matches!(self.unit(at), Some(0x2B | 0x2D)) {
                at += 1;
            }
            if !self.digit(at) {
                return None;
            }
            at = self.digits(at);
            is_float = true;
        }
        self.at = at;
        with_ascii(self.units.get(start..at)?, |text| {
            sink.number(text, is_float);
        });
        Some(())
    }

    /// The OR of `content`'s characters (0 for a text all ASCII).
    fn bits<U: Unit>(&self, content: &[U]) -> u32 {
        if self.ascii {
            0
        } else {
            bits(content)
        }
    }

    /// A string, from after its opening quote; a key when `key`.
    fn string(&mut self, sink: &mut WholeTextSink<'_>, key: bool) -> Option<()> {
        let start = self.at;
        let end = run_end(self.units, start);
        match self.unit(end)? {
            QUOTE => {
                self.at = end + 1;
                let content = self.units.get(start..end)?;
                emit(sink, key, content, self.bits(content));
                Some(())
            }
            BACKSLASH => {
                let mut scratch = std::mem::take(&mut self.scratch);
                scratch.clear();
                let done = match self.escaped(&mut scratch, start) {
                    Some(Escaped::Read(end, escaped)) => {
                        // An ASCII text's escapes may still make characters beyond ASCII.
                        self.at = end;
                        emit(sink, key, &scratch, escaped | self.bits(&scratch));
                        Some(())
                    }
                    Some(Escaped::Wider) => {
                        let mut wide = std::mem::take(&mut self.wide);
                        wide.clear();
                        let end = self.escaped_wide(&mut wide, start);
                        if let Some(end) = end {
                            self.at = end;
                            emit(sink, key, &wide, bits(&wide));
                        }
                        self.wide = wide;
                        end.map(|_| ())
                    }
                    None => None,
                };
                self.scratch = scratch;
                done
            }
            _ => None,
        }
    }

    /// The content of the string from `start`, which holds an escape, decoded into `out`: the
    /// index after its closing quote and the OR of the escapes' characters, or
    /// [`Escaped::Wider`] at the first escape whose character the text's width cannot hold.
    fn escaped(&self, out: &mut Vec<T>, start: usize) -> Option<Escaped> {
        let mut at = start;
        let mut escaped = 0;
        loop {
            let end = copy_run(self.units, at, out);
            match self.unit(end)? {
                QUOTE => return Some(Escaped::Read(end + 1, escaped)),
                BACKSLASH => {}
                _ => return None,
            }
            let (character, next) = self.escape(end)?;
            let Some(unit) = T::from_char(character) else {
                return Some(Escaped::Wider);
            };
            out.push(unit);
            escaped |= character;
            at = next;
        }
    }

    /// [`Self::escaped`] into four-byte characters, for a string with an escape wider than the
    /// text (`\u4e2d` in a Latin-1 text, an escaped surrogate pair in a two-byte one).
    fn escaped_wide(&self, out: &mut Vec<u32>, start: usize) -> Option<usize> {
        let mut at = start;
        loop {
            let end = run_end(self.units, at);
            out.extend(self.units.get(at..end)?.iter().map(|&unit| unit.into()));
            match self.unit(end)? {
                QUOTE => return Some(end + 1),
                BACKSLASH => {}
                _ => return None,
            }
            let (character, next) = self.escape(end)?;
            out.push(character);
            at = next;
        }
    }

    /// The character of the escape whose backslash is at `at`, and the index after it.
    fn escape(&self, at: usize) -> Option<(u32, usize)> {
        let escaped = self.unit(at + 1)?;
        if escaped != 0x75 {
            let decoded = *SHORT_ESCAPES.get(usize::try_from(escaped).ok()?)?;
            return (decoded != 0).then_some((u32::from(decoded), at + 2));
        }
        // `\u`: a high surrogate and a low one right after it, both escaped, make one
        // character; any other surrogate stays alone, as json.loads keeps it.
        let code = self.hex4(at + 2)?;
        let next = at + 6;
        if (0xD800..0xDC00).contains(&code)
            && self.unit(next) == Some(BACKSLASH)
            && self.unit(next + 1) == Some(0x75)
        {
            if let Some(low @ 0xDC00..0xE000) = self.hex4(next + 2) {
                return Some((
                    0x1_0000 + ((code - 0xD800) << 10) + (low - 0xDC00),
                    next + 6,
                ));
            }
        }
        Some((code, next))
    }

    /// The value of the four hexadecimal digits at `at`.
    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.units.get(at..at + 4)?;
        digits.iter().try_fold(0, |value, &unit| {
            let digit = hex_value(u8::try_from(unit.into()).ok()?)?;
            Some(value << 4 | u32::from(digit))
        })
    }
}

/// How the content of a string with escapes was read.
enum Escaped {
    /// The index after the closing quote, and the OR of the escapes' characters.
    Read(usize, u32),
    /// An escape made a character wider than the text's units hold.
    Wider,
}

/// Calls `use_text` with the ASCII units `units` as bytes: the units themselves when they are
/// bytes, a copy otherwise.
fn with_ascii<T: Unit, R>(units: &[T], use_text: impl FnOnce(&[u8]) -> R) -> R {
    if let Some(bytes) = T::bytes(units) {
        return use_text(bytes);
    }
    let mut buffer = [0u8; 64];
    if let Some(slots) = buffer.get_mut(..units.len()) {
        for (slot, &unit) in slots.iter_mut().zip(units) {
            *slot = u8::try_from(unit.into()).unwrap_or_default();
        }
        return use_text(slots);
    }
    let bytes: Vec<u8> = units
        .iter()
        .map(|&unit| u8::try_from(unit.into()).unwrap_or_default())
        .collect();
    use_text(&bytes)
}

/// Hands a string's content, whose characters' OR is `bits`, to the sink. Keys of ASCII go the
/// way the streaming parser's do, through the key cache (records repeat them in the same order);
/// any other string is made into a `str` from its units. Short values through the cache too,
/// `loads` took 1.03× the time on ASCII records, 1.08× on the benchmark records (a four-byte text)
/// and 1.78× on a list of 5,000 short strings drawn from 40 (paired, 401 and 101 rounds,
/// `scripts/compare_loads.py --baseline`, load 8.7): a hit reads an entry and a `str` that the
/// rest of a large text has pushed out of the CPU's caches, and strings that begin alike fall in
/// one set of the cache and push each other out. Inlined (with the sink's `key`), `loads` took
/// 0.99× the time on ASCII records and 0.98× on a 16 KiB document (paired, 401 rounds).
#[allow(clippy::inline_always)] // Measured, as above.
#[inline(always)]
fn emit<T: Unit>(sink: &mut WholeTextSink<'_>, key: bool, content: &[T], bits: u32) {
    if key && bits < 0x80 && content.len() <= 64 {
        with_ascii(content, |bytes| {
            if key {
                sink.key(bytes);
            } else {
                sink.string(bytes);
            }
        });
    } else {
        sink.made_string(|py| make_str(py, content, bits));
    }
}
