//! The engine clock: the XEM7010's 200 MHz LVDS oscillator through an MMCM.
//!
//! # Ports
//! - `clock_p`, `clock_n` (in): the oscillator's pair (pins K4/J4, LVDS 2.5 V: the board
//!   crate's `xem_7010_pos_clock` / `xem_7010_neg_clock`, which carry the 5 ns period
//!   constraint).
//! - `eng_clk` (out): 200 MHz × `MULT` / `DIVIDE` through a `BUFG` (125 MHz by default).
//! - `locked` (out): the MMCM has locked; hold the logic in reset until it has.
//!
//! A Verilog black box (Xilinx primitives: `IBUFDS`, `MMCME2_BASE`, `BUFG`), as the board
//! crate's own `OpalKellySystemClock7` (which gives 100 MHz and no `locked`).

use rust_hdl::prelude::*;

/// The MMCM's VCO multiplier (200 MHz × 5 = 1 GHz, inside the -1 part's 600–1200 MHz).
pub const MULT: u32 = 5;
/// The output divider at 125 MHz.
pub const DIVIDE_125: u32 = 8;

#[derive(LogicBlock, Default)]
pub struct EngineClock {
    pub clock_p: Signal<In, Clock>,
    pub clock_n: Signal<In, Clock>,
    pub eng_clk: Signal<Out, Clock>,
    pub locked: Signal<Out, Bit>,
    /// The output divider (a leading `_`: not a signal for rust-hdl).
    _divide: u32,
}

impl EngineClock {
    /// The engine clock at 1000 / `divide` MHz (8: 125 MHz; 10: 100 MHz).
    pub fn new(divide: u32) -> Self {
        assert!((2..=128).contains(&divide), "MMCM output divider {divide}");
        EngineClock { _divide: divide, ..Default::default() }
    }

    /// The engine clock's frequency, MHz.
    pub fn mhz(&self) -> f64 {
        200.0 * f64::from(MULT) / f64::from(self._divide)
    }
}

impl Logic for EngineClock {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.eng_clk.connect();
        self.locked.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Blackbox(BlackBox {
            code: format!(
                r#"
module sanswitch_engine_clock (
    input wire clock_p,
    input wire clock_n,
    output wire eng_clk,
    output wire locked);

    wire clk_in;
    wire clk_out;
    wire fb_out;
    wire fb_in;

    IBUFDS clk_ibufds (.O(clk_in), .I(clock_p), .IB(clock_n));
    MMCME2_BASE #(
        .CLKFBOUT_MULT_F({mult}.000),
        .CLKOUT0_DIVIDE_F({divide}.000),
        .CLKIN1_PERIOD(5.000))
    mmcm (
        .CLKFBOUT(fb_out),
        .CLKOUT0(clk_out),
        .CLKFBIN(fb_in),
        .CLKIN1(clk_in),
        .LOCKED(locked),
        .PWRDWN(1'b0),
        .RST(1'b0));
    BUFG fb_buf (.O(fb_in), .I(fb_out));
    BUFG out_buf (.O(eng_clk), .I(clk_out));
endmodule

(* blackbox *)
module IBUFDS(I, IB, O);
    input wire I;
    input wire IB;
    output wire O;
endmodule

(* blackbox *)
module BUFG(I, O);
    input wire I;
    output wire O;
endmodule

(* blackbox *)
module MMCME2_BASE(CLKFBOUT, CLKOUT0, LOCKED, CLKFBIN, CLKIN1, PWRDWN, RST);
    parameter real CLKFBOUT_MULT_F = 5.000;
    parameter real CLKOUT0_DIVIDE_F = 1.000;
    parameter real CLKIN1_PERIOD = 0.000;
    output CLKFBOUT;
    output CLKOUT0;
    output LOCKED;
    input CLKFBIN;
    input CLKIN1;
    input PWRDWN;
    input RST;
endmodule
"#,
                mult = MULT,
                divide = self._divide
            ),
            name: "sanswitch_engine_clock".into(),
        })
    }
}
