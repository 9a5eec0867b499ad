//! `sanswitch simulate --backend model|rtl|lockstep`: the workload through two engines over
//! the cycle-level SAN (`sanswitch_model::engine_pair`), checked by the same workload checker
//! as the sans-IO run, plus cycles and throughput at the engines' clock.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;

use serde::Serialize;

use sanswitch_model::blocks::engine::{EngineIn, EngineModel, EngineOut};
use sanswitch_model::engine_pair::{EnginePair, PairConfig};
use sanswitch_model::params::EngineParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_model::workload::{Summary, Workload, run_on};
use sanswitch_sim::{Checked, Rtl, VEngine, VEngineWrite};

use crate::cli::{Backend, SimulateArgs};
use crate::error::Error;

/// Bytes a SAN beat carries: the engine's streams are 64 bits wide.
const BEAT_BYTES: f64 = 8.0;

/// What the engines did, beside the workload's summary.
#[derive(Clone, Debug, Serialize)]
pub struct EngineRun {
    pub backend: &'static str,
    pub params: EngineParams,
    /// Whether each engine's provider can RDMA-read (node 0, node 1): the zero-copy mode of
    /// each direction is the receiver's.
    pub rdma_read: [bool; 2],
    pub clock_mhz: f64,
    /// SAN latency in cycles (from `--latency-ns` at the clock).
    pub san_latency_cycles: u64,
    pub stall: f64,
    /// Clock cycles from the first command to the last completion (both engines step
    /// together).
    pub cycles: u64,
    /// Beats each engine sent on the SAN (node 0, node 1).
    pub san_beats: [u64; 2],
    /// Payload bytes the applications received, both directions, per cycle and in Gbit/s
    /// at the clock.
    pub received_bytes: u64,
    pub bytes_per_cycle: f64,
    pub gbps: f64,
    /// Host memory port traffic per engine: read requests (send data) and write beats
    /// (received data).
    pub host_reads: [u64; 2],
    pub host_writes: [u64; 2],
    /// RDMA requests each engine issued, and the bytes moved into each node's memory by them.
    pub rdma_requests: [u64; 2],
    pub rdma_bytes: [u64; 2],
    /// Where the workload was fitted to the engine (what the engine does not do yet, or
    /// its limits).
    pub notes: Vec<String>,
}

/// The engines' parameters and the pair's configuration, with the workload fitted to them.
pub struct Setup {
    /// Node 0's; node 1's differ only in `rdma_read`.
    pub params: EngineParams,
    pub rdma_read: [bool; 2],
    pub pair: PairConfig,
    pub notes: Vec<String>,
}

