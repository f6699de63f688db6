//! The invariant the whole design rests on: however the text is cut into fragments, the parser
//! reports the same events and ends the same way (value, or error kind and offset) as for the whole
//! text in one piece.
//!
//! Texts: every text of the tables in `tables/mod.rs`, a few more aimed at the places where a cut
//! hurts (escapes, surrogate pairs, numbers, literals), and every UTF-8 file of `JSONTestSuite`.

// A test fails by panicking; indexing a table it built itself is part of reading it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod tables;

use std::path::{Path, PathBuf};

use tables::{Event, Recorder};
use tooljson::{parse, parse_fragments, Error, Status, StreamParser};

/// Files larger than this get sampled two-way cut points instead of every one.
const SAMPLE_ABOVE: usize = 10 * 1024;
/// How many two-way cut points a sampled file gets.
const SAMPLED_CUTS: usize = 200;
/// The default seed of the cuttings.
const SEED: u64 = 0x7001_5EED;
/// Random multi-way cuttings per text.
const RANDOM_CUTTINGS: usize = 24;

/// A tiny seeded generator (splitmix64): the same cuttings on every run, no dependency.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A generator seeded from `TOOLJSON_SPLIT_SEED` when set (to explore other cuttings),
    /// from `default` otherwise, mixed with `salt` so that each test cuts differently.
    fn seeded(default: u64, salt: u64) -> Self {
        let seed = std::env::var("TOOLJSON_SPLIT_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default);
        Self(seed ^ salt)
    }

    /// A number in `low..=high`.
    fn between(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low + 1) as u64) as usize
    }
}

/// Everything observable about one run: the events, how `feed` and `finish` ended, and the status.
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<Event>,
    result: Result<(), Error>,
    status: Status,
}

/// Feeds `text` cut before each offset in `cuts` (ascending; repeats give empty fragments).
fn run(text: &[u8], cuts: &[usize]) -> Outcome {
    let mut parser = StreamParser::default();
    let mut recorder = Recorder::default();
    let mut start = 0;
    let mut fed = Ok(());
    for &end in cuts.iter().chain(std::iter::once(&text.len())) {
        fed = parser.feed(&text[start..end], &mut recorder);
        if fed.is_err() {
            break;
        }
        start = end;
    }
    let result = fed.and_then(|()| parser.finish(&mut recorder));
    // Feeding after an error gives the same error, whatever is fed.
    if let Err(error) = result {
        if !error.is_eof() {
            assert_eq!(parser.feed(b"[", &mut recorder), Err(error));
        }
    }
    Outcome {
        events: recorder.0,
        result,
        status: parser.status(),
    }
}

/// Offsets where the text may be cut: character boundaries, or every byte when `inside_characters`.
fn cut_points(text: &str, inside_characters: bool) -> Vec<usize> {
    (1..text.len())
        .filter(|&at| inside_characters || text.is_char_boundary(at))
        .collect()
}

/// Checks every cutting of `text` against the whole. `inside_characters` also cuts through the
/// bytes of a multi-byte character, which the byte-level core must take in its stride.
fn check_every_cutting(name: &str, text: &str, rng: &mut SplitMix64, inside_characters: bool) {
    let bytes = text.as_bytes();
    let whole = run(bytes, &[]);
    let points = cut_points(text, inside_characters);

    // Two fragments, at every cut point (or a sample of them for a large text).
    let two_way: Vec<usize> = if text.len() > SAMPLE_ABOVE {
        let mut sample: Vec<usize> = (0..SAMPLED_CUTS)
            .map(|_| points[rng.between(0, points.len() - 1)])
            .collect();
        // The start and the end of the text are where the parser is most often caught out.
        sample.extend(points.iter().take(64).chain(points.iter().rev().take(64)));
        sample
    } else {
        points.clone()
    };
    for &at in &two_way {
        let got = run(bytes, &[at]);
        assert_eq!(got, whole, "{name}: cut at byte {at} of {text:?}");
    }

    // One character (or byte) per fragment.
    assert_eq!(run(bytes, &points), whole, "{name}: one piece per fragment");

    // Random cuttings: fragment lengths from 1 to 32 pieces, like the API's deltas, with an
    // occasional empty fragment.
    for round in 0..RANDOM_CUTTINGS {
        let mut cuts = Vec::new();
        let mut at = 0;
        loop {
            if rng.between(0, 15) == 0 {
                cuts.push(at);
                continue;
            }
            at += rng.between(1, 32);
            while at < bytes.len() && !(inside_characters || text.is_char_boundary(at)) {
                at += 1;
            }
            if at >= bytes.len() {
                break;
            }
            cuts.push(at);
        }
        let got = run(bytes, &cuts);
        assert_eq!(
            got, whole,
            "{name}: random cutting {round} at {cuts:?} of {text:?}"
        );
    }
}

