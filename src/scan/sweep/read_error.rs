//! The table reader's errors as the crate's: a file that cannot be read
//! or is damaged, named, with what to do about it.

use crate::{error::Error, tables::reader::SweepError};

/// Maps the decoder's errors to ours.
pub(crate) fn table_error(e: SweepError) -> Error {
    let check = "check it with `fiftymove tables --verify`";
    let (path, detail) = match e {
        SweepError::Io { path, error } => (path, error.to_string()),
        SweepError::Name { path } => (path, "is not named like a Syzygy table".to_owned()),
        SweepError::Magic { path, found } => (
            path,
            format!(
                "does not start with the magic bytes of its kind (found {found:02x?}); {check}"
            ),
        ),
        SweepError::Corrupt { path, what } => {
            (path, format!("is truncated or damaged ({what}); {check}"))
        }
        SweepError::BadRequest { path, what } => (path, format!("cannot answer: {what}")),
    };
    Error::Table {
        what: path.display().to_string(),
        detail,
    }
}
