//! rail-wasm: rail-core for JavaScript.
//!
//! A thin facade: every export decodes its arguments, calls one rail-core function and encodes
//! the result. There is no rule here; a rule lives in core, once. The VS Code extension (Node
//! build, `pkg/node`) and the web board (browser build, `pkg/web`) both call these functions.
//!
//! Conventions at the boundary:
//! - objects cross as plain JSON-shaped values with the same field names as `rail board --json`:
//!   arguments are read with serde-wasm-bindgen (the rail's texts by `text_in`, which copies
//!   each text in one go), results are serde_json's text made values by `JSON.parse` (see
//!   [`ret`]), exactly what native hosts print; their TypeScript
//!   types are generated from the Rust structs into `types/rail.d.ts` and embedded in the
//!   package's `.d.ts`;
//! - times are RFC 3339 strings in UTC;
//! - `span`s are UTF-8 byte offsets into the text they came from; `range`s and positions are
//!   zero-based lines and UTF-16 columns, as JavaScript strings and LSP count them (see
//!   `positionAt`, `offsetAt`, `rangeOf`). A lone surrogate in a JS string reaches Rust as U+FFFD,
//!   which is one UTF-16 unit too, so UTF-16 positions stay true to the JS string;
//! - every failure (an argument of the wrong shape) throws a JS `Error` whose message starts
//!   with `rail: <argument or step>:`. A panic would be a bug in core: the panic hook prints it
//!   to the console before the instance traps.
//!
//! Only reads are here. Plans, the lock and the log are the `rail` binary's: the extension
//! changes the rail by running it (Architecture Invariant: one writer), so the write path's
//! exports (`plan`, `applyEdits`, the lock record and log line helpers) were removed rather
//! than kept for nobody; their result types stay declared in `types/rail.d.ts`, which also
//! types what `rail --json` prints.

use rail_core::formats::markdown;
use rail_core::model::input::{Facts, RailTexts};
use rail_core::model::scope;
use rail_core::model::Rail;
use rail_core::text::{Encoding, LineIndex, Position, Span};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;

mod text_in;
#[cfg(feature = "transfer-bench")]
mod transfer_bench;
#[cfg(feature = "ts")]
pub mod types;

// The generated declarations of every boundary type, so the functions below can name them.
#[wasm_bindgen(typescript_custom_section)]
const BOUNDARY_TYPES: &str = include_str!("../types/rail.d.ts");

// ---------------------------------------------------------------------------------------------
// The boundary: one way in, one way out, one error.

/// The only way an error leaves this crate: a JS `Error` saying which argument or step failed.
fn fail(what: &str, why: impl std::fmt::Display) -> JsError {
    JsError::new(&format!("rail: {what}: {why}"))
}

/// Decodes an object argument.
fn arg<T: DeserializeOwned>(name: &str, value: JsValue) -> Result<T, JsError> {
    serde_wasm_bindgen::from_value(value).map_err(|e| {
        // serde-wasm-bindgen's errors display as JS errors do ("Error: …"); keep the message.
        let message = e.to_string();
        fail(name, message.strip_prefix("Error: ").unwrap_or(&message))
    })
}

/// An argument that must be an array of `[string, string]` pairs, read without serde (its
/// generic sequence reading costs the module kilobytes for two lists of file names and texts).
fn pairs_arg(name: &str, value: JsValue) -> Result<Vec<(String, String)>, JsError> {
    let bad = || fail(name, "expected an array of [string, string] pairs");
    if !js_sys::Array::is_array(&value) {
        return Err(bad());
    }
    js_sys::Array::from(&value)
        .iter()
        .map(|pair| {
            if !js_sys::Array::is_array(&pair) {
                return Err(bad());
            }
            let pair = js_sys::Array::from(&pair);
            match (
                pair.length(),
                pair.get(0).as_string(),
                pair.get(1).as_string(),
            ) {
                (2, Some(a), Some(b)) => Ok((a, b)),
                _ => Err(bad()),
            }
        })
        .collect()
}

/// The facts argument, one copy for every export that takes facts.
#[inline(never)]
fn facts_arg(value: JsValue) -> Result<Facts, JsError> {
    arg("facts", value)
}

