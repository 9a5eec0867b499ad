//! Seeded random workloads over the fabric, and the checker that proves them intact.
//!
//! A workload runs any number of connections between the fabric's two nodes. Each side of
//! each connection sends a planned list of sends (sizes 0 to `max_size`, a share of them
//! urgent) while keeping receives posted; at the end each side shuts down its send direction
//! and reads to end of stream. The checker then proves, per direction, that **every byte
//! arrived exactly once and in order, with its urgent mark**, and that **every request
//! completed exactly once with an allowed status**. Used by the tests and by
//! `sanswitch simulate`.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::endpoint::{Action, Config, Endpoint, Event, ReqId, Role, Stats};
use crate::fabric::{Fabric, FabricConfig, FabricStats};
use crate::status::WsaError;
use crate::wire;

/// A workload: what to send, over what.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Workload {
    pub seed: u64,
    pub connections: usize,
    /// Sends planned in each direction of each connection.
    pub sends: usize,
    /// Largest send, bytes.
    pub max_size: usize,
    /// Share of sends that are urgent (MSG_OOB).
    pub urgent_share: f64,
    /// Whether node 0 / node 1 support RDMA read; `None` picks at random per connection.
    pub rdma_read: [Option<bool>; 2],
    /// Start sequence numbers within 64 of the wrap.
    pub seq_near_wrap: bool,
    /// Sends each application keeps outstanding.
    pub sends_outstanding: usize,
    /// Receives each application keeps posted, and the largest of them.
    pub recvs_outstanding: usize,
    pub recv_max: usize,
    /// Endpoint parameters (`rdma_read` and `initial_seq` are set per connection).
    pub endpoint: Config,
    pub fabric: FabricConfig,
    /// Stop after this much simulated time (a deadlock shows as running out of events first).
    pub time_limit_ns: u64,
}

impl Default for Workload {
    fn default() -> Self {
        Workload {
            seed: 1,
            connections: 2,
            sends: 200,
            max_size: 1 << 20,
            urgent_share: 0.05,
            rdma_read: [None, None],
            seq_near_wrap: true,
            sends_outstanding: 4,
            recvs_outstanding: 3,
            recv_max: 96 * 1024,
            endpoint: Config::default(),
            fabric: FabricConfig::default(),
            time_limit_ns: 3_600_000_000_000,
        }
    }
}

/// One direction of one connection, after the run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Direction {
    pub conn: usize,
    pub from: usize,
    pub sends: usize,
    pub bytes_offered: u64,
    pub bytes_received: u64,
    pub urgent_bytes_received: u64,
    /// The sender's endpoint counters.
    pub sender: Stats,
}

/// The result of a workload.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub seed: u64,
    pub directions: Vec<Direction>,
    pub fabric: FabricStats,
    pub sim_time_ns: u64,
    pub events: u64,
    /// Completions by status name, over every request of the run.
    pub completions: BTreeMap<String, u64>,
    /// Protocol violations the endpoints detected.
    pub violations: u64,
    /// Every byte arrived exactly once, in order, with its urgent mark, and every request
    /// completed exactly once with an allowed status.
    pub intact: bool,
    /// What went wrong, when `intact` is false.
    pub problems: Vec<String>,
}

#[derive(Clone, Debug)]
struct PlannedSend {
    data: Vec<u8>,
    urgent: bool,
}

#[derive(Default)]
struct Side {
    plan: Vec<PlannedSend>,
    next_send: usize,
    sends_open: usize,
    recvs_open: usize,
    eof: bool,
    shut: bool,
    dead: bool,
    /// req -> index in plan
    send_reqs: BTreeMap<ReqId, usize>,
    send_status: Vec<Option<Result<usize, WsaError>>>,
    recv_reqs: BTreeMap<ReqId, bool>,
    /// What arrived from the peer, in order, with urgent marks.
    received: Vec<u8>,
    urgent_marks: Vec<(usize, usize)>,
}

/// Size of one send, drawn to hit the boundaries that matter.
fn draw_size(rng: &mut ChaCha8Rng, w: &Workload) -> usize {
    let buf = w.endpoint.buf_size as usize;
    let data_room = wire::max_payload(wire::Kind::Data, false, w.endpoint.buf_size);
    let thr = w.endpoint.rdma_threshold as usize;
    let boundaries = [
        0,
        1,
        7,
        8,
        9,
        15,
        16,
        17,
        data_room - 1,
        data_room,
        data_room + 1,
        buf,
        thr,
        thr + 1,
        thr + buf,
        w.max_size,
    ];
    let n = match rng.gen_range(0..100) {
        0..10 => boundaries[rng.gen_range(0..boundaries.len())],
        10..60 => rng.gen_range(1..=4096),
        60..85 => rng.gen_range(4096..=usize::max(4096, thr * 4)),
        _ => rng.gen_range(0..=w.max_size),
    };
    n.min(w.max_size)
}

