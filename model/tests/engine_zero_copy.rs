//! The engine's zero-copy paths, in its cycle model: two engines over the cycle-level SAN
//! (whose RDMA requests only the target engine's registration table can grant) run the same
//! workloads as the sans-IO endpoint pair, in read mode and in write mode, and must give the
//! same outcome: every byte once and in order, every send completed with the status the
//! endpoints give, nothing held or registered at the end.

use sanswitch_model::blocks::engine::EngineModel;
use sanswitch_model::endpoint::Config;
use sanswitch_model::engine_pair::{EnginePair, PairConfig};
use sanswitch_model::params::EngineParams;
use sanswitch_model::workload::{Workload, run, run_on};

fn params(read: bool) -> EngineParams {
    EngineParams { rdma_threshold: 4096, rdma_read: read, ..EngineParams::default() }
}

fn workload(seed: u64, p: &EngineParams, sends: usize, max_size: usize) -> Workload {
    Workload {
        seed,
        connections: 2,
        sends,
        max_size,
        urgent_share: 0.05,
        rdma_read: [Some(p.rdma_read); 2],
        sends_outstanding: p.queue_depth as usize,
        recvs_outstanding: p.queue_depth as usize - 1,
        // Receives large enough that most large sends land in them zero-copy.
        recv_max: 256 * 1024,
        endpoint: Config::for_engine(p),
        ..Workload::default()
    }
}

fn no_leaks(pair: &mut EnginePair<EngineModel>, what: &str) {
    let l = pair.leaks_when_quiet(2_000);
    assert!(l.is_empty(), "{what}: the engines hold {l:#?}");
}

