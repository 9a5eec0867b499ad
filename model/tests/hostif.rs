//! The host interface's cycle model against a host (rings in a memory model, registers over
//! AXI4-Lite) and a stand-in engine that completes every command it takes, with random
//! backpressure on every port: every command reaches the engine once and in order, every
//! completion lands once in its slot with the right phase, and bad input is refused and
//! counted without losing anything.

use rand::Rng;
use sanswitch_model::blocks::hostif::{self, cnt};
use sanswitch_model::blocks::hostif_bench::HostIfBench;
use sanswitch_model::host::{Command, Completion, Opcode, TAG_QP_SHIFT};
use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::{self, HostParams, qp};

type Bench = HostIfBench;

fn command(k: u32) -> Command {
    Command {
        opcode: Opcode::Send.code(),
        flags: 0,
        conn: (k % 16) as u16,
        tag: 0x1000 + k,
        addr: 0x7000_0000 + u64::from(k) * 64,
        len: k * 3,
        aux: u64::from(k) << 20,
    }
}

/// A host that submits `n` commands in random batches (one doorbell each) and reaps
/// completions by phase, returning them in the order it saw them.
fn run_host(b: &mut Bench, n: u32, sq_log2: u32, cq_log2: u32) -> Vec<Completion> {
    let (sq_size, q) = (1u32 << sq_log2, b.qp);
    let (mut prod, mut cq_cons, mut got) = (0u32, 0u32, Vec::new());
    let mut guard = 0;
    while got.len() < n as usize {
        guard += 1;
        assert!(guard < 20_000, "stuck: {} of {n} completions", got.len());
        let cons = b.read(q + qp::SQ_CONS).0;
        let room = sq_size - regs::ring_used(prod, cons);
        let batch = b.rng.gen_range(0..=room.min(n - prod));
        for _ in 0..batch {
            b.put_entry(sq_log2, prod, &command(prod).encode());
            prod += 1;
        }
        if batch > 0 {
            assert_eq!(b.write(q + qp::SQ_PROD, prod & 0xFFFF), hostif::RESP_OKAY);
        }
        let wait = b.rng.gen_range(0..30);
        b.idle(wait);
        // Reap by phase: the host reads memory, not a register.
        let mut reaped = 0;
        loop {
            let e = b.cq_entry(cq_log2, cq_cons);
            let (c, phase) = Completion::decode_cq(&e).expect("a completion entry decodes");
            if phase != regs::cq_phase(cq_cons, cq_log2 as u8) {
                break;
            }
            got.push(c);
            cq_cons += 1;
            reaped += 1;
        }
        if reaped > 0 {
            assert_eq!(b.write(q + qp::CQ_CONS, cq_cons & 0xFFFF), hostif::RESP_OKAY);
        }
    }
    got
}

#[test]
fn registers_describe_the_device_and_refuse_holes() {
    let mut b = Bench::new(1, 0.3);
    let found = regs::discover(&mut |off| {
        let (v, resp) = b.read(off);
        assert_eq!(resp, hostif::RESP_OKAY, "{off:#x}");
        v
    })
    .unwrap();
    assert_eq!(found.len(), 2 + usize::from(regs::QUEUE_PAIRS));
    for (off, v) in regs::id_values(&EngineParams::default(), &HostParams::default()) {
        assert_eq!(b.read(off), (v, hostif::RESP_OKAY), "ID register {off:#x}");
    }
    // A hole inside a block, and past the last block: SLVERR, counted, and nothing hangs.
    let last = *b.qps.last().unwrap();
    let holes = [
        0x34,
        regs::ID_BLOCK.bytes + 0x14,
        b.qp + 0x3C,
        last + 0x3C,
        last + regs::QUEUE_PAIR_BLOCK.bytes,
        regs::SPACE_BYTES - 4,
    ];
    for (k, off) in holes.into_iter().enumerate() {
        assert_eq!(b.read(off).1, hostif::RESP_SLVERR, "read {off:#x}");
        assert_eq!(b.write(off, 1), hostif::RESP_SLVERR, "write {off:#x}");
        assert_eq!(b.h.count(cnt::BAD_REGISTER), 2 * (k as u32 + 1));
    }
    // Writes to read-only registers are ignored, answered OKAY.
    assert_eq!(b.write(regs::id::CONNECTIONS, 99), hostif::RESP_OKAY);
    assert_eq!(b.read(regs::id::CONNECTIONS).0, u32::from(EngineParams::default().connections));
}

