//! What the parser tells its consumer: one call per structural event, in document order.

/// A literal name the parser recognised in full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Literal {
    /// `true`
    True,
    /// `false`
    False,
    /// `null`
    Null,
    /// `NaN` (accepted, as `json.loads` accepts it)
    NaN,
    /// `Infinity`
    Infinity,
    /// `-Infinity`
    NegInfinity,
}

impl Literal {
    /// The literal's full text.
    #[must_use]
    pub fn text(self) -> &'static [u8] {
        match self {
            Self::True => b"true",
            Self::False => b"false",
            Self::Null => b"null",
            Self::NaN => b"NaN",
            Self::Infinity => b"Infinity",
            Self::NegInfinity => b"-Infinity",
        }
    }
}

/// Receives the parser's events. A value inside a container is announced after the container's
/// start (and, in an object, after its key); a container's end comes after its last member.
///
/// Strings arrive decoded, as UTF-8 bytes, with lone surrogate escapes (`"\ud800"`) encoded as
/// three-byte generalised UTF-8 (WTF-8) so that no information is lost.
pub trait Sink {
    /// `[` was read.
    fn start_array(&mut self);
    /// `{` was read.
    fn start_object(&mut self);
    /// The `]` of the innermost open array was read.
    fn end_array(&mut self);
    /// The `}` of the innermost open object was read.
    fn end_object(&mut self);
    /// A complete object key.
    fn key(&mut self, key: &[u8]);
    /// A complete string value.
    fn string(&mut self, value: &[u8]);
    /// A complete number: its text, and whether it has a fraction or an exponent (a float).
    fn number(&mut self, text: &[u8], is_float: bool);
    /// A complete literal.
    fn literal(&mut self, literal: Literal);
}

/// A sink that ignores everything: for validating text without building a value.
#[derive(Clone, Copy, Debug, Default)]
pub struct IgnoreSink;

impl Sink for IgnoreSink {
    fn start_array(&mut self) {}
    fn start_object(&mut self) {}
    fn end_array(&mut self) {}
    fn end_object(&mut self) {}
    fn key(&mut self, _key: &[u8]) {}
    fn string(&mut self, _value: &[u8]) {}
    fn number(&mut self, _text: &[u8], _is_float: bool) {}
    fn literal(&mut self, _literal: Literal) {}
}
