//! With the `python` feature, sets pyo3's cfgs for the interpreter built against (`Py_LIMITED_API`
//! for the abi3 build, `Py_3_X` for its version): code that the full API allows is compiled only
//! where the build has it (`src/python/strings.rs`).

fn main() {
    #[cfg(feature = "python")]
    pyo3_build_config::use_pyo3_cfgs();
}
