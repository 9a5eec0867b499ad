//! sanswitch's host driver: finds the engine behind a [`Transport`] (its register blocks,
//! checked against `sanswitch_model::regs`), sets up a queue pair of rings in DMA memory, and
//! moves commands and completions through them: one doorbell per batch of commands,
//! completions reaped by their phase bit in batches, the consumer pointer written once per
//! batch.
//!
//! Everything from the device is checked: an unknown device or version, a register that
//! does not answer, a completion entry that does not decode are typed errors ([`Error`]),
//! never a panic.

pub mod conn;
pub mod device;
pub mod error;
pub mod frontpanel;
pub mod loopback;
pub mod pair;
pub mod pcie;
pub mod pipe_sim;
pub mod ring;
pub mod socket;
pub mod transport;

pub use conn::Connection;
pub use device::{Device, DeviceInfo};
pub use error::{Error, WsaStatus};
pub use ring::QueuePair;
pub use socket::{Endpoint, EndpointStats, SocketConfig};
pub use transport::{DmaBuf, Transport};