/// A `string[]` argument, one copy for every export that takes one.
#[inline(never)]
fn strings_arg(name: &str, value: JsValue) -> Result<Vec<String>, JsError> {
    arg(name, value)
}

/// Decodes a string argument. Checked here rather than by wasm-bindgen's glue, so a wrong type
/// gives this crate's error instead of whatever the glue happens to do with it.
fn text_arg(name: &str, value: JsValue) -> Result<String, JsError> {
    text_in::text_from_js(&value).ok_or_else(|| fail(name, "expected a string"))
}

/// Decodes the rail's texts, copying each file's text in one go (see [`text_in`]).
#[inline(never)]
fn texts_arg(value: JsValue) -> Result<RailTexts, JsError> {
    // The error names the field: `rail: texts.claims.text: invalid type: …`.
    text_in::texts_from_js(&value).map_err(|e| fail(&e.at, e.why))
}

/// Encodes a result as a plain JS value: serde_json's text, made a value by the engine's own
/// `JSON.parse`, so it is exactly what `JSON.parse` makes of what native hosts print (`null` for
/// `None`, maps as objects with the user's keys as own properties, numbers as JSON numbers).
/// Measured against the alternatives (bench/wasm-transfer, wasm/README.md): a packed stream
/// built into objects by a JS unpacker was faster by 4 ms at 1,000 claims and under 0.5 ms at
/// 100, not worth its 1,200 lines; serde-wasm-bindgen's serializer was the slowest.
fn ret<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let text = serde_json::to_string(value).map_err(|e| fail("result", e))?;
    js_sys::JSON::parse(&text).map_err(|_| fail("result", "JSON.parse refused serde_json's text"))
}

/// Allocation is most of a large board's work; talc is several times faster than std's
/// dlmalloc in WebAssembly.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

/// Installed when the module is instantiated: a panic (a bug) is printed before the trap, so
/// the console says what went wrong instead of only "unreachable".
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(start, private)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error(&format!(
            "rail-wasm panicked (a bug in rail; please report it): {info}"
        ));
    }));
}

// ---------------------------------------------------------------------------------------------
// Exports.

/// The board: every claim with its lease state, conflicts, blocks, resources, sessions,
/// diagnostics and the recent log. What `rail board --json` prints.
#[wasm_bindgen(unchecked_return_type = "Board")]
pub fn board(
    #[wasm_bindgen(unchecked_param_type = "RailTexts")] texts: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Facts")] facts: JsValue,
) -> Result<JsValue, JsError> {
    let texts = texts_arg(texts)?;
    let facts = facts_arg(facts)?;
    let board = rail_core::model::board::build(&texts, &facts);
    ret(&board)
}

/// Every parse diagnostic of every file of the rail (what `rail validate` reports before
/// looking at leases), each with its file, byte span, UTF-16 range and one-based line/column.
#[wasm_bindgen(unchecked_return_type = "Located[]")]
pub fn validate(
    #[wasm_bindgen(unchecked_param_type = "RailTexts")] texts: JsValue,
) -> Result<JsValue, JsError> {
    let texts = texts_arg(texts)?;
    ret(&Rail::load(&texts).diagnostics())
}

/// Three-way merge of claims.md, as the git merge driver does it: `refused` names a side that
/// already holds a conflict marker (then `text` is ours, unchanged). Never fails.
#[wasm_bindgen(unchecked_return_type = "DriverResult")]
pub fn merge(
    #[wasm_bindgen(unchecked_param_type = "string")] base: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] ours: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] theirs: JsValue,
) -> Result<JsValue, JsError> {
    let base = text_arg("base", base)?;
    let ours = text_arg("ours", ours)?;
    let theirs = text_arg("theirs", theirs)?;
    ret(&rail_core::change::merge::driver(&base, &ours, &theirs))
}