#[test]
fn the_counter_block_reads_the_engines_banks_and_its_own() {
    let mut b = Bench::new(2, 0.0);
    let base = regs::ID_BLOCK.bytes;
    // Bank 1 (pool manager), counter 5: the engine's port, which echoes the index here.
    assert_eq!(b.write(base + regs::cnt::INDEX, (1 << 5) | 5), hostif::RESP_OKAY);
    assert_eq!(b.read(base + regs::cnt::DATA).0, 0xC000_0000 | (1 << 5) | 5);
    // Bank 3: this block's own. Two bad accesses, then read the counter.
    b.read(0x3C);
    b.write(0x3C, 0);
    b.write(base + regs::cnt::INDEX, (u32::from(hostif::CNT_BANK) << 5) | cnt::BAD_REGISTER as u32);
    assert_eq!(b.read(base + regs::cnt::DATA).0, 2);
}

#[test]
fn every_command_reaches_the_engine_once_and_every_completion_lands_once() {
    for (seed, sq_log2, cq_log2, stall) in
        [(3, 2, 2, 0.0), (4, 1, 3, 0.4), (5, 4, 1, 0.3), (6, 3, 3, 0.6)]
    {
        let mut b = Bench::new(seed, stall);
        b.setup(sq_log2, cq_log2);
        let n = 200;
        let got = run_host(&mut b, n, sq_log2, cq_log2);
        let want: Vec<Command> = (0..n).map(command).collect();
        assert_eq!(b.took, want, "seed {seed}: the engine sees every command once, in order");
        let want_cpl: Vec<Completion> = want.iter().map(|c| Completion::of(c, Ok(c.len))).collect();
        assert_eq!(got, want_cpl, "seed {seed}: every completion once, in order");
        assert_eq!(b.h.count(cnt::FETCHED), n);
        assert_eq!(b.h.count(cnt::COMPLETED), n);
        // Each completion is two beats, the second `tlast`, at consecutive addresses.
        assert_eq!(b.cq_writes.len(), 2 * n as usize);
        for w in b.cq_writes.chunks(2) {
            assert_eq!((w[0].2, w[1].2, w[1].0), (false, true, w[0].0 + 8));
        }
        assert_eq!(b.read(b.qp + qp::SQ_CONS).0, n);
        assert_eq!(b.read(b.qp + qp::CQ_PROD).0, n);
        assert_eq!(b.h.count(cnt::BAD_ENTRY) + b.h.count(cnt::DOORBELL_BEYOND_RING), 0);
    }
}

#[test]
fn a_doorbell_exactly_a_ring_ahead_runs_and_one_past_stops_the_ring() {
    let mut b = Bench::new(7, 0.2);
    b.setup(2, 3);
    let q = b.qp;
    for k in 0..4 {
        b.put_entry(2, k, &command(k).encode());
    }
    assert_eq!(b.write(q + qp::SQ_PROD, 4), hostif::RESP_OKAY, "a full ring");
    b.idle(200);
    assert_eq!(b.took.len(), 4);
    // Consumer at 4: a doorbell at 9 is 5 ahead of a 4-entry ring.
    assert_eq!(b.write(q + qp::SQ_PROD, 9), hostif::RESP_OKAY);
    b.idle(100);
    assert_eq!(b.took.len(), 4, "nothing fetched past the bad doorbell");
    let ctrl = b.read(q + qp::SQ_CTRL).0;
    assert_eq!(ctrl, qp::CTRL_ENABLE | qp::CTRL_ERR_DOORBELL);
    assert_eq!(b.h.count(cnt::DOORBELL_BEYOND_RING), 1);
    // Further doorbells are ignored until the ring is reset by disabling it.
    b.write(q + qp::SQ_PROD, 5);
    b.idle(50);
    assert_eq!(b.took.len(), 4);
    b.write(q + qp::SQ_CTRL, 0);
    assert_eq!(b.read(q + qp::SQ_CTRL).0, 0);
    assert_eq!((b.read(q + qp::SQ_PROD).0, b.read(q + qp::SQ_CONS).0), (0, 0));
    b.write(q + qp::SQ_CTRL, qp::CTRL_ENABLE);
    b.put_entry(2, 0, &command(40).encode());
    b.write(q + qp::SQ_PROD, 1);
    b.idle(100);
    assert_eq!(b.took.last(), Some(&command(40)), "the ring runs again");
}

