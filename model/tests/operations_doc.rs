//! `docs/OPERATIONS.md` follows three sends through the engines, step by step, with the
//! cycle of each step. Those cycles come from here: two engine models over the cycle-level
//! SAN run each send with the pair's port trace on and the controllers watched, and the
//! tables in the document must be exactly what the run gives (`SANSWITCH_BLESS=1` rewrites
//! them).

use sanswitch_model::blocks::engine::EngineModel;
use sanswitch_model::blocks::engine::controller::{Ev, Phase};
use sanswitch_model::endpoint::{Config, Event};
use sanswitch_model::engine_pair::{EnginePair, PairConfig};
use sanswitch_model::params::EngineParams;
use sanswitch_model::workload::Backend;

const DOC: &str = "../docs/OPERATIONS.md";

fn pool_op(op: u8) -> &'static str {
    ["OPEN", "CLOSE", "ALLOC", "FREE", "RECV", "REPOST", "QUERY"]
        .get(op as usize)
        .copied()
        .unwrap_or("?")
}

fn seq_op(op: u8) -> &'static str {
    ["REGISTER", "DEREGISTER", "START_READ", "START_WRITE", "ABORT"]
        .get(op as usize)
        .copied()
        .unwrap_or("?")
}

fn event(ev: &Ev) -> String {
    use sanswitch_model::wire::Layout;
    match ev {
        Ev::Cmd(c) => format!(
            "takes the command ({})",
            sanswitch_model::host::Opcode::from_code(c.opcode).map_or("?", |o| o.name())
        ),
        Ev::Rx(h) => format!(
            "takes the header ({})",
            Layout::of_mid(h.m_axis_hdr_mid)
                .map_or_else(|| "?".into(), |l| format!("{:?}", l.kind))
        ),
        Ev::Pump(_) => "pumps the connection".into(),
        Ev::Sent(_) => "takes the builder's report: message sent".into(),
        Ev::Dlv(_) => "takes delivery's report: payload in host memory".into(),
        Ev::Xfer(x) => format!("takes the sequencer's report: transfer done ({} B)", x.bytes),
        Ev::Overrun(_) => "takes an overrun".into(),
        Ev::Down(_) => "takes a teardown".into(),
    }
}

/// What a controller started: an event, a pool request, a sequencer command; and how many
/// cycles before `now`'s it did (a command offered in the cycle of the answer it follows,
/// or a pool request in the cycle a posted command is taken, and taken there, shows as its
/// own answer awaited from the next cycle on).
fn controller_step(prev: &Phase, now: &Phase) -> Option<(u64, String)> {
    if let Phase::Seq { req, sent: true, .. } = now {
        let forwarded = match prev {
            Phase::Seq { req: r, sent: s, .. } => *s && r != req,
            Phase::Pool { .. } => true,
            _ => false,
        };
        return forwarded
            .then(|| (1, format!("asks the sequencer: {}", seq_op(req.s_axis_cmd_op))));
    }
    if let Phase::Pool { req, sent: true, .. } = now {
        // Offered as a posted sequencer command was taken, and taken with it.
        return matches!(prev, Phase::Seq { .. })
            .then(|| (1, format!("asks the pool: {}", pool_op(req.s_axis_req_op))));
    }
    let s = match now {
        Phase::Decide(ev) => Some(event(ev)),
        Phase::Pool { req, sent: false, .. }
            if !matches!(prev, Phase::Pool { sent: false, .. }) =>
        {
            Some(format!("asks the pool: {}", pool_op(req.s_axis_req_op)))
        }
        Phase::Seq { req, sent: false, .. } if !matches!(prev, Phase::Seq { sent: false, .. }) => {
            Some(format!("asks the sequencer: {}", seq_op(req.s_axis_cmd_op)))
        }
        _ => None,
    };
    s.map(|s| (0, s))
}

