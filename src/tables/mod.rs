//! Syzygy table files: where they are (the configured directories and the
//! inventory of what is there), the dependency check that runs before long
//! work, md5 verification against the official list, and [`reader`], the
//! Syzygy format layer (headers, the one index encoder and decoder, the
//! location of positions, the whole-table walks) with the streaming decoder
//! of whole files; and [`remote`], the Lichess tablebase service as a
//! source of the same values without the files.
//!
//! Layer: above [`crate::chess`], which it uses for material names. The
//! probe engine ([`crate::probe`]), the scans ([`crate::scan`]), the claims
//! and the binary use it; the solver does not.

pub mod checksums;
mod inventory;
pub mod reader;
pub mod remote;
mod status;

pub use self::inventory::{
    complete_tables, default_cache_file, md5_file, resolve_dirs, verify_file, Inventory,
    Verification, DEFAULT_DIR,
};
pub use self::status::{FileStatus, MaterialClosure, MemoryNeeds, TablesReport};
