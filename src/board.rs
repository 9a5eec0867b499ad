//! `sanswitch board`: the host driver's loopback on the XEM7010 board through FrontPanel and
//! the bridge protocol (`sanswitch_driver::frontpanel`), or through the protocol's reference
//! behaviour over two NIC cycle models (`--emulate`).

use std::process::ExitCode;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use sanswitch_driver::frontpanel::{BoardTransport, FrontPanel, PipeLink, board, exec_board};
use sanswitch_driver::loopback::{self, LoopbackOptions, LoopbackReport};
use sanswitch_driver::{Device, Endpoint, SocketConfig};
use sanswitch_model::blocks::nic::NicModel;
use sanswitch_model::bridge::NODE_MEM_BYTES;
use sanswitch_model::engine_pair::PairConfig;
use sanswitch_model::nic_pair::NicPair;
use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::HostParams;

use crate::cli::BoardArgs;
use crate::error::Error;

/// What one run moved, and how many bridge transactions it took.
struct Run {
    report: LoopbackReport,
    transactions: u64,
    seconds: f64,
}

pub fn run(a: &BoardArgs) -> Result<ExitCode, Error> {
    let most = EngineParams::board().connections;
    if !(1..=most).contains(&a.connections) {
        return Err(Error::InvalidParams(format!(
            "--connections {} is not in 1..={most} (the board's NICs have {most})",
            a.connections
        )));
    }
    if memory_needed(a.connections) > u64::from(NODE_MEM_BYTES) {
        return Err(Error::InvalidParams(format!(
            "--connections {}: a node needs {} B of on-chip memory for them, the board has {} \
             ({} B per connection: 8 KiB send staging, two 4 KiB receive buffers)",
            a.connections,
            memory_needed(a.connections),
            NODE_MEM_BYTES,
            memory_needed(1) - 4096
        )));
    }
    let r = if a.emulate {
        // The board's NICs: `EngineParams::board()`, `HostParams::board()`.
        let cfg =
            PairConfig { seed: a.seed, params: EngineParams::board(), ..PairConfig::default() };
        let h = HostParams::board();
        let p = cfg.params;
        let pair = NicPair::new(cfg, [NicModel::new(p, &h), NicModel::new(p, &h)]);
        drive(exec_board(pair, NODE_MEM_BYTES), a)?
    } else {
        let bitfile = a.bitfile.as_deref().expect("clap asks for --bitfile without --emulate");
        if !bitfile.is_file() {
            return Err(Error::InvalidParams(format!(
                "no bitstream at {}: build one with fpga/xem7010/build.tcl (fpga/README.md)",
                bitfile.display()
            )));
        }
        let fp = FrontPanel::open(a.serial.as_deref(), Some(bitfile))
            .map_err(|e| Error::Check(e.to_string()))?;
        drive(board(fp, [0, 0], NODE_MEM_BYTES), a)?
    };
    let how = if a.emulate { "emulated: bridge reference over two NIC models" } else { "board" };
    println!(
        "board loopback ({how}): {} connections, {} B checked both ways ({} urgent)",
        a.connections, r.report.bytes, r.report.urgent_bytes
    );
    let speed = if a.emulate { "the simulation's speed, not a board's" } else { "over USB" };
    println!(
        "  {} bridge transactions ({:.1} B each); {:.3} s wall clock, {:.2} MB/s ({speed})",
        r.transactions,
        r.report.bytes as f64 / r.transactions.max(1) as f64,
        r.seconds,
        r.report.bytes as f64 / r.seconds.max(1e-9) / 1e6
    );
    Ok(ExitCode::SUCCESS)
}

/// The socket setup of every connection: a send staging area and two receive buffers in the
/// node's on-chip memory, each 4 KiB aligned.
fn socket_config() -> SocketConfig {
    SocketConfig {
        sq_log2: 4,
        cq_log2: 5,
        tx_staging: 8 << 10,
        max_send: 8 << 10,
        rx_bufs: 2,
        rx_buf_size: 4 << 10,
        wait_limit: 1_000_000,
        ..SocketConfig::default()
    }
}

/// On-chip memory a node needs for `connections` (the rings take one 4 KiB page).
fn memory_needed(connections: u16) -> u64 {
    let sc = socket_config();
    let per_conn = sc.tx_staging + sc.rx_bufs * sc.rx_buf_size;
    u64::from(connections) * per_conn as u64 + 4096
}

fn drive<L: PipeLink>(ts: [BoardTransport<L>; 2], a: &BoardArgs) -> Result<Run, Error> {
    let fail = |e: String| Error::Check(format!("board loopback failed: {e}"));
    let sc = socket_config();
    let mut eps = Vec::new();
    for t in ts {
        let dev = Device::open(t).map_err(|e| fail(e.to_string()))?;
        eps.push(Endpoint::new(dev, sc.clone()).map_err(|e| fail(e.to_string()))?);
    }
    let o = LoopbackOptions {
        connections: a.connections,
        bytes: a.bytes,
        max_write: 8 << 10,
        seed: a.seed,
        ..LoopbackOptions::default()
    };
    let total = o.bytes * 2 * u64::from(o.connections);
    let bar = if a.quiet { ProgressBar::hidden() } else { ProgressBar::new(total) };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {msg}")
            .expect("a valid template"),
    );
    let start = Instant::now();
    let eps = [eps.remove(0), eps.remove(0)];
    let r = loopback::run(&eps, &o, |done, _| bar.set_position(done));
    let seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let report = r.map_err(|e| fail(e.to_string()))?;
    let transactions = eps[0].with_transport(|t| t.bridge.borrow().transactions);
    Ok(Run { report, transactions, seconds })
}
