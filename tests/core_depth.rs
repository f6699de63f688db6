//! The nesting limit: exactly `max_depth` open containers are allowed, of either kind, the default
//! is the documented one, and a text far deeper than any limit is refused without recursion.

// A test fails by panicking; indexing a table it built itself is part of reading it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use tooljson::ErrorKind::RecursionLimitExceeded;
use tooljson::{parse, Error, IgnoreSink, Status, StreamParser, DEFAULT_MAX_DEPTH};

// ---------------------------------------------------------------------------------------------
// Depth

fn nested(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

fn depth_result(text: &str, max_depth: usize) -> Result<(), Error> {
    let mut parser = StreamParser::new(max_depth);
    parser.feed(text.as_bytes(), &mut IgnoreSink)?;
    parser.finish(&mut IgnoreSink)
}

#[test]
fn depth_limit_allows_exactly_max_depth() {
    for max_depth in [1, 2, 5, 64] {
        assert_eq!(
            depth_result(&nested(max_depth), max_depth),
            Ok(()),
            "max_depth {max_depth}"
        );
        assert_eq!(
            depth_result(&nested(max_depth + 1), max_depth),
            Err(Error {
                kind: RecursionLimitExceeded,
                offset: max_depth
            }),
            "max_depth {max_depth}"
        );
    }
    // Scalars need no depth at all.
    assert_eq!(depth_result("1", 0), Ok(()));
    assert_eq!(
        depth_result("{}", 0),
        Err(Error {
            kind: RecursionLimitExceeded,
            offset: 0
        })
    );
}

#[test]
fn depth_limit_counts_open_containers_of_both_kinds() {
    let text = r#"{"a":[{"b":[]}]}"#;
    assert_eq!(depth_result(text, 4), Ok(()));
    assert_eq!(
        depth_result(text, 3),
        Err(Error {
            kind: RecursionLimitExceeded,
            offset: text.rfind('[').unwrap()
        })
    );
    // Closed siblings do not add up.
    assert_eq!(depth_result("[[],[[]],{},[{}]]", 3), Ok(()));
    assert_eq!(
        depth_result("[[],[[]],{},[{}]]", 2),
        Err(Error {
            kind: RecursionLimitExceeded,
            offset: 5
        })
    );
}

#[test]
fn default_depth_limit_is_the_documented_one() {
    assert_eq!(DEFAULT_MAX_DEPTH, 1000);
    assert!(parse(&nested(DEFAULT_MAX_DEPTH)).is_ok());
    assert_eq!(
        parse(&nested(DEFAULT_MAX_DEPTH + 1)),
        Err(Error {
            kind: RecursionLimitExceeded,
            offset: DEFAULT_MAX_DEPTH
        })
    );
    // The limit is a malformed error, reported before the text is complete.
    let mut parser = StreamParser::default();
    let opening = "[".repeat(DEFAULT_MAX_DEPTH + 1);
    assert!(parser.feed(opening.as_bytes(), &mut IgnoreSink).is_err());
    assert_eq!(
        parser.status(),
        Status::Malformed(Error {
            kind: RecursionLimitExceeded,
            offset: DEFAULT_MAX_DEPTH
        })
    );
}

#[test]
fn very_deep_nesting_does_not_recurse() {
    // No limit to speak of: the explicit stack must carry this without touching the call stack.
    let depth = 200_000;
    assert_eq!(depth_result(&nested(depth), usize::MAX), Ok(()));
    let mut parser = StreamParser::new(usize::MAX);
    parser
        .feed("[{\"a\":".repeat(depth).as_bytes(), &mut IgnoreSink)
        .unwrap();
    assert_eq!(parser.depth(), 2 * depth);
}