/// `rail who`: for each path, the claims covering it (stale ones too, marked by state): all of
/// them for one path; of many, about as many in all as the rail has claims, and how many more.
#[wasm_bindgen(unchecked_return_type = "Who[]")]
pub fn who(
    #[wasm_bindgen(unchecked_param_type = "RailTexts")] texts: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Facts")] facts: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string[]")] paths: JsValue,
) -> Result<JsValue, JsError> {
    let texts = texts_arg(texts)?;
    let facts = facts_arg(facts)?;
    let paths = strings_arg("paths", paths)?;
    let eval = Rail::load(&texts).evaluate(&facts);
    let mut answers = scope::who(&eval, &paths);
    scope::who_in_flight(&mut answers, &facts.in_flight);
    ret(&answers)
}

/// Other sessions' work in flight (the host's `facts.in_flight`) under `paths`, as `actor` sees
/// it (`behind::under`: never its own, its agents' or its branch's): what the editor marks and
/// calls out.
#[wasm_bindgen(js_name = othersInFlight, unchecked_return_type = "InFlight[]")]
pub fn others_in_flight(
    #[wasm_bindgen(unchecked_param_type = "Facts")] facts: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] actor: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string[]")] paths: JsValue,
) -> Result<JsValue, JsError> {
    let facts = facts_arg(facts)?;
    let actor = text_arg("actor", actor)?;
    let paths = strings_arg("paths", paths)?;
    ret(&rail_core::model::behind::under(
        &actor,
        &paths,
        &facts.in_flight,
    ))
}

/// `rail check`: how the files `session` changed relate to what it claimed (in scope, out of
/// scope, conflicting with another session, undeclared, unclaimed).
#[wasm_bindgen(unchecked_return_type = "ScopeReport")]
pub fn scope(
    #[wasm_bindgen(unchecked_param_type = "RailTexts")] texts: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Facts")] facts: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] session: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string[]")] changed: JsValue,
) -> Result<JsValue, JsError> {
    let texts = texts_arg(texts)?;
    let facts = facts_arg(facts)?;
    let session = text_arg("session", session)?;
    let changed = strings_arg("changed", changed)?;
    let eval = Rail::load(&texts).evaluate(&facts);
    ret(&scope::classify(&eval, &session, &changed))
}