/// Fit `w` to the engines: the buffers come from the engine's parameters (flags given
/// explicitly override them, for the cycle model only: the Verilated engines are built at
/// their defaults), the zero-copy threshold is the workload's on the cycle model and the
/// engines' own (`DEFAULT_RDMA_THRESHOLD`) on the Verilog, each node's read capability is
/// the workload's (the Verilated `engine` or `engine_write`), and no application keeps more
/// requests queued than the engine holds.
pub fn setup(args: &SimulateArgs, w: &mut Workload) -> Result<Setup, Error> {
    let mut p = EngineParams::default();
    let mut explicit = Vec::new();
    if let Some(v) = args.send_bufs {
        p.send_bufs = u8::try_from(v).map_err(|_| bad("--send-bufs", v))?;
        explicit.push("--send-bufs");
    }
    if let Some(v) = args.recv_bufs {
        p.recv_bufs = u8::try_from(v).map_err(|_| bad("--recv-bufs", v))?;
        explicit.push("--recv-bufs");
    }
    if let Some(v) = args.buf_size {
        p.buf_size = v;
        explicit.push("--buf-size");
    }
    if args.backend != Backend::Model && p != EngineParams::default() {
        let d = EngineParams::default();
        return Err(Error::InvalidParams(format!(
            "the Verilated engine is built with {} send and {} receive buffers of {} B per \
             connection; {} cannot change that (--backend model runs other sizes)",
            d.send_bufs,
            d.recv_bufs,
            d.buf_size,
            explicit.join(", ")
        )));
    }
    p.validate().map_err(|e| Error::InvalidParams(format!("engine: {e}")))?;
    if w.connections > p.connections as usize {
        return Err(Error::InvalidWorkload(vec![format!(
            "connections (--connections) must be at most {} for the engine backends",
            p.connections
        )]));
    }
    if !(args.clock_mhz.is_finite() && args.clock_mhz > 0.0 && args.clock_mhz <= 1000.0) {
        return Err(Error::InvalidParams(format!(
            "--clock-mhz must be in (0, 1000], got {}",
            args.clock_mhz
        )));
    }
    if !(0.0..=0.95).contains(&args.stall) {
        return Err(Error::InvalidParams(format!(
            "--stall must be in [0, 0.95], got {}",
            args.stall
        )));
    }

    let mut notes = Vec::new();
    let e = &mut w.endpoint;
    if (e.send_bufs, e.recv_bufs, e.buf_size)
        != (p.send_bufs as u16, p.recv_bufs as u16, p.buf_size)
    {
        notes.push(format!(
            "control buffers are the engine's: {} send + {} receive x {} B (the workload's \
             endpoint had {} + {} x {} B)",
            p.send_bufs, p.recv_bufs, p.buf_size, e.send_bufs, e.recv_bufs, e.buf_size
        ));
        e.send_bufs = p.send_bufs as u16;
        e.recv_bufs = p.recv_bufs as u16;
        e.buf_size = p.buf_size;
    }
    let mut rdma_read = [p.rdma_read; 2];
    if args.backend == Backend::Model {
        p.rdma_threshold = e.rdma_threshold;
    } else if e.rdma_threshold != p.rdma_threshold {
        notes.push(format!(
            "the zero-copy threshold is the Verilated engine's: sends above {} B (the \
             workload's threshold was {} B; --backend model runs others)",
            p.rdma_threshold, e.rdma_threshold
        ));
        e.rdma_threshold = p.rdma_threshold;
    }
    if p.zero_copy() {
        for (n, r) in w.rdma_read.iter_mut().enumerate() {
            if r.is_none() {
                notes.push(format!(
                    "node {n} can RDMA-read on every connection (an engine's capability is \
                     its provider's, not a connection's)"
                ));
            }
            rdma_read[n] = r.unwrap_or(true);
            *r = Some(rdma_read[n]);
        }
    }
    let f = &w.fabric.faults;
    // A registration fails with either fault: the engines' fault_nomem input, high in a
    // cycle with that probability (each registration is asked for in one cycle).
    let reg_faults = 1.0 - (1.0 - f.reg_fail_rate) * (1.0 - f.nomem_rate);
    if reg_faults > 0.0 && p.zero_copy() {
        notes.push(format!(
            "registration and memory faults reach the engines through fault_nomem: a \
             registration fails with probability {reg_faults:.4} (besides a full table)"
        ));
    }
    if f.rdma_error_rate > 0.0 && !p.zero_copy() {
        notes.push("RDMA faults have nothing to hit on the copy path".into());
    }
    let depth = p.queue_depth as usize;
    if w.sends_outstanding > depth || w.recvs_outstanding > depth - 1 {
        notes.push(format!(
            "requests outstanding per application: {} sends and {} receives (the engine \
             queues {depth} of each per connection; the workload asked {} and {})",
            w.sends_outstanding.min(depth),
            w.recvs_outstanding.min(depth - 1),
            w.sends_outstanding,
            w.recvs_outstanding
        ));
        w.sends_outstanding = w.sends_outstanding.min(depth);
        w.recvs_outstanding = w.recvs_outstanding.min(depth - 1).max(1);
    }
    let san_latency =
        ((w.fabric.latency_ns as f64 * args.clock_mhz / 1000.0).ceil() as u64).clamp(1, 1_000_000);
    notes.push(format!(
        "the cycle-level SAN carries one {BEAT_BYTES}-byte beat per cycle and direction \
         ({:.1} Gbit/s at {} MHz; --link-gbps is the sans-IO fabric's)",
        BEAT_BYTES * 8.0 * args.clock_mhz / 1000.0,
        args.clock_mhz
    ));
    let pair = PairConfig {
        params: p,
        san_latency,
        stall: args.stall,
        clock_mhz: args.clock_mhz,
        seed: w.seed,
        abort: w.fabric.faults.abort,
        rdma_errors: if p.zero_copy() { w.fabric.faults.rdma_error_rate } else { 0.0 },
        nomem: if p.zero_copy() { reg_faults } else { 0.0 },
        ..PairConfig::default()
    };
    p.validate().map_err(|e| Error::InvalidParams(format!("engine: {e}")))?;
    Ok(Setup { params: p, rdma_read, pair, notes })
}

fn bad(flag: &str, v: u16) -> Error {
    Error::InvalidParams(format!("{flag} {v} is more than an engine holds (255)"))
}