fn table_texts() -> Vec<String> {
    let mut texts: Vec<String> = Vec::new();
    texts.extend(
        tables::valid_cases()
            .into_iter()
            .map(|(text, _)| text.to_owned()),
    );
    texts.extend(
        tables::malformed_cases()
            .into_iter()
            .map(|(text, _, _)| text.to_owned()),
    );
    texts.extend(
        tables::cut_off_cases()
            .into_iter()
            .map(|(text, _)| text.to_owned()),
    );
    // Texts whose hard parts are short enough that every cut lands near one.
    texts.extend(
        [
            r#"{"emoji":"\ud83d\ude80 \uD834\uDD1E","lone":"\ud800","low":"\udc00x","two":"\ud800\ud800"}"#,
            r#"["\u00e9\u20ac","é€😀","\"\\\/\b\f\n\r\t", "\ud83d\u0041", "\ud83d\n"]"#,
            "[0,-0,1.5,-1.5e-3,1E+300,123456789012345678901234567890,1e400,-0.0]",
            r#"[true,false,null,NaN,Infinity,-Infinity,{"a":[]}]"#,
            "{\"path\": \"/srv/app/main.py\", \"content\": \"def f():\\n    return \\\"é\\\\n\\\"\\n\"}",
            r#"{"a":1,"b":{"c":[1,2,{"d":null}]},"a":2}"#,
            "  [ 1 ,\t2 ,\r\n 3 ]  ",
            // Broken near the end, after a long valid stretch.
            r#"{"items":[{"id":1,"tags":["x","y"]},{"id":2,"tags":[]}],"next":tru}"#,
            r#"{"items":[{"id":1,"tags":["x","y"]},{"id":2,"tags":[]}],"next":"\q"}"#,
            r#"{"items":[{"id":1,"tags":["x","y"]},{"id":2,"tags":[]}]} {}"#,
            r#"{"items":[{"id":1,"tags":["x","y"]},{"id":2,"tags":[]}],"n":01}"#,
            "[\"\\ud83d\\ude8",
            "[\"\\ud83d\\ud",
            "{\"a\":-Infinit",
            "[1e-",
        ]
        .map(str::to_owned),
    );
    texts.push("[".repeat(1001) + &"]".repeat(1001));
    texts.push("[".repeat(1000) + &"]".repeat(1000));
    texts
}

#[test]
fn table_texts_give_the_same_result_however_cut() {
    let mut rng = SplitMix64::seeded(SEED, 1);
    for text in table_texts() {
        check_every_cutting("table", &text, &mut rng, false);
    }
}

#[test]
fn cuts_inside_a_character_change_nothing() {
    let mut rng = SplitMix64::seeded(SEED, 2);
    for text in table_texts().iter().filter(|text| !text.is_ascii()) {
        check_every_cutting("bytes", text, &mut rng, true);
    }
}

