//! tooljson: an incremental, exact JSON parser for streamed tool-call arguments.
//!
//! The core ([`StreamParser`]) reads JSON text fragment by fragment, in one pass, and reports
//! structural events to a [`Sink`]; [`ValueBuilder`] is a sink that builds a plain Rust [`Value`].
//! The core has no Python dependency: `src/parser.rs` (the state machine), `src/lexical.rs` (its
//! byte-level pieces: whitespace, string runs, escapes, number parts), `src/sink.rs` (what it
//! reports), `src/value.rs` (the Rust value), `src/error.rs` (errors as data) and `src/spare.rs`
//! (byte buffers kept between texts). The PyO3 bindings
//! (the extension module `tooljson._native`) live in `src/python/`, one concern per file, behind
//! the `python` feature that maturin switches on.
//!
//! Fragments can be cut anywhere, even inside a string escape or a number; every byte is scanned
//! once, and the verdict tells a text that was cut off from one that is malformed:
//!
//! ```
//! use tooljson::{StreamParser, Value, ValueBuilder};
//!
//! let mut parser = StreamParser::default();
//! let mut builder = ValueBuilder::default();
//! for fragment in [r#"{"path": "notes.md", "con"#, r##"tent": "# Ti"##, r#"tle\n"}"#] {
//!     parser.feed(fragment.as_bytes(), &mut builder)?;
//! }
//! parser.finish(&mut builder)?;
//! let expected = Value::Object(vec![
//!     ("path".into(), Value::String("notes.md".into())),
//!     ("content".into(), Value::String("# Title\n".into())),
//! ]);
//! assert_eq!(builder.into_value(), Some(expected));
//!
//! // A valid prefix that stops early is cut off, not malformed.
//! let error = tooljson::parse(r#"{"city": "Lis"#).unwrap_err();
//! assert!(error.is_eof());
//! # Ok::<(), tooljson::Error>(())
//! ```

pub mod error;
mod lexical;
pub mod parser;
pub mod sink;
mod spare;
pub mod value;

#[cfg(feature = "python")]
mod python;

pub use error::{Error, ErrorKind};
pub use parser::{Status, StreamParser, DEFAULT_MAX_DEPTH};
pub use sink::{IgnoreSink, Literal, Sink};
pub use value::{parse, parse_fragments, Value, ValueBuilder};