/// Run `w` on the backend `args` names (an engine backend).
pub fn run(
    args: &SimulateArgs,
    w: &Workload,
    setup: Setup,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(Summary, EngineRun), Error> {
    let Setup { params, rdma_read, pair: cfg, notes } = setup;
    let make = |backend| EngineRun {
        backend,
        params,
        rdma_read,
        clock_mhz: cfg.clock_mhz,
        san_latency_cycles: cfg.san_latency,
        stall: cfg.stall,
        cycles: 0,
        san_beats: [0; 2],
        received_bytes: 0,
        bytes_per_cycle: 0.0,
        gbps: 0.0,
        host_reads: [0; 2],
        host_writes: [0; 2],
        rdma_requests: [0; 2],
        rdma_bytes: [0; 2],
        notes: notes.clone(),
    };
    let (s, mut r) = match args.backend {
        Backend::SansIo => unreachable!("the sans-IO backend does not run here"),
        Backend::Model => {
            let node =
                |n: usize| EngineModel::new(EngineParams { rdma_read: rdma_read[n], ..params });
            let mut pair = EnginePair::new(cfg.clone(), [node(0), node(1)]);
            pair.rdma_read = rdma_read;
            drive(w, &mut pair, progress, make("model"))
        }
        Backend::Rtl => {
            let node = |n: usize| {
                if rdma_read[n] {
                    Either::A(Rtl::new(VEngine::new()))
                } else {
                    Either::B(Rtl::new(VEngineWrite::new()))
                }
            };
            let mut pair = EnginePair::new(cfg.clone(), [node(0), node(1)]);
            pair.rdma_read = rdma_read;
            drive(w, &mut pair, progress, make("rtl"))
        }
        Backend::Lockstep => {
            let node = |n: usize| {
                let m = EngineModel::new(EngineParams { rdma_read: rdma_read[n], ..params });
                if rdma_read[n] {
                    Either::A(Checked::new(m, Rc::new(VEngine::new)))
                } else {
                    Either::B(Checked::new(m, Rc::new(VEngineWrite::new)))
                }
            };
            let mut pair = EnginePair::new(cfg.clone(), [node(0), node(1)]);
            pair.rdma_read = rdma_read;
            catch_unwind(AssertUnwindSafe(|| drive(w, &mut pair, progress, make("lockstep"))))
                .map_err(|e| {
                    let msg = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "the lockstep stopped".into());
                    Error::Check(format!("the Verilog and the model disagree: {msg}"))
                })?
        }
    };
    r.received_bytes = s.directions.iter().map(|d| d.bytes_received).sum();
    if r.cycles > 0 {
        r.bytes_per_cycle = r.received_bytes as f64 / r.cycles as f64;
        r.gbps = r.bytes_per_cycle * 8.0 * r.clock_mhz / 1000.0;
    }
    Ok((s, r))
}

fn drive<E: CycleModel<In = EngineIn, Out = EngineOut>>(
    w: &Workload,
    pair: &mut EnginePair<E>,
    progress: &mut dyn FnMut(u64, u64),
    mut r: EngineRun,
) -> (Summary, EngineRun) {
    let s = run_on(w, pair, progress, &mut |_, _, _| {});
    r.cycles = pair.cycle;
    r.san_beats = pair.san_beats;
    r.rdma_requests = pair.fabric.rdma_requests;
    r.rdma_bytes = pair.fabric.rdma_bytes;
    for n in 0..2 {
        r.host_reads[n] = pair.host_memory(n).reads;
        r.host_writes[n] = pair.host_memory(n).writes;
    }
    (s, r)
}

/// One of two engines of the same ports: the Verilated engines with and without RDMA read
/// are two modules (two types), and the nodes of a pair may differ.
enum Either<A, B> {
    A(A),
    B(B),
}

impl<A, B> CycleModel for Either<A, B>
where
    A: CycleModel<In = EngineIn, Out = EngineOut>,
    B: CycleModel<In = EngineIn, Out = EngineOut>,
{
    type In = EngineIn;
    type Out = EngineOut;
    fn outputs(&self, i: &EngineIn) -> EngineOut {
        match self {
            Either::A(a) => a.outputs(i),
            Either::B(b) => b.outputs(i),
        }
    }
    fn clock(&mut self, i: &EngineIn) {
        match self {
            Either::A(a) => a.clock(i),
            Either::B(b) => b.clock(i),
        }
    }
}
