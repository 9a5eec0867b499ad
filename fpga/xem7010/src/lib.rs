//! sanswitch on the Opal Kelly XEM7010 (Artix-7 XC7A50T-1FGG484), built with
//! `rust-hdl-bsp-ok-xem7010` (its pins, `okHost` and FrontPanel endpoints). The plan and the
//! bridge protocol: `docs/BOARD.md`; the bridge's core, which does the protocol's work in the
//! engine clock, is `sanswitch_hdl::board::Bridge`.
//!
//! - [`EngineClock`]: the engine clock from the 200 MHz oscillator through an MMCM.
//! - [`Xem7010Top`]: `okHost`, the two pipe endpoints, the clock, and the board's logic
//!   below the endpoints (`sanswitch_hdl::board::BoardPipes`: the pipe FIFOs across the
//!   clock domains, then the bridge, two NICs with their memories, the SAN loopback);
//!   [`top_files`] writes its Verilog and XDC.

pub mod clock;
pub mod top;

pub use clock::EngineClock;
pub use top::{Xem7010Top, top_files};
