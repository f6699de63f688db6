//! Parse errors as data: a kind and the byte offset where it was detected.
//!
//! The character offset that Python reports is computed only when an error is reported, from the
//! text the caller kept ([`char_count`]): the hot path carries nothing but a `usize`.

use std::fmt;

/// Why the text is not JSON. The wording follows serde_json's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    // The text ended where more was needed: a valid prefix, cut off.
    /// The text ended before a value started.
    EofWhileParsingValue,
    /// The text ended inside a string.
    EofWhileParsingString,
    /// The text ended inside an array.
    EofWhileParsingList,
    /// The text ended inside an object.
    EofWhileParsingObject,
    /// The text ended inside a number (`-`, `1.`, `1e`).
    EofWhileParsingNumber,
    /// The text ended inside `true`, `false`, `null`, `NaN` or `Infinity`.
    EofWhileParsingLiteral,

    // The text can never become JSON.
    /// A character that cannot start a value.
    ExpectedValue,
    /// After an object key, something other than `:`.
    ExpectedColon,
    /// After an array element, something other than `,` or `]`.
    ExpectedListCommaOrEnd,
    /// After an object member, something other than `,` or `}`.
    ExpectedObjectCommaOrEnd,
    /// An object key that does not start with `"`.
    KeyMustBeAString,
    /// A `,` directly before `]` or `}`.
    TrailingComma,
    /// A character after the complete top-level value.
    TrailingCharacters,
    /// A misspelt `true`, `false`, `null`, `NaN` or `Infinity`.
    ExpectedIdent,
    /// A number that breaks the JSON grammar (`01`, `1.e5`, `-x`).
    InvalidNumber,
    /// A backslash followed by a character that is not an escape.
    InvalidEscape,
    /// `\u` not followed by four hexadecimal digits.
    InvalidUnicodeEscape,
    /// A raw character below U+0020 inside a string.
    ControlCharacterInString,
    /// Arrays and objects nested deeper than the configured limit.
    RecursionLimitExceeded,
    /// The text is longer than the configured limit.
    SizeLimitExceeded,
}

impl ErrorKind {
    /// True when the text so far is a valid prefix of JSON that merely stopped early.
    #[must_use]
    pub fn is_eof(self) -> bool {
        matches!(
            self,
            Self::EofWhileParsingValue
                | Self::EofWhileParsingString
                | Self::EofWhileParsingList
                | Self::EofWhileParsingObject
                | Self::EofWhileParsingNumber
                | Self::EofWhileParsingLiteral
        )
    }

    /// The message, worded as serde_json words it.
    #[must_use]
    pub fn message(self) -> &'static str {
        match self {
            Self::EofWhileParsingValue => "EOF while parsing a value",
            Self::EofWhileParsingString => "EOF while parsing a string",
            Self::EofWhileParsingList => "EOF while parsing a list",
            Self::EofWhileParsingObject => "EOF while parsing an object",
            Self::EofWhileParsingNumber => "EOF while parsing a number",
            Self::EofWhileParsingLiteral => "EOF while parsing a literal",
            Self::ExpectedValue => "expected value",
            Self::ExpectedColon => "expected `:`",
            Self::ExpectedListCommaOrEnd => "expected `,` or `]`",
            Self::ExpectedObjectCommaOrEnd => "expected `,` or `}`",
            Self::KeyMustBeAString => "key must be a string",
            Self::TrailingComma => "trailing comma",
            Self::TrailingCharacters => "trailing characters",
            Self::ExpectedIdent => "expected ident",
            Self::InvalidNumber => "invalid number",
            Self::InvalidEscape => "invalid escape",
            Self::InvalidUnicodeEscape => "invalid unicode escape: expected four hex digits",
            Self::ControlCharacterInString => {
                "control character (\\u0000-\\u001F) found while parsing a string"
            }
            Self::RecursionLimitExceeded => "recursion limit exceeded",
            Self::SizeLimitExceeded => "size limit exceeded",
        }
    }
}

/// A parse error: what went wrong and the byte offset in the joined text where it was detected.
///
/// For a malformed text the offset is that of the first character that makes it invalid; for a
/// cut-off text it is the length of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Byte offset into the joined text.
    pub offset: usize,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, offset: usize) -> Self {
        Self { kind, offset }
    }

    /// True when the text is a valid prefix that ended early.
    #[must_use]
    pub fn is_eof(&self) -> bool {
        self.kind.is_eof()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.message(), self.offset)
    }
}

impl std::error::Error for Error {}

/// Number of characters in UTF-8 (or WTF-8) bytes: every byte that is not a continuation byte.
#[must_use]
pub fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}
