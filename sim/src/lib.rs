//! Co-simulation: the Verilog generated from `hdl/`, Verilated, beside the cycle models of
//! `model/`, driven with the same inputs every cycle and compared port by port.
//!
//! - [`Dut`]: a simulated block seen through its model's port structs; [`Verilated`] is the
//!   Verilated one, one type per module `build.rs` builds (the list is
//!   `sanswitch_hdl::cosim::cosim_blocks`): [`VParser`], [`VPool`], [`VSequencer`], [`VHostIf`], [`VNic`], [`VBridge`],
//!   [`VEngine`] at default parameters, [`VParserSmall`], [`VPoolSmall`], [`VSequencerSmall`] at
//!   `EngineParams::small()`, [`VPoolLarge`] at `EngineParams::large()`, and
//!   [`VParserNoReset`], a parser with a register left out of its reset.
//! - Registers start from random values ([`StartValues`]): the Verilog is built with
//!   `--x-initial unique` and without rust-hdl's power-up values, and each instance seeds
//!   Verilator's generator, from `SANSWITCH_X_SEED` when set, so a failure can be repeated.
//! - [`lockstep`]: the generic harness. Any block whose model implements
//!   [`CycleModel`](sanswitch_model::ports::CycleModel) runs under it, with resets at random
//!   cycles if asked ([`LockstepOptions::reset_rate`]); on the first mismatch it reports the
//!   cycle, the port and both values, and replays the run to write a VCD of the cycles
//!   before it.
//! - [`Checked`]: a model and its Verilog in lockstep as one cycle model (a mismatch
//!   panics with the cycle, the port and a VCD); [`Rtl`]: the Verilog alone as a cycle
//!   model. Either stands in for the model inside the engine pair.
//! - [`assert_lockstep_catches`]: the test of the tests, a broken model must be caught at the
//!   cycle where it first differs from the correct one.

pub mod board_pipes;
pub mod checked;
pub mod rtl;
pub use checked::Checked;
pub use rtl::Rtl;

use std::ffi::{CStr, CString, c_char, c_void};
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use sanswitch_model::blocks::board_core::{BoardCoreIn, BoardCoreOut};
use sanswitch_model::blocks::board_pipes::{BoardPipesIn, BoardPipesOut};
use sanswitch_model::blocks::bridge::{BridgeIn, BridgeOut};
use sanswitch_model::blocks::engine::{EngineIn, EngineOut};
use sanswitch_model::blocks::hostif::{HostIfIn, HostIfOut};
use sanswitch_model::blocks::nic::{NicIn, NicOut};
use sanswitch_model::blocks::node_mem::{NodeMemIn, NodeMemOut};
use sanswitch_model::blocks::parser::{ParserIn, ParserOut};
use sanswitch_model::blocks::pool::{PoolIn, PoolOut};
use sanswitch_model::blocks::san_loop::{SanLoopIn, SanLoopOut};
use sanswitch_model::blocks::sequencer::{SequencerIn, SequencerOut};
pub use sanswitch_model::ports::Stimulus;
use sanswitch_model::ports::{CycleModel, PortInfo, Ports, reset_inputs, reset_port};

/// A simulated block driven through port structs.
pub trait Dut {
    type In: Ports;
    type Out: Ports;
    /// Apply this cycle's inputs (combinational outputs settle).
    fn set(&mut self, i: &Self::In);
    /// The outputs now.
    fn get(&mut self) -> Self::Out;
    /// One clock cycle: rising edge, then falling edge.
    fn tick(&mut self);
    /// Start writing a VCD from now on.
    fn trace_open(&mut self, path: &Path) -> Result<(), String>;
    fn trace_close(&mut self);
    /// How its registers started at power-up.
    fn start_values(&self) -> StartValues {
        StartValues::Zero
    }
    /// Power up again, a fresh block whose registers start from `s` (a replay).
    fn restart(&mut self, s: StartValues);
    /// One cycle with `reset` high and every other input 0, outputs ignored: after it, the
    /// block is in its reset state whatever its registers started from. (Outputs during a
    /// reset cycle show the registers before it: random right after power-up.)
    fn reset_cycle(&mut self) {
        self.set(&reset_inputs::<Self::In>());
        self.tick();
    }
}