/// rail.yaml's settings (defaults for what it does not say; durations in seconds).
#[wasm_bindgen(js_name = parseConfig, unchecked_return_type = "Config")]
pub fn parse_config(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<JsValue, JsError> {
    let text = text_arg("text", text)?;
    ret(&rail_core::formats::config::parse(&text).0)
}

/// How fresh the local copy of a shared rail is: the sentence the views show, and whether the
/// copy is stale (the latest fetch failed).
#[wasm_bindgen(js_name = describeFreshness, unchecked_return_type = "Freshness")]
pub fn describe_freshness(
    #[wasm_bindgen(unchecked_param_type = "FreshnessFacts")] facts: JsValue,
) -> Result<JsValue, JsError> {
    let facts: rail_core::model::freshness::FreshnessFacts = arg("facts", facts)?;
    ret(&rail_core::model::freshness::describe(&facts))
}

/// Markdown (a claim's purpose) as HTML that is safe to insert into a page.
#[wasm_bindgen(js_name = renderMarkdown, unchecked_return_type = "string")]
pub fn render_markdown(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<JsValue, JsError> {
    let text = text_arg("text", text)?;
    Ok(JsValue::from_str(&markdown::render(&text)))
}

/// The zero-based line and UTF-16 column of a byte offset into `text` (an offset inside a
/// character or past the end clamps back to a character boundary).
#[wasm_bindgen(js_name = positionAt, unchecked_return_type = "Position")]
pub fn position_at(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] offset: JsValue,
) -> Result<JsValue, JsError> {
    let text = text_arg("text", text)?;
    let offset: usize = arg("offset", offset)?;
    ret(&LineIndex::new(&text).position(&text, offset, Encoding::Utf16))
}

/// The byte offset of a zero-based line and UTF-16 column in `text`, the inverse of
/// `positionAt` (a column past the line end clamps to it; half a surrogate pair clamps to
/// the start of its character).
#[wasm_bindgen(js_name = offsetAt, unchecked_return_type = "number")]
pub fn offset_at(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Position")] position: JsValue,
) -> Result<JsValue, JsError> {
    let text = text_arg("text", text)?;
    let position: Position = arg("position", position)?;
    ret(&LineIndex::new(&text).offset(&text, position, Encoding::Utf16))
}

/// The UTF-16 range of a byte span into `text`, e.g. to show a diagnostic's span in an editor.
#[wasm_bindgen(js_name = rangeOf, unchecked_return_type = "Range")]
pub fn range_of(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Span")] span: JsValue,
) -> Result<JsValue, JsError> {
    let text = text_arg("text", text)?;
    let span: Span = arg("span", span)?;
    ret(&LineIndex::new(&text).range(&text, span, Encoding::Utf16))
}

/// The acting session, as every host decides it: `explicit` (an editor setting, `RAIL_SESSION`)
/// wins, else the checkout's `branch`; either must be a valid session name, else `why` says
/// why there is none.
#[wasm_bindgen(unchecked_return_type = "ActingView")]
pub fn acting(
    #[wasm_bindgen(unchecked_param_type = "string | null")] explicit: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | null")] branch: JsValue,
) -> Result<JsValue, JsError> {
    let opt = |name: &str, v: JsValue| -> Result<Option<String>, JsError> {
        if v.is_null() || v.is_undefined() {
            Ok(None)
        } else {
            text_arg(name, v).map(Some)
        }
    };
    let explicit = opt("explicit", explicit)?;
    let branch = opt("branch", branch)?;
    ret(&rail_core::text::ident::acting(explicit.as_deref(), branch.as_deref(), None).view())
}

/// What one of git's own files says, for finding the repository from files as the CLI does
/// (`rail_core::formats::gitdir`): `kind` names the file — `"dot-git"` (a worktree's `.git` file:
/// the git dir it names), `"commondir"` (the common dir), `"head"` (the branch checked out), or
/// `"worktree-gitdir"` (a linked worktree's admin `gitdir` file: its `.git` file) — and the
/// answer is the path or branch as written, `null` when the text does not say one. Paths are
/// resolved by the caller (relative to the `.git` file's folder, or to the git dir).
#[wasm_bindgen(js_name = gitFile, unchecked_return_type = "string | null")]
pub fn git_file(
    #[wasm_bindgen(
        unchecked_param_type = "\"dot-git\" | \"commondir\" | \"head\" | \"worktree-gitdir\""
    )]
    kind: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<JsValue, JsError> {
    use rail_core::formats::gitdir;
    let kind = text_arg("kind", kind)?;
    let text = text_arg("text", text)?;
    let said = match kind.as_str() {
        "dot-git" => gitdir::dot_git_target(&text),
        "commondir" => gitdir::commondir_target(&text),
        "head" => gitdir::head_branch(&text),
        "worktree-gitdir" => gitdir::worktree_dot_git(&text),
        other => {
            return Err(fail(
                "kind",
                format!("not a git file Rail reads: {other:?}"),
            ))
        }
    };
    Ok(said.map_or(JsValue::NULL, JsValue::from_str))
}

/// Whether git's files alone place the rail, given the name of the common dir's folder (only a
/// checkout's `.git`); else, and whenever one of `askGitEnv()` is set, a host asks git.
#[wasm_bindgen(js_name = gitFilesSuffice, unchecked_return_type = "boolean")]
pub fn git_files_suffice(
    #[wasm_bindgen(unchecked_param_type = "string")] common_dir_name: JsValue,
) -> Result<JsValue, JsError> {
    let name = text_arg("commonDirName", common_dir_name)?;
    Ok(JsValue::from_bool(
        rail_core::formats::gitdir::files_suffice(Some(&name)),
    ))
}

/// The rail's file names, the largest file a host reads, a shared rail's stamp, variable and
/// config key, and `rail`'s exit codes: what a host shares with the binary, from core.
#[wasm_bindgen(unchecked_return_type = "HostConstants")]
pub fn constants() -> Result<JsValue, JsError> {
    ret(&rail_core::model::host_constants())
}