#[test]
fn parse_fragments_agrees_with_parse() {
    // The value-building entry point, on character-boundary cuts.
    let mut rng = SplitMix64::seeded(SEED, 3);
    for text in table_texts() {
        let whole = format!("{:?}", parse(&text));
        let points = cut_points(&text, false);
        for _ in 0..8 {
            let count = if points.is_empty() {
                0
            } else {
                rng.between(0, 6)
            };
            let mut cuts: Vec<usize> = (0..count)
                .map(|_| points[rng.between(0, points.len() - 1)])
                .collect();
            cuts.sort_unstable();
            let mut fragments = Vec::new();
            let mut start = 0;
            for &end in cuts.iter().chain(std::iter::once(&text.len())) {
                fragments.push(&text[start..end]);
                start = end;
            }
            assert_eq!(
                format!("{:?}", parse_fragments(fragments.iter().copied())),
                whole,
                "{text:?} cut at {cuts:?}"
            );
        }
    }
}

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/JSONTestSuite/test_parsing")
}

/// The suite's UTF-8 files, by name. Files in other encodings are left out: fragments are text.
fn suite_files() -> Vec<(String, String)> {
    let dir = suite_dir();
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("JSONTestSuite not found at {}: {error}", dir.display()));
    let mut files: Vec<(String, String)> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            let text = String::from_utf8(std::fs::read(&path).unwrap()).ok()?;
            Some((name, text))
        })
        .collect();
    files.sort();
    assert!(
        files.len() > 250,
        "only {} UTF-8 files in {}",
        files.len(),
        dir.display()
    );
    files
}

#[test]
fn jsontestsuite_files_give_the_same_result_however_cut() {
    let mut rng = SplitMix64::seeded(SEED, 4);
    for (name, text) in suite_files() {
        check_every_cutting(&name, &text, &mut rng, false);
    }
}

#[test]
fn jsontestsuite_verdicts_match_json_loads() {
    // What CPython's json.loads does with each UTF-8 file: `y_` accepted, `n_` rejected, except
    // the three names json.loads accepts beyond the RFC; of the `i_` files it rejects only the
    // one starting with a byte order mark.
    let accepted_n = [
        "n_number_NaN.json",
        "n_number_infinity.json",
        "n_number_minus_infinity.json",
    ];
    let rejected_i = ["i_structure_UTF-8_BOM_empty_object.json"];
    let mut checked = 0;
    for (name, text) in suite_files() {
        let expect_ok = match name.as_bytes()[0] {
            b'y' => true,
            b'n' => accepted_n.contains(&name.as_str()),
            b'i' => !rejected_i.contains(&name.as_str()),
            _ => continue,
        };
        let got = parse(&text);
        assert_eq!(got.is_ok(), expect_ok, "{name}: {text:?} gave {got:?}");
        checked += 1;
    }
    assert!(checked > 250);
}

#[test]
fn mid_stream_view_is_that_of_the_prefix_in_one_piece() {
    // What the parser says mid-stream (status, what is missing, the open string or number) must
    // not depend on how the text so far was cut.
    let mut texts = table_texts();
    texts.extend(
        suite_files()
            .into_iter()
            .filter(|(_, text)| text.len() <= 2048)
            .map(|(_, text)| text),
    );
    for text in texts {
        let mut parser = StreamParser::default();
        let mut recorder = Recorder::default();
        let mut start = 0;
        for end in cut_points(&text, false)
            .into_iter()
            .chain(std::iter::once(text.len()))
        {
            let fed = parser.feed(&text.as_bytes()[start..end], &mut recorder);
            let mut whole = StreamParser::default();
            let whole_fed = whole.feed(&text.as_bytes()[..end], &mut Recorder::default());
            assert_eq!(fed, whole_fed, "{text:?} up to byte {end}");
            assert_eq!(parser.status(), whole.status(), "{text:?} up to byte {end}");
            if fed.is_ok() {
                assert_eq!(
                    parser.cut_off_kind(),
                    whole.cut_off_kind(),
                    "{text:?} up to byte {end}"
                );
                assert_eq!(
                    parser.open_number(),
                    whole.open_number(),
                    "{text:?} up to byte {end}"
                );
            }
            start = end;
        }
    }
}