/// The values a block's registers hold at power-up, before the first reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartValues {
    /// Every bit 0 (what `--x-initial fast` gave: it hides a register missing from a reset).
    Zero,
    /// Random bits from Verilator's generator with this seed (not 0).
    Random(u32),
}

/// The environment variable that fixes the seed of [`StartValues::per_run`].
pub const X_SEED_VAR: &str = "SANSWITCH_X_SEED";

impl StartValues {
    /// Random, seeded from `SANSWITCH_X_SEED` when it is set (to repeat a failure), else
    /// with a fresh seed (time, process id and a counter), which a mismatch reports.
    ///
    /// # Panics
    /// If `SANSWITCH_X_SEED` is set but not a number in `1..2^32`.
    pub fn per_run() -> Self {
        match std::env::var(X_SEED_VAR) {
            Ok(v) => match v.trim().parse::<u32>() {
                Ok(s) if s != 0 => StartValues::Random(s),
                _ => panic!("{X_SEED_VAR}={v:?}: expected a seed in 1..=4294967295"),
            },
            Err(_) => StartValues::Random(fresh_seed()),
        }
    }
}

impl fmt::Display for StartValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartValues::Zero => write!(f, "registers started at zero"),
            StartValues::Random(s) => write!(
                f,
                "registers started from random values, seed {s} ({X_SEED_VAR}={s} repeats them)"
            ),
        }
    }
}

/// A seed no other instance of this process had, different from run to run.
fn fresh_seed() -> u32 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    let mut g = SplitMix(t ^ (u64::from(std::process::id()) << 32) ^ n.wrapping_mul(0x9E37));
    loop {
        let s = g.next() as u32;
        if s != 0 {
            return s;
        }
    }
}

/// SplitMix64: the harness's own small generator (reset cycles, seeds).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && ((self.next() >> 11) as f64) < p * (1u64 << 53) as f64
    }
}

unsafe extern "C" {
    fn sanswitch_vl_new(name: *const c_char, rand_reset: i32, seed: u32) -> *mut c_void;
    fn sanswitch_vl_port(name: *const c_char, output: i32, index: i32) -> *const c_char;
    fn sanswitch_vl_free(p: *mut c_void);
    fn sanswitch_vl_set(p: *mut c_void, v: *const u64);
    fn sanswitch_vl_get(p: *mut c_void, v: *mut u64);
    fn sanswitch_vl_tick(p: *mut c_void);
    fn sanswitch_vl_trace_open(p: *mut c_void, path: *const c_char) -> i32;
    fn sanswitch_vl_trace_close(p: *mut c_void);
}

/// The names of the modules `build.rs` verilated, in its order (comma-separated).
pub const BUILT: &str = env!("SANSWITCH_COSIM_MODULES");

/// A Verilated module: its name in `build.rs` and the port structs of its block.
pub trait Module {
    const NAME: &'static str;
    type In: Ports;
    type Out: Ports;
}

/// A Verilated module seen through its block's port structs.
pub struct Verilated<M: Module> {
    p: *mut c_void,
    start: StartValues,
    inb: Vec<u64>,
    outb: Vec<u64>,
    _m: PhantomData<M>,
}

impl<M: Module> Verilated<M> {
    /// The module's name in `build.rs` (`parser`, `parser_small`, ...).
    pub const NAME: &'static str = M::NAME;

    /// A fresh instance whose registers start from random values, seeded per run
    /// ([`StartValues::per_run`]).
    pub fn new() -> Self {
        Self::with_start(StartValues::per_run())
    }

    /// A fresh instance whose registers start from random values with this seed.
    pub fn new_seeded(seed: u32) -> Self {
        Self::with_start(StartValues::Random(seed))
    }