/// Connection 0 up, node 1 with a 64 KiB receive posted, then node 0 sends `size` bytes:
/// every step until both completions, as table rows relative to the cycle the send command
/// is offered.
fn trace(read: bool, size: usize) -> String {
    let p = EngineParams { rdma_threshold: 4096, rdma_read: read, ..EngineParams::default() };
    let cfg = PairConfig { params: p, san_latency: 8, dma_latency: 16, ..PairConfig::default() };
    let mut pair: EnginePair<EngineModel> = EnginePair::models(cfg);
    pair.connect([Config::default(), Config::default()]);
    while pair.step() {}
    for _ in 0..500 {
        pair.cycle();
    }
    pair.app(0, 1, Event::AppRecv { req: 1, max: 64 * 1024 });
    for _ in 0..200 {
        pair.cycle();
    }
    pair.take_outputs();
    pair.trace = Some(Vec::new());
    let t0 = pair.cycle;
    let data: Vec<u8> = (0..size).map(|k| (k * 7 + 3) as u8).collect();
    pair.app(0, 0, Event::AppSend { req: 2, data, urgent: false });
    let mut rows: Vec<(u64, usize, String, String)> = Vec::new();
    let mut prev = [pair.engine(0).ctl.phase, pair.engine(1).ctl.phase];
    let mut done = 0;
    for _ in 0..100_000 {
        pair.cycle();
        for (n, pv) in prev.iter_mut().enumerate() {
            let now = pair.engine(n).ctl.phase;
            if let Some((back, s)) = controller_step(pv, &now) {
                rows.push((pair.cycle - back, n, "controller".into(), s));
            }
            *pv = now;
        }
        done += pair.take_outputs().len();
        if done >= 2 && !pair.busy() {
            break;
        }
    }
    assert!(pair.problems().is_empty(), "{:?}", pair.problems());
    for e in pair.trace.take().expect("traced") {
        rows.push((e.cycle, e.node, format!("`{}`", e.port), e.what));
    }
    // Port handshakes of a cycle before the controller steps seen at its end.
    rows.sort_by_key(|r| (r.0, r.2 == "controller", r.1));
    let mut t = String::from("| cycle | node | where | what |\n|---:|---:|---|---|\n");
    for (c, n, at, what) in rows {
        t.push_str(&format!("| {} | {n} | {at} | {what} |\n", c - t0));
    }
    t
}

/// The table between `<!-- trace:NAME -->` and `<!-- /trace -->`.
fn section<'a>(doc: &'a str, name: &str) -> Option<(usize, usize, &'a str)> {
    let open = format!("<!-- trace:{name} -->\n");
    let a = doc.find(&open)? + open.len();
    let b = a + doc[a..].find("<!-- /trace -->")?;
    Some((a, b, &doc[a..b]))
}

#[test]
fn operations_doc_tables_are_the_traced_runs() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DOC);
    let mut doc = std::fs::read_to_string(&path).expect("docs/OPERATIONS.md");
    let runs = [
        ("small", trace(true, 64)),
        ("read", trace(true, 10_000)),
        ("write", trace(false, 10_000)),
    ];
    let bless = std::env::var_os("SANSWITCH_BLESS").is_some();
    let mut wrong = Vec::new();
    for (name, table) in &runs {
        let (a, b, got) = section(&doc, name).unwrap_or_else(|| panic!("no trace:{name} section"));
        if got != table {
            if bless {
                doc.replace_range(a..b, table);
            } else {
                wrong.push(format!("trace:{name} should be:\n{table}"));
            }
        }
    }
    if bless {
        std::fs::write(&path, &doc).expect("write docs/OPERATIONS.md");
    }
    assert!(wrong.is_empty(), "docs/OPERATIONS.md is not the traced run:\n{}", wrong.join("\n"));
    // The prose cites cycles in parentheses ("(43)", "(60-67)", "(`ALLOC`, cycle 6)", "(734,
    // 1246: ...)"): each must be a cycle of the table it introduces.
    for (name, table) in &runs {
        let (a, _, _) = section(&doc, name).expect("checked");
        let start = doc[..a].rfind("\n## ").expect("a section heading before each table");
        let cycles: Vec<&str> =
            table.lines().skip(2).filter_map(|l| l.split('|').nth(1)).map(str::trim).collect();
        for group in doc[start..a].split('(').skip(1).filter_map(|g| g.split(')').next()) {
            let cited = group.split(':').next().unwrap_or_default();
            for n in cited.split(|c: char| !c.is_ascii_digit()).filter(|t| !t.is_empty()) {
                assert!(
                    cycles.contains(&n),
                    "trace:{name}: the prose cites cycle {n} (in \"({group})\"), not in its table"
                );
            }
        }
    }
}
