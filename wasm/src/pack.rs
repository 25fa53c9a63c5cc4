//! Results for JavaScript as a packed value: a serde `Serializer` whose output `js/unpack.js`
//! turns into the JS value `JSON.parse` would make of serde_json's text, without the text.
//!
//! A board of 10,000 claims as JSON is 6.7 MB: 270,000 field names and 190,000 string values,
//! of which only 64,000 differ (a session's name, a state, a time recur on many claims).
//! `JSON.parse` scans every byte of it and makes a JS string of every value; that and collecting
//! those strings was a third of `board()`'s time in Node. Packed, the same board is:
//! - `text`: each distinct string once (UTF-8), with `ends`, where each ends in UTF-16 units,
//!   so that JS decodes the whole text once and slices it;
//! - `ints`: the value as a stream of tags and operands (string numbers, lengths, shapes);
//! - `nums`: its numbers, as the `f64`s `JSON.parse` would make of them;
//! - `shapes`: the key lists of the objects written for structs, each list once; JS makes the
//!   objects of a shape with one object literal (Node) or by copying a template (browsers), which
//!   is much cheaper than adding the keys one by one.
//!
//! Interning the strings is this side's cost: a hash and, for a string seen before, a compare,
//! both eight bytes at a time (wasm's `memcmp` goes byte by byte), and field names, which serde
//! passes as the same `&'static str` each time, found by address. On that board `board()` in
//! Node is about a fifth faster than with JSON text and `JSON.parse`.
//!
//! The value is serde_json's: `null` for `None` and `()`, enums tagged as serde says, map keys
//! as strings (numbers and booleans written as serde_json writes them), non-finite floats as
//! `null`. The tests below unpack in Rust and compare with serde_json's text as `JSON.parse`
//! reads it, keys in order; the package tests and the conformance test (`tests/conformance`)
//! compare what JS gets with native JSON.

use std::collections::HashMap;
use std::fmt::Display;
use std::hash::{BuildHasherDefault, Hasher};

use serde::ser::{self, Serialize};

/// The tags of the `ints` stream. Each is followed by its operands in `ints`, except numbers,
/// whose value is the next of `nums`.
pub mod tag {
    pub const NULL: i32 = 0;
    pub const FALSE: i32 = 1;
    pub const TRUE: i32 = 2;
    /// The next number of `nums`.
    pub const NUMBER: i32 = 3;
    /// Operand: the string's number in the table.
    pub const STRING: i32 = 4;
    /// Operand: the length; then that many values.
    pub const ARRAY: i32 = 5;
    /// Operand: the shape's number; then a value for each of its keys.
    pub const OBJECT: i32 = 6;
    /// Operand: the number of entries; then, for each, a key's string number and a value.
    pub const MAP: i32 = 7;
}

/// A value packed for `js/unpack.js`; see the module's documentation.
#[derive(Debug, Default)]
pub struct Packed {
    pub ints: Vec<i32>,
    pub nums: Vec<f64>,
    pub text: Vec<u8>,
    pub ends: Vec<u32>,
    /// For each shape: its number of keys, then their string numbers.
    pub shapes: Vec<u32>,
    /// Whether `text` is all ASCII (then each byte is one UTF-16 unit, and Node can decode it as
    /// Latin-1 with a plain copy).
    pub ascii: bool,
}

/// Packs `value`. `expected_ints` is a guess of the stream's length, to size it.
pub fn pack<T: Serialize + ?Sized>(value: &T, expected_ints: usize) -> Result<Packed, Error> {
    let mut packer = Packer {
        out: Packed {
            ints: Vec::with_capacity(expected_ints),
            ascii: true,
            ..Packed::default()
        },
        strings: Strings::default(),
        shape_numbers: HashMap::default(),
        keys: Vec::new(),
        key_cache: [(0, 0, 0); KEY_CACHE],
    };
    value.serialize(&mut packer)?;
    Ok(packer.out)
}

/// Why a value could not be packed: a map key JSON cannot spell (not a string, number or
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

/// A multiplicative hash over 32-bit words: in wasm32 those are the cheap ones. Used for the
/// string table (whose lookups are bounded by [`PROBES`], since its strings come from the
/// user's files) and for the shapes' key lists (Rust's field names).
#[derive(Debug, Default)]
struct WordHasher(u32);

