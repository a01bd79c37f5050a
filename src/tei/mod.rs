//! TEI writers (in progress).
