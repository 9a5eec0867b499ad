//! Cycle models of the small hardware widgets the blocks are built from, one per file, each
//! the oracle of the rust-hdl widget of the same name in `hdl/src/widgets/`.

pub mod counter_bank;
pub mod fifo;
pub mod lut_fifo;
pub mod skid;

pub use counter_bank::CounterBank;
pub use fifo::Fifo;
pub use lut_fifo::LutFifo;
pub use skid::Skid;
