//! The operations every front end runs — the commands (`cmd`), the agents' hooks and the MCP
//! server (`agent`) — each returning its result as data and printing nothing: the changes to
//! the rail ([`write`]), what a session touched ([`touched`]), the scope check ([`check`]), the
//! rail read as data ([`read`]), stations ([`station`]), setting agents up ([`setup`]) and git's
//! hooks ([`git_hooks`]), and what `rail doctor` finds ([`doctor`]).

pub mod check;
pub mod doctor;
pub mod flight;
pub mod gate;
pub mod git_hooks;
pub mod read;
pub mod setup;
pub mod station;
pub mod touched;
pub mod write;