/// The environment variables that make a host ask git where the repository is.
#[wasm_bindgen(js_name = askGitEnv, unchecked_return_type = "string[]")]
pub fn ask_git_env() -> Result<JsValue, JsError> {
    ret(&rail_core::formats::gitdir::ASK_GIT_ENV)
}

/// Every session's guard mark (core `heartbeat::collect`): `own` holds this machine's mark
/// files (`<git common dir>/rail/seen/`) as `[fileName, text]`, `shared` other machines'
/// shared marks (`<git common dir>/rail/seen-shared/`) as `[machine, text]`. A damaged mark, or
/// one under another session's name, counts as none; a session's newest mark wins.
#[wasm_bindgen(js_name = hookMarks, unchecked_return_type = "Record<string, HookSeen>")]
pub fn hook_marks(
    #[wasm_bindgen(unchecked_param_type = "Array<[string, string]>")] own: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Array<[string, string]>")] shared: JsValue,
) -> Result<JsValue, JsError> {
    let own = pairs_arg("own", own)?;
    let shared = pairs_arg("shared", shared)?;
    ret(&rail_core::formats::heartbeat::collect(
        own.iter().map(|(a, b)| (a.as_str(), b.as_str())),
        shared.iter().map(|(a, b)| (a.as_str(), b.as_str())),
    ))
}

/// Is `path` (relative to the rail directory) one of the rail's own files (claims.md and its
/// lock, journal and temporary files, claims.log, rail.yaml, `claims/…`)? Those are nobody's
/// work: the editor does not decorate them as claimed or out of scope.
#[wasm_bindgen(js_name = isRailFile, unchecked_return_type = "boolean")]
pub fn is_rail_file(
    #[wasm_bindgen(unchecked_param_type = "string")] path: JsValue,
) -> Result<JsValue, JsError> {
    let path = text_arg("path", path)?;
    Ok(JsValue::from_bool(
        rail_core::formats::rail_files::is_rail_file(&path),
    ))
}

/// Whether `actor` may act on what `holder` holds as on its own (`ident::acts_for`): the same
/// session, an agent's branch (`main` for `main~claude-…`), or one of the branch's agents. The
/// editor's "mine" and "other" follow it.
#[wasm_bindgen(js_name = actsFor, unchecked_return_type = "boolean")]
pub fn acts_for(
    #[wasm_bindgen(unchecked_param_type = "string")] actor: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] holder: JsValue,
) -> Result<JsValue, JsError> {
    let actor = text_arg("actor", actor)?;
    let holder = text_arg("holder", holder)?;
    Ok(JsValue::from_bool(rail_core::text::ident::acts_for(
        &actor, &holder,
    )))
}

/// The `git for-each-ref` format whose rows [`commit_times`] reads (`base`: the branch whose
/// history must not keep claims alive; `null`: none, for git older than 2.41).
#[wasm_bindgen(js_name = forEachRefFormat, unchecked_return_type = "string")]
pub fn for_each_ref_format(
    #[wasm_bindgen(unchecked_param_type = "string | null")] base: JsValue,
) -> Result<JsValue, JsError> {
    let base = if base.is_null() || base.is_undefined() {
        None
    } else {
        Some(text_arg("base", base)?)
    };
    Ok(JsValue::from_str(
        &rail_core::model::lease::for_each_ref_format(base.as_deref()),
    ))
}

/// Which commits count for a lease: each branch's tip time (RFC 3339) from the rows `git
/// for-each-ref` printed with [`for_each_ref_format`] over the refs under `prefix`.
#[wasm_bindgen(js_name = commitTimes, unchecked_return_type = "Record<string, string>")]
pub fn commit_times(
    #[wasm_bindgen(unchecked_param_type = "string")] rows: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] prefix: JsValue,
) -> Result<JsValue, JsError> {
    let rows = text_arg("rows", rows)?;
    let prefix = text_arg("prefix", prefix)?;
    // Times in core's own form (as `Facts.commits` reads them), not chrono's serde, whose
    // formatting machinery would cost the module 8 KB.
    let mut times = std::collections::BTreeMap::new();
    for (branch, time) in rail_core::model::lease::commit_times(&rows, &prefix) {
        times.insert(branch, rail_core::text::time::format_time(time));
    }
    ret(&times)
}