    /// A fresh instance whose registers start from `start`.
    ///
    /// # Panics
    /// If `build.rs` built no module of this name, if its ports are not those of
    /// `M::In`/`M::Out`, or on `StartValues::Random(0)`.
    pub fn with_start(start: StartValues) -> Self {
        let (mode, seed) = match start {
            StartValues::Zero => (0, 0),
            StartValues::Random(s) => {
                assert!(s != 0, "seed 0 would let Verilator pick one that cannot be repeated");
                (2, s)
            }
        };
        let name = CString::new(M::NAME).expect("a module name");
        check_ports::<M::In>(&name, 0);
        check_ports::<M::Out>(&name, 1);
        // SAFETY: the shim allocates a fresh model (or returns null for an unknown name);
        // freed exactly once in Drop.
        let p = unsafe { sanswitch_vl_new(name.as_ptr(), mode, seed) };
        assert!(!p.is_null(), "no Verilated module {:?} (built: {BUILT})", M::NAME);
        Verilated {
            p,
            start,
            inb: vec![0; M::In::PORTS.len()],
            outb: vec![0; M::Out::PORTS.len()],
            _m: PhantomData,
        }
    }
}

/// The shim's port names of module `name` (inputs or outputs) must be `P`'s.
fn check_ports<P: Ports>(name: &CStr, output: i32) {
    let mut got = Vec::new();
    loop {
        // SAFETY: `name` is a C string; the shim returns a static string or null.
        let n = unsafe { sanswitch_vl_port(name.as_ptr(), output, got.len() as i32) };
        if n.is_null() {
            break;
        }
        // SAFETY: non-null results point to the shim's static, NUL-terminated names.
        got.push(unsafe { CStr::from_ptr(n) }.to_string_lossy().into_owned());
    }
    let want: Vec<&str> = P::PORTS.iter().map(|p| p.name).collect();
    assert_eq!(got, want, "{name:?}: the Verilated ports are not those of the port struct");
}

impl<M: Module> Default for Verilated<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: Module> Drop for Verilated<M> {
    fn drop(&mut self) {
        // SAFETY: `p` came from the shim's constructor and is not used after this.
        unsafe { sanswitch_vl_free(self.p) }
    }
}

