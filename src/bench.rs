//! `sanswitch bench`: the parser's figures, measured in one run.
//!
//! - Throughput and latency of the Verilated parser (`sanswitch_sim::VParser`), driven cycle
//!   by cycle; the same stimulus through the cycle model (`ParserModel`) must give the same
//!   figures, or the command fails.
//! - Area and depth from Yosys's `synth_xilinx` (null without Yosys).
//! - Wall-clock speed of the Verilator, model and rust-hdl simulations (printed only).
//!
//! The Verilated parser is built with the default parameters (`sim/build.rs`), so every
//! figure here is for `ParserParams::default()`.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use sanswitch_hdl::parser::ControlParser;
use sanswitch_hdl::synth::{SynthStats, synth_xilinx, yosys_available};
use sanswitch_hdl::{BlockName, EngineParams, rhsim, verilog};
use sanswitch_model::blocks::parser::{COUNTERS, ParserIn, ParserModel, ParserOut, code, user};
use sanswitch_model::blocks::parser_stimulus::{MessageGen, ParserDriver, beats};
use sanswitch_model::params::ParserParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_model::wire::{Frame, Header, Message};
use sanswitch_sim::{Dut, VParser};
use serde_json::{Value, json};

use crate::cli::BenchArgs;
use crate::error::Error;
use crate::simulate::n;

/// Messages of the throughput run.
pub const MESSAGES: usize = 20_000;
/// Cycles of the rust-hdl run (it simulates some thousands of cycles per second).
pub const RUST_HDL_CYCLES: u64 = 3_000;
const SEED: u64 = 2026;
/// A measurement that sees nothing within this many idle cycles has failed.
const TIMEOUT: u64 = 10_000;

/// A parser simulated cycle by cycle.
pub trait Step {
    /// The outputs during a cycle with inputs `i`, then the clock edge that ends it.
    fn step(&mut self, i: &ParserIn) -> ParserOut;

    /// One cycle with `reset` high.
    fn reset(&mut self) {
        self.step(&ParserIn { reset: true, ..ParserIn::default() });
    }
}

/// The Verilated parser, through the `Dut` trait.
pub struct Verilated(pub VParser);

impl Step for Verilated {
    fn step(&mut self, i: &ParserIn) -> ParserOut {
        self.0.set(i);
        let o = self.0.get();
        self.0.tick();
        o
    }
}

/// The cycle model.
pub struct Modelled(pub ParserModel);

impl Step for Modelled {
    fn step(&mut self, i: &ParserIn) -> ParserOut {
        let o = self.0.outputs(i);
        self.0.clock(i);
        o
    }
}

/// Back-to-back valid messages with both outputs always ready.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Throughput {
    pub messages: u64,
    /// Beats accepted.
    pub beats: u64,
    /// Cycles from the one that accepted the first beat to the one that accepted the last,
    /// both included.
    pub cycles: u64,
    /// Header records seen (`hdr_valid` with `hdr_ready` high: one per cycle).
    pub headers: u64,
    /// Good messages counted by the parser (`cnt_good`) after the run.
    pub good: u32,
    /// Malformed ones (the sum of its error counters): the generator's messages at a length
    /// boundary are one byte too long for the buffer.
    pub errors: u32,
    /// Latency (last beat accepted to header record visible) over every message of the run.
    pub latency_min: u64,
    pub latency_max: u64,
}

impl Throughput {
    /// Beats per cycle: exactly 1.0 when the parser never stalled its input.
    pub fn beats_per_cycle(&self) -> f64 {
        if self.cycles == 0 { 0.0 } else { self.beats as f64 / self.cycles as f64 }
    }
}

/// Everything measured on one parser, to compare the Verilog's with the model's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Figures {
    pub throughput: Throughput,
    /// Cycles from the cycle a CreditUpdate's last beat is accepted to the first cycle its
    /// header record is visible.
    pub latency: u64,
    /// Cycles from the cycle a Data message's first beat is accepted to the first cycle a
    /// payload beat is visible.
    pub data_latency: u64,
}

