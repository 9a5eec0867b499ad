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
    /// A command its connection's state does not allow (`LISTEN` on a connected socket,
    /// `OPEN` while the connection still has work in flight), or an unknown opcode
    /// (`WSAEINVAL`).
    #[error("WSAEINVAL: the command is not valid for the connection's state")]
    Inval = 10022,
    /// A command for a connection the engine does not have (`WSAENOTSOCK`).
    #[error("WSAENOTSOCK: no such connection")]
    NotSock = 10038,
    /// `CONNECT` answered by a peer whose end of the connection is not open (no socket there
    /// to listen): the peer's engine tore the connection down (`WSAECONNREFUSED`).
    #[error("WSAECONNREFUSED: no socket at the peer's end of the connection")]
    ConnRefused = 10061,
    /// `CONNECT` on a connection that is already connected (`WSAEISCONN`).
    #[error("WSAEISCONN: the socket is already connected")]
    IsConn = 10056,
}

impl WsaError {
    /// Every status this switch reports.
    pub const ALL: [WsaError; 9] = [
        WsaError::NoBufs,
        WsaError::OperationAborted,
        WsaError::ConnReset,
        WsaError::Shutdown,
        WsaError::NotConn,
        WsaError::Inval,
        WsaError::NotSock,
        WsaError::IsConn,
        WsaError::ConnRefused,
    ];

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
            WsaError::Inval => "WSAEINVAL",
            WsaError::NotSock => "WSAENOTSOCK",
            WsaError::IsConn => "WSAEISCONN",
            WsaError::ConnRefused => "WSAECONNREFUSED",
        }
    }
}

/// The RDMA fault codes shared by every block: a remote-access check's verdict
/// (`ck_reason`), an RDMA response's status (`rs_status`), a transfer's completion status
/// (`cpl_status`), and later the engine's host completions. Code 0 is success; the codes
/// fit 3 bits. [`fault`] gives the same codes as `u8` constants for the HDL and the models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[repr(u8)]
pub enum RdmaFault {
    /// The key is unknown, released, or its table index holds another key.
    BadKey = 1,
    /// The key belongs to another connection.
    Connection = 2,
    /// The region does not grant that access (read or write).
    Access = 3,
    /// The address range is not inside the region.
    Bounds = 4,
    /// The SAN failed to move the data (link, retry exhaustion, or an unknown error code).
    Transport = 5,
    /// The request was flushed by the SAN (its queue pair went to error).
    Flushed = 6,
    /// The connection was aborted while the transfer ran (the sequencer's own code; never
    /// on the SAN's `rs_status`, where 7 counts as [`RdmaFault::Transport`]).
    Aborted = 7,
}

impl RdmaFault {
    /// Every fault, by code.
    pub const ALL: [RdmaFault; 7] = [
        RdmaFault::BadKey,
        RdmaFault::Connection,
        RdmaFault::Access,
        RdmaFault::Bounds,
        RdmaFault::Transport,
        RdmaFault::Flushed,
        RdmaFault::Aborted,
    ];

    /// The 3-bit code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The fault of a code; `None` for 0 (success) and for codes past 7.
    pub fn from_code(c: u8) -> Option<RdmaFault> {
        RdmaFault::ALL.iter().copied().find(|f| f.code() == c)
    }

    /// The Winsock error a host sees when a transfer ends with this fault and cannot fall
    /// back to a copy. A bad key, connection, access or bounds means the peer advertised a
    /// region it does not own or allow: a protocol violation that resets the connection,
    /// as a transport failure or a flush does. An abort is the local side's cancellation.
    pub fn wsa(self) -> WsaError {
        match self {
            RdmaFault::Aborted => WsaError::OperationAborted,
            _ => WsaError::ConnReset,
        }
    }
}

/// [`RdmaFault`] codes as `u8` constants (0 is success).
pub mod fault {
    use super::RdmaFault;
    pub const OK: u8 = 0;
    pub const BAD_KEY: u8 = RdmaFault::BadKey.code();
    pub const CONNECTION: u8 = RdmaFault::Connection.code();
    pub const ACCESS: u8 = RdmaFault::Access.code();
    pub const BOUNDS: u8 = RdmaFault::Bounds.code();
    pub const TRANSPORT: u8 = RdmaFault::Transport.code();
    pub const FLUSHED: u8 = RdmaFault::Flushed.code();
    pub const ABORTED: u8 = RdmaFault::Aborted.code();
    /// The first `rs_status` value that is not a SAN code (counted as a transport error).
    pub const FIRST_NOT_SAN: u8 = ABORTED;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_codes_are_distinct_3_bit_and_round_trip() {
        for (k, f) in RdmaFault::ALL.iter().enumerate() {
            assert_eq!(f.code() as usize, k + 1);
            assert_eq!(RdmaFault::from_code(f.code()), Some(*f));
        }
        assert_eq!(RdmaFault::from_code(0), None);
        assert_eq!(RdmaFault::from_code(8), None);
        assert_eq!(RdmaFault::Aborted.wsa(), WsaError::OperationAborted);
        assert_eq!(RdmaFault::Bounds.wsa(), WsaError::ConnReset);
    }
}