/// Run a workload to the end. `progress(done, total)` is called as bytes arrive.
pub fn run(w: &Workload, progress: &mut dyn FnMut(u64, u64)) -> Summary {
    let mut rng = ChaCha8Rng::seed_from_u64(w.seed);
    let mut fabric = Fabric::new(FabricConfig {
        faults: crate::fabric::Faults { seed: w.seed ^ 0x5eed, ..w.fabric.faults.clone() },
        ..w.fabric.clone()
    });
    let mut sides: Vec<[Side; 2]> = Vec::new();
    let mut total: u64 = 0;
    for _ in 0..w.connections {
        let mut cfgs = [w.endpoint.clone(), w.endpoint.clone()];
        for (n, cfg) in cfgs.iter_mut().enumerate() {
            cfg.rdma_read = w.rdma_read[n].unwrap_or_else(|| rng.gen_bool(0.5));
            cfg.initial_seq =
                if w.seq_near_wrap { u32::MAX - rng.gen_range(0..64) } else { rng.r#gen() };
        }
        let [c0, c1] = cfgs;
        fabric.connect(Endpoint::new(Role::Initiator, c0), Endpoint::new(Role::Acceptor, c1));
        let mut pair: [Side; 2] = Default::default();
        for side in &mut pair {
            for _ in 0..w.sends {
                let mut n = draw_size(&mut rng, w);
                let urgent = rng.gen_bool(w.urgent_share.clamp(0.0, 1.0));
                if urgent {
                    n = n.clamp(1, 2048);
                }
                let mut data = vec![0u8; n];
                rng.fill(&mut data[..]);
                total += n as u64;
                side.plan.push(PlannedSend { data, urgent });
            }
            side.send_status = vec![None; side.plan.len()];
        }
        sides.push(pair);
    }

    let mut next_req: ReqId = 1;
    let mut problems = Vec::new();
    let mut events = 0u64;
    let mut received_total = 0u64;
    let mut last_report = 0u64;
    loop {
        // Let every application top up its sends and receives.
        for (conn, pair) in sides.iter_mut().enumerate() {
            for (node, side) in pair.iter_mut().enumerate() {
                if side.dead {
                    continue;
                }
                while side.sends_open < w.sends_outstanding && side.next_send < side.plan.len() {
                    let i = side.next_send;
                    side.next_send += 1;
                    side.sends_open += 1;
                    let req = next_req;
                    next_req += 1;
                    side.send_reqs.insert(req, i);
                    let p = &side.plan[i];
                    fabric.app(
                        conn,
                        node,
                        Event::AppSend { req, data: p.data.clone(), urgent: p.urgent },
                    );
                }
                if !side.shut && side.next_send == side.plan.len() && side.sends_open == 0 {
                    side.shut = true;
                    fabric.app(conn, node, Event::AppShutdown);
                }
                while !side.eof && side.recvs_open < w.recvs_outstanding {
                    side.recvs_open += 1;
                    let req = next_req;
                    next_req += 1;
                    side.recv_reqs.insert(req, false);
                    let max = rng.gen_range(1..=w.recv_max.max(1));
                    fabric.app(conn, node, Event::AppRecv { req, max });
                }
            }
        }
        for o in fabric.take_outputs() {
            let side = &mut sides[o.conn][o.node];
            match o.action {
                Action::CompleteSend { req, result } => match side.send_reqs.get(&req) {
                    Some(&i) if side.send_status[i].is_none() => {
                        side.send_status[i] = Some(result);
                        side.sends_open -= 1;
                    }
                    Some(_) => problems.push(format!(
                        "conn {} node {}: send {req} completed twice",
                        o.conn, o.node
                    )),
                    None => problems.push(format!(
                        "conn {} node {}: unknown send {req} completed",
                        o.conn, o.node
                    )),
                },
                Action::CompleteRecv { req, result } => {
                    match side.recv_reqs.get_mut(&req) {
                        Some(done) if !*done => {
                            *done = true;
                            side.recvs_open -= 1;
                        }
                        Some(_) => problems.push(format!(
                            "conn {} node {}: recv {req} completed twice",
                            o.conn, o.node
                        )),
                        None => problems.push(format!(
                            "conn {} node {}: unknown recv {req} completed",
                            o.conn, o.node
                        )),
                    }
                    match result {
                        Ok(r) if r.data.is_empty() => side.eof = true,
                        Ok(r) => {
                            if r.urgent {
                                side.urgent_marks.push((side.received.len(), r.data.len()));
                            }
                            received_total += r.data.len() as u64;
                            side.received.extend_from_slice(&r.data);
                        }
                        Err(_) => side.eof = true,
                    }
                }
                Action::Teardown
                    if fabric.endpoint(o.conn, o.node).state()
                        == crate::endpoint::State::Aborted =>
                {
                    side.dead = true;
                    side.eof = true;
                }
                _ => {}
            }
        }
        if received_total - last_report >= 1 << 20 || received_total == total {
            progress(received_total, total);
            last_report = received_total;
        }
        if !fabric.step() {
            // Nothing scheduled: either everything finished, or the protocol is stuck.
            let settled = sides
                .iter()
                .flatten()
                .all(|s| s.dead || (s.next_send == s.plan.len() && s.sends_open == 0 && s.eof));
            let more_to_submit = sides.iter().flatten().any(|s| {
                !s.dead
                    && ((s.sends_open < w.sends_outstanding && s.next_send < s.plan.len())
                        || (!s.shut && s.next_send == s.plan.len() && s.sends_open == 0)
                        || (!s.eof && s.recvs_open < w.recvs_outstanding))
            });
            if settled {
                break;
            }
            if !more_to_submit && !fabric.has_outputs() {
                problems
                    .push("no event left with requests still open: the protocol is stuck".into());
                break;
            }
            continue;
        }
        events += 1;
        if fabric.now() > w.time_limit_ns {
            problems.push(format!("time limit of {} ns reached", w.time_limit_ns));
            break;
        }
    }
    progress(received_total, total);
    check(w, &fabric, &sides, events, problems)
}

fn check(
    w: &Workload,
    fabric: &Fabric,
    sides: &[[Side; 2]],
    events: u64,
    mut problems: Vec<String>,
) -> Summary {
    let mut summary =
        Summary { seed: w.seed, sim_time_ns: fabric.now(), events, ..Default::default() };
    let aborting = w.fabric.faults.abort.is_some();
    for (conn, pair) in sides.iter().enumerate() {
        for from in 0..2 {
            let tx = &pair[from];
            let rx = &pair[1 - from];
            let ep = fabric.endpoint(conn, from);
            summary.violations += ep.stats().violations();
            for (k, v) in &ep.stats().completions {
                *summary.completions.entry(k.clone()).or_default() += v;
            }
            // Every submitted send completed exactly once, with an allowed status.
            let mut expected = Vec::new();
            let mut marks = Vec::new();
            for (i, st) in tx.send_status.iter().enumerate() {
                let p = &tx.plan[i];
                match st {
                    None if i < tx.next_send => {
                        problems.push(format!("conn {conn} node {from}: send #{i} never completed"))
                    }
                    None => {}
                    Some(Ok(n)) if *n == p.data.len() => {}
                    Some(Ok(n)) => problems.push(format!(
                        "conn {conn} node {from}: send #{i} completed with {n} of {} bytes",
                        p.data.len()
                    )),
                    Some(Err(WsaError::NoBufs)) => continue, // nothing of it was sent
                    Some(Err(e)) if aborting => {
                        let _ = e;
                    }
                    Some(Err(e)) => problems
                        .push(format!("conn {conn} node {from}: send #{i} failed: {}", e.name())),
                }
                if p.urgent && !p.data.is_empty() {
                    marks.push((expected.len(), p.data.len()));
                }
                expected.extend_from_slice(&p.data);
            }
            for (req, done) in &rx.recv_reqs {
                if !done {
                    problems
                        .push(format!("conn {conn} node {}: recv {req} never completed", 1 - from));
                }
            }
            let got = &rx.received;
            let ok_prefix = got.len() <= expected.len() && expected[..got.len()] == got[..];
            let complete = got.len() == expected.len();
            if !ok_prefix {
                let at =
                    got.iter().zip(&expected).position(|(a, b)| a != b).unwrap_or(expected.len());
                problems.push(format!(
                    "conn {conn} {from}->{}: stream differs at byte {at} (got {} bytes, expected {})",
                    1 - from,
                    got.len(),
                    expected.len()
                ));
            } else if !complete && !aborting {
                problems.push(format!(
                    "conn {conn} {from}->{}: {} of {} bytes arrived",
                    1 - from,
                    got.len(),
                    expected.len()
                ));
            }
            if !urgent_marks_match(&marks, &rx.urgent_marks, got.len()) {
                problems.push(format!("conn {conn} {from}->{}: urgent marks differ", 1 - from));
            }
            summary.directions.push(Direction {
                conn,
                from,
                sends: tx.plan.len(),
                bytes_offered: tx.plan.iter().map(|p| p.data.len() as u64).sum(),
                bytes_received: got.len() as u64,
                urgent_bytes_received: rx.urgent_marks.iter().map(|m| m.1 as u64).sum(),
                sender: ep.stats().clone(),
            });
        }
    }
    if !aborting && summary.violations > 0 {
        problems.push(format!("{} protocol violations detected", summary.violations));
    }
    summary.fabric = fabric.stats().clone();
    summary.intact = problems.is_empty();
    summary.problems = problems;
    summary
}

/// The urgent ranges received cover exactly the urgent bytes sent (within what arrived).
fn urgent_marks_match(sent: &[(usize, usize)], got: &[(usize, usize)], len: usize) -> bool {
    let bytes = |m: &[(usize, usize)]| {
        let mut v = Vec::new();
        for &(at, n) in m {
            for i in at..at + n {
                if i < len {
                    v.push(i);
                }
            }
        }
        v
    };
    bytes(sent) == bytes(got)
}
