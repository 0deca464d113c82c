//! The chess vocabulary of endgames: material signatures (their Syzygy
//! names, symmetries and the closure that captures and promotions reach),
//! positions from FENs, the move-limit rules and metrics, and the
//! five-valued evaluation and the DTZ, with what a rule makes of them.
//!
//! Layer: the lowest above the crate's foundation ([`crate::error`],
//! [`crate::output`], [`crate::memory`]), and it uses nothing else of the
//! crate. Every other layer uses it. It knows no table file: the solver
//! ([`crate::solve`]) builds on it without Syzygy.

pub mod material;
pub mod position;
pub mod rule;
pub mod wdl;
