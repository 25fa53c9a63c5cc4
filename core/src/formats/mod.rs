//! The file formats Rail reads and writes, each parsed losslessly into a document plus
//! diagnostics: the rail's own files (claims.md, claim files, the log, rail.yaml, the redo
//! journal) and their names, a claim's `pid` field, the small files hosts keep beside the rail
//! (guard marks, notices of lost claims), the YAML and markdown subsets they are written in, the
//! JSON-with-comments settings files of the agents, and the git files read without running git.

pub mod claim_file;
pub mod claims_md;
pub mod config;
pub mod gitattributes;
pub mod gitconfig;
pub mod gitdir;
pub mod gitignore;
pub mod gitindex;
pub mod gitobject;
pub mod heartbeat;
pub mod journal;
pub mod jsonc;
pub mod log;
pub mod markdown;
pub mod notice;
pub mod pid;
pub mod rail_files;
pub mod segments;
pub mod yaml;