/// Drive `messages` valid messages of mixed sizes back to back (`in_valid` high whenever a
/// beat is left, both `ready`s always high) and count.
pub fn throughput(
    dut: &mut impl Step,
    p: &ParserParams,
    seed: u64,
    messages: usize,
) -> Result<Throughput, String> {
    dut.reset();
    let mut generator = MessageGen::new(seed, p.buf_size, 0.0);
    let mut t = Throughput { latency_min: u64::MAX, ..Throughput::default() };
    let mut current = beats(&generator.next_message());
    let mut pos = 0;
    let mut sent = 1;
    let mut conn = 0u8;
    let (mut first, mut last) = (None, 0);
    // Cycles whose last beat was accepted, waiting for their header record.
    let mut pending: VecDeque<u64> = VecDeque::new();
    let mut idle = 0;
    let mut cycle = 0u64;
    let mut o;
    loop {
        let have = pos < current.len();
        let (data, is_last, keep) = if have { current[pos] } else { (0, false, 0) };
        let i = ParserIn {
            s_axis_rx_tvalid: have,
            s_axis_rx_tdata: data,
            s_axis_rx_tlast: have && is_last,
            s_axis_rx_tkeep: keep,
            s_axis_rx_tuser: user::pack(conn, 0),
            m_axis_hdr_tready: true,
            m_axis_pay_tready: true,
            ..ParserIn::default()
        };
        o = dut.step(&i);
        if o.m_axis_hdr_tvalid {
            t.headers += 1;
            let Some(at) = pending.pop_front() else {
                return Err(format!("cycle {cycle}: a header record with no message ended"));
            };
            let lat = cycle - at;
            t.latency_min = t.latency_min.min(lat);
            t.latency_max = t.latency_max.max(lat);
        }
        if i.s_axis_rx_tvalid && o.s_axis_rx_tready {
            t.beats += 1;
            first.get_or_insert(cycle);
            last = cycle;
            pos += 1;
            if is_last {
                pending.push_back(cycle);
                t.messages += 1;
                if sent < messages {
                    current = beats(&generator.next_message());
                    pos = 0;
                    sent += 1;
                    conn = ((conn as u32 + 1) % p.connections as u32) as u8;
                }
            }
        }
        let done = t.messages == messages as u64 && pending.is_empty();
        if done {
            break;
        }
        idle = if i.s_axis_rx_tvalid && o.s_axis_rx_tready || o.m_axis_hdr_tvalid {
            0
        } else {
            idle + 1
        };
        if idle > TIMEOUT {
            return Err(format!(
                "stuck at cycle {cycle}: {} messages in, {} header records out",
                t.messages, t.headers
            ));
        }
        cycle += 1;
    }
    t.cycles = first.map_or(0, |f| last - f + 1);
    let _ = o;
    let counters = read_counters(dut);
    t.good = counters[code::GOOD as usize];
    t.errors = counters[1..].iter().sum();
    Ok(t)
}

/// Every counter of the parser's bank, read through its port (one idle cycle each, the value
/// a cycle after its index).
pub fn read_counters(dut: &mut impl Step) -> [u32; COUNTERS] {
    let mut out = [0; COUNTERS];
    for k in 0..=COUNTERS {
        let i = ParserIn { cnt_rd_index: k as u8, ..ParserIn::default() };
        let o = dut.step(&i);
        if k > 0 {
            out[k - 1] = o.cnt_rd_data;
        }
    }
    out
}

/// Send one message after a few idle cycles; return the cycle each beat was accepted in,
/// and keep stepping (idle) until `seen(o)`; return that cycle too.
fn one_message(
    dut: &mut impl Step,
    bytes: &[u8],
    seen: impl Fn(&ParserOut) -> bool,
) -> Result<(Vec<u64>, u64), String> {
    dut.reset();
    let idle = ParserIn { m_axis_hdr_tready: true, m_axis_pay_tready: true, ..ParserIn::default() };
    for _ in 0..4 {
        dut.step(&idle);
    }
    let b = beats(bytes);
    let mut accepted = Vec::new();
    let mut seen_at = None;
    let mut cycle = 0;
    while seen_at.is_none() || accepted.len() < b.len() {
        let i = match b.get(accepted.len()) {
            Some(&(data, last, lb)) => ParserIn {
                s_axis_rx_tvalid: true,
                s_axis_rx_tdata: data,
                s_axis_rx_tlast: last,
                s_axis_rx_tkeep: lb,
                ..idle
            },
            None => idle,
        };
        let o = dut.step(&i);
        if seen_at.is_none() && seen(&o) {
            seen_at = Some(cycle);
        }
        if i.s_axis_rx_tvalid && o.s_axis_rx_tready {
            accepted.push(cycle);
        }
        cycle += 1;
        if cycle > TIMEOUT {
            return Err(format!(
                "{} of {} beats accepted, output {} after {TIMEOUT} cycles",
                accepted.len(),
                b.len(),
                if seen_at.is_some() { "seen" } else { "never seen" }
            ));
        }
    }
    Ok((accepted, seen_at.unwrap_or_default()))
}

