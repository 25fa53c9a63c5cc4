//! The rail's texts into wasm, each with one `TextEncoder.encodeInto` call.
//!
//! wasm-bindgen's glue (used by `JsValue::as_string`, and so by serde-wasm-bindgen for every
//! string) copies a string into wasm one UTF-16 unit at a time in a JS loop while it is ASCII.
//! That is fine for names and paths and slow for a claims.md of a megabyte; `encodeInto` does
//! the same copy natively. On a 10,000-claim rail (1.5 MB of text) `board()` in Node got about
//! 5% faster. The texts object is read here field by field ([`texts_from_js`]); every other
//! argument is still read by serde-wasm-bindgen.

use js_sys::{JsString, Uint8Array};
use rail_core::model::input::{FileText, RailTexts};
use rail_core::text::time::parse_time;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, text: &JsString, into: &Uint8Array) -> Encoded;

    /// `encodeInto`'s answer: UTF-16 units read, bytes written.
    type Encoded;
    #[wasm_bindgen(method, getter)]
    fn read(this: &Encoded) -> u32;
    #[wasm_bindgen(method, getter)]
    fn written(this: &Encoded) -> u32;
}

thread_local! {
    static ENCODER: TextEncoder = TextEncoder::new();
}

/// A JS string as UTF-8, or `None` when `value` is not a string. A lone surrogate becomes
/// U+FFFD, as with wasm-bindgen's own conversion.
#[inline(never)]
pub fn text_from_js(value: &JsValue) -> Option<String> {
    let text = value.dyn_ref::<JsString>()?;
    let units = text.length() as usize;
    // One byte per unit is enough for ASCII; whatever does not fit takes at most three bytes per
    // remaining unit, so the second round always finishes.
    let mut bytes = vec![0u8; units];
    let (mut read, mut written) = (0, 0);
    loop {
        let rest = if read == 0 {
            text.clone()
        } else {
            text.slice(read as u32, units as u32)
        };
        let done = ENCODER.with(|encoder| encode_into(encoder, &rest, &mut bytes[written..]));
        read += done.read() as usize;
        written += done.written() as usize;
        if read >= units {
            break;
        }
        bytes.resize(written + (units - read) * 3, 0);
    }
    bytes.truncate(written);
    String::from_utf8(bytes).ok()
}

fn encode_into(encoder: &TextEncoder, text: &JsString, into: &mut [u8]) -> Encoded {
    // SAFETY: the view covers exactly `into`, which is borrowed mutably for the whole call, and
    // it is dropped before the call returns. `encodeInto` allocates nothing in wasm memory, so
    // the memory cannot grow (which would detach the view) while the view exists.
    #[allow(unsafe_code)]
    let view = unsafe { Uint8Array::view_mut_raw(into.as_mut_ptr(), into.len()) };
    encoder.encode_into(text, &view)
}

/// The rail's texts from their JS object, `{ claims?, claim_files?, log?, config? }`, each file
/// `{ path, text, modified? }` (the shape of [`RailTexts`]; missing, `null` and `undefined`
/// all mean absent). Read field by field rather than through serde, so that only the texts take
/// the fast copy and the module does not carry a second deserializer for the same shape.
pub fn texts_from_js(texts: &JsValue) -> Result<RailTexts, BadTexts> {
    if !texts.is_object() {
        return Err(wrong(
            "texts".into(),
            "an object with the rail's texts",
            texts,
        ));
    }
    let list = get(texts, &"claim_files".into(), &|| "texts.claim_files".into())?;
    // Each file's keys, made JS strings once rather than once per file.
    let keys = FileKeys {
        path: "path".into(),
        text: "text".into(),
        modified: "modified".into(),
    };
    let mut claim_files = Vec::new();
    if !absent(&list) {
        let Some(list) = list.dyn_ref::<js_sys::Array>() else {
            return Err(wrong("texts.claim_files".into(), "a list", &list));
        };
        claim_files.reserve(list.length() as usize);
        for i in 0..list.length() {
            let file = list.get(i);
            let at = At::Listed(i);
            let read = file_at(&file, &keys, at)?;
            claim_files.push(read.ok_or_else(|| wrong(at.name(), "a file", &file))?);
        }
    }
    let file = |key: &'static str| {
        let at = At::Key(key);
        file_at(&get(texts, &key.into(), &|| at.name())?, &keys, at)
    };
    // A struct literal without `..`, so a field added to RailTexts does not compile here until
    // it is read here too.
    Ok(RailTexts {
        claims: file("claims")?,
        claim_files,
        log: file("log")?,
        config: file("config")?,
    })
}

/// Where a file sits in the texts object; spelled out only for an error message (a board reads
/// a thousand claim files, and formatting each one's name up front showed in profiles).
#[derive(Clone, Copy)]
enum At {
    Key(&'static str),
    Listed(u32),
}

impl At {
    fn name(self) -> String {
        match self {
            At::Key(key) => format!("texts.{key}"),
            At::Listed(i) => format!("texts.claim_files[{i}]"),
        }
    }

    fn field(self, key: &str) -> String {
        format!("{}.{key}", self.name())
    }
}

struct FileKeys {
    path: JsValue,
    text: JsValue,
    modified: JsValue,
}

fn file_at(file: &JsValue, keys: &FileKeys, at: At) -> Result<Option<FileText>, BadTexts> {
    if absent(file) {
        return Ok(None);
    }
    if !file.is_object() {
        return Err(wrong(at.name(), "a file", file));
    }
    let field = |js: &JsValue, key: &'static str| get(file, js, &|| at.field(key));
    let path = field(&keys.path, "path")?;
    let path = path
        .as_string()
        .ok_or_else(|| wrong(at.field("path"), "a string", &path))?;
    let text = field(&keys.text, "text")?;
    let text = text_from_js(&text).ok_or_else(|| wrong(at.field("text"), "a string", &text))?;
    let modified = field(&keys.modified, "modified")?;
    let modified = match modified.as_string() {
        Some(time) => Some(parse_time(&time).map_err(|e| BadTexts {
            at: at.field("modified"),
            why: format!("`{time}`: {e}"),
        })?),
        None if absent(&modified) => None,
        None => return Err(wrong(at.field("modified"), "a time", &modified)),
    };
    Ok(Some(FileText {
        path,
        text,
        modified,
    }))
}

/// `object[key]`; a getter that throws is an error naming where (`at`, spelled out only then).
fn get(object: &JsValue, key: &JsValue, at: &dyn Fn() -> String) -> Result<JsValue, BadTexts> {
    js_sys::Reflect::get(object, key).map_err(|_| BadTexts {
        at: at(),
        why: "could not be read".into(),
    })
}

fn absent(value: &JsValue) -> bool {
    value.is_undefined() || value.is_null()
}

/// Which field of the texts was wrong (`texts.claims.text`), and how.
#[derive(Debug)]
pub struct BadTexts {
    pub at: String,
    pub why: String,
}

/// The error for a value of the wrong type.
fn wrong(at: String, expected: &str, value: &JsValue) -> BadTexts {
    let kind = if value.is_null() {
        "null".into()
    } else {
        value.js_typeof().as_string().unwrap_or_default()
    };
    BadTexts {
        at,
        why: format!("invalid type: {kind}, expected {expected}"),
    }
}
