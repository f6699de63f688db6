//! The incremental JSON state machine.
//!
//! [`StreamParser`] takes the text one fragment at a time and never looks at a byte twice: every
//! fragment is scanned once, whatever its size, and the machine's state between fragments is a few
//! words plus the content of the one string or number that may be open. Nesting lives on an explicit
//! stack, so depth is a counted limit, never a stack overflow.
//!
//! The grammar is the one CPython's `json.loads` accepts: RFC 8259 plus `NaN`, `Infinity` and
//! `-Infinity`; whitespace is space, tab, line feed and carriage return.

use crate::error::{Error, ErrorKind};
use crate::lexical::{
    append_run, copy_string_content, hex_value, is_whitespace, parse_hex4, push_code_point,
    skip_digits, skip_whitespace, string_run_length, NumberPart, SHORT_ESCAPES,
};
use crate::sink::{Literal, Sink};

/// The default nesting limit, matching the order of CPython's recursion limit. (The Python
/// signatures spell it as the literal `1000`, so that `inspect.signature` can show it.)
pub const DEFAULT_MAX_DEPTH: usize = 1000;

/// Where the text stands after the fragments fed so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The text is a complete JSON value (possibly followed by whitespace). A top-level number is
    /// complete although more digits could still extend it.
    Complete,
    /// The text is a valid prefix of JSON that needs more input.
    Incomplete,
    /// The text can never become JSON; the error says where it went wrong.
    Malformed(Error),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Container {
    Array,
    Object,
}

/// What the machine expects next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// A value: at the top, after `:`.
    Value,
    /// After `[`: a value or `]`.
    ArrayFirst,
    /// After `,` in an array: a value (a `]` here is a trailing comma).
    ArrayNext,
    /// After `{`: a key or `}`.
    ObjectFirst,
    /// After `,` in an object: a key (a `}` here is a trailing comma).
    ObjectNext,
    /// After a key: `:`.
    Colon,
    /// After a member of an array or object: `,` or the closer.
    AfterMember,
    /// After the complete top-level value: only whitespace.
    End,
    /// Inside a string (an object key when `key`).
    Str { key: bool },
    /// After a backslash in a string.
    Escape { key: bool },
    /// Inside `\uXXXX`, `count` digits read so far, their value in `code`.
    Unicode { key: bool, count: u8, code: u16 },
    /// Inside a number.
    Number(NumberPart),
    /// Inside a literal, `matched` bytes of its text read.
    Literal { literal: Literal, matched: u8 },
    /// An error was found; the machine accepts nothing more.
    Failed,
}

/// An incremental JSON parser: feed it fragments, it tells a [`Sink`] what they contain.
#[derive(Clone, Debug)]
pub struct StreamParser {
    state: State,
    stack: Vec<Container>,
    max_depth: usize,
    /// The longest text accepted, in bytes.
    max_size: usize,
    /// Bytes consumed by earlier fragments: turns an index in the current fragment into an offset.
    consumed: usize,
    /// The decoded content of the open string, or the text of the open number.
    scratch: Vec<u8>,
    /// A high surrogate from `\uD8xx` whose low half may follow as the next escape.
    pending_high_surrogate: Option<u16>,
    /// A surrogate escape that is not half of a pair has been decoded.
    lone_surrogate: bool,
    error: Option<Error>,
}

impl Drop for StreamParser {
    fn drop(&mut self) {
        crate::spare::give(std::mem::take(&mut self.scratch));
    }
}

impl Default for StreamParser {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_DEPTH)
    }
}

impl StreamParser {
    /// A parser that refuses nesting deeper than `max_depth` arrays and objects.
    #[must_use]
    pub fn new(max_depth: usize) -> Self {
        Self {
            state: State::Value,
            stack: Vec::new(),
            max_depth,
            max_size: usize::MAX,
            consumed: 0,
            scratch: crate::spare::take(),
            pending_high_surrogate: None,
            lone_surrogate: false,
            error: None,
        }
    }

    /// Refuses texts longer than `max_size` bytes: the fragment that crosses the limit is parsed up
    /// to it, then fails with `SizeLimitExceeded` at the character that crosses it (or with an
    /// earlier error found before the limit). The rest of that fragment is not read. The verdict
    /// is the same however the text is cut as long as the cuts fall between characters, as they
    /// always do for Python `str` fragments; a cut inside a character can move it.
    #[must_use]
    pub fn with_max_size(mut self, max_size: usize) -> Self {
        self.max_size = max_size;
        self
    }

