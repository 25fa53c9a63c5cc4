//! Exit codes and failures.
//!
//! 0 done · 1 refused or conflict found (the output says who holds what) · 2 bad input or usage
//! · 3 environment (not a git repo, lock wait timed out, I/O error).

use serde_json::Value;

// The codes are core's (`rail_core::model::exit`), which the extension reads too.
pub const OK: i32 = rail_core::model::exit::DONE;
pub const REFUSED: i32 = rail_core::model::exit::REFUSED;
pub const USAGE: i32 = rail_core::model::exit::BAD_INPUT;
pub const ENVIRONMENT: i32 = rail_core::model::exit::ENVIRONMENT;

#[derive(Clone, Debug)]
pub struct Fail {
    pub code: i32,
    pub message: String,
    /// What to print on stdout in `--json` mode (else `{"ok": false, "error": message}`).
    pub json: Option<Value>,
}

impl Fail {
    pub fn usage(message: impl Into<String>) -> Fail {
        Fail {
            code: USAGE,
            message: message.into(),
            json: None,
        }
    }

    pub fn env(message: impl Into<String>) -> Fail {
        Fail {
            code: ENVIRONMENT,
            message: message.into(),
            json: None,
        }
    }

    pub fn refused(message: impl Into<String>, json: Option<Value>) -> Fail {
        Fail {
            code: REFUSED,
            message: message.into(),
            json,
        }
    }
}