/// Feeds `text` cut before each offset in `cuts`, to a parser with a size limit; how it ends.
fn run_limited(text: &[u8], cuts: &[usize], max_size: usize) -> Result<(), Error> {
    let mut parser = StreamParser::default().with_max_size(max_size);
    let mut sink = Recorder::default();
    let mut start = 0;
    for &end in cuts.iter().chain(std::iter::once(&text.len())) {
        parser.feed(&text[start..end], &mut sink)?;
        start = end;
    }
    parser.finish(&mut sink)
}

#[test]
fn size_limit_is_exact_however_cut() {
    // A text of exactly `max_size` bytes is accepted; one byte more fails at the first byte past
    // the limit, whatever the fragments. (Valid and cut-off texts: nothing else can fail first.)
    let mut rng = SplitMix64::seeded(SEED, 5);
    let texts = tables::valid_cases()
        .into_iter()
        .map(|(text, _)| text)
        .chain(tables::cut_off_cases().into_iter().map(|(text, _)| text))
        .filter(|text| !text.is_empty());
    for text in texts {
        let bytes = text.as_bytes();
        let whole = run(bytes, &[]).result;
        let points = cut_points(text, false);
        let mut cuttings = vec![Vec::new(), points.clone()];
        for _ in 0..8 {
            let mut cuts: Vec<usize> = (0..rng.between(1, 4))
                .filter(|_| !points.is_empty())
                .map(|_| points[rng.between(0, points.len() - 1)])
                .collect();
            cuts.sort_unstable();
            cuttings.push(cuts);
        }
        for cuts in &cuttings {
            assert_eq!(
                run_limited(bytes, cuts, text.len()),
                whole,
                "{text:?} at {cuts:?}"
            );
            let limit = text.len() - 1;
            // The error names the start of the character that crosses the limit.
            let crossing = (0..=limit)
                .rev()
                .find(|&at| text.is_char_boundary(at))
                .unwrap_or(0);
            assert_eq!(
                run_limited(bytes, cuts, limit),
                Err(Error {
                    kind: tooljson::ErrorKind::SizeLimitExceeded,
                    offset: crossing
                }),
                "{text:?} at {cuts:?}"
            );
        }
    }
}

#[test]
fn size_limit_does_not_hide_an_earlier_error() {
    // `[1,]` is malformed at byte 3, before a limit of 5 is reached: one piece or four, the same
    // error should come first.
    let text = b"[1,]xxxx";
    let expected = Err(Error {
        kind: tooljson::ErrorKind::TrailingComma,
        offset: 3,
    });
    assert_eq!(run_limited(text, &[1, 2, 3, 4, 5, 6, 7], 5), expected);
    assert_eq!(run_limited(text, &[], 5), expected);
}

/// Whether a lone surrogate escape has been read is the same whatever the cuts; a prefix never
/// claims one the whole text lacks, and a high one still waiting for its pair does not count yet.
#[test]
fn lone_surrogates_are_known_at_every_cut() {
    let cases: [(&[u8], bool); 6] = [
        (br#"["\ud83d\ude00"]"#, false),
        (br#"["\ud83d"]"#, true),
        (br#"["\ude00"]"#, true),
        (br#"["\ud83d\u0041"]"#, true),
        (br#"["\ud83dx"]"#, true),
        (br#"["\\ud83d", {"\u00e9": 1}]"#, false),
    ];
    for (text, lone) in cases {
        for cut in 0..=text.len() {
            let mut parser = StreamParser::default();
            parser
                .feed(&text[..cut], &mut tooljson::IgnoreSink)
                .unwrap();
            assert!(!parser.has_lone_surrogate() || lone, "{text:?} up to {cut}");
            parser
                .feed(&text[cut..], &mut tooljson::IgnoreSink)
                .unwrap();
            assert_eq!(parser.has_lone_surrogate(), lone, "{text:?} cut at {cut}");
        }
    }
    let mut waiting = StreamParser::default();
    waiting
        .feed(br#"["\ud83d"#, &mut tooljson::IgnoreSink)
        .unwrap();
    assert!(!waiting.has_lone_surrogate());
}
