//! Command-line arguments (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use sanswitch_model::fabric::AbortAt;

/// Hardware offload of the Windows Sockets Direct session protocol.
#[derive(Debug, Parser)]
#[command(name = "sanswitch", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per run: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a seeded workload between two switches and check that every byte arrived exactly
    /// once, in order, and every request completed: the sans-IO protocol model over the
    /// simulated SAN, or (--backend model|rtl|lockstep) two hardware engines over a
    /// cycle-level SAN, with cycles and throughput at --clock-mhz.
    ///
    /// The workload comes from flags, from a TOML scenario file (--scenario), or both: flags
    /// given explicitly override the file. Exit status: 0 intact, 1 not intact, 2 bad input.
    Simulate(SimulateArgs),

    /// Write the Verilog of every hardware block, with the Verilator lint waivers, lint it
    /// (verilator -Wall), check it with Yosys, measure its area and depth (Yosys
    /// synth_xilinx, when installed) and write report.json and report.md beside it.
    ///
    /// Exit status: 0 when every file lints and validates, 1 when one does not, 2 bad input.
    Generate(GenerateArgs),

    /// Measure every block and the engine: throughput and latency of the Verilated Verilog
    /// (cross-checked against the cycle model, cycle for cycle; the engine's zero-copy figures
    /// are the cycle model's), area and depth (Yosys), and the speed of the Verilator, model,
    /// lockstep and rust-hdl simulations.
    ///
    /// Exit status: 0, or 1 when the Verilog and the model disagree on a figure.
    Bench(BenchArgs),

    /// Move random streams both ways on several connections through the host driver's
    /// socket API, between two NICs (host interface + engine) over the cycle-level SAN:
    /// --transport model runs their cycle models, sim their Verilated Verilog. Every byte
    /// is checked where it arrives; prints throughput in bytes per cycle and Gbit/s at
    /// --clock-mhz, commands per doorbell and completions per poll.
    ///
    /// Exit status: 0 intact, 1 a byte lost, changed or late, 2 bad input.
    Loopback(LoopbackArgs),

    /// Run the host driver's loopback on the Opal Kelly XEM7010 board: two NICs on the FPGA,
    /// reached over USB through FrontPanel's block pipes and the bridge protocol
    /// (docs/BOARD.md). Loads Opal Kelly's FrontPanel library at run time
    /// (SANSWITCH_FRONTPANEL_LIB, else libokFrontPanel.so on the loader's path), opens the
    /// board (--serial, else the first), configures it with --bitfile, and moves random
    /// streams both ways, every byte checked, with a progress bar; prints throughput (wall
    /// clock) and bridge transactions. --emulate runs the same through the bridge protocol's
    /// reference behaviour over two NIC cycle models instead of a board.
    ///
    /// Exit status: 0 intact, 1 a failed check or no board/library (the message says which
    /// is missing and how to install it), 2 bad input.
    Board(BoardArgs),
}

/// Which NICs the driver talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TransportKind {
    /// The NIC's cycle model (fast).
    Model,
    /// The NIC's Verilog, Verilated.
    Sim,
}

