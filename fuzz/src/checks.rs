//! The properties the fuzz targets check, as plain functions of the fuzz input.
//!
//! `tests/core_regressions.rs` includes this file too, so that every input the fuzzer ever broke the
//! core with is checked again, with the same code, by `cargo test`.
//!
//! Input layout (both targets): byte 0 picks the options, byte 1 the number of cuts, then two bytes
//! (little-endian) per cut position, then the text. Invalid UTF-8 in the text is mapped to U+FFFD,
//! so that the text is what a Python `str` fragment could carry; the cuts are byte offsets and may
//! fall inside a multi-byte character, which the byte-level core must take in its stride (except
//! under a size limit: see `Case::from_bytes`).

use tooljson::{
    Error, ErrorKind, Literal, Sink, Status, StreamParser, ValueBuilder, DEFAULT_MAX_DEPTH,
};

/// At most this many cuts, so that one input stays cheap.
const MAX_CUTS: usize = 32;

/// A fuzz input taken apart.
#[derive(Debug)]
pub struct Case {
    /// The nesting limit.
    pub max_depth: usize,
    /// The size limit in bytes, when there is one.
    pub max_size: Option<usize>,
    /// The text, valid UTF-8.
    pub text: Vec<u8>,
    /// Ascending cut offsets into `text`; a repeated offset gives an empty fragment.
    pub cuts: Vec<usize>,
}

impl Case {
    /// Reads a case from fuzz bytes.
    #[must_use]
    pub fn from_bytes(data: &[u8]) -> Self {
        let options = data.first().copied().unwrap_or(0);
        let cut_count = usize::from(data.get(1).copied().unwrap_or(0)) % (MAX_CUTS + 1);
        let header_end = (2 + 2 * cut_count).min(data.len());
        let raw_cuts = data.get(2..header_end).unwrap_or_default();
        let text = String::from_utf8_lossy(data.get(header_end..).unwrap_or_default())
            .into_owned()
            .into_bytes();
        // Small limits reach their error paths on the short texts a fuzzer makes.
        let max_depth = if options & 0x80 == 0 {
            DEFAULT_MAX_DEPTH
        } else {
            1 + usize::from(options & 0x0F)
        };
        let max_size = (options & 0x40 != 0).then(|| usize::from(options & 0x3F) * text.len() / 63);
        let mut cuts: Vec<usize> = raw_cuts
            .chunks_exact(2)
            .map(|pair| usize::from(u16::from_le_bytes([pair[0], pair[1]])) % (text.len() + 1))
            .collect();
        if max_size.is_some() {
            // Under a size limit a cut inside a character is not promised to give the whole text's
            // verdict (the limit is placed on characters, and a fragment that ends inside one hides
            // where it starts); Python fragments are whole characters, so cut only between them.
            for cut in &mut cuts {
                while text.get(*cut).is_some_and(|&byte| byte & 0xC0 == 0x80) {
                    *cut -= 1;
                }
            }
        }
        cuts.sort_unstable();
        Self {
            max_depth,
            max_size,
            text,
            cuts,
        }
    }

    /// The fragments the cuts make.
    #[must_use]
    pub fn fragments(&self) -> Vec<&[u8]> {
        let mut fragments = Vec::with_capacity(self.cuts.len() + 1);
        let mut start = 0;
        for &end in self.cuts.iter().chain(std::iter::once(&self.text.len())) {
            fragments.push(self.text.get(start..end).unwrap_or_default());
            start = end;
        }
        fragments
    }

    fn parser(&self) -> StreamParser {
        let parser = StreamParser::new(self.max_depth);
        match self.max_size {
            Some(max_size) => parser.with_max_size(max_size),
            None => parser,
        }
    }
}

/// One parser event, owned, for comparing two runs.
#[derive(Clone, Debug, PartialEq)]
enum Event {
    StartArray,
    StartObject,
    EndArray,
    EndObject,
    Key(Vec<u8>),
    String(Vec<u8>),
    Number(Vec<u8>, bool),
    Literal(Literal),
}

