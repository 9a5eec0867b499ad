//! The XEM7010 top: FrontPanel's `okHost` and two block-throttled pipes, the pipe FIFOs
//! across to the engine clock, the engine clock from the 200 MHz oscillator, a reset held
//! until the MMCM locks, the board's logic ([`BoardCore`]: the bridge, two NICs with their
//! memories and the on-chip SAN loopback) and the LEDs.
//!
//! # Pins
//! - `hi` (FrontPanel's host interface, the board crate's pins and timing), `clock_p` /
//!   `clock_n` (the 200 MHz LVDS oscillator, K4/J4), `led` (eight LEDs, active low).
//!
//! # Endpoints
//! - `okBTPipeIn` at [`PIPE_IN`] (0x80): the bridge's requests; its `ep_ready` is the pipe-in
//!   FIFO's room for a whole block.
//! - `okBTPipeOut` at [`PIPE_OUT`] (0xA0): the bridge's responses; `ep_ready`: a whole block
//!   waits.
//!
//! # LEDs (lit = low)
//! - 0, link: the MMCM has locked (the engine clock runs, the logic is out of reset);
//! - 1, activity: the bridge or the loopback was busy in the last 2^24 engine cycles
//!   (134 ms at 125 MHz);
//! - 2, error: the bridge answered a header `ERROR`, a memory access fell outside a memory
//!   (a node's or the loopback's count), or a pipe FIFO lost a word (written full, read
//!   empty);
//! - 3–7: off.

use rust_hdl::prelude::*;
use rust_hdl_bsp_ok_xem7010::xem7010::XEM7010;
use rust_hdl_bsp_ok_xem7010::xem7010::pins::{xem_7010_neg_clock, xem_7010_pos_clock};
use rust_hdl_ok_core::core::prelude::*;
use sanswitch_hdl::board::BoardPipes;
use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::HostParams;

use crate::EngineClock;

/// The XC7A50T-1FGG484's resources, for the fit report.
pub mod part {
    pub const NAME: &str = "xc7a50tfgg484-1";
    pub const LUTS: u64 = 32_600;
    pub const FFS: u64 = 65_200;
    pub const BRAM36: f64 = 75.0;
    pub const DSP: u64 = 120;
    /// The top's budget (issue 11): at most this share of the LUTs, and the block RAM.
    pub const BUDGET_LUT_PCT: f64 = 60.0;
    pub const BUDGET_BRAM36: f64 = 75.0;
}

/// The pipe-in endpoint's address (FrontPanel's block-throttled pipes in are 0x80..0x9F).
pub const PIPE_IN: u8 = sanswitch_model::bridge::PIPE_IN;
/// The pipe-out endpoint's address (0xA0..0xBF).
pub const PIPE_OUT: u8 = sanswitch_model::bridge::PIPE_OUT;

#[derive(LogicBlock)]
pub struct Xem7010Top<const A: usize> {
    pub hi: OpalKellyHostInterface,
    pub ok_host: OpalKellyHost,
    pub clock_p: Signal<In, Clock>,
    pub clock_n: Signal<In, Clock>,
    pub led: Signal<Out, Bits<8>>,
    pipe_in: BTPipeIn,
    pipe_out: BTPipeOut,
    clk: EngineClock,
    /// The pipe FIFOs and the board core: what the simulation runs below the endpoints.
    pub board: BoardPipes<A>,
    /// `!locked` through two engine-clock registers: the logic's reset.
    rst: DFF<Bits<2>>,
    /// Engine cycles the activity LED stays lit.
    act: DFF<Bits<24>>,
    k_act: Param<Bits<24>>,
    leds: Signal<Local, Bits<8>>,
}

type Param<T> = sanswitch_hdl::widgets::Param<T>;

impl<const A: usize> Xem7010Top<A> {
    /// The top with NICs of `p` and `h`, node memories of `mem_bytes`, and the engine clock
    /// at 1000 / `divide` MHz.
    pub fn new(p: &EngineParams, h: &HostParams, mem_bytes: u32, divide: u32) -> Self {
        Xem7010Top {
            hi: XEM7010::hi(),
            ok_host: XEM7010::ok_host(),
            clock_p: xem_7010_pos_clock(),
            clock_n: xem_7010_neg_clock(),
            led: XEM7010::leds(),
            pipe_in: BTPipeIn::new(PIPE_IN),
            pipe_out: BTPipeOut::new(PIPE_OUT),
            clk: EngineClock::new(divide),
            board: BoardPipes::new(p, h, mem_bytes),
            rst: Default::default(),
            act: Default::default(),
            k_act: sanswitch_hdl::widgets::param((1 << 24) - 1),
            leds: Default::default(),
        }
    }
}