impl WordHasher {
    fn word(&mut self, word: u32) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x9e37_79b9);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
            self.word((word as u32) ^ (word >> 32) as u32 ^ (word >> 13) as u32);
        }
        let mut tail = 0u64;
        for (i, &byte) in words.remainder().iter().enumerate() {
            tail |= u64::from(byte) << (8 * i);
        }
        self.word((tail as u32) ^ (tail >> 32) as u32 ^ (tail >> 13) as u32);
    }
    fn write_u32(&mut self, n: u32) {
        self.word(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.word(n as u32);
    }
    fn finish(&self) -> u64 {
        // Mixed so that the low bits, which pick a slot, depend on all of them.
        let mut h = self.0;
        h ^= h >> 15;
        h = h.wrapping_mul(0x2c1b_3c6d);
        h ^= h >> 12;
        u64::from(h)
    }
}

/// The distinct strings written so far, found again by an open-addressing table.
#[derive(Debug, Default)]
struct Strings {
    /// Where each string ends in `Packed::text`, in bytes.
    byte_ends: Vec<u32>,
    hashes: Vec<u32>,
    /// Zero when empty, else a string's number plus one. A power of two long, at most half full.
    slots: Vec<u32>,
    /// The length so far of the text in UTF-16 units.
    utf16_len: u32,
}

/// `a == b`, eight bytes at a time: in wasm, `==` on slices calls a `memcmp` that compares
/// byte by byte.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut x, mut y) = (a.chunks_exact(8), b.chunks_exact(8));
    for (p, q) in (&mut x).zip(&mut y) {
        if u64::from_le_bytes(p.try_into().unwrap_or_default())
            != u64::from_le_bytes(q.try_into().unwrap_or_default())
        {
            return false;
        }
    }
    x.remainder() == y.remainder()
}