#[derive(Debug, Args)]
pub struct LoopbackArgs {
    #[arg(long, value_enum, default_value = "model")]
    pub transport: TransportKind,
    /// Bytes per direction per connection.
    #[arg(long, default_value_t = 1 << 20, value_parser = whole::<u64>)]
    pub bytes: u64,
    /// Connections (1..=16).
    #[arg(long, default_value_t = 4, value_parser = whole::<u16>)]
    pub connections: u16,
    /// Largest single write, bytes (1..=1048576).
    #[arg(long, default_value_t = 1 << 20, value_parser = whole::<usize>)]
    pub max_write: usize,
    /// Connections node 0 aborts half way (the first ones).
    #[arg(long, default_value_t = 0, value_parser = whole::<u16>)]
    pub aborts: u16,
    /// Queue pairs each node uses, an endpoint on each (1 to the NIC's queue pairs):
    /// connection c goes on queue pair c mod N.
    #[arg(long, default_value_t = 1, value_parser = whole::<usize>)]
    pub queue_pairs: usize,
    /// Probability that a write is accompanied by urgent bytes.
    #[arg(long, default_value_t = 0.02)]
    pub urgent: f64,
    /// Random backpressure on every host-memory and SAN ready (0 to 0.9).
    #[arg(long, default_value_t = 0.0)]
    pub stall: f64,
    /// The peer cannot RDMA-read: large sends go by RDMA write.
    #[arg(long)]
    pub no_rdma_read: bool,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Clock frequency for Gbit/s, MHz.
    #[arg(long, default_value_t = 125.0)]
    pub clock_mhz: f64,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct BoardArgs {
    /// The bitstream to configure the board with (fpga/xem7010/build.tcl makes it).
    #[arg(long, required_unless_present = "emulate")]
    pub bitfile: Option<std::path::PathBuf>,
    /// The board's serial number (the first board found when not given).
    #[arg(long)]
    pub serial: Option<String>,
    /// No board: the bridge protocol's reference behaviour over two NIC cycle models.
    #[arg(long)]
    pub emulate: bool,
    /// Bytes per direction per connection.
    #[arg(long, default_value_t = 256 << 10, value_parser = whole::<u64>)]
    pub bytes: u64,
    /// Connections (1..=3: each takes 16 KiB of a node's 64 KiB on-chip memory).
    #[arg(long, default_value_t = 2, value_parser = whole::<u16>)]
    pub connections: u16,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Directory to write into (created if missing): <block>.v, verilator.vlt, report.json,
    /// report.md, and synth/<block>.synth.log (the Yosys log).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Receive-buffer size the parser checks lengths against, in bytes (64..=65536): the
    /// size both ends negotiate in Hello.
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true, value_parser = whole::<u32>)]
    pub buf_size: Option<u32>,
    /// Connections, in every block (1..=256).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u32>)]
    pub connections: Option<u32>,
    /// Pool manager: send buffers per connection (2..=16).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u32>)]
    pub send_bufs: Option<u32>,
    /// Pool manager: receive buffers per connection (4..=16).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u32>)]
    pub recv_bufs: Option<u32>,
    /// Sequencer: registration-table entries (a power of two, 2..=32).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u32>)]
    pub reg_entries: Option<u32>,
    /// Sequencer: transfers in progress at once (1..=16).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u32>)]
    pub ops: Option<u32>,
    /// Sequencer: largest single RDMA read or write in bytes (a multiple of 8, 8..=16777216).
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true, value_parser = whole::<u32>)]
    pub segment: Option<u32>,
    /// Sequencer: RDMA requests one transfer keeps outstanding (a power of two, 1..=16).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u32>)]
    pub window: Option<u32>,
    /// Skip the Yosys synthesis (area and depth); lint and validation still run.
    #[arg(long)]
    pub no_synth: bool,
    /// Yosys synthesis runs at once, largest block first (default: the machine's cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Write a board's top instead of the blocks: top.v (for Vivado), blackbox/top.v (the
    /// same with the vendor cores as black boxes: what is linted and synthesized), top.xdc,
    /// build.tcl, report.json and report.md with the fit in the part (exit status 3 when it
    /// lints but is over its budget). The board's NICs have their own size (4 connections,
    /// 8 registrations, 2 transfers, 1 queue pair); the block flags do not apply.
    #[arg(long, value_enum, value_name = "BOARD")]
    pub board: Option<BoardName>,
    /// With --board: the engine clock, MHz (125, or 100 if timing says so).
    #[arg(long, value_name = "MHZ", default_value_t = 125, value_parser = engine_mhz)]
    pub engine_mhz: u32,
}

