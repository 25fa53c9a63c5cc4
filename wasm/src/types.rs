//! TypeScript declarations of every object that crosses the boundary, generated from the Rust
//! structs with ts-rs (built only with `--features ts`).
//!
//! `types/rail.d.ts` is this module's output, committed; `tests/types.rs` fails when it is stale
//! and rewrites it with `RAIL_UPDATE_TYPES=1`. The file is embedded in the package's `.d.ts`, so
//! the exported functions name these types instead of `any`.

use std::any::TypeId;
use std::collections::BTreeMap;

use rail_core::change::lock::{LockRecord, LockVerdict};
use rail_core::change::merge::{DriverResult, MergeResult};
use rail_core::change::ops::{Plan, Refusal};
use rail_core::model::board::Board;
use rail_core::model::input::{Facts, RailTexts};
use rail_core::model::scope::{ScopeReport, Who};
use rail_core::text::diagnostic::Located;
use rail_core::text::{Position, Range, Span};
use ts_rs::{Config, TypeVisitor, TS};

/// Every declaration the exports need, with everything they reference, sorted by name.
pub fn declarations() -> String {
    // Numbers cross as JS numbers (JSON-compatible mode), never as BigInt.
    let cfg = Config::new().with_large_int("number");
    let mut found = Collect {
        cfg: &cfg,
        decls: BTreeMap::new(),
    };
    // The roots: what the exports take and return.
    found.visit::<RailTexts>();
    found.visit::<Facts>();
    found.visit::<Position>();
    found.visit::<Span>();
    found.visit::<Board>();
    found.visit::<Located>();
    found.visit::<MergeResult>();
    found.visit::<DriverResult>();
    found.visit::<Who>();
    found.visit::<ScopeReport>();
    found.visit::<Range>();
    found.visit::<rail_core::formats::log::LogEntry>();
    found.visit::<rail_core::formats::config::Config>();
    found.visit::<rail_core::model::freshness::FreshnessFacts>();
    found.visit::<rail_core::model::freshness::Freshness>();
    found.visit::<rail_core::formats::heartbeat::Mark>();
    found.visit::<rail_core::text::ident::ActingView>();
    found.visit::<rail_core::model::HostConstants>();
    found.visit::<rail_core::model::input::OwnerProbe>();
    found.visit::<rail_core::model::shared::RemoteFacts>();
    found.visit::<rail_core::formats::rail_files::RailFile>();
    // No export returns these any more, but `rail --json` prints them (a plan or a refusal from
    // claim, release, renew, take and update; `rail lock`'s record and verdict), and the
    // extension types the binary's answers with them (vscode-extension/src/host/native.ts).
    found.visit::<Plan>();
    found.visit::<Refusal>();
    found.visit::<LockRecord>();
    found.visit::<LockVerdict>();
    // `rail worktree list --json` (stations) and `rail worktree remove --json`'s refusal.
    found.visit::<rail_core::model::station::Station>();
    found.visit::<rail_core::model::station::Removal>();

    let mut out = String::from(
        "// Generated from the Rust structs by rail-wasm's `types` module (ts-rs). Do not edit:\n\
         // run `RAIL_UPDATE_TYPES=1 cargo test -p rail-wasm --features ts --test types`.\n",
    );
    for (_, decl) in found.decls.into_values() {
        out.push_str("\nexport ");
        out.push_str(decl.trim_end());
        out.push('\n');
    }
    out
}

struct Collect<'a> {
    cfg: &'a Config,
    /// By TypeScript name: the Rust type it came from, and its declaration.
    decls: BTreeMap<String, (TypeId, String)>,
}

impl TypeVisitor for Collect<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // Only named types are declared; `Vec<T>`, `Option<T>`, maps and primitives are inlined.
        if T::output_path().is_none() {
            T::visit_dependencies(self);
            T::visit_generics(self);
            return;
        }
        let name = T::ident(self.cfg);
        if let Some((seen, _)) = self.decls.get(&name) {
            // Two Rust types must not share one TypeScript name.
            assert_eq!(*seen, TypeId::of::<T>(), "two types are named {name}");
            return;
        }
        self.decls
            .insert(name, (TypeId::of::<T>(), T::decl(self.cfg)));
        T::visit_dependencies(self);
        T::visit_generics(self);
    }
}