impl Strings {
    fn bytes<'a>(&self, out: &'a Packed, n: usize) -> &'a [u8] {
        let start = if n == 0 { 0 } else { self.byte_ends[n - 1] };
        &out.text[start as usize..self.byte_ends[n] as usize]
    }

    /// The number of `s` in the table, adding it if new.
    fn number(&mut self, out: &mut Packed, s: &str) -> u32 {
        let hash = hash_str(s);
        if self.slots.len() <= self.hashes.len() * 2 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut slot = hash as usize & mask;
        let mut free = None;
        for _ in 0..PROBES {
            match self.slots[slot] {
                0 => {
                    free = Some(slot);
                    break;
                }
                taken => {
                    let n = (taken - 1) as usize;
                    if self.hashes[n] == hash && same_bytes(self.bytes(out, n), s.as_bytes()) {
                        return n as u32;
                    }
                }
            }
            slot = (slot + 1) & mask;
        }
        let n = self.hashes.len() as u32;
        if let Some(slot) = free {
            self.slots[slot] = n + 1;
        }
        self.hashes.push(hash);
        out.text.extend_from_slice(s.as_bytes());
        self.byte_ends.push(out.text.len() as u32);
        self.utf16_len += if s.is_ascii() {
            s.len() as u32
        } else {
            out.ascii = false;
            s.encode_utf16().count() as u32
        };
        out.ends.push(self.utf16_len);
        n
    }

    /// Doubles the table (from 1,024 slots), placing every string again by its hash.
    fn grow(&mut self) {
        let len = (self.slots.len() * 2).max(1024);
        self.slots = vec![0; len];
        let mask = len - 1;
        for (n, &hash) in self.hashes.iter().enumerate() {
            let mut slot = hash as usize & mask;
            for _ in 0..PROBES {
                if self.slots[slot] == 0 {
                    self.slots[slot] = n as u32 + 1;
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
    }
}

/// How far a lookup walks from a string's slot before it gives up. claims.md is untrusted, and
/// strings made to collide would otherwise make packing quadratic; past this, a string is
/// written again instead of found (the value is the same, only less deduplicated).
const PROBES: usize = 32;

fn hash_str(s: &str) -> u32 {
    let mut hasher = WordHasher(s.len() as u32);
    hasher.write(s.as_bytes());
    hasher.finish() as u32
}

#[derive(Debug)]
pub struct Packer {
    out: Packed,
    strings: Strings,
    /// Each shape written so far (its keys' string numbers) and its number.
    shape_numbers: HashMap<Box<[u32]>, u32, BuildHasherDefault<WordHasher>>,
    /// The keys of the structs being written, innermost last.
    keys: Vec<u32>,
    /// Field names seen lately: address, length, string number (see [`Packer::key`]).
    key_cache: [(usize, usize, u32); KEY_CACHE],
}

const KEY_CACHE: usize = 251;

impl Packer {
    fn string(&mut self, s: &str) {
        let n = self.strings.number(&mut self.out, s);
        self.out.ints.push(tag::STRING);
        self.out.ints.push(n as i32);
    }

    fn number(&mut self, n: f64) -> Result<(), Error> {
        // serde_json writes NaN and the infinities as `null`.
        if n.is_finite() {
            self.out.ints.push(tag::NUMBER);
            self.out.nums.push(n);
        } else {
            self.out.ints.push(tag::NULL);
        }
        Ok(())
    }

    /// Integers go through `f64` as `JSON.parse` reads them: exact up to 2^53, rounded to the
    /// nearest above (the same rounding `as` does).
    fn integer<N: Into<i128>>(&mut self, n: N) -> Result<(), Error> {
        self.number(n.into() as f64)
    }

    /// The string number of a struct's field name. serde passes the same `&'static str` for a
    /// field every time, so its address finds it again in a small cache before any hashing.
    fn key(&mut self, key: &'static str) -> u32 {
        let slot = (key.as_ptr() as usize >> 2) % KEY_CACHE;
        match self.key_cache[slot] {
            (at, len, n) if at == key.as_ptr() as usize && len == key.len() => n,
            _ => {
                let n = self.strings.number(&mut self.out, key);
                self.key_cache[slot] = (key.as_ptr() as usize, key.len(), n);
                n
            }
        }
    }

    /// The number of the shape with these keys, adding it if new.
    fn shape(&mut self, keys_from: usize) -> i32 {
        let keys = &self.keys[keys_from..];
        if let Some(&n) = self.shape_numbers.get(keys) {
            return n as i32;
        }
        let n = self.shape_numbers.len() as u32;
        self.out.shapes.push(keys.len() as u32);
        self.out.shapes.extend_from_slice(keys);
        self.shape_numbers.insert(keys.into(), n);
        n as i32
    }

    /// Opens an array, a map or an object whose operand (length, entries, shape) is known only
    /// at its end: the operand's place, to fill in then.
    fn open(&mut self, tag: i32) -> usize {
        self.out.ints.push(tag);
        self.out.ints.push(0);
        self.out.ints.len() - 1
    }

    /// An enum variant with content, as serde tags it by default: `{"variant": content}`, an
    /// object of one key.
    fn variant(&mut self, variant: &str) {
        let key = self.strings.number(&mut self.out, variant);
        let from = self.keys.len();
        self.keys.push(key);
        let shape = self.shape(from);
        self.keys.truncate(from);
        self.out.ints.push(tag::OBJECT);
        self.out.ints.push(shape);
    }
}

/// `serialize_i8` … `serialize_u64`, each handing its number to one method (`$with`).
macro_rules! integers {
    ($with:ident) => {
        integers!(@each $with:
            serialize_i8 i8, serialize_i16 i16, serialize_i32 i32, serialize_i64 i64,
            serialize_u8 u8, serialize_u16 u16, serialize_u32 u32, serialize_u64 u64);
    };
    (@each $with:ident: $($name:ident $t:ty),*) => {$(
        fn $name(self, v: $t) -> Result<(), Error> {
            self.$with(v)
        }
    )*};
}

impl<'a> ser::Serializer for &'a mut Packer {
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
        self.out.ints.push(if v { tag::TRUE } else { tag::FALSE });
        Ok(())
    }
    integers!(integer);
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        self.number(v as f64)
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        self.number(v as f64)
    }
    // No result has a float today. An f32 is widened as it is, not by way of its shortest
    // decimal form as serde_json writes it: the two can differ in the last bits.
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.number(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.number(v)
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
        self.out.ints.push(tag::NULL);
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
        self.variant(variant);
        value.serialize(self)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self, tag::ARRAY))
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
        self.variant(variant);
        Ok(Compound::open(self, tag::ARRAY))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self, tag::MAP))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, Error> {
        Ok(Compound::open(self, tag::OBJECT))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Error> {
        self.variant(variant);
        Ok(Compound::open(self, tag::OBJECT))
    }
}

/// An array, map or object being written.
#[derive(Debug)]
pub struct Compound<'a> {
    packer: &'a mut Packer,
    /// Where its operand goes in `ints`.
    operand: usize,
    /// Arrays and maps: how many elements or entries so far. Objects: where their keys start
    /// on the packer's key stack.
    count: usize,
}

