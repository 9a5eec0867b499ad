//! docs/HARDWARE.md shows what the model does: its parser timing diagram is rendered here
//! from the cycle model, and every port of the port tables is documented there.
//! `UPDATE_DOCS=1 cargo test -p sanswitch-model --test hardware_doc -- --nocapture` prints
//! the diagram to paste when the parser's timing changes.

use sanswitch_model::blocks::parser::{ParserIn, ParserModel, user};
use sanswitch_model::blocks::stimulus::beats;
use sanswitch_model::params::ParserParams;
use sanswitch_model::ports::{CycleModel, Ports};
use sanswitch_model::wire::{Frame, Header, Message};

fn doc() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/HARDWARE.md"))
        .expect("docs/HARDWARE.md")
}

/// A two-beat CreditUpdate, then a Data message with a reserved flag bit set (malformed,
/// three beats), back to back, outputs always ready.
fn parser_waveform() -> String {
    let good =
        Frame { header: Header { bufs: 8, mseq: 5, mseq_ack: 9 }, msg: Message::CreditUpdate }
            .encode();
    let mut bad = Frame {
        header: Header { bufs: 8, mseq: 6, mseq_ack: 9 },
        msg: Message::Data { urgent: false, payload: b"hello".to_vec() },
    }
    .encode();
    bad[1] = 0x80; // a reserved flag bit
    let mut stream: Vec<(u64, bool, u8)> = beats(&good);
    stream.extend(beats(&bad));
    let mut m = ParserModel::new(ParserParams::default());
    m.clock(&ParserIn { reset: true, ..ParserIn::default() });
    let rows = [
        "s_axis_rx_tvalid",
        "s_axis_rx_tlast",
        "s_axis_rx_tkeep",
        "s_axis_rx_tready",
        "m_axis_hdr_tvalid",
        "m_axis_hdr_mid",
        "m_axis_hdr_error",
        "m_axis_pay_tvalid",
        "m_axis_pay_tlast",
        "m_axis_pay_tkeep",
        "m_axis_pay_tuser",
        "cnt_rd_index",
        "cnt_rd_data",
    ];
    let hex = ["s_axis_rx_tkeep", "m_axis_hdr_mid", "m_axis_pay_tkeep", "m_axis_pay_tuser"];
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut k = 0;
    for c in 0..8 {
        // The counter bank's read port names "good messages" (0), then "reserved bits" (4).
        let idx = if c < 5 { 0 } else { 4 };
        let mut i = ParserIn {
            m_axis_hdr_tready: true,
            m_axis_pay_tready: true,
            s_axis_rx_tuser: user::pack(3, 0x21),
            cnt_rd_index: idx,
            ..ParserIn::default()
        };
        if let Some(&(d, last, keep)) = stream.get(k) {
            i.s_axis_rx_tvalid = true;
            i.s_axis_rx_tdata = d;
            i.s_axis_rx_tlast = last;
            i.s_axis_rx_tkeep = keep;
        }
        let o = m.outputs(&i);
        let mut col = Vec::new();
        for r in rows {
            let v = ParserIn::PORTS
                .iter()
                .position(|p| p.name == r)
                .map(|p| i.get(p))
                .or_else(|| {
                    sanswitch_model::blocks::parser::ParserOut::PORTS
                        .iter()
                        .position(|p| p.name == r)
                        .map(|p| o.get(p))
                })
                .unwrap();
            col.push(if hex.contains(&r) { format!("{v:x}") } else { v.to_string() });
        }
        cols.push(col);
        if i.s_axis_rx_tvalid && o.s_axis_rx_tready {
            k += 1;
        }
        m.clock(&i);
    }
    let mut s = String::from("```\ncycle               ");
    for c in 0..cols.len() {
        s += &format!("{c:>6}");
    }
    s += "\n";
    for (r, name) in rows.iter().enumerate() {
        s += &format!("{name:<20}");
        for col in &cols {
            s += &format!("{:>6}", col[r]);
        }
        s += "\n";
    }
    s += "```\n";
    s
}

/// Render rows of a timing diagram: each row a port of `I` or `O`, hex where asked.
fn render<I: Ports, O: Ports>(rows: &[&str], hex: &[&str], cols: &[(I, O)]) -> String {
    let mut s = String::from("```\ncycle               ");
    for c in 0..cols.len() {
        s += &format!("{c:>6}");
    }
    s += "\n";
    for name in rows {
        s += &format!("{name:<20}");
        for (i, o) in cols {
            let v = I::PORTS
                .iter()
                .position(|p| p.name == *name)
                .map(|p| i.get(p))
                .or_else(|| O::PORTS.iter().position(|p| p.name == *name).map(|p| o.get(p)))
                .unwrap_or_else(|| panic!("no port {name}"));
            let v = if hex.contains(name) { format!("{v:x}") } else { v.to_string() };
            s += &format!("{v:>6}");
        }
        s += "\n";
    }
    s += "```\n";
    s
}

