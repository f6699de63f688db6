//! tooljson: an incremental, exact JSON parser for streamed tool-call arguments.
//!
//! The core ([`StreamParser`]) reads JSON text fragment by fragment, in one pass, and reports
//! structural events to a [`Sink`]. It has no Python dependency; the PyO3 bindings live in
//! `python.rs` behind the `python` feature.

pub mod error;
pub mod parser;
pub mod sink;
pub mod value;

#[cfg(feature = "python")]
mod python;

pub use error::{Error, ErrorKind, Location};
pub use parser::{Status, StreamParser, DEFAULT_MAX_DEPTH};
pub use sink::{IgnoreSink, Literal, Sink};
pub use value::{parse, parse_fragments, Value, ValueBuilder};