impl<'a> Compound<'a> {
    fn open(packer: &'a mut Packer, tag: i32) -> Self {
        let operand = packer.open(tag);
        let count = if tag == tag::OBJECT {
            packer.keys.len()
        } else {
            0
        };
        Compound {
            packer,
            operand,
            count,
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.count += 1;
        value.serialize(&mut *self.packer)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        let key = self.packer.key(key);
        self.packer.keys.push(key);
        value.serialize(&mut *self.packer)
    }

    /// The end of an array or map: its length.
    fn finish(self) -> Result<(), Error> {
        self.packer.out.ints[self.operand] = self.count as i32;
        Ok(())
    }

    /// The end of an object: its shape.
    fn finish_object(self) -> Result<(), Error> {
        let shape = self.packer.shape(self.count);
        self.packer.keys.truncate(self.count);
        self.packer.out.ints[self.operand] = shape;
        Ok(())
    }
}

/// The four sequence-like compounds are all the same: elements, then the length.
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
        self.count += 1;
        let key = key.serialize(MapKey)?;
        let n = self.packer.strings.number(&mut self.packer.out, &key);
        self.packer.out.ints.push(n as i32);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.packer)
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
                self.finish_object()
            }
        }
    )*};
}

struct_like!(SerializeStruct, SerializeStructVariant);

/// A map key, as the string serde_json writes for it: strings, chars and unit variants as they
/// are, numbers and booleans as their JSON text; anything else is an error.
struct MapKey;

fn bad_key() -> Error {
    Error("a map key must be a string, a number or a boolean".into())
}

/// `serialize_i8` … `serialize_u128` of [`MapKey`]: the decimal text.
macro_rules! integer_keys {
    ($($name:ident $t:ty),*) => {$(
        fn $name(self, v: $t) -> Result<String, Error> {
            Ok(itoa::Buffer::new().format(v).to_owned())
        }
    )*};
}

/// The [`MapKey`] methods for every kind of value a key cannot be.
macro_rules! not_keys {
    ($($name:ident($($arg:ident: $t:ty),*) -> $ret:ty),*) => {$(
        fn $name(self, $($arg: $t),*) -> Result<$ret, Error> {
            let _ = ($($arg),*);
            Err(bad_key())
        }
    )*};
}

impl ser::Serializer for MapKey {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = ser::Impossible<String, Error>;
    type SerializeTuple = ser::Impossible<String, Error>;
    type SerializeTupleStruct = ser::Impossible<String, Error>;
    type SerializeTupleVariant = ser::Impossible<String, Error>;
    type SerializeMap = ser::Impossible<String, Error>;
    type SerializeStruct = ser::Impossible<String, Error>;
    type SerializeStructVariant = ser::Impossible<String, Error>;

