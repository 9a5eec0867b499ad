//! Cycle-accurate models of the hardware blocks, one per file, each with its port structs.
//! They are the oracle the Verilated Verilog is checked against, cycle by cycle.

pub mod parser;
pub mod stimulus;
