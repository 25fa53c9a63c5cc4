//! Planned changes: what Rail would write, as range patches and log lines, decided before any
//! host touches a file. The operations (claim, release, renew, take, update), the merge driver's
//! three-way merge, a shared rail's fetched state and plan, the operations machines queue on a
//! shared rail for each other's rounds, sharing the main checkout with git, and the lock
//! record's rule for when a lock may be broken.

pub mod checkout;
pub mod lock;
pub mod merge;
pub mod missing;
pub mod ops;
pub mod proof;
pub mod queue;
pub mod remote;
pub mod round;
pub mod seal;
pub mod snapshot;
