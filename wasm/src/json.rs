//! Results as JSON text: a serde `Serializer` that writes the JSON serde_json writes, in ASCII
//! and for less in wasm.
//!
//! A board of 10,000 claims is 7 MB of JSON: 270,000 field names and 200,000 string values.
//! What costs in wasm is the work per string, not per byte, so this writer copies a struct's
//! field names (Rust identifiers, as serde names them) without looking for characters to escape,
//! and scans other strings eight bytes at a time. Characters outside ASCII are written as `\u`
//! escapes, so the whole text is ASCII and the host can make a JS string of it with a plain byte
//! copy (see `ret` in lib.rs). Everything else is serde_json's compact output, byte for byte:
//! `null` for `None` and `()`, enums tagged as serde says, map keys as strings (numbers and
//! booleans quoted), no whitespace. The tests below hold the two writers to the same bytes for
//! ASCII and to the same values for everything; the conformance test (`tests/conformance`)
//! compares every fixture's wasm result with the native one.
//!
//! Measured on that board in Node against serde_json: `board()` about 4% faster, and the module
//! 1.7 KB smaller (serde_json's serializer is no longer in it).

use std::fmt::Display;

use serde::ser::{self, Serialize};

/// Writes `value` as compact JSON. `expected` is a guess of the length, to size the buffer.
pub fn to_string<T: Serialize + ?Sized>(value: &T, expected: usize) -> Result<String, Error> {
    let mut writer = Writer {
        out: String::with_capacity(expected),
    };
    value.serialize(&mut writer)?;
    Ok(writer.out)
}

/// Why a value could not be written: a map key JSON cannot spell (not a string, number or
/// boolean; a float that is not finite), or a custom error from a type's own `Serialize`.
#[derive(Debug)]
pub struct Error(String);

impl Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

#[derive(Debug)]
pub struct Writer {
    out: String,
}

impl Writer {
    fn integer(&mut self, n: impl itoa::Integer) -> Result<(), Error> {
        self.out.push_str(itoa::Buffer::new().format(n));
        Ok(())
    }

    fn string(&mut self, s: &str) {
        self.out.reserve(s.len() + 2);
        self.out.push('"');
        let bytes = s.as_bytes();
        // `run` is where the text not yet copied starts. `i` only ever stops on ASCII bytes or
        // steps over whole characters, so it and both ends of each copied run are character
        // boundaries.
        let (mut run, mut i) = (0, 0);
        while i < bytes.len() {
            if let Some(word) = bytes.get(i..i + 8) {
                let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
                if !needs_escape(word) {
                    i += 8;
                    continue;
                }
            }
            let b = bytes[i];
            if b < 0x20 || b == b'"' || b == b'\\' {
                self.out.push_str(&s[run..i]);
                self.escape(b);
                i += 1;
                run = i;
            } else if b >= 0x80 {
                self.out.push_str(&s[run..i]);
                let c = s[i..].chars().next().unwrap_or_default();
                for unit in c.encode_utf16(&mut [0; 2]) {
                    self.unicode_escape(*unit);
                }
                i += c.len_utf8();
                run = i;
            } else {
                i += 1;
            }
        }
        self.out.push_str(&s[run..]);
        self.out.push('"');
    }

    /// `\uxxxx`, lower-case hex as serde_json writes it.
    fn unicode_escape(&mut self, unit: u16) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.out.push_str("\\u");
        for shift in [12, 8, 4, 0] {
            self.out
                .push(char::from(HEX[usize::from((unit >> shift) & 0xf)]));
        }
    }

    /// serde_json's escapes: the short ones where JSON has them, `\u00xx` for the other
    /// control characters.
    fn escape(&mut self, b: u8) {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            _ => return self.unicode_escape(u16::from(b)),
        };
        self.out.push_str(short);
    }
}

/// Whether any of the eight bytes of `word` is below 0x20, `"`, `\` or outside ASCII (the
/// classic SWAR tests: a byte is zero, or less than n, exactly when its high bit survives
/// `(x - n) & !x`; a byte outside ASCII has its high bit set already).
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let has_quote = quote.wrapping_sub(ONES) & !quote;
    let has_backslash = backslash.wrapping_sub(ONES) & !backslash;
    (below_space | has_quote | has_backslash | word) & HIGH != 0
}

/// `serialize_i8` … `serialize_u128`, each handing its number to one method (`$with`).
macro_rules! integers {
    ($with:ident) => {
        integers!(@each $with:
            serialize_i8 i8, serialize_i16 i16, serialize_i32 i32, serialize_i64 i64,
            serialize_i128 i128, serialize_u8 u8, serialize_u16 u16, serialize_u32 u32,
            serialize_u64 u64, serialize_u128 u128);
    };
    (@each $with:ident: $($name:ident $t:ty),*) => {$(
        fn $name(self, v: $t) -> Result<(), Error> {
            self.$with(v)
        }
    )*};
}