/// A 2-beat CreditUpdate: last beat accepted to header record visible.
pub fn control_latency(dut: &mut impl Step) -> Result<u64, String> {
    let header = Header { bufs: 8, mseq: 41, mseq_ack: 40 };
    let bytes = Frame { header, msg: Message::CreditUpdate }.encode();
    let (accepted, seen) = one_message(dut, &bytes, |o| o.m_axis_hdr_tvalid)?;
    let last = *accepted.last().ok_or("no beat accepted")?;
    seen.checked_sub(last)
        .ok_or_else(|| format!("header record at cycle {seen}, before the last beat at {last}"))
}

/// A Data message with 64 payload bytes: first beat accepted to first payload beat visible.
pub fn data_latency(dut: &mut impl Step) -> Result<u64, String> {
    let header = Header { bufs: 8, mseq: 42, mseq_ack: 40 };
    let payload = (0..64u8).collect();
    let bytes = Frame { header, msg: Message::Data { urgent: false, payload } }.encode();
    let (accepted, seen) = one_message(dut, &bytes, |o| o.m_axis_pay_tvalid)?;
    let first = accepted[0];
    seen.checked_sub(first)
        .ok_or_else(|| format!("payload at cycle {seen}, before the first beat at {first}"))
}

pub fn figures(dut: &mut impl Step, p: &ParserParams) -> Result<Figures, String> {
    Ok(Figures {
        throughput: throughput(dut, p, SEED, MESSAGES)?,
        latency: control_latency(dut)?,
        data_latency: data_latency(dut)?,
    })
}

/// Cycles per second of `cycles` cycles of the random stimulus (30% malformed, random gaps
/// and backpressure) on `dut`.
fn speed(dut: &mut impl Step, p: &ParserParams, cycles: u64) -> f64 {
    dut.reset();
    let mut drv = ParserDriver::new(SEED, p.buf_size, p.connections, 0.3);
    drv.record = false;
    let start = Instant::now();
    let mut good = 0;
    for _ in 0..cycles {
        let i = drv.inputs();
        let o = dut.step(&i);
        drv.advance(i.s_axis_rx_tvalid && o.s_axis_rx_tready);
        good = o.cnt_rd_data;
    }
    std::hint::black_box(good);
    cycles as f64 / start.elapsed().as_secs_f64()
}