impl<M: Module> Dut for Verilated<M> {
    type In = M::In;
    type Out = M::Out;
    fn set(&mut self, i: &M::In) {
        for (k, v) in self.inb.iter_mut().enumerate() {
            *v = i.get(k);
        }
        // SAFETY: the buffer holds exactly one value per input port, as the shim reads.
        unsafe { sanswitch_vl_set(self.p, self.inb.as_ptr()) }
    }
    fn get(&mut self) -> M::Out {
        // SAFETY: the buffer holds exactly one slot per output port, as the shim writes.
        unsafe { sanswitch_vl_get(self.p, self.outb.as_mut_ptr()) }
        M::Out::from_raw(&self.outb)
    }
    fn tick(&mut self) {
        // SAFETY: `p` is a live model.
        unsafe { sanswitch_vl_tick(self.p) }
    }
    fn trace_open(&mut self, path: &Path) -> Result<(), String> {
        let c = CString::new(path.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
        // SAFETY: `c` outlives the call; the shim copies the path.
        match unsafe { sanswitch_vl_trace_open(self.p, c.as_ptr()) } {
            0 => Ok(()),
            _ => Err(format!("cannot open {}", path.display())),
        }
    }
    fn trace_close(&mut self) {
        // SAFETY: `p` is a live model.
        unsafe { sanswitch_vl_trace_close(self.p) }
    }
    fn start_values(&self) -> StartValues {
        self.start
    }
    fn restart(&mut self, s: StartValues) {
        *self = Self::with_start(s);
    }
}

macro_rules! modules {
    ($($(#[$m:meta])* $marker:ident, $alias:ident, $name:literal, $in:ty, $out:ty;)*) => {
        /// The modules `build.rs` verilates, as types (see [`Module`]).
        pub mod module {
            use super::*;
            $(
                $(#[$m])*
                pub enum $marker {}
                impl Module for $marker {
                    const NAME: &'static str = $name;
                    type In = $in;
                    type Out = $out;
                }
            )*
        }
        $(
            $(#[$m])*
            pub type $alias = Verilated<module::$marker>;
        )*
        /// The names of the modules with a type here, in `build.rs`'s order.
        pub const MODULES: &[&str] = &[$($name),*];
    };
}

modules! {
    /// The control-message parser (`hdl/src/parser/`), default parameters.
    Parser, VParser, "parser", ParserIn, ParserOut;
    /// The pool manager (`hdl/src/pool.rs`), default parameters.
    Pool, VPool, "pool", PoolIn, PoolOut;
    /// The RDMA read/write sequencer (`hdl/src/sequencer.rs`), default parameters.
    Sequencer, VSequencer, "sequencer", SequencerIn, SequencerOut;
    /// The engine (`hdl/src/engine/`), default parameters (zero-copy sends by RDMA read
    /// into it: it can read).
    Engine, VEngine, "engine", EngineIn, EngineOut;
    /// The engine at default parameters but without RDMA read (zero-copy sends into it go
    /// by RDMA write).
    EngineWrite, VEngineWrite, "engine_write", EngineIn, EngineOut;
    /// The host interface (`hdl/src/hostif/`), default parameters.
    HostIf, VHostIf, "hostif", HostIfIn, HostIfOut;
    /// The NIC top (`hdl/src/nic/`): host interface + engine, default parameters.
    Nic, VNic, "nic", NicIn, NicOut;
    /// The FrontPanel bridge's core (`hdl/src/board/bridge.rs`), in front of two memories of
    /// `sanswitch_model::bridge::NODE_MEM_BYTES`.
    Bridge, VBridge, "bridge", BridgeIn, BridgeOut;
    /// A board node's on-chip memory (`hdl/src/board/node_mem.rs`), of
    /// `sanswitch_model::bridge::NODE_MEM_BYTES`.
    NodeMem, VNodeMem, "node_mem", NodeMemIn, NodeMemOut;
    /// The board's SAN loopback (`hdl/src/board/san_loop.rs`), between two memories of
    /// `sanswitch_model::bridge::NODE_MEM_BYTES`.
    SanLoop, VSanLoop, "san_loop", SanLoopIn, SanLoopOut;
    /// The board's logic below the pipes (`hdl/src/board/board_core.rs`): the bridge, two
    /// NICs of `EngineParams::board()` with their memories, the SAN loopback.
    BoardCore, VBoardCore, "board_core", BoardCoreIn, BoardCoreOut;
    /// The board below FrontPanel's endpoints (`hdl/src/board/board_pipes.rs`): the pipe
    /// FIFOs (`ti_clk` an input toggled by the caller, `clock` the engine's) before the board
    /// core.
    BoardPipes, VBoardPipes, "board_pipes", BoardPipesIn, BoardPipesOut;
    /// The parser at `EngineParams::small()`.
    ParserSmall, VParserSmall, "parser_small", ParserIn, ParserOut;
    /// The pool manager at `EngineParams::small()`.
    PoolSmall, VPoolSmall, "pool_small", PoolIn, PoolOut;
    /// The sequencer at `EngineParams::small()`.
    SequencerSmall, VSequencerSmall, "sequencer_small", SequencerIn, SequencerOut;
    /// The pool manager at `EngineParams::large()` (64 connections).
    PoolLarge, VPoolLarge, "pool_large", PoolIn, PoolOut;
    /// A broken parser (default parameters): `beat_p1` is left out of the beat tracker's
    /// reset (`sanswitch_hdl::parser::beat::drop_beat_p1_reset`). Only for the test that the
    /// lockstep catches it.
    ParserNoReset, VParserNoReset, "parser_noreset", ParserIn, ParserOut;
}

/// A cycle model seen as a [`Dut`], so the harness can run one model against another (as
/// [`assert_lockstep_catches`] does to find where a broken model first differs). It writes
/// no VCD.
pub struct ModelDut<M: CycleModel> {
    make: Rc<dyn Fn() -> M>,
    m: M,
    i: M::In,
}

impl<M: CycleModel> ModelDut<M> {
    pub fn new(make: Rc<dyn Fn() -> M>) -> Self {
        let m = make();
        ModelDut { make, m, i: M::In::default() }
    }
}

impl<M: CycleModel> Dut for ModelDut<M> {
    type In = M::In;
    type Out = M::Out;
    fn set(&mut self, i: &M::In) {
        self.i = i.clone();
    }
    fn get(&mut self) -> M::Out {
        self.m.outputs(&self.i)
    }
    fn tick(&mut self) {
        self.m.clock(&self.i);
    }
    fn trace_open(&mut self, _: &Path) -> Result<(), String> {
        Err("a model writes no VCD".into())
    }
    fn trace_close(&mut self) {}
    fn restart(&mut self, _: StartValues) {
        self.m = (self.make)();
    }
}

/// The first difference between the model and the Verilog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Cycle of the difference, counted from 0 after the reset cycle.
    pub cycle: u64,
    pub port: &'static str,
    pub verilog: u64,
    pub model: u64,
    /// Every port that differed in that cycle.
    pub others: Vec<&'static str>,
    /// The harness's resets before it (cycles, as `cycle` counts them).
    pub resets: Vec<u64>,
    /// How the DUT's registers started (the seed that repeats them).
    pub start: StartValues,
    /// The VCD of the cycles before it, when one was written.
    pub vcd: Option<PathBuf>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "lockstep mismatch at cycle {} on port `{}`: verilog {:#x}, model {:#x}",
            self.cycle, self.port, self.verilog, self.model
        )?;
        if self.others.len() > 1 {
            write!(f, " (ports differing: {})", self.others.join(", "))?;
        }
        match self.resets.last() {
            Some(c) => {
                write!(f, "; {} resets by the harness, the last at cycle {c}", self.resets.len())?
            }
            None => write!(f, "; no reset by the harness")?,
        }
        write!(f, "; {}", self.start)?;
        if let Some(v) = &self.vcd {
            write!(f, "; VCD of the cycles before it: {}", v.display())?;
        }
        Ok(())
    }
}

/// Options of a lockstep run.
#[derive(Clone, Debug)]
pub struct LockstepOptions {
    pub cycles: u64,
    /// Cycles before a mismatch to keep in the VCD.
    pub vcd_window: u64,
    /// Where to write the VCD (a file name is chosen inside).
    pub vcd_dir: Option<PathBuf>,
    /// Probability per cycle that the harness resets the block mid-run: the cycle's inputs,
    /// as the stimulus gave them, with the `reset` port high, to model and DUT alike; the
    /// stimulus then observes that cycle and is told ([`Stimulus::reset`]).
    pub reset_rate: f64,
    /// Seed of the harness's generator that picks the reset cycles.
    pub reset_seed: u64,
    /// Cycles at which the harness resets the block, besides the random ones.
    pub reset_at: Vec<u64>,
}

impl Default for LockstepOptions {
    fn default() -> Self {
        LockstepOptions {
            cycles: 100_000,
            vcd_window: 200,
            vcd_dir: Some(std::env::temp_dir().join("sanswitch-lockstep")),
            reset_rate: 0.0,
            reset_seed: 1,
            reset_at: Vec::new(),
        }
    }
}

impl LockstepOptions {
    /// `cycles` cycles with resets at random, `rate` per cycle, from the seed `seed`.
    pub fn with_resets(cycles: u64, rate: f64, seed: u64) -> Self {
        LockstepOptions { cycles, reset_rate: rate, reset_seed: seed, ..Self::default() }
    }
}

/// What a clean run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LockstepReport {
    pub cycles: u64,
    /// Resets applied by the harness (besides the first).
    pub resets: u64,
}

fn first_difference<O: Ports>(hw: &O, sw: &O) -> Option<(usize, Vec<&'static str>)> {
    let diff: Vec<usize> = (0..O::PORTS.len()).filter(|&k| hw.get(k) != sw.get(k)).collect();
    let first = *diff.first()?;
    Some((first, diff.iter().map(|&k| O::PORTS[k].name).collect()))
}

/// Run `model` and `dut` side by side from a reset cycle, with inputs from `stim`, comparing
/// every output port every cycle, with the harness's resets of `opts`. The inputs applied
/// (the harness's resets included) are recorded, so a mismatch is replayed into a VCD on a
/// fresh `dut` from `make_dut`, restarted from the same start values.
///
/// # Panics
/// If `opts` asks for resets and the block has no `reset` input.
pub fn lockstep<M, D, S>(
    model: &mut M,
    make_dut: &dyn Fn() -> D,
    stim: &mut S,
    opts: &LockstepOptions,
) -> Result<LockstepReport, Box<Mismatch>>
where
    M: CycleModel,
    D: Dut<In = M::In, Out = M::Out>,
    S: Stimulus<M::In, M::Out>,
    M::In: Copy,
{
    let mut dut = make_dut();
    let start = dut.start_values();
    let resetting = opts.reset_rate > 0.0 || !opts.reset_at.is_empty();
    let reset_k = reset_port::<M::In>();
    assert!(!resetting || reset_k.is_some(), "resets asked for, but the block has no `reset` port");
    let mut reset_at = opts.reset_at.clone();
    reset_at.sort_unstable();
    reset_at.dedup();
    let mut reset_at = reset_at.into_iter().peekable();
    let mut rng = SplitMix(opts.reset_seed);
    let mut resets = Vec::new();

    let reset = reset_inputs::<M::In>();
    dut.set(&reset);
    dut.tick();
    model.clock(&reset);
    let mut log: Vec<M::In> = Vec::with_capacity(opts.cycles.min(1 << 22) as usize);
    for cycle in 0..opts.cycles {
        let mut i = stim.next();
        let mut harness_reset = rng.chance(opts.reset_rate);
        if reset_at.next_if_eq(&cycle).is_some() {
            harness_reset = true;
        }
        if let (true, Some(k)) = (harness_reset, reset_k) {
            i.set(k, 1);
        }
        dut.set(&i);
        let hw = dut.get();
        let sw = model.outputs(&i);
        log.push(i);
        if let Some((k, others)) = first_difference(&hw, &sw) {
            let vcd = opts.vcd_dir.as_ref().and_then(|dir| {
                replay_vcd(make_dut, start, &reset, &log, opts.vcd_window, dir).ok()
            });
            return Err(Box::new(Mismatch {
                cycle,
                port: M::Out::PORTS[k].name,
                verilog: hw.get(k),
                model: sw.get(k),
                others,
                resets,
                start,
                vcd,
            }));
        }
        model.clock(&i);
        dut.tick();
        stim.observe(&i, &sw);
        if harness_reset {
            stim.reset();
            resets.push(cycle);
        }
    }
    Ok(LockstepReport { cycles: opts.cycles, resets: resets.len() as u64 })
}

/// Replay `log` from reset on a fresh DUT started from `start`, tracing the last `window`
/// cycles into a VCD.
fn replay_vcd<D: Dut>(
    make_dut: &dyn Fn() -> D,
    start: StartValues,
    reset: &D::In,
    log: &[D::In],
    window: u64,
    dir: &Path,
) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let n = log.len() as u64;
    let path = dir.join(format!("mismatch-cycle-{}-{}.vcd", n - 1, std::process::id()));
    let mut dut = make_dut();
    if dut.start_values() != start {
        dut.restart(start);
    }
    dut.set(reset);
    dut.tick();
    let begin = n.saturating_sub(window);
    for (c, i) in log.iter().enumerate() {
        if c as u64 == begin {
            dut.trace_open(&path)?;
        }
        dut.set(i);
        dut.get();
        dut.tick();
    }
    dut.trace_close();
    Ok(path)
}