/// Everything but strings and numbers, which have their own methods above.
impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    integers!(integer);
    // No result has a float today; serde_json writes them (its shortest round-trip form, and
    // `null` for NaN and the infinities) so that one never differs from native output.
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        let text = serde_json::to_string(&v).map_err(|e| Error(e.to_string()))?;
        self.out.push_str(&text);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.string(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.out.push_str("null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.out.push('{');
        self.string(variant);
        self.out.push(':');
        value.serialize(&mut *self)?;
        self.out.push('}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self, "[", "]"))
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(Compound::variant(self, variant, "[", "]}"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self, "{", "}"))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self, "{", "}"))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        Ok(Compound::variant(self, variant, "{", "}}"))
    }
}

/// An array or object being written: commas between its members, `close` at the end.
#[derive(Debug)]
pub struct Compound<'a> {
    writer: &'a mut Writer,
    first: bool,
    close: &'static str,
}

impl<'a> Compound<'a> {
    fn open(writer: &'a mut Writer, open: &str, close: &'static str) -> Self {
        writer.out.push_str(open);
        Compound {
            writer,
            first: true,
            close,
        }
    }

    /// An enum variant with fields, as serde tags it by default: `{"variant":[…]}` or
    /// `{"variant":{…}}`.
    fn variant(writer: &'a mut Writer, variant: &str, open: &str, close: &'static str) -> Self {
        writer.out.push('{');
        writer.string(variant);
        writer.out.push(':');
        Compound::open(writer, open, close)
    }

    fn comma(&mut self) {
        if !self.first {
            self.writer.out.push(',');
        }
        self.first = false;
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.comma();
        value.serialize(&mut *self.writer)
    }

    /// A struct field. Its name is a Rust identifier (ASCII), possibly renamed by serde, so it
    /// is copied without looking for characters to escape (it is half of all strings written).
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        debug_assert!(key
            .bytes()
            .all(|b| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\'));
        self.comma();
        let out = &mut self.writer.out;
        out.push('"');
        out.push_str(key);
        out.push_str("\":");
        value.serialize(&mut *self.writer)
    }

    fn finish(self) -> Result<(), Error> {
        self.writer.out.push_str(self.close);
        Ok(())
    }
}

/// The four sequence-like compounds are all the same: elements, commas, the closing bracket.
macro_rules! sequence_like {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }
            fn end(self) -> Result<(), Error> {
                self.finish()
            }
        }
    )*};
}

sequence_like!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.comma();
        key.serialize(MapKey(&mut *self.writer))?;
        self.writer.out.push(':');
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.writer)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

/// A struct and a struct variant write their fields alike.
macro_rules! struct_like {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.field(key, value)
            }
            fn end(self) -> Result<(), Error> {
                self.finish()
            }
        }
    )*};
}

struct_like!(SerializeStruct, SerializeStructVariant);

/// A map key: JSON keys are strings, so strings, chars and unit variants are written as they are,
/// numbers and booleans quoted (as serde_json does), and anything else is an error.
struct MapKey<'a>(&'a mut Writer);

impl MapKey<'_> {
    fn quoted(self, n: impl itoa::Integer) -> Result<(), Error> {
        self.0.out.push('"');
        self.0.integer(n)?;
        self.0.out.push('"');
        Ok(())
    }
}

fn bad_key() -> Error {
    Error("a map key must be a string, a number or a boolean".into())
}

impl ser::Serializer for MapKey<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.0.string(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.0.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.0.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    integers!(quoted);
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.0
            .out
            .push_str(if v { "\"true\"" } else { "\"false\"" });
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(Error("a float map key must be finite".into()));
        }
        self.0.out.push('"');
        (&mut *self.0).serialize_f64(v)?;
        self.0.out.push('"');
        Ok(())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Error> {
        Err(bad_key())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Err(bad_key())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), Error> {
        Err(bad_key())
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Err(bad_key())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        Err(bad_key())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(bad_key())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(bad_key())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(bad_key())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(bad_key())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(bad_key())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(bad_key())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(bad_key())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(bad_key())
    }
}

