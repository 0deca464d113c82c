//! fiftymove: find, count and explain the positions where chess's fifty-move
//! rule cuts a forced win short, from Syzygy endgame tablebases.
