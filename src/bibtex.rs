//! BibTeX writer (in progress).