#[test]
fn bad_entries_complete_with_their_tag_and_are_counted() {
    let mut b = Bench::new(8, 0.2);
    b.setup(3, 3);
    let q = b.qp;
    let good = command(1);
    let mut reserved = command(2).encode();
    reserved[21] = 0x10; // the reserved word
    let mut flags = command(3).encode();
    flags[1] = 1;
    let unknown = Command { opcode: 42, ..command(4) };
    for (k, e) in [good.encode(), reserved, flags, unknown.encode()].iter().enumerate() {
        b.put_entry(3, k as u32, e);
    }
    b.write(q + qp::SQ_PROD, 4);
    b.idle(300);
    let c2 = Command::decode_unchecked(&reserved);
    let c3 = Command::decode_unchecked(&flags);
    assert_eq!(
        b.took,
        [
            good,
            Command { opcode: 0, flags: 0, ..c2 },
            Command { opcode: 0, flags: 0, ..c3 },
            unknown
        ],
        "bad entries go on as opcode 0 (the engine refuses them with their tag); an unknown \
         opcode goes on as it is"
    );
    assert_eq!(b.h.count(cnt::BAD_ENTRY), 2);
    assert_eq!(b.h.count(cnt::FETCHED), 4);
}

#[test]
fn a_full_completion_ring_holds_the_engine_back_and_loses_nothing() {
    let mut b = Bench::new(9, 0.1);
    b.setup(3, 1); // completion ring of 2
    let q = b.qp;
    for k in 0..6 {
        b.put_entry(3, k, &command(k).encode());
    }
    b.write(q + qp::SQ_PROD, 6);
    b.idle(300);
    assert_eq!(b.took.len(), 6);
    assert_eq!(b.read(q + qp::CQ_PROD).0, 2, "two slots, two completions");
    assert_eq!(b.owed.len(), 4, "the rest wait in the engine");
    // Returning entries one at a time lets one more in each time; the phase flips per lap.
    for k in 2..=6u32 {
        b.write(q + qp::CQ_CONS, k - 1);
        b.idle(100);
        let prod = b.read(q + qp::CQ_PROD).0;
        assert_eq!(prod, (k + 1).min(6), "one more per entry returned");
        let (c, phase) = Completion::decode_cq(&b.cq_entry(1, prod - 1)).unwrap();
        assert_eq!(c.tag, command(prod - 1).tag);
        assert_eq!(phase, regs::cq_phase(prod - 1, 1));
    }
    // cq_cons past cq_prod: ignored, counted.
    let prod = b.read(q + qp::CQ_PROD).0;
    b.write(q + qp::CQ_CONS, prod + 1);
    assert_eq!(b.h.count(cnt::BAD_CQ_CONS), 1);
    assert_ne!(b.read(q + qp::CQ_CONS).0, prod + 1);
}

