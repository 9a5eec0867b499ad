//! The development board's blocks that are not the NIC: the FrontPanel bridge's core and its
//! parts (the XEM7010 top in `fpga/xem7010` puts them around two NICs).
//!
//! - [`Bridge`]: runs the bridge protocol's requests on the two nodes' register ports and
//!   memories ([`ReqIntake`] with [`BridgeDecode`], [`RegAccess`], [`MemSteps`] and
//!   [`RspOut`] are its parts).
//! - [`NodeMem`]: a node's on-chip memory, the NIC's host memory on the board ([`MemRd`] and
//!   [`MemWr`] are its sides).

pub mod bridge;
pub mod bridge_decode;
pub mod mem_rd;
pub mod mem_steps;
pub mod mem_wr;
pub mod node_mem;
pub mod reg_access;
pub mod req_intake;
pub mod rsp_out;

pub use bridge::{Bridge, BridgeState, Step};
pub use bridge_decode::BridgeDecode;
pub use mem_rd::MemRd;
pub use mem_steps::MemSteps;
pub use mem_wr::MemWr;
pub use node_mem::NodeMem;
pub use reg_access::RegAccess;
pub use req_intake::ReqIntake;
pub use rsp_out::RspOut;
