/*!
The actor layer's error type. It wraps the engine's [`quire::Error`] and adds the failures that
only exist once work runs on actors: admission refused (busy), a stage that ran out of time, a
model actor that panicked, a model that is not installed, a training already running. The web
crate maps each variant to an HTTP status; this crate knows nothing of HTTP.
*/

use quire::ErrorCode;

/// Everything that can go wrong between an HTTP handler and the engine.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An engine failure; its code passes through unchanged.
    #[error(transparent)]
    Engine(#[from] quire::Error),
    /// Not a failure: no capacity right now. The client should retry after `retry_after_s`.
    #[error("{what} is busy; retry in {retry_after_s} s")]
    Busy { what: String, retry_after_s: u64 },
    /// A stage took longer than its limit and was abandoned.
    #[error("{stage} did not answer in time and was abandoned")]
    Timeout { stage: String },
    /// A model actor panicked while handling the request; the actor was rebuilt.
    #[error(
        "model `{model}` failed unexpectedly (panic); its actor was restarted, retry the request"
    )]
    Panicked { model: String },
    /// The model has no trained files in the models directory (or failed to load).
    #[error("model `{model}` is not available: {reason}")]
    ModelAbsent { model: String, reason: String },
    /// `/api/modelTraining` for a model (and flavour) that is already training.
    #[error("a training of `{model}` is already in progress (token {token})")]
    TrainingInProgress { model: String, token: String },
    /// `/api/trainingResult` with a token the registry never issued.
    #[error("the token `{token}` does not match any training")]
    UnknownToken { token: String },
}

impl Error {
    /// The interface code the error is reported under when it becomes a 500.
    ///
    /// `Busy`, `TrainingInProgress` and `UnknownToken` are not processing errors (the web layer
    /// answers 503, 409 and 400 for them); they map to the nearest code for logs.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Engine(e) => e.code(),
            Error::Busy { .. } => ErrorCode::General,
            Error::Timeout { .. } => ErrorCode::Timeout,
            Error::Panicked { .. } => ErrorCode::General,
            Error::ModelAbsent { .. } => ErrorCode::TaggingError,
            Error::TrainingInProgress { .. } => ErrorCode::General,
            Error::UnknownToken { .. } => ErrorCode::BadInputData,
        }
    }

    /// True for errors that mean "try again later" rather than "this request failed".
    pub fn is_busy(&self) -> bool {
        matches!(self, Error::Busy { .. })
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_codes_pass_through_and_actor_errors_have_their_own() {
        let e: Error = quire::Error::NoBlocks.into();
        assert_eq!(e.code(), ErrorCode::NoBlocks);
        assert_eq!(
            Error::Timeout {
                stage: "header".into()
            }
            .code(),
            ErrorCode::Timeout
        );
        let absent = Error::ModelAbsent {
            model: "date".into(),
            reason: "no model.crf".into(),
        };
        assert_eq!(absent.code(), ErrorCode::TaggingError);
        assert!(absent.to_string().contains("`date`"));
        assert!(Error::Busy {
            what: "pool".into(),
            retry_after_s: 2
        }
        .is_busy());
    }
}
