//! Training driver: full, holdout, split and n-fold runs over a model's corpus, with GROBID-style
//! evaluation and the `models/<dir>/` output (filled in by the next commit).
