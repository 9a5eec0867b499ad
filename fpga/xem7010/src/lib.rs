//! sanswitch on the Opal Kelly XEM7010 (Artix-7 XC7A50T-1FGG484), built with
//! `rust-hdl-bsp-ok-xem7010` (its pins, `okHost` and FrontPanel endpoints). The plan and the
//! bridge protocol: `docs/BOARD.md`; the bridge's core, which does the protocol's work in the
//! engine clock, is `sanswitch_hdl::board::Bridge`.
//!
//! Built so far (issue 11): the board's clocking ([`EngineClock`]) and the pipes' side of the
//! bridge ([`PipeFifos`]: the clock-domain crossing and block throttling). The top that puts
//! `okHost`, these, the bridge, two NICs, their memories and the SAN loopback together comes
//! next.

pub mod clock;
pub mod pipes;

pub use clock::EngineClock;
pub use pipes::PipeFifos;