/// Records the events and builds the value at the same time.
#[derive(Default)]
struct Recorder {
    events: Vec<Event>,
    builder: ValueBuilder,
}

impl Sink for Recorder {
    fn start_array(&mut self) {
        self.events.push(Event::StartArray);
        self.builder.start_array();
    }
    fn start_object(&mut self) {
        self.events.push(Event::StartObject);
        self.builder.start_object();
    }
    fn end_array(&mut self) {
        self.events.push(Event::EndArray);
        self.builder.end_array();
    }
    fn end_object(&mut self) {
        self.events.push(Event::EndObject);
        self.builder.end_object();
    }
    fn key(&mut self, key: &[u8]) {
        self.events.push(Event::Key(key.to_vec()));
        self.builder.key(key);
    }
    fn string(&mut self, value: &[u8]) {
        self.events.push(Event::String(value.to_vec()));
        self.builder.string(value);
    }
    fn number(&mut self, text: &[u8], is_float: bool) {
        self.events.push(Event::Number(text.to_vec(), is_float));
        self.builder.number(text, is_float);
    }
    fn literal(&mut self, literal: Literal) {
        self.events.push(Event::Literal(literal));
        self.builder.literal(literal);
    }
}

/// Everything observable about one run. The value is kept as its `Debug` text, which writes floats
/// exactly (the sign of zero included) and makes two NaNs equal.
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<Event>,
    value: Option<String>,
    result: Result<(), Error>,
    status: Status,
}

fn run(parser: &mut StreamParser, fragments: &[&[u8]]) -> Outcome {
    let mut recorder = Recorder::default();
    let mut fed = Ok(());
    for fragment in fragments {
        fed = parser.feed(fragment, &mut recorder);
        if fed.is_err() {
            break;
        }
    }
    let result = fed.and_then(|()| parser.finish(&mut recorder));
    let status = parser.status();
    let events = recorder.events;
    let value = recorder
        .builder
        .into_value()
        .map(|value| format!("{value:?}"));
    Outcome {
        events,
        value,
        result,
        status,
    }
}

/// Whether `prefix` alone, fed whole to a parser with the case's limits, is already malformed.
fn is_malformed(case: &Case, prefix: &[u8]) -> bool {
    case.parser()
        .feed(prefix, &mut Recorder::default())
        .is_err()
}

