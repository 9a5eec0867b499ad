//! The register map: blocks laid out without overlap inside the space, registers aligned
//! and inside their block, discovery finds every block and refuses what it cannot use, the
//! phase bit flips each lap, and `docs/REGISTERS.md` is what the definitions say.

use std::collections::HashMap;

use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::*;

/// A register space as the hardware presents it: the layout's headers and ID values.
fn space(h: &HostParams) -> HashMap<u32, u32> {
    let mut m = HashMap::new();
    let l = layout(h);
    for (i, (base, def)) in l.iter().enumerate() {
        m.insert(base + HDR_TYPE, def.kind as u32);
        m.insert(base + HDR_VERSION, def.version);
        m.insert(base + HDR_NEXT, l.get(i + 1).map_or(0, |n| n.0));
    }
    for (off, v) in id_values(&EngineParams::default(), h) {
        m.insert(off, v);
    }
    m
}

fn walk(m: &HashMap<u32, u32>) -> Result<Vec<Found>, RegError> {
    discover(&mut |off| m.get(&off).copied().unwrap_or(0))
}

#[test]
fn blocks_and_registers_fit_without_overlap() {
    for q in 1..=8 {
        let h = HostParams { queue_pairs: q, ..HostParams::default() };
        h.validate().unwrap();
        let l = layout(&h);
        assert_eq!(l[0], (0, &ID_BLOCK), "the ID block is at 0");
        for w in l.windows(2) {
            assert!(w[0].0 + w[0].1.bytes <= w[1].0, "blocks do not overlap");
        }
        let (last, def) = l[l.len() - 1];
        assert!(last + def.bytes <= SPACE_BYTES, "{q} queue pairs fit the space");
    }
    for kind in BlockType::ALL {
        let d = block_def(kind);
        let mut next = HDR_NEXT + REG_BYTES;
        for r in d.regs {
            assert_eq!(r.offset % REG_BYTES, 0, "{}.{} aligned", d.name, r.name);
            assert!(
                r.offset >= next,
                "{}.{} after the header and the register before",
                d.name,
                r.name
            );
            assert!(r.offset + REG_BYTES <= d.bytes, "{}.{} inside the block", d.name, r.name);
            next = r.offset + REG_BYTES;
        }
    }
}

#[test]
fn host_params_at_and_past_their_limits() {
    for (q, l, ok) in
        [(1, 1, true), (8, 15, true), (0, 12, false), (9, 12, false), (1, 0, false), (1, 16, false)]
    {
        let h = HostParams { queue_pairs: q, max_log2_size: l };
        assert_eq!(h.validate().is_ok(), ok, "{q} queue pairs, log2 size {l}");
    }
}

#[test]
fn discovery_finds_every_block_in_chain_order() {
    let h = HostParams { queue_pairs: 3, ..HostParams::default() };
    let found = walk(&space(&h)).unwrap();
    let want: Vec<_> = layout(&h).iter().map(|(b, d)| (d.kind, *b)).collect();
    assert_eq!(found.iter().map(|f| (f.kind, f.base)).collect::<Vec<_>>(), want);
    let m = space(&h);
    assert_eq!(m[&id::CONNECTIONS], u32::from(EngineParams::default().connections));
    assert_eq!(m[&id::QUEUES], 3 | (12 << 8));
}

#[test]
fn discovery_skips_a_block_it_does_not_know() {
    let h = HostParams::default();
    let mut m = space(&h);
    // Insert an unknown block between the counters and the queue pair.
    let l = layout(&h);
    let (cnt_base, q_base) = (l[1].0, l[2].0);
    let extra = 0x800;
    m.insert(cnt_base + HDR_NEXT, extra);
    m.insert(extra + HDR_TYPE, 0x5357_00FF);
    m.insert(extra + HDR_VERSION, 7);
    m.insert(extra + HDR_NEXT, 0);
    // ...and the queue pair after it: the chain only moves forward, so put it further on.
    let q2 = 0x900;
    m.insert(extra + HDR_NEXT, q2);
    for off in (0..QUEUE_PAIR_BLOCK.bytes).step_by(4) {
        if let Some(v) = m.remove(&(q_base + off)) {
            m.insert(q2 + off, v);
        }
    }
    // The chain ends there (the other queue pairs' blocks are behind it).
    m.insert(q2 + HDR_NEXT, 0);
    let found = walk(&m).unwrap();
    assert_eq!(
        found.iter().map(|f| f.kind).collect::<Vec<_>>(),
        [BlockType::Id, BlockType::Counters, BlockType::QueuePair]
    );
}

#[test]
fn discovery_refuses_what_it_cannot_use() {
    let h = HostParams::default();
    let good = space(&h);
    let l = layout(&h);

    let mut m = good.clone();
    m.insert(HDR_TYPE, 0x1234_5678);
    assert_eq!(walk(&m), Err(RegError::NotSanswitch(0x1234_5678)));
    assert_eq!(walk(&HashMap::new()), Err(RegError::NotSanswitch(0)), "an empty BAR");

    let mut m = good.clone();
    m.insert(l[2].0 + HDR_VERSION, 2);
    assert_eq!(
        walk(&m),
        Err(RegError::Version { name: "queue_pair", base: l[2].0, found: 2, known: 1 })
    );

    for bad in [SPACE_BYTES, SPACE_BYTES - 8, 0x42, l[1].0] {
        // Outside, a header past the end, unaligned, backwards (a loop).
        let mut m = good.clone();
        m.insert(l[1].0 + HDR_NEXT, bad);
        assert_eq!(walk(&m), Err(RegError::BadNext(bad)), "next {bad:#x}");
    }
    // The last valid offset is accepted as a pointer (then the chain ends there).
    let mut m = good.clone();
    let last = SPACE_BYTES - 3 * REG_BYTES;
    m.insert(l[1].0 + HDR_NEXT, last);
    m.insert(last + HDR_TYPE, 0x5357_00FF);
    assert_eq!(walk(&m), Err(RegError::Missing("queue_pair")));

    let mut m = good.clone();
    m.insert(HDR_NEXT, l[2].0);
    assert_eq!(walk(&m), Err(RegError::Missing("counters")));
}

#[test]
fn the_phase_flips_every_lap_and_pointers_wrap_at_16_bits() {
    for log2 in [1u8, 4, 15] {
        let size = 1u32 << log2;
        assert!(cq_phase(0, log2));
        assert!(cq_phase(size - 1, log2));
        assert!(!cq_phase(size, log2), "second lap");
        assert!(cq_phase(2 * size, log2), "third lap");
    }
    assert_eq!(ring_used(5, 3), 2);
    assert_eq!(ring_used(2, 0xFFFE), 4, "across the 16-bit wrap");
    assert_eq!(ring_used(0x1_0003, 3), 0, "only 16 bits count");
}

#[test]
fn the_doc_is_generated_from_the_definitions() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/REGISTERS.md");
    let want = registers_markdown();
    if std::env::var_os("SANSWITCH_BLESS").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "docs/REGISTERS.md differs from model/src/regs.rs: run \
         `SANSWITCH_BLESS=1 cargo test -p sanswitch-model --test registers`"
    );
}
