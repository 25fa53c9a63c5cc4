//! The facade's tests in a browser (headless Chromium through ChromeDriver): the same tests as
//! `node.rs`, in the engine the web board runs in.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod shared;
