//! Times cross every boundary (JSON, wasm) as RFC 3339 strings in UTC, e.g.
//! `2026-10-22T14:05:00Z`: readable, sortable, and the same from every host.

use serde::Serializer;

use crate::time::{format_time, Time};

pub fn serialize<S: Serializer>(time: &Time, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_time(*time))
}

pub fn serialize_opt<S: Serializer>(time: &Option<Time>, s: S) -> Result<S::Ok, S::Error> {
    match time {
        Some(t) => s.serialize_str(&format_time(*t)),
        None => s.serialize_none(),
    }
}
