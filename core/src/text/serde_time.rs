//! Times cross every boundary (JSON, wasm) as RFC 3339 strings in UTC, e.g.
//! `2026-10-22T14:05:00Z`: readable, sortable, and the same from every host. The one way:
//! `#[serde(with = "crate::text::serde_time")]` on a `Time`, `…::serde_time::opt` on an
//! `Option<Time>`.

use serde::{Deserialize, Deserializer, Serializer};

use crate::text::time::{format_time, parse_time, Time};

pub fn serialize<S: Serializer>(time: &Time, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_time(*time))
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Time, D::Error> {
    let text = String::deserialize(d)?;
    parse_time(&text).map_err(|e| serde::de::Error::custom(format!("`{text}`: {e}")))
}

/// An optional time: a string, or null.
pub mod opt {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::text::time::{format_time, parse_time, Time};

    pub fn serialize<S: Serializer>(time: &Option<Time>, s: S) -> Result<S::Ok, S::Error> {
        match time {
            Some(t) => s.serialize_str(&format_time(*t)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Time>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(text) => parse_time(&text)
                .map(Some)
                .map_err(|e| serde::de::Error::custom(format!("`{text}`: {e}"))),
        }
    }
}
