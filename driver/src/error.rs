//! The driver's errors.

use sanswitch_model::host::EntryError;
use sanswitch_model::regs::RegError;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// The register space is not one this driver can use.
    #[error("device: {0}")]
    Device(#[from] RegError),
    /// The design's major version is not this driver's.
    #[error("design version {found:#08x}: this driver drives major version {known}")]
    DesignVersion { found: u32, known: u32 },
    /// A register access failed (the transport says why).
    #[error("register {offset:#x}: {what}")]
    Register { offset: u32, what: String },
    /// DMA memory could not be had.
    #[error("DMA memory: {0}")]
    Dma(String),
    /// Parameters out of what the device allows.
    #[error("{0}")]
    Param(String),
    /// The submission ring has no room for the batch.
    #[error("submission ring full: {free} free entries, {asked} asked")]
    Full { free: u32, asked: u32 },
    /// The submission ring stopped (a doorbell past its end was seen by the device).
    #[error("submission ring stopped by the device (sq_ctrl {ctrl:#x})")]
    Stopped { ctrl: u32 },
    /// A completion entry did not decode.
    #[error("completion entry {index}: {err}")]
    Entry { index: u32, err: EntryError },
    /// The device did something the protocol does not allow (a completion nobody asked for).
    #[error("protocol: {0}")]
    Protocol(String),
    /// A blocking call waited this many times with no completion.
    #[error("no completion after {0} waits")]
    TimedOut(u64),
}

/// A Winsock status carried in an `std::io::Error` (its `get_ref` / `into_inner`).
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[error("{} ({})", .0.name(), .0.code())]
pub struct WsaStatus(pub sanswitch_model::status::WsaError);
