//! docs/HARDWARE.md shows what the model does: its parser timing diagram is rendered here
//! from the cycle model, and every port of the port tables is documented there.
//! `UPDATE_DOCS=1 cargo test -p sanswitch-model --test hardware_doc -- --nocapture` prints
//! the diagram to paste when the parser's timing changes.

use sanswitch_model::blocks::parser::{ParserIn, ParserModel};
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
        "in_valid",
        "in_last",
        "in_last_bytes",
        "in_ready",
        "hdr_valid",
        "hdr_mid",
        "hdr_error",
        "pay_valid",
        "pay_last",
        "pay_last_bytes",
        "pay_bad",
        "cnt_good",
        "cnt_reserved_bits",
    ];
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut k = 0;
    for _ in 0..8 {
        let mut i = ParserIn { hdr_ready: true, pay_ready: true, ..ParserIn::default() };
        if let Some(&(d, last, lb)) = stream.get(k) {
            i.in_valid = true;
            i.in_data = d;
            i.in_last = last;
            i.in_last_bytes = lb;
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
            col.push(if r == "hdr_mid" { format!("{v:02x}") } else { v.to_string() });
        }
        cols.push(col);
        if i.in_valid && o.in_ready {
            k += 1;
        }
        m.clock(&i);
    }
    let mut s = String::from("```\ncycle            ");
    for c in 0..cols.len() {
        s += &format!("{c:>4}");
    }
    s += "\n";
    for (r, name) in rows.iter().enumerate() {
        s += &format!("{name:<17}");
        for col in &cols {
            s += &format!("{:>4}", col[r]);
        }
        s += "\n";
    }
    s += "```\n";
    s
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