/// `--engine-mhz`: 125 or 100 (the MMCM divides its 1 GHz VCO by 8 or 10).
fn engine_mhz(s: &str) -> Result<u32, String> {
    match s {
        "125" => Ok(125),
        "100" => Ok(100),
        _ => Err(format!("{s}: the engine clock is 125 or 100 MHz")),
    }
}

/// A development board `generate --board` builds a top for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BoardName {
    /// Opal Kelly XEM7010 (Artix-7 XC7A50T-1FGG484), FrontPanel over USB 2.0.
    Xem7010,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Print one flat JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Cycles of each simulation-speed run (Verilator and model); rust-hdl runs at most 3000.
    #[arg(long, value_name = "N", default_value_t = 2_000_000, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub cycles: u64,
}

/// What carries a `simulate` workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The sans-IO endpoints over the event-driven fabric model.
    #[value(name = "sans-io")]
    SansIo,
    /// Two engine cycle models over the cycle-level SAN.
    Model,
    /// Two Verilated engines (the generated Verilog) over the cycle-level SAN.
    Rtl,
    /// Two engines, each its cycle model and its Verilog checked cycle by cycle.
    Lockstep,
}

/// Whether a node's provider supports RDMA read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReadMode {
    /// Supports RDMA read: peers send to it in read mode (the receiver pulls).
    #[value(name = "true")]
    Yes,
    /// No RDMA read: peers send to it in write mode (the sender pushes).
    #[value(name = "false")]
    No,
    /// Picked at random per connection (from the seed).
    #[value(name = "random")]
    Random,
}

impl ReadMode {
    pub fn as_option(self) -> Option<bool> {
        match self {
            ReadMode::Yes => Some(true),
            ReadMode::No => Some(false),
            ReadMode::Random => None,
        }
    }
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// TOML scenario file (the fields of the model's `Workload`; see scenarios/).
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,

    /// Seed of the workload (sizes, data, capabilities) and of the fault generator.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>)]
    pub seed: Option<u64>,
    /// Connections between the two nodes.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<usize>)]
    pub connections: Option<usize>,
    /// Sends planned in each direction of each connection.
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<usize>)]
    pub sends: Option<usize>,
    /// Largest send, in bytes.
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true, value_parser = whole::<usize>)]
    pub max_size: Option<usize>,
    /// Share of sends that are urgent (MSG_OOB), 0 to 1.
    #[arg(long, value_name = "SHARE", allow_negative_numbers = true)]
    pub urgent_share: Option<f64>,
    /// Whether node 0's provider supports RDMA read.
    #[arg(long, value_enum, value_name = "MODE")]
    pub read0: Option<ReadMode>,
    /// Whether node 1's provider supports RDMA read.
    #[arg(long, value_enum, value_name = "MODE")]
    pub read1: Option<ReadMode>,
    /// Control buffers each endpoint posts to receive.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u16>)]
    pub recv_bufs: Option<u16>,
    /// Control buffers each endpoint uses to send.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u16>)]
    pub send_bufs: Option<u16>,
    /// Size of every control buffer, in bytes.
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true, value_parser = whole::<u32>)]
    pub buf_size: Option<u32>,
    /// Sends of more bytes than this take the zero-copy (RDMA) path.
    #[arg(long, value_name = "BYTES", allow_negative_numbers = true, value_parser = whole::<u32>)]
    pub rdma_threshold: Option<u32>,
    /// One-way latency of the SAN, in ns.
    #[arg(long, value_name = "NS", allow_negative_numbers = true, value_parser = whole::<u64>)]
    pub latency_ns: Option<u64>,
    /// Link bandwidth per direction, in Gbit/s.
    #[arg(long, value_name = "GBPS", allow_negative_numbers = true)]
    pub link_gbps: Option<f64>,
    /// Registration-table entries per node.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<usize>)]
    pub reg_capacity: Option<usize>,
    /// Probability that a registration fails as if the table were full.
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub reg_fail_rate: Option<f64>,
    /// Probability that a registration fails for lack of temporary memory.
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub nomem_rate: Option<f64>,
    /// Probability that an RDMA operation completes with a transport error.
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    pub rdma_error_rate: Option<f64>,
    /// Seed of the fault generator, mixed with --seed (scenario key fabric.faults.seed): 0
    /// keeps the faults --seed alone gives, another value draws other faults for the same
    /// workload.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u64>)]
    pub fault_seed: Option<u64>,
    /// Abort: node NODE's application of connection CONN aborts after AFTER_MESSAGES
    /// messages have been sent on that connection (both directions).
    #[arg(long, value_name = "CONN:NODE:AFTER_MESSAGES", allow_hyphen_values = true,
          value_parser = parse_abort)]
    pub abort: Option<AbortAt>,
    /// Start sequence numbers anywhere instead of within 64 of the wrap.
    #[arg(long)]
    pub no_wrap: bool,

    /// What carries the workload: the sans-IO protocol model over the event-driven fabric,
    /// or two engines over the cycle-level SAN: their cycle models, their Verilated Verilog,
    /// or both in lockstep (stops at the first cycle and port where they differ, with a VCD).
    #[arg(long, value_enum, default_value_t = Backend::SansIo)]
    pub backend: Backend,
    /// Engine backends: the engines' clock in MHz, for time and throughput.
    #[arg(long, value_name = "MHZ", default_value_t = 125.0)]
    pub clock_mhz: f64,
    /// Engine backends: probability that a ready the engine sees (host and SAN) is low in a
    /// cycle (random backpressure).
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    pub stall: f64,

    /// Print the summary as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// A whole number for a flag of type `T`. Clap names the flag (`invalid value '-3' for