pub fn run(args: &BenchArgs) -> Result<ExitCode, Error> {
    let p = ParserParams::default();

    let hw = figures(&mut Verilated(VParser::new()), &p)
        .map_err(|e| Error::Check(format!("Verilated parser: {e}")))?;
    let sw = figures(&mut Modelled(ParserModel::new(p)), &p)
        .map_err(|e| Error::Check(format!("parser model: {e}")))?;
    if hw != sw {
        return Err(Error::Check(format!(
            "the Verilated parser and its model disagree:\n  verilog {hw:?}\n  model   {sw:?}"
        )));
    }
    let t = &hw.throughput;
    if t.headers != t.messages || (t.good + t.errors) as u64 != t.messages {
        return Err(Error::Check(format!(
            "header records or counters do not match messages: {t:?}"
        )));
    }

    let synth = if yosys_available() {
        let dir = std::env::temp_dir().join(format!("sanswitch-bench-{}", std::process::id()));
        let v = verilog(BlockName::Parser, &EngineParams { parser: p, ..EngineParams::default() });
        let s = synth_xilinx(&dir, "parser", &v);
        let _ = std::fs::remove_dir_all(&dir);
        match s {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("warning: yosys synth_xilinx failed, no area figures: {e}");
                None
            }
        }
    } else {
        None
    };

    let verilator = speed(&mut Verilated(VParser::new()), &p, args.cycles);
    let model = speed(&mut Modelled(ParserModel::new(p)), &p, args.cycles);
    let rh_cycles = RUST_HDL_CYCLES.min(args.cycles);
    let start = Instant::now();
    let mut drv = ParserDriver::new(SEED, p.buf_size, p.connections, 0.3);
    drv.record = false;
    rhsim::lockstep(ControlParser::new(&p), ParserModel::new(p), drv, rh_cycles)
        .map_err(|e| Error::Check(format!("rust-hdl simulation disagrees with the model: {e}")))?;
    let rust_hdl = rh_cycles as f64 / start.elapsed().as_secs_f64();

    let blocks = crate::bench_blocks::figures().map_err(Error::Check)?;
    let engine = crate::bench_engine::figures().map_err(Error::Check)?;
    let host = crate::bench_host::figures().map_err(Error::Check)?;
    let board = crate::bench_board::figures().map_err(Error::Check)?;
    let b = Bench {
        blocks,
        engine,
        host,
        board,
        params: p,
        figures: hw,
        synth,
        speed_cycles: args.cycles,
        verilator,
        model,
        rust_hdl_cycles: rh_cycles,
        rust_hdl,
    };
    let out = if args.json {
        let mut s = serde_json::to_string_pretty(&b.json())?;
        s.push('\n');
        s
    } else {
        b.text()
    };
    if let Err(e) = std::io::stdout().lock().write_all(out.as_bytes()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(Error::Output(e));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One run's results.
pub struct Bench {
    /// The pool manager's and the sequencer's figures (flat keys).
    pub blocks: serde_json::Map<String, Value>,
    /// The engine's figures (flat `engine.*` keys).
    pub engine: serde_json::Map<String, Value>,
    /// The host interface's and the driver's (flat `host.*` keys).
    pub host: serde_json::Map<String, Value>,
    /// The FrontPanel bridge core's (flat `board.*` keys).
    pub board: serde_json::Map<String, Value>,
    pub params: ParserParams,
    pub figures: Figures,
    pub synth: Option<SynthStats>,
    pub speed_cycles: u64,
    pub verilator: f64,
    pub model: f64,
    pub rust_hdl_cycles: u64,
    pub rust_hdl: f64,
}

impl Bench {
    /// One flat object.
    pub fn json(&self) -> Value {
        let t = &self.figures.throughput;
        let s = self.synth.as_ref();
        let mut v = json!({
            "parser.connections": self.params.connections,
            "parser.buf_size": self.params.buf_size,
            "parser.messages": t.messages,
            "parser.beats": t.beats,
            "parser.cycles": t.cycles,
            "parser.beats_per_cycle": t.beats_per_cycle(),
            "parser.latency_cycles": self.figures.latency,
            "parser.data_latency_cycles": self.figures.data_latency,
            "parser.latency_max_in_stream_cycles": t.latency_max,
            "parser.model_agrees": true,
            "parser.luts": s.map(|s| s.luts),
            "parser.ffs": s.map(|s| s.ffs),
            "parser.carry4": s.map(|s| s.carry4),
            "parser.lut_levels": s.map(|s| s.lut_levels),
            "parser.logic_levels": s.map(|s| s.logic_levels),
            "sim.cycles": self.speed_cycles,
            "sim.verilator_cycles_per_s": self.verilator,
            "sim.model_cycles_per_s": self.model,
            "sim.rust_hdl_cycles": self.rust_hdl_cycles,
            "sim.rust_hdl_cycles_per_s": self.rust_hdl,
            "sim.verilator_over_rust_hdl": self.verilator / self.rust_hdl,
            "sim.model_over_verilator": self.model / self.verilator,
        });
        if let Value::Object(m) = &mut v {
            m.insert("parser.lutram".into(), json!(s.map(|s| s.lutram)));
            m.extend(self.blocks.clone());
            m.extend(self.totals());
            m.extend(self.engine.clone());
            m.extend(self.host.clone());
            m.extend(self.board.clone());
        }
        v
    }

    /// The three blocks' area added up (`blocks.luts`, `blocks.lutram`, `blocks.ffs`), or
    /// null when a block has no figure (no Yosys).
    pub fn totals(&self) -> serde_json::Map<String, Value> {
        let s = self.synth.as_ref();
        let parser = [s.map(|s| s.luts), s.map(|s| s.lutram), s.map(|s| s.ffs)];
        let mut m = serde_json::Map::new();
        for (i, key) in ["luts", "lutram", "ffs"].into_iter().enumerate() {
            let sum = ["pool", "sequencer"].iter().fold(parser[i], |acc, b| {
                Some(acc? + self.blocks.get(&format!("{b}.{key}"))?.as_u64()?)
            });
            m.insert(format!("blocks.{key}"), json!(sum));
        }
        m
    }

    pub fn text(&self) -> String {
        let t = &self.figures.throughput;
        let f = &self.figures;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "parser ({} connections, {} B buffers): the Verilated parser and its model agree \
             on every figure",
            self.params.connections, self.params.buf_size
        );
        let _ = writeln!(
            o,
            "  throughput      {:?} beats/cycle ({} beats of {} valid messages back to back \
             in {} cycles)",
            t.beats_per_cycle(),
            n(t.beats),
            n(t.messages),
            n(t.cycles)
        );
        let _ = writeln!(
            o,
            "  header latency  {} cycle(s), CreditUpdate's last beat in to its header record \
             out (max {} over those messages)",
            f.latency, t.latency_max
        );
        let _ = writeln!(
            o,
            "  data latency    {} cycle(s), Data message's first beat in to its first payload \
             beat out",
            f.data_latency
        );
        match &self.synth {
            Some(s) => {
                let _ = writeln!(
                    o,
                    "  area            {} LUTs, {} FFs, {} CARRY4 (yosys synth_xilinx, xc7)",
                    n(s.luts),
                    n(s.ffs),
                    s.carry4
                );
                let _ = writeln!(
                    o,
                    "  depth           {} LUT levels, {} logic levels",
                    s.lut_levels, s.logic_levels
                );
            }
            None => {
                let _ = writeln!(o, "  area, depth     no figures (yosys not installed or failed)");
            }
        }
        let _ = writeln!(o, "simulation speed (random stimulus, wall clock):");
        let _ = writeln!(
            o,
            "  Verilator  {:>12} cycles/s ({} cycles)",
            n(self.verilator as u64),
            n(self.speed_cycles)
        );
        let _ = writeln!(
            o,
            "  model      {:>12} cycles/s ({} cycles)",
            n(self.model as u64),
            n(self.speed_cycles)
        );
        let _ = writeln!(
            o,
            "  rust-hdl   {:>12} cycles/s ({} cycles, beside the model)",
            n(self.rust_hdl as u64),
            n(self.rust_hdl_cycles)
        );
        let _ = writeln!(
            o,
            "  Verilator is {:.0}x rust-hdl; the model is {:.1}x Verilator",
            self.verilator / self.rust_hdl,
            self.model / self.verilator
        );
        let _ = writeln!(o, "pool manager and sequencer:");
        for (k, v) in &self.blocks {
            let _ = writeln!(o, "  {k:<40} {v}");
        }
        let _ = writeln!(o, "the three blocks together (yosys synth_xilinx, xc7):");
        for (k, v) in self.totals() {
            let _ = writeln!(o, "  {k:<40} {v}");
        }
        let _ = writeln!(
            o,
            "the engine (two engines over the cycle-level SAN, one 8-byte beat per cycle and \
             direction; first send command offered to last completion out, ok completions \
             only; model and Verilog give the same cycles):"
        );
        for (k, v) in &self.engine {
            let _ = writeln!(o, "  {k:<44} {v}");
        }
        o.push_str(&crate::bench_host::text(&self.host));
        o.push_str(&crate::bench_board::text(&self.board));
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_figures_are_plausible() {
        let p = ParserParams::default();
        let mut m = Modelled(ParserModel::new(p));
        let t = throughput(&mut m, &p, 1, 300).unwrap();
        assert_eq!(t.messages, 300);
        assert_eq!(t.headers, 300);
        assert!(t.beats >= 600, "{t:?}");
        assert!(t.latency_min <= t.latency_max);
        assert!(control_latency(&mut m).unwrap() >= 1);
        assert!(data_latency(&mut m).unwrap() >= 1);
    }
}
