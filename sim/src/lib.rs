//! Co-simulation: the Verilog generated from `hdl/`, Verilated, beside the cycle models of
//! `model/`, driven with the same inputs every cycle and compared port by port.
//!
//! - [`Dut`]: a Verilated block seen through its model's port structs.
//! - [`lockstep`]: the generic harness. Any block whose model implements
//!   [`CycleModel`](sanswitch_model::ports::CycleModel) runs under it; on the first mismatch
//!   it reports the cycle, the port and both values, and replays the run to write a VCD of the
//!   cycles before it.

use std::ffi::{CString, c_void};
use std::fmt;
use std::path::{Path, PathBuf};

use sanswitch_model::blocks::parser::{ParserIn, ParserOut};
use sanswitch_model::blocks::pool::{PoolIn, PoolOut};
pub use sanswitch_model::ports::Stimulus;
use sanswitch_model::ports::{CycleModel, Ports};

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
}

macro_rules! verilated_block {
    ($(#[$m:meta])* $ty:ident, $name:literal, $in:ty, $out:ty,
     $new:ident, $free:ident, $set:ident, $get:ident, $tick:ident, $topen:ident, $tclose:ident) => {
        unsafe extern "C" {
            fn $new() -> *mut c_void;
            fn $free(p: *mut c_void);
            fn $set(p: *mut c_void, v: *const u64);
            fn $get(p: *mut c_void, v: *mut u64);
            fn $tick(p: *mut c_void);
            fn $topen(p: *mut c_void, path: *const std::ffi::c_char) -> i32;
            fn $tclose(p: *mut c_void);
        }

        $(#[$m])*
        pub struct $ty {
            p: *mut c_void,
            inb: Vec<u64>,
            outb: Vec<u64>,
        }

        impl $ty {
            /// The Verilog module name.
            pub const NAME: &'static str = $name;

            pub fn new() -> Self {
                // SAFETY: the shim allocates a fresh model; freed exactly once in Drop.
                let p = unsafe { $new() };
                assert!(!p.is_null());
                $ty {
                    p,
                    inb: vec![0; <$in as Ports>::PORTS.len()],
                    outb: vec![0; <$out as Ports>::PORTS.len()],
                }
            }
        }

        impl Default for $ty {
            fn default() -> Self {
                Self::new()
            }
        }

        impl Drop for $ty {
            fn drop(&mut self) {
                // SAFETY: `p` came from the shim's constructor and is not used after this.
                unsafe { $free(self.p) }
            }
        }

        impl Dut for $ty {
            type In = $in;
            type Out = $out;
            fn set(&mut self, i: &$in) {
                for (k, v) in self.inb.iter_mut().enumerate() {
                    *v = i.get(k);
                }
                // SAFETY: the buffer holds exactly one value per input port, as the shim reads.
                unsafe { $set(self.p, self.inb.as_ptr()) }
            }
            fn get(&mut self) -> $out {
                // SAFETY: the buffer holds exactly one slot per output port, as the shim writes.
                unsafe { $get(self.p, self.outb.as_mut_ptr()) }
                <$out as Ports>::from_raw(&self.outb)
            }
            fn tick(&mut self) {
                // SAFETY: `p` is a live model.
                unsafe { $tick(self.p) }
            }
            fn trace_open(&mut self, path: &Path) -> Result<(), String> {
                let c = CString::new(path.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
                // SAFETY: `c` outlives the call; the shim copies the path.
                match unsafe { $topen(self.p, c.as_ptr()) } {
                    0 => Ok(()),
                    _ => Err(format!("cannot open {}", path.display())),
                }
            }
            fn trace_close(&mut self) {
                // SAFETY: `p` is a live model.
                unsafe { $tclose(self.p) }
            }
        }
    };
}

verilated_block!(
    /// The Verilated control-message parser (`hdl/src/parser.rs`).
    VParser, "parser", ParserIn, ParserOut,
    parser_new, parser_free, parser_set, parser_get, parser_tick, parser_trace_open,
    parser_trace_close
);

verilated_block!(
    /// The Verilated pool manager (`hdl/src/pool.rs`), 16 connections.
    VPool, "pool", PoolIn, PoolOut,
    pool_new, pool_free, pool_set, pool_get, pool_tick, pool_trace_open, pool_trace_close
);

verilated_block!(
    /// The Verilated RDMA read/write sequencer (`hdl/src/sequencer/`).
    VSequencer, "sequencer",
    sanswitch_model::blocks::sequencer::SequencerIn,
    sanswitch_model::blocks::sequencer::SequencerOut,
    sequencer_new, sequencer_free, sequencer_set, sequencer_get, sequencer_tick,
    sequencer_trace_open, sequencer_trace_close
);

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
}

impl Default for LockstepOptions {
    fn default() -> Self {
        LockstepOptions {
            cycles: 100_000,
            vcd_window: 200,
            vcd_dir: Some(std::env::temp_dir().join("sanswitch-lockstep")),
        }
    }
}

/// What a clean run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LockstepReport {
    pub cycles: u64,
}

fn reset_inputs<I: Ports>() -> I {
    let mut i = I::default();
    if let Some(k) = I::PORTS.iter().position(|p| p.name == "reset") {
        i.set(k, 1);
    }
    i
}

fn first_difference<O: Ports>(hw: &O, sw: &O) -> Option<(usize, Vec<&'static str>)> {
    let diff: Vec<usize> = (0..O::PORTS.len()).filter(|&k| hw.get(k) != sw.get(k)).collect();
    let first = *diff.first()?;
    Some((first, diff.iter().map(|&k| O::PORTS[k].name).collect()))
}

/// Run `model` and `dut` side by side from a reset cycle, with inputs from `stim`, comparing
/// every output port every cycle. Inputs are recorded so a mismatch can be replayed into a
/// VCD on a fresh `dut` from `make_dut`.
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
    let reset = reset_inputs::<M::In>();
    dut.set(&reset);
    dut.tick();
    model.clock(&reset);
    let mut log: Vec<M::In> = Vec::with_capacity(opts.cycles.min(1 << 22) as usize);
    for cycle in 0..opts.cycles {
        let i = stim.next();
        dut.set(&i);
        let hw = dut.get();
        let sw = model.outputs(&i);
        log.push(i);
        if let Some((k, others)) = first_difference(&hw, &sw) {
            let vcd = opts.vcd_dir.as_ref().and_then(|dir| {
                replay_vcd(make_dut, &reset, &log, opts.vcd_window, dir, M::Out::PORTS.len()).ok()
            });
            return Err(Box::new(Mismatch {
                cycle,
                port: M::Out::PORTS[k].name,
                verilog: hw.get(k),
                model: sw.get(k),
                others,
                vcd,
            }));
        }
        model.clock(&i);
        dut.tick();
        stim.observe(&i, &sw);
        // Keep the log bounded: only the window before a mismatch is ever dumped, but the
        // replay starts from reset, so the whole prefix is needed.
        let _ = &log;
    }
    Ok(LockstepReport { cycles: opts.cycles })
}

