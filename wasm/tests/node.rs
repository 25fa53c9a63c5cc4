//! The facade's tests in Node (`wasm-bindgen-test-runner`'s default).
#![cfg(target_arch = "wasm32")]

mod shared;