#[test]
fn an_armed_ring_raises_one_event() {
    let mut b = Bench::new(10, 0.0);
    b.setup(3, 3);
    let q = b.qp;
    b.write(q + qp::CQ_CTRL, qp::CTRL_ENABLE | qp::CTRL_ARM);
    assert_eq!(b.read(q + qp::CQ_CTRL).0, qp::CTRL_ENABLE | qp::CTRL_ARM);
    for k in 0..3 {
        b.put_entry(3, k, &command(k).encode());
    }
    b.write(q + qp::SQ_PROD, 3);
    b.idle(200);
    assert_eq!(b.read(q + qp::CQ_PROD).0, 3);
    assert_eq!(b.events, 1, "one event for the first completion, then disarmed");
    assert_eq!(b.read(q + qp::CQ_CTRL).0, qp::CTRL_ENABLE);
    b.write(q + qp::CQ_CTRL, qp::CTRL_ENABLE | qp::CTRL_ARM);
    b.put_entry(3, 3, &command(3).encode());
    b.write(q + qp::SQ_PROD, 4);
    b.idle(100);
    assert_eq!(b.events, 2, "re-armed: one more");
}

#[test]
fn disabling_the_submission_ring_mid_fetch_drops_the_fetch_cleanly() {
    let mut b = Bench::new(11, 0.7);
    b.setup(3, 3);
    let q = b.qp;
    for k in 0..8 {
        b.put_entry(3, k, &command(k).encode());
    }
    b.write(q + qp::SQ_PROD, 8);
    b.write(q + qp::SQ_CTRL, 0);
    b.idle(300);
    let before = b.took.len();
    assert!(before < 8, "the disable came before every entry arrived (stall 0.7)");
    assert!(b.reads.is_empty(), "every beat requested was taken");
    assert_eq!((b.read(q + qp::SQ_PROD).0, b.read(q + qp::SQ_CONS).0), (0, 0));
    // Re-enabled, the ring starts from slot 0 again.
    b.write(q + qp::SQ_CTRL, qp::CTRL_ENABLE);
    b.put_entry(3, 0, &command(77).encode());
    b.write(q + qp::SQ_PROD, 1);
    b.idle(300);
    assert_eq!(&b.took[before..], [command(77)]);
}

/// Command `k` of queue pair `q`: its tag names both.
fn qp_command(q: usize, k: u32) -> Command {
    Command { tag: (q as u32) << 20 | k, conn: q as u16, ..command(k) }
}

#[test]
fn queue_pairs_are_served_in_turn_and_each_gets_its_own_completions() {
    for (seed, stall) in [(20, 0.0), (21, 0.4)] {
        let mut b = Bench::new(seed, stall);
        let nq = b.qps.len();
        assert!(nq >= 2, "the default host interface has several queue pairs");
        let (log2, n) = (5u32, 24u32);
        for q in 0..nq {
            b.setup_qp(q, log2, log2);
            for k in 0..n {
                b.put_entry_qp(q, log2, k, &qp_command(q, k).encode());
            }
        }
        // Every doorbell rung before the first fetch can start (one write each).
        for q in 0..nq {
            assert_eq!(b.write(b.qps[q] + qp::SQ_PROD, n), hostif::RESP_OKAY);
        }
        b.idle(3_000);
        assert_eq!(b.took.len(), nq * n as usize, "seed {seed}: every command reached the engine");
        for q in 0..nq {
            // The engine sees each queue pair's commands in order, the queue pair's number in
            // the tag's top bits.
            let seen: Vec<Command> =
                b.took.iter().filter(|c| (c.tag >> TAG_QP_SHIFT) as usize == q).copied().collect();
            let want: Vec<Command> = (0..n)
                .map(|k| {
                    let c = qp_command(q, k);
                    Command { tag: c.tag | (q as u32) << TAG_QP_SHIFT, ..c }
                })
                .collect();
            assert_eq!(seen, want, "seed {seed}: queue pair {q}'s commands");
            // Its completion ring holds exactly its completions, in order, tags as submitted.
            let got: Vec<Completion> = (0..n)
                .map(|k| {
                    let (c, phase) = Completion::decode_cq(&b.cq_entry_qp(q, log2, k)).unwrap();
                    assert!(phase, "first lap");
                    c
                })
                .collect();
            let want: Vec<Completion> =
                (0..n).map(|k| qp_command(q, k)).map(|c| Completion::of(&c, Ok(c.len))).collect();
            assert_eq!(got, want, "seed {seed}: queue pair {q}'s completion ring");
            assert_eq!(b.read(b.qps[q] + qp::CQ_PROD).0, n);
        }
        // Round robin: while every ring has entries, each run of as many bursts as there are
        // queue pairs serves each of them once (downwards from the last one served).
        let bursts: Vec<usize> =
            b.took.iter().map(|c| (c.tag >> TAG_QP_SHIFT) as usize).fold(Vec::new(), |mut v, q| {
                if v.last() != Some(&q) {
                    v.push(q);
                }
                v
            });
        assert!(bursts.len() >= 3 * nq, "bursts of at most {} entries", hostif::FETCH_BURST);
        for w in bursts.windows(2) {
            assert_eq!(w[1], (w[0] + nq - 1) % nq, "seed {seed}: bursts {bursts:?}");
        }
    }
}

