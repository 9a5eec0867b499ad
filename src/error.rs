//! Errors the commands report to the user (never a panic on user input).

use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    #[error("cannot read scenario file {path}: {source}")]
    ReadScenario {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("bad scenario file {path}: {source}")]
    ParseScenario {
        path: PathBuf,
        #[source]
        source: toml::de::Error,
    },
    #[error("impossible workload:\n{}", .0.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    InvalidWorkload(Vec<String>),
    #[error("cannot write the summary as JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("cannot write the output: {0}")]
    Output(#[source] std::io::Error),
    #[error("bad parameters: {0}")]
    InvalidParams(String),
    #[error("cannot {what} {path}: {source}")]
    File {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Check(String),
}

impl Error {
    /// The process exit status for this error: 2 for anything the user gave us.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::ReadScenario { .. }
            | Error::ParseScenario { .. }
            | Error::InvalidWorkload(_)
            | Error::InvalidParams(_) => 2,
            Error::Json(_) | Error::Output(_) | Error::File { .. } | Error::Check(_) => 1,
        }
    }
}
