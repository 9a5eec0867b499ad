//! The development board's blocks that are not the NIC: the FrontPanel bridge's core and its
//! parts (the XEM7010 top in `fpga/xem7010` puts them around two NICs).
//!
//! - [`Bridge`]: runs the bridge protocol's requests on the two nodes' register ports and
//!   memories ([`ReqIntake`] with [`BridgeDecode`], [`RegAccess`], [`MemSteps`] and
//!   [`RspOut`] are its parts).
//! - [`NodeMem`]: a node's on-chip memory, the NIC's host memory on the board ([`MemRd`] and
//!   [`MemWr`] are its sides).
//! - [`BoardCore`]: the bridge, two nodes and the loopback: the board below the pipes.
//! - [`BoardPipes`]: [`PipeFifos`] (the pipes' clock-domain crossing) before [`BoardCore`]:
//!   the board below FrontPanel's endpoints.
//! - [`BoardNode`]: a NIC with its memory, the memory's word port shared by the bridge and
//!   the loopback.
//! - [`SanLoop`]: the on-chip SAN between the two NICs ([`MsgLink`] per direction of
//!   messages, [`RdmaCopy`] per direction of RDMA, [`WordArb`] per node memory).

pub mod board_core;
pub mod board_pipes;
pub mod bridge;
pub mod bridge_decode;
pub mod mem_rd;
pub mod mem_steps;
pub mod mem_wr;
pub mod msg_link;
pub mod node;
pub mod node_mem;
pub mod pipe_fifos;
pub mod rdma_copy;
pub mod reg_access;
pub mod req_intake;
pub mod rsp_out;
pub mod san_loop;
pub mod word_arb;
pub mod word_copy;

pub use board_core::BoardCore;
pub use board_pipes::BoardPipes;
pub use bridge::{Bridge, BridgeState, Step};
pub use bridge_decode::BridgeDecode;
pub use mem_rd::MemRd;
pub use mem_steps::MemSteps;
pub use mem_wr::MemWr;
pub use msg_link::{LinkEntry, MsgLink};
pub use node::BoardNode;
pub use node_mem::NodeMem;
pub use pipe_fifos::PipeFifos;
pub use rdma_copy::{CopyState, RdmaCopy};
pub use reg_access::RegAccess;
pub use req_intake::ReqIntake;
pub use rsp_out::RspOut;
pub use san_loop::SanLoop;
pub use word_arb::WordArb;
pub use word_copy::WordCopy;