#[test]
fn a_completion_for_no_queue_pair_is_dropped_and_counted() {
    let mut b = Bench::new(22, 0.0);
    for q in 0..b.qps.len() {
        b.setup_qp(q, 3, 3);
    }
    let stray = Completion { tag: 7 << TAG_QP_SHIFT | 5, ..Completion::default() };
    let last = Completion { tag: ((b.qps.len() as u32 - 1) << TAG_QP_SHIFT) | 6, ..stray };
    b.owed.push_back((0, stray));
    b.owed.push_back((0, last));
    b.idle(50);
    assert!(b.owed.is_empty(), "both taken");
    assert_eq!(b.h.count(cnt::BAD_CPL_QP), 1);
    assert_eq!(b.h.count(cnt::COMPLETED), 1, "the last queue pair's one is written");
    let q = b.qps.len() - 1;
    let (c, _) = Completion::decode_cq(&b.cq_entry_qp(q, 3, 0)).unwrap();
    assert_eq!(c.tag, 6, "its queue pair's bits cleared");
    for k in 0..q {
        assert_eq!(b.read(b.qps[k] + qp::CQ_PROD).0, 0);
    }
}

#[test]
fn each_queue_pair_arms_its_own_event_and_a_full_ring_holds_only_what_goes_to_it() {
    let mut b = Bench::new(23, 0.0);
    let nq = b.qps.len();
    for q in 0..nq {
        b.setup_qp(q, 2, 1);
    }
    let last = nq - 1;
    b.write(b.qps[last] + qp::CQ_CTRL, qp::CTRL_ENABLE | qp::CTRL_ARM);
    // Queue pair 0 submits 4 commands into a completion ring of 2 it does not reap; the last
    // queue pair submits 2.
    for k in 0..4 {
        b.put_entry_qp(0, 2, k, &qp_command(0, k).encode());
    }
    for k in 0..2 {
        b.put_entry_qp(last, 2, k, &qp_command(last, k).encode());
    }
    b.write(b.qps[0] + qp::SQ_PROD, 4);
    b.write(b.qps[last] + qp::SQ_PROD, 2);
    b.idle(400);
    assert_eq!(b.took.len(), 6);
    assert_eq!(b.read(b.qps[0] + qp::CQ_PROD).0, 2, "queue pair 0's ring is full");
    // Queue pair 0's third completion waits at the head of the engine's stream; the last
    // queue pair's, behind it, wait too (documented), and nothing is lost.
    assert_eq!(b.read(b.qps[last] + qp::CQ_PROD).0, 0);
    assert_eq!(b.events, 0);
    b.write(b.qps[0] + qp::CQ_CONS, 2);
    b.idle(200);
    assert_eq!(b.read(b.qps[0] + qp::CQ_PROD).0, 4);
    assert_eq!(b.read(b.qps[last] + qp::CQ_PROD).0, 2);
    assert_eq!(b.events_by_qp[last], 1, "the armed queue pair's bit, once");
    assert_eq!(b.events, 1, "no other bit");
}