    /// Bytes fed so far.
    #[must_use]
    pub fn consumed(&self) -> usize {
        self.consumed
    }

    /// Current nesting depth.
    #[must_use]
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The first error found, if any.
    #[must_use]
    pub fn error(&self) -> Option<Error> {
        self.error
    }

    /// Where the text fed so far stands.
    #[must_use]
    pub fn status(&self) -> Status {
        if let Some(error) = self.error {
            return Status::Malformed(error);
        }
        match self.state {
            State::End => Status::Complete,
            State::Number(part) if self.stack.is_empty() && part.is_complete() => Status::Complete,
            _ => Status::Incomplete,
        }
    }

    /// Whether a string read so far holds a surrogate escape that is not half of a pair (`"\ud800"`,
    /// which json.loads keeps and some parsers refuse). A high surrogate at the end still waiting
    /// for its low half does not count (yet).
    #[must_use]
    pub fn has_lone_surrogate(&self) -> bool {
        self.lone_surrogate
    }

    /// The decoded content of the string being read, when the text currently ends inside one, and
    /// whether that string is an object key. A high surrogate still waiting for its pair is left out.
    #[must_use]
    pub fn open_string(&self) -> Option<(&[u8], bool)> {
        match self.state {
            State::Str { key } | State::Escape { key } | State::Unicode { key, .. } => {
                Some((&self.scratch, key))
            }
            _ => None,
        }
    }

    /// The text of the number being read, when the text currently ends inside a number that is
    /// complete as it stands (`12` but not `12.`), and whether it is a float.
    #[must_use]
    pub fn open_number(&self) -> Option<(&[u8], bool)> {
        match self.state {
            State::Number(part) if part.is_complete() => Some((&self.scratch, part.is_float())),
            _ => None,
        }
    }

    /// The text of the number being read so far, complete as it stands or not (`12`, `12.`, `-`),
    /// when the text currently ends inside a number.
    #[must_use]
    pub fn number_so_far(&self) -> Option<&[u8]> {
        match self.state {
            State::Number(_) => Some(&self.scratch),
            _ => None,
        }
    }

