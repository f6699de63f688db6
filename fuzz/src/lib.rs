//! Shared code of the tooljson fuzz targets.

pub mod checks;