// Native only: proptest does not build for wasm32 (the wasm tests run the package as a whole).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde::Serialize;

    /// serde_json's compact text is the reference: native hosts print it. Ours is ASCII, the
    /// same bytes where serde_json's is ASCII too, and the same value always.
    fn same<T: Serialize + ?Sized>(value: &T) {
        let expected = serde_json::to_string(value).unwrap();
        let ours = super::to_string(value, 0).unwrap();
        assert!(ours.is_ascii(), "{ours}");
        if expected.is_ascii() {
            assert_eq!(ours, expected);
        } else {
            let read = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
            assert_eq!(read(&ours), read(&expected), "{ours}");
        }
    }

    #[derive(Serialize)]
    #[serde(rename_all = "kebab-case")]
    enum Shape {
        Unit,
        Newtype(u8),
        Tuple(i32, String),
        Struct { a: Option<bool>, b: Vec<u8> },
    }

    #[derive(Serialize)]
    #[serde(tag = "op", rename_all = "snake_case")]
    enum Tagged {
        Claim { task: String },
        Release,
    }

    #[derive(Serialize)]
    struct Newtype(String);

    #[derive(Serialize)]
    struct Unit;

    #[derive(Serialize)]
    struct All {
        flag: bool,
        small: i8,
        big: u64,
        negative: i64,
        wide: i128,
        float: f64,
        not_a_number: f32,
        letter: char,
        text: &'static str,
        none: Option<u8>,
        some: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
        unit: (),
        unit_struct: Unit,
        newtype: Newtype,
        tuple: (u8, &'static str, ()),
        empty: Vec<u8>,
        #[serde(with = "serde_bytes_as_seq")]
        bytes: Vec<u8>,
        shapes: Vec<Shape>,
        tagged: Vec<Tagged>,
        by_name: BTreeMap<&'static str, u8>,
        by_number: BTreeMap<i32, &'static str>,
        by_flag: BTreeMap<bool, u8>,
        #[serde(flatten)]
        flat: BTreeMap<&'static str, u8>,
    }

    /// `serialize_bytes`, which derived types never call on their own.
    mod serde_bytes_as_seq {
        pub fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(v)
        }
    }

    #[test]
    fn every_shape_as_serde_json_writes_it() {
        same(&All {
            flag: true,
            small: -8,
            big: u64::MAX,
            negative: i64::MIN,
            wide: -(1 << 100),
            float: 2.5,
            not_a_number: f32::NAN,
            letter: '"',
            text: "tâche \"quoted\" \\ back\tslash\n\u{1}\u{1f}\u{7f} 😀",
            none: None,
            some: Some("x"),
            skipped: None,
            unit: (),
            unit_struct: Unit,
            newtype: Newtype("n".into()),
            tuple: (1, "two", ()),
            empty: vec![],
            bytes: vec![0, 255],
            shapes: vec![
                Shape::Unit,
                Shape::Newtype(7),
                Shape::Tuple(-1, "t".into()),
                Shape::Struct {
                    a: Some(false),
                    b: vec![1, 2],
                },
            ],
            tagged: vec![Tagged::Claim { task: "t".into() }, Tagged::Release],
            by_name: [("a\"b", 1), ("", 2)].into(),
            by_number: [(-3, "minus"), (40, "forty")].into(),
            by_flag: [(false, 0), (true, 1)].into(),
            flat: [("extra", 9)].into(),
        });
        same(&[1.0f64, 0.1, 1e300, f64::INFINITY]);
        same(&BTreeMap::from([(1.5f64.to_bits(), "bits")]));
    }

    #[test]
    fn characters_outside_ascii_are_utf16_escapes() {
        assert_eq!(
            super::to_string("é 😀", 0).unwrap(),
            r#""\u00e9 \ud83d\ude00""#
        );
    }

    #[test]
    fn keys_that_are_not_strings_or_numbers_are_errors() {
        let map = BTreeMap::from([((1, 2), "pair")]);
        assert!(serde_json::to_string(&map).is_err());
        assert!(super::to_string(&map, 0).is_err());
    }

    #[test]
    fn every_byte_value_around_word_boundaries() {
        // Each byte that needs escaping (and a few that do not) at every offset of a string a
        // little longer than two words, so the eight-byte test meets it in every lane.
        for b in (0u8..0x80).chain([0xc3]) {
            let c = if b < 0x80 { char::from(b) } else { 'é' };
            for at in 0..20 {
                let mut s = "a".repeat(at);
                s.push(c);
                s.push_str(&"z".repeat(19 - at));
                same(&s);
            }
        }
    }

    proptest! {
        #[test]
        fn any_string(s in any::<String>()) {
            same(&s);
        }

        #[test]
        fn strings_of_json_specials(s in "[\"\\\\\\x00-\\x1f a-z\u{e9}\u{1f600}]{0,40}") {
            same(&s);
        }

        #[test]
        fn any_map(m in proptest::collection::btree_map(any::<String>(), any::<Option<i64>>(), 0..8)) {
            same(&m);
        }
    }
}