    /// Feeds the next fragment. `input` is UTF-8 (or WTF-8) text; bytes outside ASCII are accepted
    /// only inside strings, where they are passed on untouched.
    ///
    /// On malformed text the error names the offset of the first offending byte; it is returned
    /// from this call and from every later one, and the state no longer changes.
    pub fn feed<S: Sink>(&mut self, input: &[u8], sink: &mut S) -> Result<(), Error> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let allowed = self.max_size.saturating_sub(self.consumed);
        if input.len() > allowed {
            // The part before the limit is parsed first, so that an error in it is reported the
            // same however the text is cut; the limit falls on the start of the character that
            // crosses it.
            let mut at = allowed;
            while at > 0 && input.get(at).is_some_and(|&byte| byte & 0xC0 == 0x80) {
                at -= 1;
            }
            let head = input.get(..at).unwrap_or_default();
            let error = match self.run(head, sink) {
                Err(error) => error,
                Ok(()) => Error::new(ErrorKind::SizeLimitExceeded, self.consumed + at),
            };
            self.consumed += at;
            self.fail(error);
            return Err(error);
        }
        let result = self.run(input, sink);
        self.consumed += input.len();
        if let Err(error) = result {
            self.fail(error);
        }
        result
    }

    /// Declares the end of the text. Completes a top-level number; on a cut-off text returns the
    /// `EofWhileParsing…` error at the text's end, on a malformed one its error.
    pub fn finish<S: Sink>(&mut self, sink: &mut S) -> Result<(), Error> {
        if let Some(error) = self.error {
            return Err(error);
        }
        if let State::Number(part) = self.state {
            if part.is_complete() && self.stack.is_empty() {
                // A top-level number ends with the text.
                sink.number(&self.scratch, part.is_float());
                self.after_value();
            }
        }
        if self.state == State::End {
            return Ok(());
        }
        let error = Error::new(self.cut_off_kind(), self.consumed);
        // A cut-off text stays a valid prefix: more input could still complete it, so the parser
        // keeps its state rather than failing.
        Err(error)
    }

    fn fail(&mut self, error: Error) {
        self.error = Some(error);
        self.state = State::Failed;
    }

    /// What is missing if the text ended here: the `EofWhileParsing…` kind `finish` would report.
    #[must_use]
    pub fn cut_off_kind(&self) -> ErrorKind {
        match self.state {
            State::Str { .. } | State::Escape { .. } | State::Unicode { .. } => {
                ErrorKind::EofWhileParsingString
            }
            // `[1` lacks its closer, not more of the number: it is the list that is cut off.
            State::Number(part) if !part.is_complete() => ErrorKind::EofWhileParsingNumber,
            State::Literal { .. } => ErrorKind::EofWhileParsingLiteral,
            _ => match self.stack.last() {
                None => ErrorKind::EofWhileParsingValue,
                Some(Container::Array) => ErrorKind::EofWhileParsingList,
                Some(Container::Object) => ErrorKind::EofWhileParsingObject,
            },
        }
    }

    fn after_value(&mut self) {
        self.state = if self.stack.is_empty() {
            State::End
        } else {
            State::AfterMember
        };
    }

    #[allow(clippy::too_many_lines)] // One match over the states: splitting it costs a call per byte.
    fn run<S: Sink>(&mut self, input: &[u8], sink: &mut S) -> Result<(), Error> {
        let base = self.consumed;
        let error = |kind, index: usize| Error::new(kind, base + index);
        let mut i = 0;
        while let Some(&byte) = input.get(i) {
            match self.state {
                State::Value | State::ArrayFirst | State::ArrayNext => {
                    if is_whitespace(byte) {
                        i = skip_whitespace(input, i + 1);
                        continue;
                    }
                    i = self.begin_value(byte, input, i, base, sink)?;
                }
                State::ObjectFirst | State::ObjectNext => match byte {
                    _ if is_whitespace(byte) => i = skip_whitespace(input, i + 1),
                    b'"' => {
                        self.scratch.clear();
                        self.state = State::Str { key: true };
                        i = self.scan_string(true, input, i + 1, base, sink)?;
                    }
                    b'}' if self.state == State::ObjectFirst => {
                        self.stack.pop();
                        sink.end_object();
                        self.after_value();
                        i += 1;
                    }
                    b'}' => return Err(error(ErrorKind::TrailingComma, i)),
                    _ => return Err(error(ErrorKind::KeyMustBeAString, i)),
                },
                State::Colon => match byte {
                    _ if is_whitespace(byte) => i = skip_whitespace(input, i + 1),
                    b':' => {
                        self.state = State::Value;
                        // The value usually follows one space later: skipped here rather than by
                        // one more turn of the loop.
                        i = skip_whitespace(input, i + 1);
                    }
                    _ => return Err(error(ErrorKind::ExpectedColon, i)),
                },
                State::AfterMember => {
                    let in_array = self.stack.last() == Some(&Container::Array);
                    match byte {
                        _ if is_whitespace(byte) => {}
                        b',' => {
                            i = self.after_comma(in_array, input, i, base, sink)?;
                            // An object's member usually ends with a scalar and a comma straight
                            // after it: the next member is read in this loop rather than through
                            // the dispatch on the state. A member that leaves the state at
                            // `AfterMember` opened no container, so `in_array` still holds.
                            // `tooljson.loads` took 0.98–0.99× the time on the records and the
                            // escaped records (paired, 301–401 rounds, both orders); accumulate +
                            // finish 0.99–1.02×, within noise. Arrays stay out (`after_comma`
                            // leaves them at `ArrayNext`): reading an array's next item in its
                            // comma's turn made the parser slower (1.07–1.15×).
                            while self.state == State::AfterMember && input.get(i) == Some(&b',') {
                                i = self.after_comma(in_array, input, i, base, sink)?;
                            }
                            continue;
                        }
                        b']' if in_array => {
                            self.stack.pop();
                            sink.end_array();
                            self.after_value();
                        }
                        b'}' if !in_array => {
                            self.stack.pop();
                            sink.end_object();
                            self.after_value();
                        }
                        _ if in_array => return Err(error(ErrorKind::ExpectedListCommaOrEnd, i)),
                        _ => return Err(error(ErrorKind::ExpectedObjectCommaOrEnd, i)),
                    }
                    i += 1;
                }
                State::End => {
                    if !is_whitespace(byte) {
                        return Err(error(ErrorKind::TrailingCharacters, i));
                    }
                    i = skip_whitespace(input, i + 1);
                }
                State::Str { key } => i = self.scan_string(key, input, i, base, sink)?,
                State::Escape { key } => {
                    i = self.escape(key, byte, i, base)?;
                }
                State::Unicode { key, count, code } => {
                    let Some(digit) = hex_value(byte) else {
                        return Err(error(ErrorKind::InvalidUnicodeEscape, i));
                    };
                    let code = (code << 4) | digit;
                    if count == 3 {
                        self.push_code_unit(code);
                        self.state = State::Str { key };
                    } else {
                        self.state = State::Unicode {
                            key,
                            count: count + 1,
                            code,
                        };
                    }
                    i += 1;
                }
                State::Number(part) => i = self.scan_number(part, input, i, None, base, sink)?,
                State::Literal { literal, matched } => {
                    i = self.scan_literal(literal, matched, input, i, base, sink)?;
                }
                State::Failed => {
                    return Err(self.error.unwrap_or(error(ErrorKind::ExpectedValue, i)))
                }
            }
        }
        Ok(())
    }

    /// Handles the first byte of a value; returns the index after it, or, for a string or a
    /// number, after as much of it as `input` holds (read here rather than by one more turn of
    /// `run`'s loop: see [`Self::after_comma`]).
    fn begin_value<S: Sink>(
        &mut self,
        byte: u8,
        input: &[u8],
        i: usize,
        base: usize,
        sink: &mut S,
    ) -> Result<usize, Error> {
        let offset = base + i;
        match byte {
            b'{' => {
                self.push(Container::Object, offset)?;
                sink.start_object();
                self.state = State::ObjectFirst;
            }
            b'[' => {
                self.push(Container::Array, offset)?;
                sink.start_array();
                self.state = State::ArrayFirst;
            }
            b'"' => {
                self.scratch.clear();
                self.state = State::Str { key: false };
                return self.scan_string(false, input, i + 1, base, sink);
            }
            b'-' | b'0'..=b'9' => {
                let part = match byte {
                    b'-' => NumberPart::Minus,
                    b'0' => NumberPart::Zero,
                    _ => NumberPart::Integer,
                };
                self.state = State::Number(part);
                return self.scan_number(part, input, i + 1, Some(i), base, sink);
            }
            b't' | b'f' | b'n' | b'N' | b'I' => {
                let literal = match byte {
                    b't' => Literal::True,
                    b'f' => Literal::False,
                    b'n' => Literal::Null,
                    b'N' => Literal::NaN,
                    _ => Literal::Infinity,
                };
                self.state = State::Literal {
                    literal,
                    matched: 1,
                };
            }
            b']' if self.state == State::ArrayFirst => {
                self.stack.pop();
                sink.end_array();
                self.after_value();
            }
            b']' if self.state == State::ArrayNext => {
                return Err(Error::new(ErrorKind::TrailingComma, offset));
            }
            _ => return Err(Error::new(ErrorKind::ExpectedValue, offset)),
        }
        Ok(i + 1)
    }

    /// Handles the `,` at `i` after a member; returns the index to go on from. In an object the
    /// next key, when it follows, is read here too: each turn of `run`'s loop dispatches on the
    /// state through a jump that the processor mispredicts often, and chaining the comma, the key,
    /// its colon and (in `begin_value`) the value's string or number into one turn took
    /// `tooljson.loads` to 0.93× the time on the 100 KB records and on the escaped records (paired
    /// rounds, load 2.3).
    fn after_comma<S: Sink>(
        &mut self,
        in_array: bool,
        input: &[u8],
        i: usize,
        base: usize,
        sink: &mut S,
    ) -> Result<usize, Error> {
        let next = skip_whitespace(input, i + 1);
        if in_array {
            self.state = State::ArrayNext;
            return Ok(next);
        }
        if input.get(next) == Some(&b'"') {
            self.scratch.clear();
            self.state = State::Str { key: true };
            return self.scan_string(true, input, next + 1, base, sink);
        }
        self.state = State::ObjectNext;
        Ok(next)
    }

    fn push(&mut self, container: Container, offset: usize) -> Result<(), Error> {
        if self.stack.len() >= self.max_depth {
            return Err(Error::new(ErrorKind::RecursionLimitExceeded, offset));
        }
        self.stack.push(container);
        Ok(())
    }

    /// Reads string content from `start` up to the closing quote or the fragment's end. Escapes
    /// that lie wholly inside the fragment are decoded here, in the same loop; one cut by the
    /// fragment's end is left to the `Escape` and `Unicode` states.
    fn scan_string<S: Sink>(
        &mut self,
        key: bool,
        input: &[u8],
        start: usize,
        base: usize,
        sink: &mut S,
    ) -> Result<usize, Error> {
        let mut i = start;
        loop {
            if self.pending_high_surrogate.is_some() && input.get(i).is_some_and(|&b| b != b'\\') {
                self.flush_high_surrogate();
            }
            // Once the string has content of its own (after its first escape, or from an
            // earlier fragment) the rest is copied as it is scanned; until then it is only
            // scanned, so that a string without escapes is passed on from the input.
            let copying = !self.scratch.is_empty() && self.pending_high_surrogate.is_none();
            let (run_len, end) = if copying {
                (0, copy_string_content(input, i, &mut self.scratch))
            } else {
                let run_len = string_run_length(input.get(i..).unwrap_or_default());
                (run_len, i + run_len)
            };
            let run = input.get(i..i + run_len).unwrap_or_default();
            match input.get(end) {
                None => {
                    self.scratch.extend_from_slice(run);
                    return Ok(end);
                }
                Some(b'"') => {
                    // A string that begins and ends in this fragment without escapes is passed on
                    // straight from the input, without a copy.
                    let content = if copying {
                        &self.scratch
                    } else if self.scratch.is_empty() {
                        run
                    } else {
                        append_run(&mut self.scratch, input, i, run_len);
                        &self.scratch
                    };
                    if key {
                        sink.key(content);
                        if input.get(end + 1) == Some(&b':') {
                            // The colon usually follows the key at once: read here rather than
                            // by one more turn of `run`'s loop, with the space after it, and the
                            // value's first byte too. Reading the value here took
                            // `tooljson.loads` to 0.96–0.98× the time on the records and the
                            // escaped records (paired, both builds in one process, 301–401
                            // rounds, both orders); accumulate + finish 0.99–1.01×.
                            self.state = State::Value;
                            let next = skip_whitespace(input, end + 2);
                            return match input.get(next) {
                                Some(&byte) => self.begin_value(byte, input, next, base, sink),
                                None => Ok(next),
                            };
                        }
                        self.state = State::Colon;
                    } else {
                        sink.string(content);
                        self.after_value();
                    }
                    return Ok(end + 1);
                }
                Some(b'\\') => {
                    if !copying {
                        append_run(&mut self.scratch, input, i, run_len);
                    }
                    match input.get(end + 1) {
                        Some(b'u') => {
                            if let Some(unit) = input.get(end + 2..end + 6).and_then(parse_hex4) {
                                self.push_code_unit(unit);
                                i = end + 6;
                                continue;
                            }
                        }
                        Some(&escaped) => {
                            i = self.escape(key, escaped, end + 1, base)?;
                            continue;
                        }
                        None => {}
                    }
                    self.state = State::Escape { key };
                    return Ok(end + 1);
                }
                Some(_) => return Err(Error::new(ErrorKind::ControlCharacterInString, base + end)),
            }
        }
    }

    fn escape(&mut self, key: bool, byte: u8, i: usize, base: usize) -> Result<usize, Error> {
        if byte != b'u' {
            self.flush_high_surrogate();
        }
        let decoded = match SHORT_ESCAPES.get(usize::from(byte)) {
            Some(&decoded @ 1..) => decoded,
            _ if byte == b'u' => {
                self.state = State::Unicode {
                    key,
                    count: 0,
                    code: 0,
                };
                return Ok(i + 1);
            }
            _ => return Err(Error::new(ErrorKind::InvalidEscape, base + i)),
        };
        self.scratch.push(decoded);
        self.state = State::Str { key };
        Ok(i + 1)
    }

    /// Adds the code unit of a `\uXXXX` escape. An escaped high surrogate directly followed by an
    /// escaped low one makes one character; any other surrogate is kept alone, as json.loads does.
    fn push_code_unit(&mut self, unit: u16) {
        if let Some(high) = self.pending_high_surrogate.take() {
            if (0xDC00..=0xDFFF).contains(&unit) {
                let code =
                    0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                push_code_point(&mut self.scratch, code);
                return;
            }
            push_code_point(&mut self.scratch, u32::from(high));
            self.lone_surrogate = true;
        }
        if (0xD800..=0xDBFF).contains(&unit) {
            self.pending_high_surrogate = Some(unit);
        } else {
            self.lone_surrogate |= (0xDC00..=0xDFFF).contains(&unit);
            push_code_point(&mut self.scratch, u32::from(unit));
        }
    }

    fn flush_high_surrogate(&mut self) {
        if let Some(high) = self.pending_high_surrogate.take() {
            push_code_point(&mut self.scratch, u32::from(high));
            self.lone_surrogate = true;
        }
    }

    /// Reads a number from `start`. `begun` is where it began when that was in this input (its
    /// first byte already read): the number is then passed on straight from the input, without a
    /// copy, unless the input ends inside it. A run of digits is skipped in one tight loop rather
    /// than byte by byte through `NumberPart::next`. Both together took `tooljson.loads` to 0.985×
    /// the time on the 100 KB records and on the escaped records, 0.97× on the nested document,
    /// accumulate + finish unchanged (0.99–1.00×; paired, 1001–2001 rounds). Reading integers of
    /// up to 18 digits as an `i64` rather than an `i128` (`convert.rs`) gained nothing beside it
    /// (1.01×).
    fn scan_number<S: Sink>(
        &mut self,
        mut part: NumberPart,
        input: &[u8],
        start: usize,
        begun: Option<usize>,
        base: usize,
        sink: &mut S,
    ) -> Result<usize, Error> {
        let mut i = start;
        let stop = loop {
            if part.takes_digit_runs() {
                i = skip_digits(input, i);
            }
            let Some(&byte) = input.get(i) else {
                break None;
            };
            match part.next(byte) {
                Some(next) => {
                    part = next;
                    i += 1;
                }
                None => break Some(byte),
            }
        };
        let Some(byte) = stop else {
            if let Some(begun) = begun {
                self.scratch.clear();
                self.scratch
                    .extend_from_slice(input.get(begun..i).unwrap_or_default());
            } else {
                self.scratch
                    .extend_from_slice(input.get(start..i).unwrap_or_default());
            }
            self.state = State::Number(part);
            return Ok(i);
        };
        if part == NumberPart::Minus && byte == b'I' {
            self.state = State::Literal {
                literal: Literal::NegInfinity,
                matched: 2,
            };
            return Ok(i + 1);
        }
        if !part.is_complete() || (part == NumberPart::Zero && byte.is_ascii_digit()) {
            return Err(Error::new(ErrorKind::InvalidNumber, base + i));
        }
        // The number is only reported once what follows it is known to be valid, so that a
        // consumer never sees a number the text then turns out not to have (`[1, 2x`).
        if let Some(kind) = self.bad_follower(byte) {
            return Err(Error::new(kind, base + i));
        }
        let text = if let Some(begun) = begun {
            input.get(begun..i).unwrap_or_default()
        } else {
            self.scratch
                .extend_from_slice(input.get(start..i).unwrap_or_default());
            &self.scratch
        };
        sink.number(text, part.is_float());
        self.after_value();
        // The byte that ended the number belongs to what follows; it is read again there.
        Ok(i)
    }

    /// The error a byte right after a complete scalar causes, if it cannot follow it here.
    fn bad_follower(&self, byte: u8) -> Option<ErrorKind> {
        if is_whitespace(byte) {
            return None;
        }
        match (self.stack.last(), byte) {
            (Some(Container::Array), b',' | b']') | (Some(Container::Object), b',' | b'}') => None,
            (None, _) => Some(ErrorKind::TrailingCharacters),
            (Some(Container::Array), _) => Some(ErrorKind::ExpectedListCommaOrEnd),
            (Some(Container::Object), _) => Some(ErrorKind::ExpectedObjectCommaOrEnd),
        }
    }

    fn scan_literal<S: Sink>(
        &mut self,
        literal: Literal,
        matched: u8,
        input: &[u8],
        start: usize,
        base: usize,
        sink: &mut S,
    ) -> Result<usize, Error> {
        let text = literal.text();
        let mut matched = usize::from(matched);
        let mut i = start;
        while let Some(&expected) = text.get(matched) {
            match input.get(i) {
                None => {
                    self.state = State::Literal {
                        literal,
                        matched: matched as u8,
                    };
                    return Ok(i);
                }
                Some(&byte) if byte == expected => {
                    matched += 1;
                    i += 1;
                }
                Some(_) => return Err(Error::new(ErrorKind::ExpectedIdent, base + i)),
            }
        }
        sink.literal(literal);
        self.after_value();
        Ok(i)
    }
}
