//! vksort-tools: the `vksort` command line ([`cli`]), the benchmark sweep with its tables, plots and CUB
//! comparison ([`bench`]), and the performance model and its calibration ([`model`]), on top of the `vksort`
//! library. They live apart from the library so that a renderer depending on vksort builds none of their
//! dependencies (clap, serde, plotters, indicatif, dirs).

pub mod bench;
pub mod cli;
pub mod model;