/// The test of the tests: a broken model must be caught, at the right cycle.
///
/// Runs the broken model from `broken` against the correct one from `correct`, both in
/// Rust through this same harness (same stimulus from `make_stim`, same `opts`, resets
/// included), to find the cycle and port where the bug first shows; then the broken model
/// against the DUT from `make_dut`, which must report that same cycle, port and values (so
/// the DUT matched the correct model up to there), name them in its message and, when
/// `opts.vcd_dir` is set, write a VCD that holds the port. Returns the DUT run's mismatch.
///
/// # Panics
/// If the two models never differ within `opts.cycles` (the stimulus does not reach the
/// bug), or if the DUT run does not report the difference where the models showed it.
pub fn assert_lockstep_catches<B, C, D, S>(
    broken: &dyn Fn() -> B,
    correct: Rc<dyn Fn() -> C>,
    make_dut: &dyn Fn() -> D,
    make_stim: &dyn Fn() -> S,
    opts: &LockstepOptions,
) -> Mismatch
where
    B: CycleModel,
    C: CycleModel<In = B::In, Out = B::Out>,
    D: Dut<In = B::In, Out = B::Out>,
    S: Stimulus<B::In, B::Out>,
    B::In: Copy,
{
    let plain = LockstepOptions { vcd_dir: None, ..opts.clone() };
    let correct_dut = || ModelDut::new(correct.clone());
    let expected = match lockstep(&mut broken(), &correct_dut, &mut make_stim(), &plain) {
        Ok(r) => panic!(
            "the broken model never differs from the correct one in {} cycles ({} resets): \
             the stimulus does not reach the bug",
            r.cycles, r.resets
        ),
        Err(m) => *m,
    };
    let got = match lockstep(&mut broken(), make_dut, &mut make_stim(), opts) {
        Ok(r) => panic!(
            "the lockstep did not catch the broken model in {} cycles; it differs from the \
             correct one at cycle {} on `{}` ({:#x} instead of {:#x})",
            r.cycles, expected.cycle, expected.port, expected.model, expected.verilog
        ),
        Err(m) => *m,
    };
    let key =
        |m: &Mismatch| (m.cycle, m.port, m.verilog, m.model, m.others.clone(), m.resets.clone());
    assert_eq!(
        key(&got),
        key(&expected),
        "the DUT run reports another difference than the one between the models: {got}"
    );
    let msg = got.to_string();
    assert!(msg.contains(&format!("cycle {}", got.cycle)) && msg.contains(got.port), "{msg}");
    if opts.vcd_dir.is_some() {
        let vcd = got.vcd.as_ref().unwrap_or_else(|| panic!("no VCD was written: {msg}"));
        let text = std::fs::read_to_string(vcd).expect("read the VCD");
        let port = PortInfo { name: got.port, width: 0 }.hdl_name();
        assert!(text.contains("$enddefinitions") && text.contains(&port), "{}", vcd.display());
    }
    got
}

