//! `sanswitch loopback`: the host driver's loopback run (`sanswitch_driver::loopback`) on two
//! NICs over the cycle-level SAN, their cycle models (`--transport model`) or their
//! Verilated Verilog (`--transport sim`), with a progress bar and the figures.

use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use sanswitch_driver::loopback::{self, LoopbackOptions, LoopbackReport};
use sanswitch_driver::pair::{PairTransport, model_pair, pair};
use sanswitch_driver::{Device, Endpoint, SocketConfig};
use sanswitch_model::blocks::nic::{NicIn, NicOut};
use sanswitch_model::engine_pair::PairConfig;
use sanswitch_model::ports::CycleModel;
use sanswitch_model::regs::HostParams;
use sanswitch_sim::{Rtl, VNic};

use crate::cli::{LoopbackArgs, TransportKind};
use crate::error::Error;

pub fn run(a: &LoopbackArgs) -> Result<ExitCode, Error> {
    let bad = |m: String| Err(Error::InvalidParams(m));
    if !(1..=16).contains(&a.connections) {
        return bad(format!("--connections {} is not in 1..=16", a.connections));
    }
    if !(1..=1 << 20).contains(&a.max_write) {
        return bad(format!("--max-write {} is not in 1..=1048576", a.max_write));
    }
    if a.aborts > a.connections {
        return bad(format!("--aborts {} is more than --connections", a.aborts));
    }
    if !(0.0..=0.9).contains(&a.stall) || !(0.0..=1.0).contains(&a.urgent) {
        return bad("--stall must be in 0..=0.9 and --urgent in 0..=1".into());
    }
    let qps = usize::from(HostParams::default().queue_pairs);
    if !(1..=qps).contains(&a.queue_pairs) {
        return bad(format!("--queue-pairs {} is not in 1..={qps}", a.queue_pairs));
    }
    if a.clock_mhz.is_nan() || a.clock_mhz <= 0.0 {
        return bad("--clock-mhz must be positive".into());
    }
    let mut cfg = PairConfig {
        stall: a.stall,
        seed: a.seed,
        clock_mhz: a.clock_mhz,
        ..PairConfig::default()
    };
    if a.no_rdma_read {
        cfg.params = cfg.params.without_rdma_read();
    }
    let o = LoopbackOptions {
        connections: a.connections,
        bytes: a.bytes,
        max_write: a.max_write,
        urgent: a.urgent,
        aborts: a.aborts,
        seed: a.seed,
        ..LoopbackOptions::default()
    };
    let r = match a.transport {
        TransportKind::Model => {
            drive(model_pair(cfg, &HostParams::default()), &o, a.queue_pairs, a.quiet)
        }
        TransportKind::Sim => {
            let ts = pair(cfg, [Rtl::new(VNic::new()), Rtl::new(VNic::new())]);
            drive(ts, &o, a.queue_pairs, a.quiet)
        }
    };
    match r {
        Ok(r) => {
            print(a, &r);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Err(Error::Check(format!("loopback failed: {e}"))),
    }
}

/// Runs the loopback with `qps` endpoints per node, one per queue pair.
fn drive<N: CycleModel<In = NicIn, Out = NicOut>>(
    ts: [PairTransport<N>; 2],
    o: &LoopbackOptions,
    qps: usize,
    quiet: bool,
) -> Result<LoopbackReport, String> {
    let mut nodes: [Vec<Endpoint<PairTransport<N>>>; 2] = [Vec::new(), Vec::new()];
    for (t, eps) in ts.iter().zip(&mut nodes) {
        for q in 0..qps {
            let sc = SocketConfig {
                queue_pair: q,
                tx_staging: 2 << 20,
                max_send: 1 << 20,
                ..SocketConfig::default()
            };
            let dev = Device::open(t.share()).map_err(|e| e.to_string())?;
            eps.push(Endpoint::new(dev, sc).map_err(|e| e.to_string())?);
        }
    }
    let total = o.bytes * 2 * o.connections as u64;
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(total) };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {msg}")
            .expect("a valid template"),
    );
    let r = loopback::run_queue_pairs([&nodes[0], &nodes[1]], o, |done, _| bar.set_position(done));
    bar.finish_and_clear();
    let r = r.map_err(|e| e.to_string())?;
    let problems = nodes[0][0].with_transport(|t| t.pair.borrow().problems());
    if !problems.is_empty() {
        return Err(format!("host memory touched outside what the drivers lent: {problems:?}"));
    }
    Ok(r)
}

fn print(a: &LoopbackArgs, r: &LoopbackReport) {
    let t = match a.transport {
        TransportKind::Model => "model",
        TransportKind::Sim => "sim",
    };
    println!(
        "loopback ({t}): {} connections on {} queue pair(s) per node, {} B checked both ways \
         ({} urgent), {} aborted",
        a.connections, a.queue_pairs, r.bytes, r.urgent_bytes, r.aborted
    );
    if let (Some(c), Some(bpc)) = (r.cycles, r.bytes_per_cycle()) {
        let gbit = bpc * 8.0 * a.clock_mhz / 1000.0;
        println!(
            "  {c} cycles: {bpc:.3} B/cycle both directions together, {gbit:.2} Gbit/s at {} MHz",
            a.clock_mhz
        );
    }
    println!(
        "  {:.2} commands per doorbell, {:.2} completions per poll that found any",
        r.commands_per_doorbell(),
        r.completions_per_poll()
    );
}
