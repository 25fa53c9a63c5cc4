//! Cross-component tests live under tests/tests.