/// Runs `w` on the sans-IO pair and on two engine models; returns the pair.
fn differential(w: &Workload, cfg: PairConfig) -> EnginePair<EngineModel> {
    let what = format!("seed {} read {}", w.seed, cfg.params.rdma_read);
    let reference = run(w, &mut |_, _| {});
    assert!(reference.intact, "{what}: sans-IO: {:?}", reference.problems);
    let mut pair = EnginePair::models(cfg);
    let got = run_on(w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
    assert!(got.intact, "{what}: engines: {:?}", got.problems);
    no_leaks(&mut pair, &what);
    for (a, b) in got.directions.iter().zip(&reference.directions) {
        assert_eq!(a.send_statuses, b.send_statuses, "{what}: send statuses");
        assert_eq!(a.bytes_received, b.bytes_received, "{what}");
        assert_eq!(a.urgent_bytes_received, b.urgent_bytes_received, "{what}");
    }
    eprintln!(
        "{what}: {} cycles, {} SAN beats, RDMA requests {:?}, bytes {:?}",
        pair.cycle,
        pair.san_beats[0] + pair.san_beats[1],
        pair.fabric.rdma_requests,
        pair.fabric.rdma_bytes
    );
    pair
}

#[test]
fn read_mode_moves_large_sends_by_rdma_read() {
    for seed in 0..6 {
        let p = params(true);
        let w = workload(seed, &p, 12, 100_000);
        let pair = differential(&w, PairConfig { params: p, seed, ..PairConfig::default() });
        assert!(
            pair.fabric.rdma_bytes.iter().sum::<u64>() > 0,
            "seed {seed}: some bytes went by RDMA"
        );
    }
}

#[test]
fn write_mode_moves_large_sends_by_rdma_write() {
    for seed in 0..6 {
        let p = params(false);
        let w = workload(100 + seed, &p, 12, 100_000);
        let pair = differential(&w, PairConfig { params: p, seed, ..PairConfig::default() });
        assert!(
            pair.fabric.rdma_bytes.iter().sum::<u64>() > 0,
            "seed {seed}: some bytes went by RDMA"
        );
    }
}

/// RDMA requests failing on the SAN: a failed read makes the receiver answer SendByCopy, a
/// failed write makes the sender send WriteComplete{0}; either way the rest goes as Data,
/// and every send still completes whole, as the endpoints' do without faults.
#[test]
fn rdma_errors_fall_back_to_copy() {
    for (k, read) in [(0, true), (1, false), (2, true), (3, false)] {
        let p = params(read);
        let w = workload(200 + k, &p, 12, 100_000);
        let cfg = PairConfig { params: p, seed: k, rdma_errors: 0.2, ..PairConfig::default() };
        let pair = differential(&w, cfg);
        assert!(pair.fabric.rdma_failed > 0, "read {read}: some requests failed");
    }
}

/// Made-up RDMA requests on the SAN while real transfers run: each engine's check port
/// denies them (random keys), and nothing of the hosts' memory is touched for them.
#[test]
fn made_up_rdma_requests_are_denied() {
    for read in [true, false] {
        let p = params(read);
        let w = workload(300 + read as u64, &p, 12, 100_000);
        let cfg = PairConfig { params: p, seed: 7, junk_rdma: 0.01, ..PairConfig::default() };
        let pair = differential(&w, cfg);
        assert!(pair.fabric.rdma_junk > 50, "{}", pair.fabric.rdma_junk);
        assert!(
            pair.fabric.rdma_denied >= pair.fabric.rdma_junk,
            "{} of {}",
            pair.fabric.rdma_denied,
            pair.fabric.rdma_junk
        );
    }
}

/// Aborts while transfers run: the aborted connection stops (the checker accepts what an
/// abort loses), the other one matches the endpoints exactly; every RDMA access stays inside
/// what the hosts lent (no late read response lands in a receive already handed back),
/// nothing leaks.
#[test]
fn abort_mid_transfer() {
    use sanswitch_model::fabric::AbortAt;
    use sanswitch_model::workload::Backend;
    for seed in 0..8u64 {
        let p = params(seed % 4 < 2);
        let mut w = workload(400 + seed, &p, 16, 100_000);
        let abort = AbortAt { conn: 0, node: (seed % 2) as usize, after_messages: 6 + 5 * seed };
        w.fabric.faults.abort = Some(abort);
        let reference = run(&w, &mut |_, _| {});
        assert!(reference.intact, "sans-IO: {:?}", reference.problems);
        let cfg = PairConfig { params: p, seed, abort: Some(abort), ..PairConfig::default() };
        let mut pair = EnginePair::models(cfg);
        let got = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
        assert!(got.intact, "seed {seed}: {:?}", got.problems);
        no_leaks(&mut pair, &format!("seed {seed}"));
        assert!(pair.aborted(0, abort.node), "seed {seed}: the abort fired");
        for (a, b) in got.directions.iter().zip(&reference.directions).filter(|(a, _)| a.conn == 1)
        {
            assert_eq!(a.send_statuses, b.send_statuses, "seed {seed}: conn 1 send statuses");
            assert_eq!(a.bytes_received, b.bytes_received, "seed {seed}: conn 1 bytes");
        }
        eprintln!("seed {seed}: {:?}, RDMA bytes {:?}", got.completions, pair.fabric.rdma_bytes);
    }
}

/// A registration table of two entries for four busy connections: a send whose source
/// finds the table full completes with WSAENOBUFS (nothing of it sent; the checker counts
/// each against a failed registration of that send), a receiver that cannot register its
/// landing region answers SendByCopy and takes the rest as Data. Every other byte arrives,
/// nothing leaks.
#[test]
fn registration_table_full() {
    for read in [true, false] {
        let p = EngineParams { reg_entries: 2, ..params(read) };
        let mut w = workload(500 + read as u64, &p, 16, 100_000);
        w.connections = 4;
        w.urgent_share = 0.0;
        let mut pair =
            EnginePair::models(PairConfig { params: p, seed: 5, ..PairConfig::default() });
        let got = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
        assert!(got.intact, "read {read}: {:?}", got.problems);
        no_leaks(&mut pair, &format!("read {read}"));
        let nobufs = got.completions.get("WSAENOBUFS").copied().unwrap_or(0);
        eprintln!("read {read}: {:?}, RDMA bytes {:?}", got.completions, pair.fabric.rdma_bytes);
        assert!(nobufs > 0, "read {read}: some sends found the table full");
        assert!(
            pair.fabric.rdma_bytes.iter().sum::<u64>() > 0,
            "read {read}: others went zero-copy"
        );
        use sanswitch_model::workload::Backend;
        let by_copy: u64 = (0..4)
            .flat_map(|c| (0..2).map(move |n| (c, n)))
            .map(|(c, n)| pair.stats(c, n).msgs_sent.get("SendByCopy").copied().unwrap_or(0))
            .sum();
        assert!(by_copy > 0, "read {read}: some receivers found the table full");
    }
}

/// The engine's counter read port reaches every block's bank: after a zero-copy workload
/// with made-up RDMA requests and RDMA errors, reading each counter of the parser, the pool
/// manager and the sequencer through the port gives the bank's value, one cycle later; a
/// block past them reads 0.
#[test]
fn counter_port_reads_every_block() {
    use sanswitch_model::blocks::engine::{EngineIn, cnt_block};
    use sanswitch_model::ports::CycleModel;
    let p = params(true);
    let w = workload(600, &p, 8, 60_000);
    let cfg = PairConfig {
        params: p,
        seed: 3,
        junk_rdma: 0.01,
        rdma_errors: 0.1,
        ..PairConfig::default()
    };
    let pair = differential(&w, cfg);
    for n in 0..2 {
        let mut e = pair.engine(n).clone();
        let mut seen = 0;
        for (blk, count) in [
            (cnt_block::PARSER, sanswitch_model::blocks::parser::COUNTERS),
            (cnt_block::POOL, sanswitch_model::blocks::pool::status::COUNT),
            (cnt_block::SEQUENCER, sanswitch_model::blocks::sequencer::cnt::COUNT),
            (5, 4),
        ] {
            for k in 0..count {
                let i = EngineIn { cnt_rd_index: blk << 5 | k as u8, ..EngineIn::default() };
                e.clock(&i);
                let got = e.outputs(&EngineIn::default()).cnt_rd_data;
                let want = match blk {
                    cnt_block::PARSER => e.parser.counters.get(k),
                    cnt_block::POOL => e.pool.counters.get(k),
                    cnt_block::SEQUENCER => e.seq.cnt.get(k),
                    _ => 0,
                };
                assert_eq!(got, want, "node {n}: block {blk} counter {k}");
                seen += (got > 0) as u32;
            }
        }
        assert!(seen >= 4, "node {n}: the counters counted something");
    }
}

/// The receiving application closes its socket while a write-mode transfer is landing in
/// its posted receive: the close is abortive (a graceful close would hand that receive back
/// while the peer may still write into it), the landing region is released before the
/// receive is, the peer's later writes are denied, and no byte lands outside what the host
/// lent; nothing leaks.
#[test]
fn close_while_a_transfer_lands() {
    use sanswitch_model::blocks::engine::controller::RxX;
    use sanswitch_model::endpoint::Event;
    use sanswitch_model::workload::Backend;
    let p = params(false);
    let mut pair = EnginePair::models(PairConfig { params: p, ..PairConfig::default() });
    pair.connect([Config::default(), Config::default()]);
    while pair.step() {}
    pair.app(0, 1, Event::AppRecv { req: 1, max: 64 * 1024 });
    for _ in 0..200 {
        pair.cycle();
    }
    pair.app(0, 0, Event::AppSend { req: 2, data: vec![5; 30_000], urgent: false });
    let mut waited = 0;
    // The inline bytes delivered (nothing held: a close would be abortive for that alone).
    while pair.engine(1).ctl.conns[0].rx_x != RxX::AwaitWrite
        || pair.engine(1).ctl.conns[0].rx_inline_due
    {
        pair.cycle();
        waited += 1;
        assert!(waited < 10_000, "the sink was never announced");
    }
    pair.app(0, 1, Event::AppClose);
    while pair.step() {}
    let outs = pair.take_outputs();
    assert!(pair.problems().is_empty(), "{:?}", pair.problems());
    assert!(
        pair.fabric.rdma_denied > 0 || pair.fabric.rdma_bytes[1] == 0,
        "writes after the close were denied"
    );
    eprintln!("{outs:?}");
    for n in 0..2 {
        let l = pair.engine(n).leaks();
        assert!(l.is_empty(), "node {n}: {l:#?}");
    }
}

/// Temporary-memory failures (the engines' `fault_nomem` input, high in a fifth of the
/// cycles): a send whose source registration fails completes with WSAENOBUFS and its bytes
/// are not delivered; a receiver whose landing registration fails answers SendByCopy and
/// the bytes come as Data. The checker holds every WSAENOBUFS to a failed registration of
/// the send's source; here each engine's own count of failed registrations (its sequencer's
/// NOBUFS counter) must cover the sends its host saw fail, and nothing leaks.
#[test]
fn temporary_memory_failures() {
    use sanswitch_model::blocks::sequencer::cnt;
    use sanswitch_model::workload::Backend;
    for read in [true, false] {
        let p = params(read);
        let w = workload(500 + read as u64, &p, 16, 100_000);
        let cfg = PairConfig { params: p, seed: 9, nomem: 0.2, ..PairConfig::default() };
        let mut pair = EnginePair::models(cfg);
        let got = run_on(&w, &mut pair, &mut |_, _| {}, &mut |_, _, _| {});
        assert!(got.intact, "read {read}: {:?}", got.problems);
        let mut nobufs = [0u64; 2];
        for d in &got.directions {
            nobufs[d.from] += pair.stats(d.conn, d.from).send_reg_failures;
        }
        for (n, &failed_sends) in nobufs.iter().enumerate() {
            let failed_regs = pair.engine(n).seq.cnt.get(cnt::NOBUFS) as u64;
            assert!(
                failed_sends <= failed_regs,
                "read {read} node {n}: {failed_sends} sends failed, {failed_regs} registrations"
            );
        }
        assert!(nobufs.iter().sum::<u64>() > 0, "read {read}: some sends failed: {nobufs:?}");
        no_leaks(&mut pair, &format!("read {read}"));
        eprintln!("read {read}: WSAENOBUFS sends {nobufs:?}, {} cycles", pair.cycle);
    }
}
