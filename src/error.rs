/*!
The engine's one error type. Every failure maps to one of the interface's processing codes
(`ErrorCode`), which the web layer turns into HTTP; the engine itself knows nothing of HTTP.
*/

use std::path::PathBuf;

/// The interface's processing error codes (all answered with HTTP 500).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ErrorCode {
    BadInputData,
    NoBlocks,
    TooManyBlocks,
    TooManyTokens,
    Timeout,
    TaggingError,
    ParsingError,
    General,
    PdftoolConversionFailure,
    /// A layout worker reached its memory cap (`limits.pdf_memory_mb`).
    Memory,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 10] = [
        ErrorCode::BadInputData,
        ErrorCode::NoBlocks,
        ErrorCode::TooManyBlocks,
        ErrorCode::TooManyTokens,
        ErrorCode::Timeout,
        ErrorCode::TaggingError,
        ErrorCode::ParsingError,
        ErrorCode::General,
        ErrorCode::PdftoolConversionFailure,
        ErrorCode::Memory,
    ];

    /// The code as the interface spells it, e.g. `BAD_INPUT_DATA`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadInputData => "BAD_INPUT_DATA",
            ErrorCode::NoBlocks => "NO_BLOCKS",
            ErrorCode::TooManyBlocks => "TOO_MANY_BLOCKS",
            ErrorCode::TooManyTokens => "TOO_MANY_TOKENS",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::TaggingError => "TAGGING_ERROR",
            ErrorCode::ParsingError => "PARSING_ERROR",
            ErrorCode::General => "GENERAL",
            ErrorCode::PdftoolConversionFailure => "PDFTOOL_CONVERSION_FAILURE",
            ErrorCode::Memory => "MEMORY",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Engine errors. Each variant carries the context a user needs to act on it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("bad input: {0}")]
    BadInput(String),
    #[error("the PDF has no text blocks (a scan without a text layer?)")]
    NoBlocks,
    #[error(
        "the PDF has {blocks} blocks, more than the limit of {limit}; raise `limits.blocks_max`"
    )]
    TooManyBlocks { blocks: usize, limit: usize },
    #[error(
        "the PDF has {tokens} tokens, more than the limit of {limit}; raise `limits.tokens_max`"
    )]
    TooManyTokens { tokens: usize, limit: usize },
    #[error(
        "page {page} of the PDF has {tokens} tokens, more than the limit of {limit} for one \
         page; raise `limits.page_tokens_max`"
    )]
    TooManyPageTokens {
        page: u32,
        tokens: usize,
        limit: usize,
    },
    #[error("{stage} took longer than {seconds} s and was stopped")]
    Timeout { stage: String, seconds: u64 },
    #[error("the PDF could not be converted: {0}")]
    PdfConversion(String),
    #[error(
        "{stage} needed more memory than the layout worker's cap of {cap_mb} MiB{detail}; \
         raise `limits.pdf_memory_mb`"
    )]
    Memory {
        stage: String,
        cap_mb: u64,
        /// What was seen (e.g. ` (it reached 3100 MiB and died)`), or empty.
        detail: String,
    },
    #[error("parsing failed: {0}")]
    Parsing(String),
    #[error("model `{model}` is not available: {reason}")]
    ModelUnavailable { model: String, reason: String },
    #[error(
        "model `{model}` was built for feature version {found}, this build expects {expected}"
    )]
    ModelMismatch {
        model: String,
        expected: u32,
        found: u32,
    },
    #[error("tagging failed in model `{model}`: {reason}")]
    Tagging { model: String, reason: String },
    #[error("corpus file {path}: {reason}")]
    Corpus { path: PathBuf, reason: String },
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    General(String),
}

impl Error {
    /// The interface code this error is reported under.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::BadInput(_) => ErrorCode::BadInputData,
            Error::NoBlocks => ErrorCode::NoBlocks,
            Error::TooManyBlocks { .. } => ErrorCode::TooManyBlocks,
            Error::TooManyTokens { .. } => ErrorCode::TooManyTokens,
            Error::TooManyPageTokens { .. } => ErrorCode::TooManyTokens,
            Error::Timeout { .. } => ErrorCode::Timeout,
            Error::PdfConversion(_) => ErrorCode::PdftoolConversionFailure,
            Error::Memory { .. } => ErrorCode::Memory,
            Error::Parsing(_) => ErrorCode::ParsingError,
            Error::ModelUnavailable { .. } => ErrorCode::TaggingError,
            Error::ModelMismatch { .. } => ErrorCode::TaggingError,
            Error::Tagging { .. } => ErrorCode::TaggingError,
            Error::Corpus { .. } => ErrorCode::General,
            Error::Io { .. } => ErrorCode::General,
            Error::General(_) => ErrorCode::General,
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_distinct_interface_name() {
        let names: std::collections::HashSet<_> =
            ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(names.len(), ErrorCode::ALL.len());
        assert!(names.contains("PDFTOOL_CONVERSION_FAILURE"));
    }

    #[test]
    fn errors_map_to_their_codes() {
        assert_eq!(Error::NoBlocks.code(), ErrorCode::NoBlocks);
        assert_eq!(
            Error::TooManyTokens {
                tokens: 2,
                limit: 1
            }
            .code(),
            ErrorCode::TooManyTokens
        );
        assert_eq!(
            Error::PdfConversion("x".into()).code(),
            ErrorCode::PdftoolConversionFailure
        );
        let msg = Error::TooManyBlocks {
            blocks: 10,
            limit: 5,
        }
        .to_string();
        assert!(msg.contains("limits.blocks_max"), "{msg}");
    }
}