/// '--sends <SENDS>'`); this says what was expected, also for a negative number, which clap
/// would otherwise take for an unknown flag.
fn whole<T>(s: &str) -> Result<T, String>
where
    T: std::str::FromStr + num::Max,
{
    s.trim().parse::<T>().map_err(|_| {
        let negative = s.trim().starts_with('-');
        format!(
            "expected a whole number from 0 to {}{}",
            T::MAX,
            if negative { ", not a negative one" } else { "" }
        )
    })
}

mod num {
    /// The largest value of an unsigned flag type.
    pub trait Max {
        const MAX: u64;
    }
    macro_rules! max {
        ($($t:ty),*) => { $(impl Max for $t { const MAX: u64 = <$t>::MAX as u64; })* };
    }
    max!(u16, u32, u64, usize);
}

/// Parse `CONN:NODE:AFTER_MESSAGES`.
fn parse_abort(s: &str) -> Result<AbortAt, String> {
    let parts: Vec<&str> = s.split(':').collect();
    let [conn, node, after] = parts[..] else {
        return Err(format!("expected CONN:NODE:AFTER_MESSAGES (e.g. 0:1:40), got `{s}`"));
    };
    let num = |what: &str, v: &str| -> Result<u64, String> {
        v.trim().parse::<u64>().map_err(|e| format!("{what} `{v}`: {e}"))
    };
    let conn = usize::try_from(num("CONN", conn)?).map_err(|e| format!("CONN: {e}"))?;
    let node = usize::try_from(num("NODE", node)?).map_err(|e| format!("NODE: {e}"))?;
    if node > 1 {
        return Err(format!("NODE must be 0 or 1, got {node}"));
    }
    let after_messages = num("AFTER_MESSAGES", after)?;
    Ok(AbortAt { conn, node, after_messages })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abort_spec() {
        assert_eq!(parse_abort("1:0:40"), Ok(AbortAt { conn: 1, node: 0, after_messages: 40 }));
        assert!(parse_abort("1:2:40").is_err());
        assert!(parse_abort("1:0").is_err());
        assert!(parse_abort("a:0:1").is_err());
    }

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