impl<const A: usize> Logic for Xem7010Top<A> {
    #[hdl_gen]
    fn update(&mut self) {
        OpalKellyHostInterface::link(&mut self.hi, &mut self.ok_host.hi);
        self.pipe_in.ok1.next = self.ok_host.ok1.val();
        self.pipe_out.ok1.next = self.ok_host.ok1.val();
        self.ok_host.ok2.next = self.pipe_in.ok2.val() | self.pipe_out.ok2.val();
        self.clk.clock_p.next = self.clock_p.val();
        self.clk.clock_n.next = self.clock_n.val();
        // The pipe endpoints, in FrontPanel's clock.
        self.board.ti_clk.next = self.ok_host.ti_clk.val();
        self.board.pi_write.next = self.pipe_in.write.val();
        self.board.pi_data.next = self.pipe_in.dataout.val();
        self.pipe_in.ready.next = self.board.pi_ready.val();
        self.board.po_read.next = self.pipe_out.read.val();
        self.pipe_out.datain.next = self.board.po_data.val();
        self.pipe_out.ready.next = self.board.po_ready.val();
        // The board's logic, in the engine clock, out of reset once the MMCM has locked.
        self.rst.clock.next = self.clk.eng_clk.val();
        self.act.clock.next = self.clk.eng_clk.val();
        self.rst.d.next =
            (self.rst.q.val() << 1) | bit_cast::<2, 1>((!self.clk.locked.val()).into());
        self.board.clock.next = self.clk.eng_clk.val();
        self.board.reset.next = self.rst.q.val().any();
        // The LEDs.
        self.act.d.next = self.act.q.val();
        if self.act.q.val().any() {
            self.act.d.next = self.act.q.val() - 1;
        }
        if self.board.busy.val() {
            self.act.d.next = self.k_act.val();
        }
        self.leds.next = 0.into();
        self.leds.next = bit_cast::<8, 1>(self.clk.locked.val().into())
            | (bit_cast::<8, 1>(self.act.q.val().any().into()) << 1)
            | (bit_cast::<8, 1>(
                (self.board.errors.val().any() | self.board.oob.val() | self.board.lost.val())
                    .into(),
            ) << 2);
        self.led.next = !self.leds.val();
    }
}

/// The top's Verilog (FrontPanel's cores as the board crate's black boxes) and its XDC
/// (pins and clocks from the board crate, then the clock-domain crossing and the timing
/// rules of [`XDC_EXTRA`]), for NICs of `p`.
pub fn top_files(p: &EngineParams, divide: u32) -> (String, String) {
    fn build<const A: usize>(p: &EngineParams, divide: u32) -> (String, String) {
        let mut uut = Xem7010Top::<A>::new(
            p,
            &HostParams::board(),
            sanswitch_model::bridge::NODE_MEM_BYTES,
            divide,
        );
        uut.hi.link_connect_dest();
        uut.connect_all();
        let v = generate_verilog(&uut);
        let xdc = rust_hdl::fpga::toolchains::vivado::generate_xdc(&uut);
        (v, format!("{xdc}\n{XDC_EXTRA}"))
    }
    let p = *p;
    let bits = p.pool().addr_bits();
    std::thread::Builder::new()
        .name("xem7010-top".into())
        .stack_size(sanswitch_hdl::ENGINE_STACK)
        .spawn(move || match bits {
            1 => build::<1>(&p, divide),
            2 => build::<2>(&p, divide),
            3 => build::<3>(&p, divide),
            4 => build::<4>(&p, divide),
            5 => build::<5>(&p, divide),
            6 => build::<6>(&p, divide),
            7 => build::<7>(&p, divide),
            _ => build::<8>(&p, divide),
        })
        .expect("spawn")
        .join()
        .expect("the top builds")
}

/// What the board crate's XDC does not say (its own `set_clock_groups` names a clock,
/// `sys_clock_p`, that its pins do not create: the oscillator's clock is `SystemClk`):
/// FrontPanel's clock and the engine clock are asynchronous, the only paths between them
/// the pipe FIFOs' synchronizers.
pub const XDC_EXTRA: &str = "\
# sanswitch: okHost's ti_clk (generated from okHostClk) and the engine clock (the MMCM's
# output, generated from SystemClk) share no timing: every signal between them crosses in
# the pipe FIFOs' synchronizers.
set_clock_groups -asynchronous \\
    -group [get_clocks -include_generated_clocks okHostClk] \\
    -group [get_clocks -include_generated_clocks SystemClk]
";