    fn serialize_str(self, v: &str) -> Result<String, Error> {
        Ok(v.to_owned())
    }
    fn serialize_char(self, v: char) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<String, Error> {
        Ok(variant.to_owned())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<String, Error> {
        value.serialize(self)
    }
    integer_keys!(serialize_i8 i8, serialize_i16 i16, serialize_i32 i32, serialize_i64 i64,
        serialize_i128 i128, serialize_u8 u8, serialize_u16 u16, serialize_u32 u32,
        serialize_u64 u64, serialize_u128 u128);
    fn serialize_bool(self, v: bool) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_f32(self, v: f32) -> Result<String, Error> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<String, Error> {
        if !v.is_finite() {
            return Err(Error("a float map key must be finite".into()));
        }
        serde_json::to_string(&v).map_err(|e| Error(e.to_string()))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<String, Error> {
        Err(bad_key())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<String, Error> {
        Err(bad_key())
    }
    not_keys!(
        serialize_bytes(v: &[u8]) -> String,
        serialize_none() -> String,
        serialize_unit() -> String,
        serialize_unit_struct(name: &'static str) -> String,
        serialize_seq(len: Option<usize>) -> Self::SerializeSeq,
        serialize_tuple(len: usize) -> Self::SerializeTuple,
        serialize_tuple_struct(name: &'static str, len: usize) -> Self::SerializeTupleStruct,
        serialize_tuple_variant(name: &'static str, index: u32, variant: &'static str, len: usize)
            -> Self::SerializeTupleVariant,
        serialize_map(len: Option<usize>) -> Self::SerializeMap,
        serialize_struct(name: &'static str, len: usize) -> Self::SerializeStruct,
        serialize_struct_variant(name: &'static str, index: u32, variant: &'static str, len: usize)
            -> Self::SerializeStructVariant
    );
}

// Native only: proptest does not build for wasm32 (the wasm tests run the package as a whole).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use std::collections::BTreeMap;

    use super::{pack, tag, Packed};
    use proptest::prelude::*;
    use serde::Serialize;

    /// A JS value as `JSON.parse` makes it: numbers are doubles, and an object's keys keep their
    /// order (which a `serde_json::Value` would not).
    #[derive(Debug, PartialEq)]
    enum Js {
        Null,
        Bool(bool),
        Number(f64),
        String(String),
        Array(Vec<Js>),
        Object(Vec<(String, Js)>),
    }

    /// Reads serde_json's text the way `JSON.parse` does.
    impl<'de> serde::Deserialize<'de> for Js {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Js, D::Error> {
            struct Visitor;
            impl<'de> serde::de::Visitor<'de> for Visitor {
                type Value = Js;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("JSON")
                }
                fn visit_unit<E>(self) -> Result<Js, E> {
                    Ok(Js::Null)
                }
                fn visit_bool<E>(self, v: bool) -> Result<Js, E> {
                    Ok(Js::Bool(v))
                }
                fn visit_u64<E>(self, v: u64) -> Result<Js, E> {
                    Ok(Js::Number(v as f64))
                }
                fn visit_i64<E>(self, v: i64) -> Result<Js, E> {
                    Ok(Js::Number(v as f64))
                }
                fn visit_f64<E>(self, v: f64) -> Result<Js, E> {
                    Ok(Js::Number(v))
                }
                fn visit_str<E>(self, v: &str) -> Result<Js, E> {
                    Ok(Js::String(v.to_owned()))
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Js, A::Error> {
                    let mut items = Vec::new();
                    while let Some(item) = a.next_element()? {
                        items.push(item);
                    }
                    Ok(Js::Array(items))
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Js, A::Error> {
                    let mut entries: Vec<(String, Js)> = Vec::new();
                    while let Some((key, value)) = a.next_entry::<String, Js>()? {
                        // A repeated key keeps its first place and takes the last value.
                        match entries.iter_mut().find(|(k, _)| *k == key) {
                            Some(entry) => entry.1 = value,
                            None => entries.push((key, value)),
                        }
                    }
                    Ok(Js::Object(entries))
                }
            }
            d.deserialize_any(Visitor)
        }
    }

    /// What `js/unpack.js` does, in Rust.
    fn unpack(packed: &Packed) -> Js {
        let text = std::str::from_utf8(&packed.text).unwrap();
        assert_eq!(packed.ascii, text.is_ascii());
        let units: Vec<u16> = text.encode_utf16().collect();
        let mut start = 0;
        let strings: Vec<String> = packed
            .ends
            .iter()
            .map(|&end| {
                let s = String::from_utf16(&units[start..end as usize]).unwrap();
                start = end as usize;
                s
            })
            .collect();
        assert_eq!(start, units.len(), "the ends cover the text");
        let mut shapes = Vec::new();
        let mut i = 0;
        while i < packed.shapes.len() {
            let n = packed.shapes[i] as usize;
            let keys = &packed.shapes[i + 1..i + 1 + n];
            shapes.push(keys.iter().map(|&k| strings[k as usize].clone()).collect());
            i += 1 + n;
        }
        let mut reader = Reader {
            packed,
            strings: &strings,
            shapes: &shapes,
            at: 0,
            num: 0,
        };
        let value = reader.value();
        assert_eq!(reader.at, packed.ints.len(), "the whole stream is read");
        assert_eq!(reader.num, packed.nums.len(), "every number is read");
        value
    }

    struct Reader<'a> {
        packed: &'a Packed,
        strings: &'a [String],
        shapes: &'a [Vec<String>],
        at: usize,
        num: usize,
    }

    impl Reader<'_> {
        fn int(&mut self) -> usize {
            self.at += 1;
            self.packed.ints[self.at - 1] as usize
        }

        fn value(&mut self) -> Js {
            match self.int() as i32 {
                tag::NULL => Js::Null,
                tag::FALSE => Js::Bool(false),
                tag::TRUE => Js::Bool(true),
                tag::NUMBER => {
                    self.num += 1;
                    Js::Number(self.packed.nums[self.num - 1])
                }
                tag::STRING => Js::String(self.strings[self.int()].clone()),
                tag::ARRAY => Js::Array((0..self.int()).map(|_| self.value()).collect()),
                tag::OBJECT => {
                    let keys = &self.shapes[self.int()];
                    Js::Object(keys.iter().map(|k| (k.clone(), self.value())).collect())
                }
                tag::MAP => Js::Object(
                    (0..self.int())
                        .map(|_| (self.strings[self.int()].clone(), self.value()))
                        .collect(),
                ),
                other => panic!("unknown tag {other}"),
            }
        }
    }

    /// serde_json's text, read as JS reads it, is the reference: native hosts print that text.
    /// Compared in their debug form, in which `-0` and `0` differ (for `==` they are equal).
    fn same<T: Serialize + ?Sized>(value: &T) {
        let text = serde_json::to_string(value).unwrap();
        let expected: Js = serde_json::from_str(&text).unwrap();
        let ours = unpack(&pack(value, 0).unwrap());
        assert_eq!(format!("{ours:?}"), format!("{expected:?}"), "{text}");
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
        single: f32,
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
    fn every_shape_as_json_parse_reads_serde_json() {
        same(&All {
            flag: true,
            small: -8,
            big: u64::MAX,
            negative: i64::MIN,
            wide: -(1 << 100),
            float: 2.5,
            not_a_number: f32::NAN,
            single: 0.5,
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
            by_name: [("a\"b", 1), ("", 2), ("__proto__", 3)].into(),
            by_number: [(-3, "minus"), (40, "forty")].into(),
            by_flag: [(false, 0), (true, 1)].into(),
            flat: [("extra", 9)].into(),
        });
        same(&[
            1.0f64,
            0.1,
            1e300,
            f64::INFINITY,
            -0.0,
            9_007_199_254_740_993.0,
        ]);
        same(&[u64::MAX - 1, (1 << 53) + 1]);
        same(&BTreeMap::from([(1.5f64.to_bits(), "bits")]));
        same(&BTreeMap::from([(i128::MIN, 1)]));
        same(&"\u{feff}starts with a byte order mark");
    }

    #[test]
    fn repeated_strings_and_shapes_are_stored_once() {
        #[derive(Serialize)]
        struct Claim {
            task: String,
            state: &'static str,
        }
        let claims: Vec<Claim> = (0..100)
            .map(|i| Claim {
                task: format!("t{}", i % 10),
                state: if i % 2 == 0 { "live" } else { "stale" },
            })
            .collect();
        let packed = pack(&claims, 0).unwrap();
        // "task", "state", t0..t9, "live", "stale"
        assert_eq!(packed.ends.len(), 14);
        assert_eq!(packed.shapes.len(), 3, "one shape of two keys");
        same(&claims);
    }

    #[test]
    fn keys_that_are_not_strings_or_numbers_are_errors() {
        let map = BTreeMap::from([((1, 2), "pair")]);
        assert!(serde_json::to_string(&map).is_err());
        assert!(pack(&map, 0).is_err());
    }

    #[test]
    fn the_string_table_grows_and_finds_every_string_again() {
        // Past several doublings of the table, each string written twice.
        let strings: Vec<String> = (0..5_000).map(|i| format!("s{i}é")).collect();
        let twice: Vec<&String> = strings.iter().chain(&strings).collect();
        let packed = pack(&twice, 0).unwrap();
        assert_eq!(packed.ends.len(), 5_000);
        assert!(!packed.ascii);
        same(&twice);
    }

    #[test]
    fn strings_made_to_collide_are_written_again_not_searched_for() {
        // 300 strings whose hashes share their low 12 bits: one chain in any table this size.
        let target = super::hash_str("c0") & 0xfff;
        let colliding: Vec<String> = (0..)
            .map(|i| format!("c{i}"))
            .filter(|s| super::hash_str(s) & 0xfff == target)
            .take(300)
            .collect();
        let twice: Vec<&String> = colliding.iter().chain(&colliding).collect();
        let packed = pack(&twice, 0).unwrap();
        assert!(
            packed.ends.len() > 300,
            "past the probe limit, strings are not found again"
        );
        assert!(packed.ends.len() < 600, "within it, they are");
        same(&twice);
    }

    proptest! {
        #[test]
        fn any_strings(v in proptest::collection::vec(any::<String>(), 0..8)) {
            same(&v);
        }

        #[test]
        fn strings_around_word_lengths(v in proptest::collection::vec("[a-c\u{e9}\u{1f600}]{0,20}", 0..30)) {
            same(&v);
        }

        #[test]
        fn any_map(m in proptest::collection::btree_map(any::<String>(), any::<Option<i64>>(), 0..8)) {
            same(&m);
        }

        #[test]
        fn any_numbers(v in proptest::collection::vec(any::<f64>(), 0..8), w in any::<i64>(), u in any::<u64>()) {
            same(&(v, w, u));
        }
    }
}