/// `paths` without the rail's own files (see `isRailFile`), in their order.
#[wasm_bindgen(js_name = workFiles, unchecked_return_type = "string[]")]
pub fn work_files(
    #[wasm_bindgen(unchecked_param_type = "string[]")] paths: JsValue,
) -> Result<JsValue, JsError> {
    let paths = strings_arg("paths", paths)?;
    ret(&rail_core::formats::rail_files::work_files(paths))
}

/// The owner processes this host should probe before the board is built, for the claims'
/// `pid` fields (`PID@HOST[/START]`, e.g. every `pid` of a first board's claims): each once,
/// only this host's (`facts.host`), none already in `facts.processes`. The host records each
/// one's liveness under `key` in `facts.processes` and, when `wants_start`, its start time as
/// the OS counts it in `facts.process_starts`: a live pid that started at another time than a
/// claim recorded is not its owner.
#[wasm_bindgen(js_name = ownerProbes, unchecked_return_type = "OwnerProbe[]")]
pub fn owner_probes(
    #[wasm_bindgen(unchecked_param_type = "string[]")] pid_fields: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Facts")] facts: JsValue,
) -> Result<JsValue, JsError> {
    let fields = strings_arg("pidFields", pid_fields)?;
    let facts = facts_arg(facts)?;
    ret(&facts.owner_probes(fields.iter().map(String::as_str)))
}

/// The remote a rail is shared through, or `null`: none under `RAIL_LOCAL=1`, else `git config
/// rail.remote` (as git printed it), else rail.yaml's `remote:`; a blank value is unset. Throws
/// where the configured value is not a remote's name (an option, a URL, a path).
#[wasm_bindgen(js_name = sharedRemote, unchecked_return_type = "string | null")]
pub fn shared_remote(
    #[wasm_bindgen(unchecked_param_type = "RemoteFacts")] facts: JsValue,
) -> Result<JsValue, JsError> {
    if !facts.is_object() {
        return Err(fail("facts", "expected an object"));
    }
    // Three optional strings, read by hand: serde's derive for them cost the module 1.5 KB.
    let field = |key: &str| -> Result<Option<String>, JsError> {
        let at = || format!("facts.{key}");
        let value = js_sys::Reflect::get(&facts, &JsValue::from_str(key))
            .map_err(|_| fail(&at(), "could not be read"))?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        text_arg(&at(), value).map(Some)
    };
    // A struct literal without `..`: a field added to RemoteFacts does not compile here until
    // it is read here too.
    let facts = rail_core::model::shared::RemoteFacts {
        rail_local: field("rail_local")?,
        git_config: field("git_config")?,
        config_text: field("config_text")?,
    };
    // A configured remote that is not a remote's name throws, as the CLI refuses it: the
    // board must not show such a rail as unshared.
    let remote = facts
        .remote()
        .map_err(|e| JsError::new(&format!("rail: {e}")))?;
    Ok(remote.map_or(JsValue::NULL, |r| JsValue::from_str(&r)))
}

/// A file a person handed over on its own, placed in the rail by its name (`claims.md`, a
/// claim file, the log, the settings), or `null` when it is not a rail's file.
#[wasm_bindgen(js_name = handedFile, unchecked_return_type = "RailFile | null")]
pub fn handed_file(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
) -> Result<JsValue, JsError> {
    let name = text_arg("name", name)?;
    ret(&rail_core::formats::rail_files::handed(&name))
}

/// The rail's files among a chosen folder's files (`paths` relative to it, `/`-separated): the
/// shallowest folder holding claims.md or a claim file is the rail, and only its files count.
#[wasm_bindgen(js_name = railFilesIn, unchecked_return_type = "RailFile[]")]
pub fn rail_files_in(
    #[wasm_bindgen(unchecked_param_type = "string[]")] paths: JsValue,
) -> Result<JsValue, JsError> {
    let paths = strings_arg("paths", paths)?;
    ret(&rail_core::formats::rail_files::in_folder(&paths))
}
