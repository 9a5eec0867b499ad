//! Small rust-hdl widgets the blocks are built from, one per file, each with the cycle model
//! of the same name in `sanswitch_model::blocks::widgets` and a test against it.
//!
//! - [`SkidBuffer`]: an output register with one skid slot (a registered `can_push`, so no
//!   combinational path runs from the consumer's ready back to the producer);
//! - [`CounterBank`]: up to 32 event counters in LUT RAM behind one narrow read port;
//! - [`LutRam`]: distributed RAM with an asynchronous read port, the storage of tables;
//! - [`ConnRam`]: a [`LutRam`] word per connection, swept clear after reset;
//! - [`Fifo`]: a shallow first-word-fall-through FIFO (a ring of registers), for narrow entries;
//! - [`LutFifo`]: the same FIFO in LUT RAM, for wide records;
//! - [`Ram`]: a RAM whose depth is a run-time parameter, LUT or block RAM;
//! - [`Param`]: a constant with a default, so blocks can derive `Default`.

pub mod conn_ram;
pub mod counter_bank;
pub mod fifo;
pub mod lut_fifo;
pub mod lutram;
pub mod param;
pub mod ram;
pub mod skid;

pub use conn_ram::ConnRam;
pub use counter_bank::CounterBank;
pub use fifo::Fifo;
pub use lut_fifo::LutFifo;
pub use lutram::LutRam;
pub use param::{Param, param, wsa};
pub use ram::Ram;
pub use skid::SkidBuffer;