/// Replay `log` from reset on a fresh DUT, tracing the last `window` cycles into a VCD.
fn replay_vcd<D: Dut>(
    make_dut: &dyn Fn() -> D,
    reset: &D::In,
    log: &[D::In],
    window: u64,
    dir: &Path,
    _outputs: usize,
) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let n = log.len() as u64;
    let path = dir.join(format!("mismatch-cycle-{}-{}.vcd", n - 1, std::process::id()));
    let mut dut = make_dut();
    dut.set(reset);
    dut.tick();
    let start = n.saturating_sub(window);
    for (c, i) in log.iter().enumerate() {
        if c as u64 == start {
            dut.trace_open(&path)?;
        }
        dut.set(i);
        dut.get();
        dut.tick();
    }
    dut.trace_close();
    Ok(path)
}

/// The sequencer's bench figures (`sanswitch bench`): a 1 MiB transfer in each mode through
/// an ideal SAN port model, measured on the Verilated sequencer (default parameters, as
/// `build.rs` builds it) and cross-checked cycle for cycle against the cycle model, which
/// must give the same figures.
pub fn sequencer_bench() -> Result<sanswitch_model::blocks::seq_stimulus::SequencerFigures, String>
{
    use sanswitch_model::blocks::seq_stimulus::{measure, model_figures};
    let p = sanswitch_model::params::SequencerParams::default();
    let mut dut = VSequencer::new();
    let mut step = |i: &sanswitch_model::blocks::sequencer::SequencerIn| {
        dut.set(i);
        let o = dut.get();
        dut.tick();
        (o, dut.get()) // every output is registered: the next cycle's, known after the edge
    };
    let hw = measure(&mut step, &p)?;
    let sw = model_figures(&p)?;
    if hw != sw {
        return Err(format!("Verilog and model disagree: {hw:?} vs {sw:?}"));
    }
    Ok(hw)
}