/// The sequencer's bench figures (`sanswitch bench`): a 1 MiB transfer in each mode through
/// an ideal SAN port model, measured on the Verilated sequencer (default parameters, as
/// `build.rs` builds it) and cross-checked cycle for cycle against the cycle model, which
/// must give the same figures.
pub fn sequencer_bench()
-> Result<sanswitch_model::blocks::sequencer_stimulus::SequencerFigures, String> {
    use sanswitch_model::blocks::sequencer_stimulus::{measure, model_figures};
    let p = sanswitch_model::params::SequencerParams::default();
    let mut dut = VSequencer::new();
    let start = dut.start_values();
    // `measure` starts with a reset cycle and takes what the block shows during it; right
    // after power-up that is random, so reset once before.
    dut.reset_cycle();
    let mut step = |i: &sanswitch_model::blocks::sequencer::SequencerIn| {
        dut.set(i);
        let o = dut.get();
        dut.tick();
        (o, dut.get()) // every output is registered: the next cycle's, known after the edge
    };
    let hw = measure(&mut step, &p).map_err(|e| format!("{e} ({start})"))?;
    let sw = model_figures(&p)?;
    if hw != sw {
        return Err(format!("Verilog and model disagree ({start}): {hw:?} vs {sw:?}"));
    }
    Ok(hw)
}
