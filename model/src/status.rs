//! Completion statuses with their Winsock meaning.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a request failed. The discriminant is the Winsock error code.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Error, Serialize, Deserialize, PartialOrd, Ord,
)]
#[repr(u32)]
pub enum WsaError {
    /// A registration or a temporary allocation failed (`WSAENOBUFS`).
    #[error("WSAENOBUFS: no buffer space (registration or temporary memory failed)")]
    NoBufs = 10055,
    /// The local side aborted the connection; pending requests are cancelled
    /// (`WSA_OPERATION_ABORTED`).
    #[error("WSA_OPERATION_ABORTED: the request was cancelled by an abortive close")]
    OperationAborted = 995,
    /// The peer aborted, broke the protocol, or the SAN connection failed (`WSAECONNRESET`).
    #[error("WSAECONNRESET: the connection was reset")]
    ConnReset = 10054,
    /// A send after `shutdown` of the send direction (`WSAESHUTDOWN`).
    #[error("WSAESHUTDOWN: the send direction was shut down")]
    Shutdown = 10058,
    /// A request on a socket that is not connected or already closed (`WSAENOTCONN`).
    #[error("WSAENOTCONN: the socket is not connected")]
    NotConn = 10057,
}

impl WsaError {
    pub fn code(self) -> u32 {
        self as u32
    }
    pub fn name(self) -> &'static str {
        match self {
            WsaError::NoBufs => "WSAENOBUFS",
            WsaError::OperationAborted => "WSA_OPERATION_ABORTED",
            WsaError::ConnReset => "WSAECONNRESET",
            WsaError::Shutdown => "WSAESHUTDOWN",
            WsaError::NotConn => "WSAENOTCONN",
        }
    }
}
