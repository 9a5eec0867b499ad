//! `sanswitch simulate`: a seeded workload between two model switches over the simulated
//! SAN, with the integrity check of `sanswitch_model::workload`.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sanswitch_model::workload::{self, Summary, Workload};

use crate::cli::{Backend, SimulateArgs};
use crate::engines::{self, EngineRun};
use crate::error::Error;

/// The JSON summary: the workload's, and the engines' figures when engines ran it.
#[derive(serde::Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    summary: &'a Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    engine: &'a Option<EngineRun>,
}

/// Runs shorter than this draw no progress bar at all.
const BAR_DELAY: Duration = Duration::from_millis(300);

pub fn run(args: &SimulateArgs) -> Result<ExitCode, Error> {
    let mut w = workload_from(args)?;
    let engine_setup = match args.backend {
        Backend::SansIo => None,
        _ => Some(engines::setup(args, &mut w)?),
    };
    let problems = validate(&w);
    if !problems.is_empty() {
        return Err(Error::InvalidWorkload(problems));
    }

    let show_bar = !args.quiet && std::io::stderr().is_terminal();
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template(
            "simulating {wide_bar} {bytes}/{total_bytes} delivered [{elapsed_precise}, eta {eta}]",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let started = Instant::now();
    let mut drawing = false;
    let mut progress = |done, total| {
        if show_bar && !drawing && started.elapsed() >= BAR_DELAY {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            drawing = true;
        }
        bar.set_length(total);
        bar.set_position(done);
    };
    let (summary, engine) = match engine_setup {
        None => (workload::run(&w, &mut progress), None),
        Some(setup) => {
            let (s, r) = engines::run(args, &w, setup, &mut progress)?;
            (s, Some(r))
        }
    };
    bar.finish_and_clear();

    let out = if args.json {
        let mut s = serde_json::to_string_pretty(&Report { summary: &summary, engine: &engine })?;
        s.push('\n');
        s
    } else {
        render(&w, &summary, engine.as_ref())
    };
    if let Err(e) = std::io::stdout().lock().write_all(out.as_bytes()) {
        // A closed pipe (`| head`) is not an error of the simulation.
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(Error::Output(e));
        }
    }
    Ok(if summary.intact { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The workload: the scenario file (or the defaults), then every flag given explicitly.
pub fn workload_from(args: &SimulateArgs) -> Result<Workload, Error> {
    let mut w = match &args.scenario {
        Some(path) => load_scenario(path)?,
        None => Workload::default(),
    };
    fn set<T: Copy>(dst: &mut T, v: Option<T>) {
        if let Some(v) = v {
            *dst = v;
        }
    }
    set(&mut w.seed, args.seed);
    set(&mut w.connections, args.connections);
    set(&mut w.sends, args.sends);
    set(&mut w.max_size, args.max_size);
    set(&mut w.urgent_share, args.urgent_share);
    if let Some(m) = args.read0 {
        w.rdma_read[0] = m.as_option();
    }
    if let Some(m) = args.read1 {
        w.rdma_read[1] = m.as_option();
    }
    set(&mut w.endpoint.recv_bufs, args.recv_bufs);
    set(&mut w.endpoint.send_bufs, args.send_bufs);
    set(&mut w.endpoint.buf_size, args.buf_size);
    set(&mut w.endpoint.rdma_threshold, args.rdma_threshold);
    set(&mut w.fabric.latency_ns, args.latency_ns);
    set(&mut w.fabric.link_gbps, args.link_gbps);
    set(&mut w.fabric.reg_capacity, args.reg_capacity);
    set(&mut w.fabric.faults.reg_fail_rate, args.reg_fail_rate);
    set(&mut w.fabric.faults.nomem_rate, args.nomem_rate);
    set(&mut w.fabric.faults.rdma_error_rate, args.rdma_error_rate);
    set(&mut w.fabric.faults.seed, args.fault_seed);
    if args.abort.is_some() {
        w.fabric.faults.abort = args.abort;
    }
    if args.no_wrap {
        w.seq_near_wrap = false;
    }
    Ok(w)
}

/// Read a TOML scenario into a `Workload` (unknown keys are refused by the model's serde).
pub fn load_scenario(path: &Path) -> Result<Workload, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| Error::ReadScenario { path: path.to_owned(), source })?;
    toml::from_str(&text).map_err(|source| Error::ParseScenario { path: path.to_owned(), source })
}

/// The flag that sets each scenario key, where there is one.
const FLAGS: [(&str, &str); 19] = [
    ("seed", "--seed"),
    ("connections", "--connections"),
    ("sends", "--sends"),
    ("max_size", "--max-size"),
    ("urgent_share", "--urgent-share"),
    ("endpoint.recv_bufs", "--recv-bufs"),
    ("endpoint.send_bufs", "--send-bufs"),
    ("endpoint.buf_size", "--buf-size"),
    ("endpoint.rdma_threshold", "--rdma-threshold"),
    ("fabric.latency_ns", "--latency-ns"),
    ("fabric.link_gbps", "--link-gbps"),
    ("fabric.reg_capacity", "--reg-capacity"),
    ("fabric.faults.reg_fail_rate", "--reg-fail-rate"),
    ("fabric.faults.nomem_rate", "--nomem-rate"),
    ("fabric.faults.rdma_error_rate", "--rdma-error-rate"),
    ("fabric.faults.abort", "--abort"),
    ("fabric.faults.seed", "--fault-seed"),
    ("rdma_read", "--read0/--read1"),
    ("seq_near_wrap", "--no-wrap"),
];

/// Everything that would make the run meaningless or that the model cannot run (the model's
/// `Workload::validate`), each problem named by its scenario key and, where there is one, its
/// flag: `endpoint.recv_bufs (--recv-bufs) must be at least 4`.
pub fn validate(w: &Workload) -> Vec<String> {
    w.validate().iter().map(|p| name_flags(p)).collect()
}

/// Replace every `` `key` `` of a model message by `key (--flag)`, or `key` alone.
fn name_flags(p: &str) -> String {
    let mut out = String::with_capacity(p.len() + 16);
    let mut parts = p.split('`');
    out.push_str(parts.next().unwrap_or_default());
    while let Some(key) = parts.next() {
        out.push_str(key);
        if let Some((_, flag)) = FLAGS.iter().find(|(k, _)| *k == key) {
            out.push_str(&format!(" ({flag})"));
        }
        out.push_str(parts.next().unwrap_or_default());
    }
    out
}

/// The human summary. Its last line is `intact: yes` or `intact: NO (...)`.
pub fn render(w: &Workload, s: &Summary, engine: Option<&EngineRun>) -> String {
    let mut o = String::new();
    let read = |r: Option<bool>| match r {
        Some(true) => "yes",
        Some(false) => "no",
        None => "random",
    };
    let e = &w.endpoint;
    let fc = &w.fabric;
    let _ = writeln!(
        o,
        "workload: seed {}, {} connection(s) x {} sends each way, up to {} B, {}% urgent",
        s.seed,
        w.connections,
        w.sends,
        n(w.max_size as u64),
        w.urgent_share * 100.0
    );
    let _ = writeln!(
        o,
        "  RDMA read: node 0 {}, node 1 {}; buffers {} send + {} receive x {} B; \
         RDMA threshold {} B",
        read(w.rdma_read[0]),
        read(w.rdma_read[1]),
        e.send_bufs,
        e.recv_bufs,
        n(e.buf_size as u64),
        n(e.rdma_threshold as u64)
    );
    match engine {
        None => {
            let _ = writeln!(
                o,
                "  SAN: {} ns latency, {} Gbit/s per direction, {} registrations per node",
                n(fc.latency_ns),
                fc.link_gbps,
                fc.reg_capacity
            );
        }
        Some(r) => {
            let _ = writeln!(
                o,
                "  engines: {} backend, {} connections, clock {} MHz; SAN: {} cycles latency, \
                 one 8-byte beat per cycle per direction; ready stall probability {}",
                r.backend, r.params.connections, r.clock_mhz, r.san_latency_cycles, r.stall
            );
            for note in &r.notes {
                let _ = writeln!(o, "  note: {note}");
            }
        }
    }
    let f = &fc.faults;
    if f.reg_fail_rate > 0.0 || f.nomem_rate > 0.0 || f.rdma_error_rate > 0.0 || f.abort.is_some() {
        let mut line = format!(
            "  faults: registration failure {}, no memory {}, RDMA error {}",
            f.reg_fail_rate, f.nomem_rate, f.rdma_error_rate
        );
        if let Some(a) = f.abort {
            let _ = write!(
                line,
                "; abort by node {} of connection {} after {} messages",
                a.node, a.conn, a.after_messages
            );
        }
        let _ = writeln!(o, "{line}");
    }

    let _ = writeln!(o);
    for d in &s.directions {
        let st = &d.sender;
        let msgs: u64 = st.msgs_sent.values().sum();
        let _ = writeln!(
            o,
            "conn {} node {} -> {}: {} sends, {} messages; {} B offered, {} B received \
             ({} B urgent)",
            d.conn,
            d.from,
            1 - d.from,
            d.sends,
            n(msgs),
            n(d.bytes_offered),
            n(d.bytes_received),
            n(d.urgent_bytes_received)
        );
        let _ = writeln!(
            o,
            "    paths: copy {}, read {}, write {}, fallback {}; {} B inline in messages; \
             stalls: credit {}, send buffer {}",
            st.sends_copy,
            st.sends_read,
            st.sends_write,
            st.sends_fallback,
            n(st.bytes_inline),
            st.credit_stalls,
            st.send_buf_stalls
        );
    }

    let _ = writeln!(o);
    let completions = if s.completions.is_empty() {
        "none".to_string()
    } else {
        s.completions.iter().map(|(k, v)| format!("{k} {}", n(*v))).collect::<Vec<_>>().join(", ")
    };
    let _ = writeln!(o, "completions: {completions}");
    let _ = writeln!(o, "protocol violations: {}", s.violations);

    let fs = &s.fabric;
    let _ = writeln!(
        o,
        "fabric: messages 0->1 {} ({} B), 1->0 {} ({} B)",
        n(fs.messages[0]),
        n(fs.message_bytes[0]),
        n(fs.messages[1]),
        n(fs.message_bytes[1])
    );
    let _ = writeln!(
        o,
        "  RDMA: {} reads, {} writes, {} B",
        n(fs.rdma_reads),
        n(fs.rdma_writes),
        n(fs.rdma_bytes)
    );
    let violations = if fs.access_violations.is_empty() {
        "none".to_string()
    } else {
        fs.access_violations.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
    };
    let _ = writeln!(o, "  access violations: {violations}");
    let _ = writeln!(
        o,
        "  injected faults: {} registration failures, {} RDMA errors; table full {}, \
         credit overruns {}, dropped after teardown {}, peak registrations {}",
        fs.injected_reg_failures,
        fs.injected_rdma_errors,
        fs.table_full,
        fs.credit_overruns,
        fs.dropped_after_teardown,
        fs.peak_registrations
    );

    let received: u64 = s.directions.iter().map(|d| d.bytes_received).sum();
    if let Some(r) = engine {
        let _ = writeln!(
            o,
            "engines: {} cycles; SAN beats 0->1 {}, 1->0 {}; host memory: node 0 {} read \
             requests, {} write beats; node 1 {} read requests, {} write beats",
            n(r.cycles),
            n(r.san_beats[0]),
            n(r.san_beats[1]),
            n(r.host_reads[0]),
            n(r.host_writes[0]),
            n(r.host_reads[1]),
            n(r.host_writes[1])
        );
        if r.params.zero_copy() {
            let _ = writeln!(
                o,
                "RDMA: node 0 issued {} requests, node 1 {}; {} B landed at node 0, {} B at \
                 node 1 (read capability: node 0 {}, node 1 {})",
                n(r.rdma_requests[0]),
                n(r.rdma_requests[1]),
                n(r.rdma_bytes[0]),
                n(r.rdma_bytes[1]),
                r.rdma_read[0],
                r.rdma_read[1]
            );
        }
        let _ = writeln!(
            o,
            "throughput: {:.3} B per cycle received (both directions) = {:.3} Gbit/s at {} MHz",
            r.bytes_per_cycle, r.gbps, r.clock_mhz
        );
    }
    let _ = writeln!(
        o,
        "simulated time: {} ({} events); throughput {:.3} Gbit/s of simulated time \
         ({} B received, both directions)",
        duration(s.sim_time_ns),
        n(s.events),
        gbps(received, s.sim_time_ns),
        n(received)
    );

    if s.intact {
        let _ = writeln!(o, "intact: yes");
    } else {
        let _ = writeln!(o, "problems:");
        for p in &s.problems {
            let _ = writeln!(o, "  - {p}");
        }
        let _ = writeln!(o, "intact: NO ({} problem(s), listed above)", s.problems.len());
    }
    o
}

/// Bits per nanosecond is Gbit/s.
fn gbps(bytes: u64, ns: u64) -> f64 {
    if ns == 0 { 0.0 } else { bytes as f64 * 8.0 / ns as f64 }
}

fn duration(ns: u64) -> String {
    match ns {
        0..1_000 => format!("{ns} ns"),
        1_000..1_000_000 => format!("{:.3} us", ns as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.3} ms", ns as f64 / 1e6),
        _ => format!("{:.3} s", ns as f64 / 1e9),
    }
}

/// A number with thousands separators: 1234567 -> "1,234,567".
pub(crate) fn n(v: u64) -> String {
    let digits = v.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(n(0), "0");
        assert_eq!(n(999), "999");
        assert_eq!(n(1000), "1,000");
        assert_eq!(n(1234567), "1,234,567");
        assert_eq!(duration(1_500_000), "1.500 ms");
        assert_eq!(gbps(125, 100), 10.0);
    }

    #[test]
    fn default_is_valid_and_impossible_is_refused() {
        assert!(validate(&Workload::default()).is_empty());
        let mut w = Workload::default();
        w.endpoint.recv_bufs = 2;
        w.urgent_share = 2.0;
        w.fabric.link_gbps = 0.0;
        let p = validate(&w);
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].contains("recv_bufs"));
    }

    #[test]
    fn keys_are_named_with_their_flags() {
        assert_eq!(
            name_flags("`endpoint.send_bufs` + `endpoint.recv_bufs` must be at most 65536"),
            "endpoint.send_bufs (--send-bufs) + endpoint.recv_bufs (--recv-bufs) must be at most \
             65536"
        );
        assert_eq!(
            name_flags("`time_limit_ns` must be positive"),
            "time_limit_ns must be positive"
        );
        assert_eq!(name_flags("no key here"), "no key here");
        let mut w = Workload::default();
        w.fabric.latency_ns = u64::MAX;
        w.time_limit_ns = u64::MAX;
        let p = validate(&w);
        assert!(p[0].starts_with("fabric.latency_ns (--latency-ns) must be at most"), "{p:?}");
        assert!(p[1].starts_with("time_limit_ns must be at most"), "{p:?}");
        assert!(p.iter().all(|p| !p.contains('`')), "{p:?}");
    }

    #[test]
    fn small_run_renders() {
        let w = Workload { sends: 5, max_size: 64 * 1024, ..Workload::default() };
        let s = workload::run(&w, &mut |_, _| {});
        let text = render(&w, &s, None);
        assert!(text.trim_end().ends_with("intact: yes"), "{text}");
    }
}
