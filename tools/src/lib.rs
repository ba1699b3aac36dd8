//! vksort-tools: the `vksort` command line ([`cli`]), the benchmark sweep with its tables, plots and CUB
//! comparison ([`bench`]), the performance model ([`model`]) and its calibration ([`calibrate`]), RenderDoc
//! captures through its in-application API ([`capture`]), the persistent pipeline cache ([`cache`]) and
//! progress on long work ([`progress`]), on top of the `vksort` library. They live apart from the library so that a renderer depending on vksort builds none of their
//! dependencies (clap, serde, plotters, indicatif, dirs).

pub mod bench;
pub mod cache;
pub mod calibrate;
pub mod capture;
pub mod cli;
pub mod model;
pub mod progress;