/// The pool manager after its post-reset sweep: OPEN of connection 0, an ALLOC right behind
/// it on the same connection (the read-after-write stall), then a QUERY of connection 1
/// (not open: refused closed), responses always taken.
fn pool_waveform() -> String {
    use sanswitch_model::blocks::pool::{PoolIn, PoolModel, class, op};
    let p = sanswitch_model::params::PoolParams::default();
    let mut m = PoolModel::new(p);
    m.clock(&PoolIn { reset: true, ..PoolIn::default() });
    for _ in 0..1 << p.addr_bits() {
        m.clock(&PoolIn::default());
    }
    let reqs = [
        PoolIn {
            s_axis_req_op: op::OPEN,
            s_axis_req_a: 1,
            s_axis_req_bufs: 8,
            ..PoolIn::default()
        },
        PoolIn { s_axis_req_op: op::ALLOC, s_axis_req_class: class::DATA, ..PoolIn::default() },
        PoolIn { s_axis_req_op: op::QUERY, s_axis_req_conn: 1, ..PoolIn::default() },
    ];
    let mut k = 0;
    let mut cols = Vec::new();
    for _ in 0..8 {
        let mut i = PoolIn { m_axis_resp_tready: true, ..PoolIn::default() };
        if let Some(r) = reqs.get(k) {
            i = PoolIn { s_axis_req_tvalid: true, m_axis_resp_tready: true, ..*r };
        }
        let o = m.outputs(&i);
        if i.s_axis_req_tvalid && o.s_axis_req_tready {
            k += 1;
        }
        m.clock(&i);
        cols.push((i, o));
    }
    render(
        &[
            "s_axis_req_tvalid",
            "s_axis_req_op",
            "s_axis_req_conn",
            "s_axis_req_tready",
            "m_axis_resp_tvalid",
            "m_axis_resp_op",
            "m_axis_resp_conn",
            "m_axis_resp_status",
            "m_axis_resp_credits",
        ],
        &[],
        &cols,
    )
}

#[test]
fn hardware_doc_has_the_pool_timing_diagram() {
    let w = pool_waveform();
    if std::env::var("UPDATE_DOCS").is_ok() {
        println!("{w}");
    }
    assert!(doc().contains(&w), "docs/HARDWARE.md's pool timing diagram is stale:\n{w}");
}

/// The `| `port` | dir | bits |` rows of a block's section, until the next `## `.
fn doc_port_rows(heading: &str) -> Vec<(String, String, u32)> {
    let d = doc();
    let start = d.find(heading).unwrap_or_else(|| panic!("no section {heading}"));
    let body = &d[start + heading.len()..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    body.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let dir = *cells.get(2)?;
            let bits = cells.get(3)?.parse().ok()?;
            matches!(dir, "in" | "out").then(|| (name.to_string(), dir.to_string(), bits))
        })
        .collect()
}

/// Every port of a block's port tables is a row of its section's table, with the same
/// direction and width, and every row is a port.
fn check_port_table(
    heading: &str,
    inputs: &[sanswitch_model::ports::PortInfo],
    outputs: &[sanswitch_model::ports::PortInfo],
) {
    let rows = doc_port_rows(heading);
    let mut want: Vec<(String, String, u32)> = vec![("clock".into(), "in".into(), 1)];
    want.extend(inputs.iter().map(|p| (p.name.to_string(), "in".to_string(), p.width)));
    want.extend(outputs.iter().map(|p| (p.name.to_string(), "out".to_string(), p.width)));
    for w in &want {
        assert!(rows.contains(w), "{heading}: port {w:?} missing from the doc's table");
    }
    for r in &rows {
        assert!(want.contains(r), "{heading}: the doc's table has {r:?}, which is no port");
    }
}

#[test]
fn hardware_doc_port_tables_are_the_port_structs() {
    use sanswitch_model::blocks::parser::ParserOut;
    use sanswitch_model::blocks::pool::{PoolIn, PoolOut};
    check_port_table("## Control-message parser", ParserIn::PORTS, ParserOut::PORTS);
    check_port_table("## Pool manager", PoolIn::PORTS, PoolOut::PORTS);
}

#[test]
fn hardware_doc_has_the_parser_timing_diagram() {
    let w = parser_waveform();
    if std::env::var("UPDATE_DOCS").is_ok() {
        println!("{w}");
    }
    assert!(doc().contains(&w), "docs/HARDWARE.md's parser timing diagram is stale:\n{w}");
}

#[test]
fn hardware_doc_names_every_parser_port() {
    let d = doc();
    let ports = ParserIn::PORTS.iter().chain(sanswitch_model::blocks::parser::ParserOut::PORTS);
    for p in ports {
        assert!(
            d.contains(&format!("`{}`", p.name)),
            "port {} missing from docs/HARDWARE.md",
            p.name
        );
    }
}

#[test]
fn hardware_doc_names_every_pool_port() {
    use sanswitch_model::blocks::pool::{PoolIn, PoolOut};
    let d = doc();
    for p in PoolIn::PORTS.iter().chain(PoolOut::PORTS) {
        assert!(
            d.contains(&format!("`{}`", p.name)),
            "port {} missing from docs/HARDWARE.md",
            p.name
        );
    }
}

#[test]
fn hardware_doc_names_every_sequencer_port() {
    use sanswitch_model::blocks::sequencer::{SequencerIn, SequencerOut};
    let d = doc();
    let start = d.find("## RDMA read/write sequencer").expect("the sequencer's section");
    let section = &d[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |k| k + 3)];
    for p in SequencerIn::PORTS.iter().chain(SequencerOut::PORTS) {
        assert!(
            section.contains(&format!("| `{}` |", p.name)),
            "port {} missing from the sequencer's port table in docs/HARDWARE.md",
            p.name
        );
    }
    // And the reverse: every port row of the section is a port.
    for row in section.lines().filter(|l| l.starts_with("| `")) {
        let name = row[3..].split('`').next().unwrap();
        if ["in", "out"].iter().any(|d| row.contains(&format!("| {d} |"))) {
            assert!(
                SequencerIn::PORTS.iter().chain(SequencerOut::PORTS).any(|p| p.name == name)
                    || name == "clock",
                "docs/HARDWARE.md names a sequencer port `{name}` the block does not have"
            );
        }
    }
}
