//! Where a text stands as fragments arrive: the status after each one, error offsets counted across
//! fragments, and `finish` on a cut-off text.

// A test fails by panicking; indexing a table it built itself is part of reading it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod tables;

use tables::{arr, int, obj, s};
use tooljson::ErrorKind::{
    EofWhileParsingList, EofWhileParsingNumber, EofWhileParsingString, EofWhileParsingValue,
    ExpectedValue, TrailingCharacters, TrailingComma,
};
use tooljson::{parse_fragments, Error, IgnoreSink, Status, StreamParser, ValueBuilder};

// ---------------------------------------------------------------------------------------------
// Status as fragments arrive

fn feed(parser: &mut StreamParser, fragment: &str) -> Result<(), Error> {
    parser.feed(fragment.as_bytes(), &mut IgnoreSink)
}

#[test]
fn status_follows_the_text() {
    let mut parser = StreamParser::default();
    assert_eq!(parser.status(), Status::Incomplete);
    let steps: [(&str, Status, usize); 9] = [
        ("", Status::Incomplete, 0),
        (" ", Status::Incomplete, 0),
        ("{", Status::Incomplete, 1),
        ("\"a\":", Status::Incomplete, 1),
        ("[1", Status::Incomplete, 2),
        ("]", Status::Incomplete, 1),
        ("}", Status::Complete, 0),
        (" \n", Status::Complete, 0),
        ("", Status::Complete, 0),
    ];
    for (fragment, status, depth) in steps {
        assert_eq!(feed(&mut parser, fragment), Ok(()), "{fragment:?}");
        assert_eq!(parser.status(), status, "after {fragment:?}");
        assert_eq!(parser.depth(), depth, "after {fragment:?}");
    }
    assert_eq!(parser.consumed(), 12);
    assert_eq!(parser.error(), None);
    let error = Error {
        kind: TrailingCharacters,
        offset: 12,
    };
    assert_eq!(feed(&mut parser, "x"), Err(error));
    assert_eq!(parser.status(), Status::Malformed(error));
    assert_eq!(parser.error(), Some(error));
    // Once malformed, always malformed, with the first error.
    assert_eq!(feed(&mut parser, "{}"), Err(error));
    assert_eq!(feed(&mut parser, ""), Err(error));
    assert_eq!(parser.finish(&mut IgnoreSink), Err(error));
    assert_eq!(parser.status(), Status::Malformed(error));
}

#[test]
fn status_of_a_top_level_number() {
    let mut parser = StreamParser::default();
    for (fragment, status) in [
        ("-", Status::Incomplete),
        ("1", Status::Complete),
        ("2", Status::Complete),
        (".", Status::Incomplete),
        ("5", Status::Complete),
        ("e", Status::Incomplete),
        ("-", Status::Incomplete),
        ("3", Status::Complete),
        (" ", Status::Complete),
    ] {
        assert_eq!(feed(&mut parser, fragment), Ok(()), "{fragment:?}");
        assert_eq!(parser.status(), status, "after {fragment:?}");
    }
    assert_eq!(parser.finish(&mut IgnoreSink), Ok(()));
    assert_eq!(parser.status(), Status::Complete);
}

#[test]
fn error_offset_counts_earlier_fragments() {
    let mut parser = StreamParser::default();
    assert_eq!(feed(&mut parser, "[1,"), Ok(()));
    assert_eq!(
        feed(&mut parser, " é,"),
        Err(Error {
            kind: ExpectedValue,
            offset: 4
        })
    );
    let mut parser = StreamParser::default();
    assert_eq!(feed(&mut parser, "[1,"), Ok(()));
    assert_eq!(feed(&mut parser, "  "), Ok(()));
    assert_eq!(
        feed(&mut parser, "]"),
        Err(Error {
            kind: TrailingComma,
            offset: 5
        })
    );
}

#[test]
fn finish_on_a_cut_off_text_keeps_it_open() {
    // A cut-off text is still a valid prefix: finish reports it and the text may go on.
    let mut parser = StreamParser::default();
    let mut builder = ValueBuilder::default();
    parser.feed(b"{\"a\":\"b", &mut builder).unwrap();
    assert_eq!(
        parser.finish(&mut builder),
        Err(Error {
            kind: EofWhileParsingString,
            offset: 7
        })
    );
    assert_eq!(parser.status(), Status::Incomplete);
    parser.feed(b"c\"}", &mut builder).unwrap();
    assert_eq!(parser.finish(&mut builder), Ok(()));
    assert_eq!(builder.into_value(), Some(obj(vec![("a", s("bc"))])));

    let mut parser = StreamParser::default();
    feed(&mut parser, "1.").unwrap();
    assert_eq!(
        parser.finish(&mut IgnoreSink),
        Err(Error {
            kind: EofWhileParsingNumber,
            offset: 2
        })
    );
    feed(&mut parser, "5").unwrap();
    assert_eq!(parser.finish(&mut IgnoreSink), Ok(()));
}

#[test]
fn finish_on_a_cut_off_number_inside_a_container_keeps_it_open() {
    // The same promise for a number that could still grow: `[1` cut off, then `2]`, is `[12]`.
    let mut parser = StreamParser::default();
    let mut builder = ValueBuilder::default();
    parser.feed(b"[1", &mut builder).unwrap();
    assert_eq!(
        parser.finish(&mut builder),
        Err(Error {
            kind: EofWhileParsingList,
            offset: 2
        })
    );
    assert_eq!(parser.feed(b"2]", &mut builder), Ok(()));
    assert_eq!(parser.finish(&mut builder), Ok(()));
    assert_eq!(builder.into_value(), Some(arr(vec![int(12)])));
}

#[test]
fn parse_fragments_joins_fragments() {
    assert_eq!(
        parse_fragments(["{\"ci", "ty\": \"Lis", "bon\"}"]),
        Ok(obj(vec![("city", s("Lisbon"))]))
    );
    assert_eq!(
        parse_fragments(Vec::<&str>::new()),
        Err(Error {
            kind: EofWhileParsingValue,
            offset: 0
        })
    );
    assert_eq!(
        parse_fragments(["[1,", "", "]"]),
        Err(Error {
            kind: TrailingComma,
            offset: 3
        })
    );
}
