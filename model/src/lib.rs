//! The golden reference of sanswitch.
//!
//! - [`wire`]: the session protocol's messages, byte by byte;
//! - [`seq`]: wrap-safe sequence-number arithmetic;
//! - [`endpoint`]: a sans-IO state machine of one switch for one connected socket;
//! - [`fabric`]: a SAN model joining two endpoints (messages, registration, RDMA, faults);
//! - [`host`]: the engine's host command and completion entries, byte by byte;
//! - [`engine_pair`]: two engines over a cycle-level SAN with host memory models, a workload
//!   backend;
//! - [`workload`]: seeded random workloads and the integrity checker used by tests and the CLI;
//! - [`ports`], [`params`], [`blocks`]: the hardware blocks' port contracts, parameters and
//!   cycle-accurate models.
//!
//! Everything here is deterministic: the same inputs give the same outputs, in tests, in the
//! simulator and when used as the oracle for the hardware.

pub mod axis_hold;
pub mod blocks;
pub mod bridge;
pub mod endpoint;
pub mod engine_pair;
pub mod fabric;
pub mod host;
pub mod host_mem;
pub mod nic_pair;
pub mod params;
pub mod ports;
pub mod regs;
pub mod san_fabric;
pub mod seq;
pub mod status;
pub mod wire;
pub mod workload;

pub use status::WsaError;