/// The length of the UTF-8 character that `lead` starts.
fn char_len(lead: u8) -> usize {
    match lead {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// A size error names the character that crosses the limit: it starts within the limit and ends
/// past it.
fn assert_crosses_the_limit(case: &Case, error: Error) {
    let max_size = case.max_size.unwrap_or(usize::MAX);
    let lead = case.text.get(error.offset).copied().unwrap_or(0);
    assert!(
        error.offset <= max_size && error.offset + char_len(lead) > max_size,
        "{error:?} does not name the character that crosses max_size {max_size}"
    );
}

/// Target (a): the text cut at the case's cuts gives the same events, value and verdict (error kind
/// and offset) as the whole text, also under a size limit; a malformed text's offset is that of its
/// first offending byte, a size error's that of the character that crosses the limit.
///
/// # Panics
/// When a property does not hold: that is the finding.
pub fn check_split_equivalence(case: &Case) {
    let whole = run(&mut case.parser(), &[&case.text]);
    let mut parser = case.parser();
    let split = run(&mut parser, &case.fragments());
    assert_eq!(split, whole, "cut at {:?}", case.cuts);

    match whole.result {
        Ok(()) => {
            assert_eq!(whole.status, Status::Complete);
            assert!(whole.value.is_some(), "a complete text has a value");
        }
        Err(error) if error.is_eof() => {
            assert_eq!(
                error.offset,
                case.text.len(),
                "a cut-off text ends at its length"
            );
            assert_eq!(whole.status, Status::Incomplete);
        }
        Err(error) => {
            assert_eq!(whole.status, Status::Malformed(error));
            assert!(
                error.offset < case.text.len(),
                "{error:?} lies inside the text"
            );
            // The offset's definition: the text up to it is a valid prefix, one byte more is not
            // (for a size error: one character more does not fit).
            let before = case.text.get(..error.offset).unwrap_or_default();
            assert!(
                !is_malformed(case, before),
                "{error:?}: the text before it is malformed already"
            );
            if error.kind == ErrorKind::SizeLimitExceeded {
                assert_crosses_the_limit(case, error);
            } else {
                let through = case.text.get(..=error.offset).unwrap_or_default();
                assert!(
                    is_malformed(case, through),
                    "{error:?}: the text through it is not malformed"
                );
            }
            // A failed parser keeps its error, whatever it is fed next.
            assert_eq!(parser.feed(b"[", &mut Recorder::default()), Err(error));
            assert_eq!(parser.finish(&mut Recorder::default()), Err(error));
        }
    }
}

/// Target (b): after every fragment, `status()`, `open_string()`, `open_number()` and
/// `cut_off_kind()` answer without panicking and agree with each other, with what `feed` returned,
/// and with the status of the same prefix fed whole; once malformed, the status stays malformed at
/// the same offset; `finish` ends as the last status said.
///
/// # Panics
/// When a property does not hold: that is the finding.
pub fn check_status_consistency(case: &Case) {
    let mut parser = case.parser();
    let mut sink = Recorder::default();
    let mut fed_length = 0usize;
    let mut malformed: Option<Error> = None;
    for fragment in case.fragments() {
        let fed = parser.feed(fragment, &mut sink);
        let status = parser.status();
        if let Some(error) = malformed {
            assert_eq!(fed, Err(error), "a malformed text keeps its error");
            assert_eq!(
                status,
                Status::Malformed(error),
                "a malformed status keeps its offset"
            );
            continue;
        }
        match fed {
            Ok(()) => {
                fed_length += fragment.len();
                assert_eq!(parser.consumed(), fed_length);
                assert!(
                    !matches!(status, Status::Malformed(_)),
                    "{status:?} after a fragment that was accepted"
                );
                // The status of a prefix does not depend on how it was cut.
                let mut whole = case.parser();
                let prefix = case.text.get(..fed_length).unwrap_or_default();
                let _ = whole.feed(prefix, &mut Recorder::default());
                assert_eq!(whole.status(), status, "status after {fed_length} bytes");
            }
            Err(error) => {
                assert_eq!(status, Status::Malformed(error));
                if error.kind == ErrorKind::SizeLimitExceeded {
                    assert_crosses_the_limit(case, error);
                    // The fragment is read up to the limit, not past it.
                    assert_eq!(parser.consumed(), error.offset);
                } else {
                    assert!(
                        error.offset >= fed_length && error.offset < fed_length + fragment.len()
                    );
                }
                malformed = Some(error);
            }
        }
        assert!(
            parser.depth() <= case.max_depth,
            "depth {} over the limit",
            parser.depth()
        );
        assert!(parser.cut_off_kind().is_eof());
        if let Some((content, _key)) = parser.open_string() {
            assert_eq!(
                status,
                Status::Incomplete,
                "an open string {content:?} in a text that is not incomplete"
            );
        }
        if let Some((digits, _float)) = parser.open_number() {
            assert!(
                !matches!(status, Status::Malformed(_)),
                "an open number {digits:?} in a malformed text"
            );
        }
    }
    let status = parser.status();
    let cut_off_kind = parser.cut_off_kind();
    let finished = parser.finish(&mut sink);
    match status {
        Status::Complete => assert_eq!(finished, Ok(())),
        Status::Incomplete => assert_eq!(
            finished,
            Err(Error {
                kind: cut_off_kind,
                offset: fed_length
            })
        ),
        Status::Malformed(error) => assert_eq!(finished, Err(error)),
    }
    if finished.is_ok() {
        assert_eq!(parser.status(), Status::Complete);
    }
}
