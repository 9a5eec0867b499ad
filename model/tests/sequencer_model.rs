//! The sequencer's cycle model with the SAN port model: commands, transfers in both modes at
//! the boundary sizes (with the data checked), the registration table, remote-access checks,
//! faults and aborts, the performance budgets, a long random run, and agreement with the
//! endpoint model on the RDMA operations and completion messages of the same transfer.

/// A predicate on messages.
type MessageTest = fn(&Message) -> bool;

use std::collections::{BTreeMap, VecDeque};

use sanswitch_model::blocks::san::{RemoteRegion, SanConfig, SanIn, SanModel, SanRequest};
use sanswitch_model::blocks::sequencer::{
    SequencerIn, SequencerModel, SequencerOut, access, cmd, cnt, fault, rsp_status, tag,
};
use sanswitch_model::blocks::sequencer_stimulus::{
    Check, Command, MIB, SeqDriver, model_figures, san_inputs,
};
use sanswitch_model::endpoint::{
    Access, Action, BufId, Config, Endpoint, Event, RdmaError, RegId, Role,
};
use sanswitch_model::params::SequencerParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_model::wire::{Descriptor, Frame, Message};

/// A completion request as the block emitted it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cpl {
    conn: u8,
    xfer: u32,
    bytes: u32,
    write: bool,
    status: u8,
}

/// The model joined to a SAN port, every output recorded.
struct Rig {
    m: SequencerModel,
    san: SanModel,
    cycle: u64,
    cpls: Vec<(u64, Cpl)>,
    checks: Vec<(u8, bool)>,
    /// Probability-free backpressure pattern on `m_axis_cpl_tready`: a cycle is ready when
    /// `cycle % cpl_every == 0`.
    cpl_every: u64,
}

impl Rig {
    fn new(p: SequencerParams, san: SanConfig) -> Rig {
        let mut r = Rig {
            m: SequencerModel::new(p),
            san: SanModel::new(san),
            cycle: 0,
            cpls: Vec::new(),
            checks: Vec::new(),
            cpl_every: 1,
        };
        r.step(SequencerIn { reset: true, ..SequencerIn::default() });
        r
    }

    fn ideal(p: SequencerParams) -> Rig {
        let mut c = SanConfig::ideal(p.san_latency);
        c.memory = true;
        c.record = true;
        Rig::new(p, c)
    }

    /// One cycle: `i` plus the SAN's outputs and default readiness.
    fn step(&mut self, mut i: SequencerIn) -> SequencerOut {
        let s = self.san.outputs(&SanIn::default());
        i.m_axis_rq_tready = s.m_axis_rq_tready;
        i.s_axis_rs_tvalid = s.s_axis_rs_tvalid;
        i.s_axis_rs_tag = s.s_axis_rs_tag;
        i.s_axis_rs_status = s.s_axis_rs_status;
        let o = self.m.outputs(&i);
        if o.m_axis_cpl_tvalid && i.m_axis_cpl_tready {
            let c = Cpl {
                conn: o.m_axis_cpl_conn,
                xfer: o.m_axis_cpl_xfer,
                bytes: o.m_axis_cpl_bytes,
                write: o.m_axis_cpl_write,
                status: o.m_axis_cpl_status,
            };
            self.cpls.push((self.cycle, c));
        }
        if o.m_axis_ck_tvalid && i.m_axis_ck_tready {
            self.checks.push((o.m_axis_ck_reason, o.m_axis_ck_grant));
        }
        self.m.clock(&i);
        self.san.clock(&san_inputs(&o));
        self.cycle += 1;
        o
    }

    fn idle_in(&self) -> SequencerIn {
        SequencerIn {
            m_axis_rsp_tready: true,
            m_axis_cpl_tready: self.cycle % self.cpl_every == 0,
            m_axis_ck_tready: true,
            ..SequencerIn::default()
        }
    }

    /// Offer a command until taken; return its response.
    fn command(&mut self, c: Command) -> SequencerOut {
        let mut taken = false;
        for _ in 0..1000 {
            let mut i = self.idle_in();
            if !taken {
                c.drive(&mut i);
            }
            let o = self.step(i);
            taken |= o.s_axis_cmd_tready;
            if taken && o.m_axis_rsp_tvalid && !o.s_axis_cmd_tready {
                // m_axis_rsp_tvalid shows in the cycle s_axis_cmd_tready rises again; keep stepping until then
            }
            if taken && o.m_axis_rsp_tvalid && o.s_axis_cmd_tready {
                return o;
            }
        }
        panic!("command {c:?} not answered");
    }

    fn register(&mut self, conn: u8, acc: u8, addr: u64, len: u32) -> u32 {
        let o = self.command(Command::register(conn, acc, addr, len));
        assert_eq!(o.m_axis_rsp_status, rsp_status::OK, "{o:?}");
        assert_eq!(
            (o.m_axis_rsp_op, o.m_axis_rsp_conn, o.m_axis_rsp_len),
            (cmd::REGISTER, conn, len)
        );
        o.m_axis_rsp_key
    }

    /// Run until `n` completions have been recorded (or fail).
    fn run_until_cpls(&mut self, n: usize, max: u64) {
        for _ in 0..max {
            if self.cpls.len() >= n {
                return;
            }
            let i = self.idle_in();
            self.step(i);
        }
        panic!("only {} of {n} completions after {max} cycles", self.cpls.len());
    }

    fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            let i = self.idle_in();
            self.step(i);
        }
    }

    fn check(&mut self, c: Check) -> (u8, bool) {
        let n = self.checks.len();
        let mut taken = false;
        for _ in 0..100 {
            let mut i = self.idle_in();
            if !taken {
                c.drive(&mut i);
            }
            let o = self.step(i);
            taken |= o.s_axis_ac_tready;
            if self.checks.len() > n {
                return self.checks[n];
            }
        }
        panic!("check not answered");
    }
}

fn p() -> SequencerParams {
    SequencerParams::default()
}

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(29).wrapping_add(seed ^ (i >> 9) as u8)).collect()
}

/// One transfer of `len` bytes in either mode, with the data checked; returns the requests.
fn transfer(write: bool, len: u32, p: SequencerParams) -> (Vec<SanRequest>, Cpl) {
    let mut r = Rig::ideal(p);
    let (laddr, raddr) = (0x4000_0003u64, 0x9000_0005u64);
    let data = pattern(len as usize, 3);
    if write {
        r.san.local.write(laddr, &data);
    } else {
        r.san.remote.write(raddr, &data);
    }
    let lkey = r.register(2, access::LOCAL, laddr, len.max(1));
    let o = r.command(Command::start(write, 2, 0xABC, raddr, 0x77, len, lkey));
    assert_eq!(o.m_axis_rsp_status, rsp_status::OK);
    r.run_until_cpls(1, len as u64 + 10_000);
    let (dst, at) = if write { (&r.san.remote, raddr) } else { (&r.san.local, laddr) };
    assert_eq!(dst.read_vec(at, len as usize), data, "data moved, len {len}");
    assert_eq!(r.m.busy_ops(), 0);
    (r.san.log.clone(), r.cpls[0].1)
}

#[test]
fn transfers_at_the_boundary_sizes_in_both_modes() {
    let p = p();
    let s = p.segment;
    for write in [false, true] {
        for len in [0, 1, 7, 8, 9, s - 1, s, s + 1, 3 * s + 5, 9 * s] {
            let (reqs, c) = transfer(write, len, p);
            assert_eq!(c, Cpl { conn: 2, xfer: 0xABC, bytes: len, write, status: 0 });
            let want: Vec<(u64, u32)> = (0..len.div_ceil(s))
                .map(|k| (k as u64 * s as u64, u32::min(s, len - k * s)))
                .collect();
            let got: Vec<(u64, u32)> =
                reqs.iter().map(|q| (q.raddr - 0x9000_0005, q.len)).collect();
            assert_eq!(got, want, "segments of {len} bytes, write {write}");
            for (k, q) in reqs.iter().enumerate() {
                assert_eq!(q.laddr - 0x4000_0003, q.raddr - 0x9000_0005, "same offset both sides");
                assert_eq!((q.write, q.conn, q.rkey), (write, 2, 0x77));
                assert_eq!(tag::seq(q.tag), k as u8);
            }
        }
    }
}

#[test]
fn a_one_mib_transfer_moves_every_byte_in_both_modes() {
    for write in [false, true] {
        let (reqs, c) = transfer(write, MIB, p());
        assert_eq!((c.bytes, c.status), (MIB, 0));
        assert_eq!(reqs.len(), 256);
    }
}

#[test]
fn performance_budgets_hold_with_an_ideal_san() {
    let f = model_figures(&p()).unwrap();
    eprintln!("{f:#?}");
    assert!(f.read_beats_per_cycle >= 0.95, "{f:?}");
    assert!(f.write_beats_per_cycle >= 0.95, "{f:?}");
    assert!(f.adv_to_read_cycles <= 8, "{f:?}");
    assert!(f.done_to_complete_cycles <= 8, "{f:?}");
    // The documented figures: 7 cycles from the REGISTER of the landing region to the first
    // request (3 for the REGISTER, 4 from START), 2 from the last response.
    assert_eq!((f.adv_to_read_cycles, f.start_to_read_cycles), (7, 4));
    assert_eq!(f.done_to_complete_cycles, 2);
    // The SAN model's pace apart from the sequencer's: with the window of 4 over a round
    // trip of ~20 cycles, 256 requests in 1,289 cycles.
    assert_eq!((f.issue_requests, f.issue_cycles), (256, 1289));
    assert_eq!(f.san_beats_per_cycle, 1.0);
    // Long latency, small window: still at the budget with a window that covers it.
    let q = SequencerParams { san_latency: 1000, window: 4, ..p() };
    let f = model_figures(&q).unwrap();
    assert!(f.read_beats_per_cycle >= 0.95 && f.write_beats_per_cycle >= 0.95, "{f:?}");
}

#[test]
fn window_bounds_the_requests_in_flight() {
    let p = SequencerParams { san_latency: 3000, ..p() };
    let mut r = Rig::ideal(p);
    let lkey = r.register(0, access::LOCAL, 0, MIB);
    r.command(Command::start(false, 0, 1, 0, 1, MIB, lkey));
    // With a long latency, exactly `window` requests go out before the first response.
    r.run(2000);
    assert_eq!(r.san.log.len(), p.window as usize);
    r.run_until_cpls(1, 400_000);
    assert_eq!(r.cpls[0].1.bytes, MIB);
}

#[test]
fn registration_table_full_and_nomem_answer_enobufs() {
    let p = SequencerParams { reg_entries: 4, ..p() };
    let mut r = Rig::ideal(p);
    let keys: Vec<u32> =
        (0..4).map(|k| r.register(k, access::REMOTE_READ, 0x1000 * k as u64, 64)).collect();
    assert_eq!(r.m.live_registrations(), 4);
    let o = r.command(Command::register(0, access::LOCAL, 0, 8));
    assert_eq!((o.m_axis_rsp_status, o.m_axis_rsp_key), (rsp_status::NOBUFS, 0));
    let mut c = Command::register(0, access::LOCAL, 0, 8);
    r.command(Command::deregister(1, keys[1]));
    c.nomem = true;
    assert_eq!(r.command(c).m_axis_rsp_status, rsp_status::NOMEM);
    assert_eq!(r.m.cnt.get(cnt::NOBUFS), 2);
    // Keys are never reused: the freed slot gets a new key.
    let k = r.register(0, access::LOCAL, 0, 8);
    assert_eq!(k & 3, keys[1] & 3);
    assert_ne!(k, keys[1]);
    let mut all = keys.clone();
    all.push(k);
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 5);
}

#[test]
fn deregister_refuses_stale_keys_other_connections_and_regions_in_use() {
    let mut r = Rig::ideal(p());
    let k = r.register(3, access::LOCAL, 0x100, 4 * MIB / 4);
    // Another connection's key, an unknown key.
    assert_eq!(r.command(Command::deregister(4, k)).m_axis_rsp_status, rsp_status::STALE);
    assert_eq!(r.command(Command::deregister(3, k ^ 0x100)).m_axis_rsp_status, rsp_status::STALE);
    // In use by a transfer.
    r.command(Command::start(true, 3, 9, 0, 1, MIB, k));
    assert_eq!(r.command(Command::deregister(3, k)).m_axis_rsp_status, rsp_status::BUSY);
    r.run_until_cpls(1, 300_000);
    let o = r.command(Command::deregister(3, k));
    assert_eq!((o.m_axis_rsp_status, o.m_axis_rsp_key, o.m_axis_rsp_len), (rsp_status::OK, k, MIB));
    // Released: a second deregistration is stale.
    assert_eq!(r.command(Command::deregister(3, k)).m_axis_rsp_status, rsp_status::STALE);
    assert_eq!((r.m.cnt.get(cnt::DEREG_STALE), r.m.cnt.get(cnt::BUSY)), (3, 1));
}

#[test]
fn bad_descriptors_and_commands_are_refused_and_counted() {
    let mut r = Rig::ideal(p());
    let local = r.register(1, access::LOCAL, 0, 100);
    let rr = r.register(1, access::REMOTE_READ, 0, 100);
    let bad = [
        Command::start(false, 1, 0, 0, 0, 101, local), // longer than the region
        Command::start(false, 2, 0, 0, 0, 10, local),  // another connection's region
        Command::start(true, 1, 0, 0, 0, 10, rr),      // not a local registration
        Command::start(true, 1, 0, 0, 0, 10, local ^ 0x40), // unknown key
        Command::start(true, 16, 0, 0, 0, 10, local),  // connection out of range
        Command::register(1, 3, 0, 10),                // no such access
        Command::register(200, access::LOCAL, 0, 10),  // connection out of range
    ];
    for c in bad {
        assert_eq!(r.command(c).m_axis_rsp_status, rsp_status::BADDESC, "{c:?}");
    }
    let o = r.command(Command { op: 6, conn: 1, ..Command::default() });
    assert_eq!(o.m_axis_rsp_status, rsp_status::BADCMD);
    assert_eq!(r.m.cnt.get(cnt::BAD_DESC), 8);
    assert_eq!(r.san.log.len(), 0, "nothing moved");
    // The whole region is fine.
    assert_eq!(r.command(Command::start(false, 1, 0, 0, 0, 100, local)).m_axis_rsp_status, 0);
}

#[test]
fn op_table_full_answers_busy() {
    let p = SequencerParams { ops: 2, ..p() };
    let mut r = Rig::ideal(p);
    let k = r.register(0, access::LOCAL, 0, MIB);
    assert_eq!(r.command(Command::start(false, 0, 1, 0, 1, MIB, k)).m_axis_rsp_key, 0);
    assert_eq!(r.command(Command::start(true, 0, 2, 0, 1, MIB, k)).m_axis_rsp_key, 1);
    assert_eq!(
        r.command(Command::start(true, 0, 3, 0, 1, 8, k)).m_axis_rsp_status,
        rsp_status::BUSY
    );
    r.run_until_cpls(2, 600_000);
}

#[test]
fn remote_access_checks_name_each_reason_and_move_nothing_on_a_deny() {
    let mut r = Rig::ideal(p());
    let rd = r.register(5, access::REMOTE_READ, 0x1000, 4096);
    let wr = r.register(5, access::REMOTE_WRITE, 0x8000, 100);
    let lo = r.register(6, access::LOCAL, 0x9000, 100);
    let c = |conn, key, write, addr, len| Check { conn, key, write, addr, len };
    let (grant, bounds) = ((fault::OK, true), (fault::BOUNDS, false));
    assert_eq!(r.check(c(5, rd, false, 0x1000, 4096)), grant);
    assert_eq!(r.check(c(5, rd, false, 0x1000 + 4000, 96)), grant, "exactly at the end");
    assert_eq!(r.check(c(5, rd, false, 0x1000 + 4000, 97)), bounds, "one past the end");
    assert_eq!(r.check(c(5, rd, false, 0x1000, 1)), grant, "exactly at the base");
    assert_eq!(r.check(c(5, rd, false, 0xFFF, 1)), bounds, "one below the base");
    assert_eq!(r.check(c(5, rd, false, 0xFFF, 2)), bounds, "one below, ending inside");
    assert_eq!(r.check(c(5, rd, false, 0x2000, 0)), grant, "zero length at the end");
    assert_eq!(r.check(c(5, rd, false, 0x2001, 0)), bounds, "zero length one past");
    assert_eq!(r.check(c(5, rd, false, 0xFFF, 0)), bounds, "zero length one below");
    assert_eq!(r.check(c(5, rd, false, 0x1000, 0)), grant, "zero length at the base");
    assert_eq!(r.check(c(5, rd, false, 100, 4096)), bounds, "an offset passed as address");
    assert_eq!(r.check(c(5, rd, false, u64::MAX, 2)), bounds, "no wrap at 2^64");
    assert_eq!(r.check(c(5, wr, true, 0x8000 + 99, 1)), grant);
    assert_eq!(r.check(c(5, wr, true, 0x8000 + 100, 0)), grant);
    assert_eq!(r.check(c(5, rd ^ 0x100, false, 0x1000, 1)), (fault::BAD_KEY, false));
    assert_eq!(r.check(c(6, rd, false, 0x1000, 1)), (fault::CONNECTION, false));
    assert_eq!(r.check(c(5, rd, true, 0x1000, 1)), (fault::ACCESS, false));
    assert_eq!(r.check(c(5, wr, false, 0x8000, 1)), (fault::ACCESS, false));
    assert_eq!(r.check(c(6, lo, false, 0x9000, 1)), (fault::ACCESS, false));
    r.command(Command::deregister(5, rd));
    assert_eq!(r.check(c(5, rd, false, 0x1000, 1)), (fault::BAD_KEY, false));
    // A region ending exactly at 2^64: its end needs the 65th bit.
    let top = r.register(5, access::REMOTE_READ, u64::MAX - 99, 100);
    assert_eq!(r.check(c(5, top, false, u64::MAX - 99, 100)), grant, "ends at 2^64");
    assert_eq!(r.check(c(5, top, false, u64::MAX, 1)), grant, "the last byte");
    assert_eq!(r.check(c(5, top, false, u64::MAX, 2)), bounds, "past 2^64");
    assert_eq!(r.check(c(5, top, false, u64::MAX - 100, 1)), bounds, "one below");
    assert_eq!(
        (
            r.m.cnt.get(cnt::DENY_KEY),
            r.m.cnt.get(cnt::DENY_CONN),
            r.m.cnt.get(cnt::DENY_ACCESS),
            r.m.cnt.get(cnt::DENY_BOUNDS)
        ),
        (2, 1, 3, 9)
    );
    // The same through the read port: the index named in one cycle is read in the next.
    for k in 0..32u8 {
        let i = SequencerIn { cnt_rd_index: k, ..r.idle_in() };
        r.step(i);
        let o = r.step(r.idle_in());
        assert_eq!(o.cnt_rd_data, r.m.cnt.get(k as usize), "counter {k}");
    }
    assert_eq!(r.m.cnt.get(cnt::DENY_BOUNDS), 9);
}

#[test]
fn checks_back_to_back_under_backpressure_lose_nothing() {
    let mut r = Rig::ideal(p());
    let k = r.register(0, access::REMOTE_WRITE, 0, 1000);
    let mut sent = 0u32;
    let mut answers = Vec::new();
    for cyc in 0..400u32 {
        let mut i = r.idle_in();
        i.m_axis_ck_tready = cyc % 3 == 0;
        if sent < 100 {
            // Odd checks run past the region: the answers' order shows.
            let len = if sent % 2 == 1 { 1001 } else { 1 };
            Check { conn: 0, key: k, write: true, addr: sent as u64, len }.drive(&mut i);
        }
        let o = r.step(i);
        if o.m_axis_ck_tvalid && i.m_axis_ck_tready {
            answers.push(o.m_axis_ck_grant);
        }
        if i.s_axis_ac_tvalid && o.s_axis_ac_tready {
            sent += 1;
        }
    }
    assert_eq!(answers, (0..100).map(|k| k % 2 == 0).collect::<Vec<bool>>());
}

#[test]
fn an_error_response_fails_the_transfer_after_its_requests_in_flight() {
    let mut r = Rig::ideal(p());
    r.san.fail.insert(1); // the second request fails
    let k = r.register(0, access::LOCAL, 0, MIB);
    r.command(Command::start(false, 0, 42, 0, 1, 10 * 4096, k));
    r.run_until_cpls(1, 100_000);
    let (at, c) = r.cpls[0];
    assert_eq!(c, Cpl { conn: 0, xfer: 42, bytes: 0, write: false, status: fault::TRANSPORT });
    // Requests 0..=3 went out at once, 4 after the first response; none after the error.
    assert_eq!(r.san.log.len(), 5);
    // The completion waited for every request in flight.
    assert!(r.san.idle() && at > 4 * 512);
    assert_eq!(
        (r.m.cnt.get(cnt::RDMA_ERR), r.m.cnt.get(cnt::STALE), r.m.cnt.get(cnt::DUP)),
        (1, 0, 0)
    );
}

#[test]
fn stale_and_duplicate_responses_are_dropped_and_counted() {
    let mut r = Rig::ideal(p());
    let k = r.register(0, access::LOCAL, 0, MIB);
    r.command(Command::start(true, 0, 42, 0, 1, 2 * 4096, k));
    // Inject by hand: a response for a free slot, one with a wrong generation, and a
    // duplicate of the first segment after it was answered.
    let inject = |r: &mut Rig, t: u16| {
        let mut i = r.idle_in();
        let s = r.san.outputs(&SanIn::default());
        assert!(!s.s_axis_rs_tvalid, "keep the SAN quiet while injecting");
        i.m_axis_rq_tready = s.m_axis_rq_tready;
        i.s_axis_rs_tvalid = true;
        i.s_axis_rs_tag = t;
        let o = r.m.outputs(&i);
        r.m.clock(&i);
        r.san.clock(&san_inputs(&o));
        r.cycle += 1;
    };
    inject(&mut r, tag::make(3, 1, 0));
    inject(&mut r, tag::make(0, 7, 0));
    r.run(600); // the first segment's response is in
    inject(&mut r, tag::make(0, 1, 0));
    r.run_until_cpls(1, 10_000);
    assert_eq!(r.cpls[0].1.bytes, 2 * 4096);
    inject(&mut r, tag::make(0, 1, 1)); // after completion: stale
    r.run(3);
    assert_eq!((r.m.cnt.get(cnt::STALE), r.m.cnt.get(cnt::DUP)), (3, 1));
}

#[test]
fn abort_ends_every_transfer_of_the_connection_after_its_requests_and_releases_its_registrations() {
    let mut r = Rig::ideal(p());
    let a = r.register(7, access::LOCAL, 0, MIB);
    let b = r.register(7, access::REMOTE_READ, 0, 100);
    let other = r.register(8, access::LOCAL, 0, MIB);
    r.command(Command::start(false, 7, 1, 0, 1, MIB, a));
    r.command(Command::start(true, 7, 2, 0, 1, MIB, a));
    r.command(Command::start(true, 8, 3, 0, 1, 5000, other));
    r.run(100);
    assert_eq!(r.command(Command::abort(7)).m_axis_rsp_status, 0);
    r.run_until_cpls(3, 100_000);
    let mut got: Vec<(u32, u8, u32)> =
        r.cpls.iter().map(|c| (c.1.xfer, c.1.status, c.1.bytes)).collect();
    got.sort();
    assert_eq!(got, [(1, fault::ABORTED, 0), (2, fault::ABORTED, 0), (3, 0, 5000)]);
    assert_eq!(r.m.live_registrations(), 1);
    for k in [a, b] {
        assert_eq!(r.command(Command::deregister(7, k)).m_axis_rsp_status, rsp_status::STALE);
    }
    // The aborted transfers waited for their requests in flight: every response found its
    // transfer (none stale), so no data lands after a completion.
    r.run(5000);
    let o = r.m.outputs(&SequencerIn::default());
    assert_eq!(r.m.cnt.get(cnt::ABORTED), 2);
    assert_eq!(r.m.cnt.get(cnt::STALE), 0, "{o:?}");
    assert_eq!(r.m.busy_ops(), 0);
}

#[test]
fn completions_wait_for_a_stalled_output_and_none_is_lost() {
    let mut r = Rig::ideal(p());
    r.cpl_every = 97;
    let k = r.register(0, access::LOCAL, 0, MIB);
    for x in 0..4 {
        r.command(Command::start(x % 2 == 1, 0, x, 0, 1, 8 * x, k));
    }
    r.run_until_cpls(4, 10_000);
    let mut x: Vec<u32> = r.cpls.iter().map(|c| c.1.xfer).collect();
    x.sort();
    assert_eq!(x, [0, 1, 2, 3]);
}

/// Many random cycles of the model with the random driver: every transfer started ends with
/// exactly one completion, and the counters see every kind of event.
#[test]
fn random_run_exercises_every_path() {
    let p = p();
    let mut m = SequencerModel::new(p);
    let mut d = SeqDriver::new(99, p);
    m.clock(&SequencerIn { reset: true, ..SequencerIn::default() });
    let mut started = 0u64;
    for _ in 0..1_500_000 {
        let i = d.inputs();
        let o = m.outputs(&i);
        if o.m_axis_rsp_tvalid
            && i.m_axis_rsp_tready
            && o.m_axis_rsp_status == 0
            && (o.m_axis_rsp_op == cmd::START_READ || o.m_axis_rsp_op == cmd::START_WRITE)
        {
            started += 1;
        }
        m.clock(&i);
        d.observe(&i, &o);
    }
    let o = m.outputs(&SequencerIn::default());
    let s = &d.stats;
    eprintln!("{s:#?}\n{o:#?}\nSAN {:#?}", d.san.stats);
    let done: u64 = s.completions.iter().sum();
    assert!(started - done <= p.ops as u64, "{started} started, {done} completed");
    assert!(s.big_transfers >= 1, "{s:?}");
    assert!(s.completions[fault::OK as usize] > 1000, "{s:?}");
    assert!(s.completions[fault::ABORTED as usize] > 10, "{s:?}");
    assert!(s.completions[1..=6].iter().sum::<u64>() > 5, "RDMA errors: {s:?}");
    for k in 0..=6 {
        assert!(s.responses[k] > 0, "rsp status {k}: {s:?}");
    }
    for k in 0..=4 {
        assert!(s.checks[k] > 0, "reason {k}: {s:?}");
    }
    assert!(s.zero_length_ok > 0 && s.completions_read > 0 && s.completions_write > 0);
    assert!(
        m.cnt.get(cnt::STALE) > 0 && m.cnt.get(cnt::DUP) > 0 && m.cnt.get(cnt::RDMA_ERR) > 0,
        "{:?}",
        m.cnt
    );
}

// ------------------------------------------------------------------------------------------
// Agreement with the endpoint model.

/// Two endpoints joined by hand: messages delivered in order, registrations and RDMA answered
/// at once (in order), with the RDMA operations and every frame recorded.
struct Pair {
    ep: [Endpoint; 2],
    posted: [VecDeque<BufId>; 2],
    regions: BTreeMap<(usize, RegId), (Descriptor, Vec<u8>)>,
    by_key: BTreeMap<u32, (usize, RegId)>,
    next_key: u32,
    events: VecDeque<(usize, Event)>,
    /// RDMA operations issued: (node, write, remote offset, local offset, len).
    rdma: Vec<(usize, bool, u32, u32, u32)>,
    frames: Vec<(usize, Frame)>,
    /// Fail the n-th RDMA operation (in issue order).
    fail: Option<usize>,
    registered: Vec<(usize, Access, Descriptor)>,
}

impl Pair {
    fn new(cfg: Config, receiver_reads: bool) -> Pair {
        let c1 = Config { rdma_read: receiver_reads, ..cfg.clone() };
        let mut p = Pair {
            ep: [Endpoint::new(Role::Initiator, cfg), Endpoint::new(Role::Acceptor, c1)],
            posted: [VecDeque::new(), VecDeque::new()],
            regions: BTreeMap::new(),
            by_key: BTreeMap::new(),
            next_key: 100,
            events: VecDeque::new(),
            rdma: Vec::new(),
            frames: Vec::new(),
            fail: None,
            registered: Vec::new(),
        };
        for n in [1, 0] {
            let mut out = Vec::new();
            p.ep[n].start(&mut out);
            p.absorb(n, out);
        }
        p.run();
        p
    }

    fn absorb(&mut self, n: usize, out: Vec<Action>) {
        for a in out {
            match a {
                Action::PostRecv { buf } => self.posted[n].push_back(buf),
                Action::Send { buf, bytes, frame } => {
                    self.frames.push((n, frame));
                    self.events.push_back((n, Event::SendDone { buf }));
                    let to = 1 - n;
                    let b = self.posted[to].pop_front().expect("a posted buffer");
                    self.events.push_back((to, Event::MessageReceived { buf: b, bytes }));
                }
                Action::Register { reg, access, data } => {
                    let key = self.next_key;
                    self.next_key += 1;
                    let d =
                        Descriptor { addr: 0x10_0000 * key as u64, key, len: data.len() as u32 };
                    self.registered.push((n, access, d));
                    self.regions.insert((n, reg), (d, data));
                    self.by_key.insert(key, (n, reg));
                    self.events.push_back((n, Event::Registered { reg, result: Ok(d) }));
                }
                Action::Deregister { reg } => {
                    let (_, data) = self.regions.remove(&(n, reg)).expect("registered");
                    self.events.push_back((n, Event::Deregistered { reg, data }));
                }
                Action::RdmaRead { op, local, local_off, remote, remote_off, len } => {
                    self.rdma_op(n, false, op, local, local_off, remote, remote_off, len)
                }
                Action::RdmaWrite { op, local, local_off, remote, remote_off, len } => {
                    self.rdma_op(n, true, op, local, local_off, remote, remote_off, len)
                }
                _ => {}
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn rdma_op(
        &mut self,
        n: usize,
        write: bool,
        op: u64,
        local: Descriptor,
        local_off: u32,
        remote: Descriptor,
        remote_off: u32,
        len: u32,
    ) {
        let k = self.rdma.len();
        self.rdma.push((n, write, remote_off, local_off, len));
        let failed = self.fail == Some(k);
        if !failed {
            self.copy(n, write, &local, local_off, &remote, remote_off, len);
        }
        let result = if failed { Err(RdmaError::Transport) } else { Ok(()) };
        self.events.push_back((n, Event::RdmaDone { op, result }));
    }

    #[allow(clippy::too_many_arguments)]
    fn copy(
        &mut self,
        n: usize,
        write: bool,
        local: &Descriptor,
        lo: u32,
        remote: &Descriptor,
        ro: u32,
        len: u32,
    ) {
        let lreg = self.by_key[&local.key];
        let rreg = self.by_key[&remote.key];
        assert_eq!((lreg.0, rreg.0), (n, 1 - n));
        let (from, fo, to, to_off) =
            if write { (lreg, lo, rreg, ro) } else { (rreg, ro, lreg, lo) };
        let bytes = self.regions[&from].1[fo as usize..(fo + len) as usize].to_vec();
        self.regions.get_mut(&to).unwrap().1[to_off as usize..(to_off + len) as usize]
            .copy_from_slice(&bytes);
    }

    fn run(&mut self) {
        while let Some((n, ev)) = self.events.pop_front() {
            let mut out = Vec::new();
            self.ep[n].handle(ev, &mut out);
            self.absorb(n, out);
        }
    }

    fn frames_of(&self, n: usize) -> Vec<Message> {
        self.frames.iter().filter(|f| f.0 == n).map(|f| f.1.msg.clone()).collect()
    }
}

/// The endpoint's view of one large send: the LargeSend's mseq, the descriptor the RDMA runs
/// against (the sender's source in read mode, the receiver's sink in write mode), the RDMA
/// operations and the completion message.
struct EndpointTransfer {
    xfer: u32,
    remote: Descriptor,
    rdma: Vec<(u32, u32, u32)>,
    completion: Message,
    data: Vec<u8>,
}

fn endpoint_transfer(rest: u32, read_mode: bool, fail: Option<usize>) -> EndpointTransfer {
    let p = p();
    let cfg = Config {
        buf_size: 4096,
        rdma_threshold: 4096,
        rdma_segment: p.segment,
        rdma_window: p.window,
        ..Config::default()
    };
    let mut pair = Pair::new(cfg, read_mode);
    pair.fail = fail;
    let inline = if read_mode { 4096 - 40 } else { 4096 - 24 };
    let data = pattern(inline + rest as usize, 9);
    let mut out = Vec::new();
    pair.ep[0].handle(Event::AppSend { req: 1, data: data.clone(), urgent: false }, &mut out);
    pair.absorb(0, out);
    pair.run();
    let (ls_seq, desc) = pair
        .frames
        .iter()
        .find_map(|(_, f)| match &f.msg {
            Message::LargeSend { desc, .. } => Some((f.header.mseq, *desc)),
            _ => None,
        })
        .expect("a LargeSend");
    let remote = if read_mode {
        desc.expect("read mode carries the source")
    } else {
        pair.frames_of(1)
            .iter()
            .find_map(|m| match m {
                Message::SinkAvail { desc, .. } => Some(*desc),
                _ => None,
            })
            .expect("a SinkAvail")
    };
    let (node, kinds): (usize, &[MessageTest]) = if read_mode {
        (1, &[|m| matches!(m, Message::ReadComplete { .. } | Message::SendByCopy { .. })])
    } else {
        (0, &[|m| matches!(m, Message::WriteComplete { .. })])
    };
    let completion = pair.frames_of(node).into_iter().find(|m| kinds[0](m)).expect("completion");
    let rdma = pair.rdma.iter().map(|r| (r.2, r.3, r.4)).collect();
    EndpointTransfer { xfer: ls_seq, remote, rdma, completion, data: data[inline..].to_vec() }
}

/// The same transfer on the sequencer: the engine would register the local region, then
/// START with the LargeSend's mseq and the peer's descriptor. Returns the RDMA operations as
/// (remote offset, local offset, len) and the completion message the builder would send.
fn sequencer_transfer(
    e: &EndpointTransfer,
    read_mode: bool,
    fail: Option<usize>,
) -> (Vec<(u32, u32, u32)>, Message) {
    let mut r = Rig::ideal(p());
    if let Some(k) = fail {
        r.san.fail.insert(k as u64);
    }
    let rest = e.data.len() as u32;
    let laddr = 0x7_0000_0000u64;
    r.san.regions.insert(
        e.remote.key,
        RemoteRegion {
            conn: 4,
            addr: e.remote.addr,
            len: e.remote.len,
            read: read_mode,
            write: !read_mode,
        },
    );
    if read_mode {
        r.san.remote.write(e.remote.addr, &e.data);
    } else {
        r.san.local.write(laddr, &e.data);
    }
    let lkey = r.register(4, access::LOCAL, laddr, rest);
    let c = Command::start(!read_mode, 4, e.xfer, e.remote.addr, e.remote.key, e.remote.len, lkey);
    assert_eq!(r.command(c).m_axis_rsp_status, 0);
    r.run_until_cpls(1, 2 * rest as u64 + 10_000);
    let c = r.cpls[0].1;
    assert_eq!((c.conn, c.xfer, c.write), (4, e.xfer, !read_mode));
    let msg = match (read_mode, c.status) {
        (true, 0) => Message::ReadComplete { xfer: c.xfer, bytes: c.bytes },
        (true, _) => Message::SendByCopy { xfer: c.xfer },
        (false, _) => Message::WriteComplete { xfer: c.xfer, bytes: c.bytes },
    };
    if c.status == 0 {
        let (mem, at) =
            if read_mode { (&r.san.local, laddr) } else { (&r.san.remote, e.remote.addr) };
        assert_eq!(mem.read_vec(at, rest as usize), e.data, "the bytes moved");
    }
    let ops = r
        .san
        .log
        .iter()
        .map(|q| ((q.raddr - e.remote.addr) as u32, (q.laddr - laddr) as u32, q.len))
        .collect();
    (ops, msg)
}

#[test]
fn transactions_agree_with_the_endpoint_model_in_both_modes() {
    let s = p().segment;
    for read_mode in [true, false] {
        for rest in [s - 1, s, s + 1, 3 * s + 5, 17 * s + 100, MIB] {
            let e = endpoint_transfer(rest, read_mode, None);
            let want = if read_mode {
                Message::ReadComplete { xfer: e.xfer, bytes: rest }
            } else {
                Message::WriteComplete { xfer: e.xfer, bytes: rest }
            };
            assert_eq!(e.completion, want);
            assert_eq!(e.remote.len, rest);
            let (ops, msg) = sequencer_transfer(&e, read_mode, None);
            assert_eq!(ops, e.rdma, "RDMA operations, rest {rest}, read mode {read_mode}");
            assert_eq!(msg, e.completion);
        }
    }
}

#[test]
fn transactions_agree_with_the_endpoint_model_when_an_rdma_operation_fails() {
    let s = p().segment;
    for read_mode in [true, false] {
        let e = endpoint_transfer(10 * s, read_mode, Some(1));
        let want = if read_mode {
            Message::SendByCopy { xfer: e.xfer }
        } else {
            Message::WriteComplete { xfer: e.xfer, bytes: 0 }
        };
        assert_eq!(e.completion, want);
        let (ops, msg) = sequencer_transfer(&e, read_mode, Some(1));
        assert_eq!(ops, e.rdma, "read mode {read_mode}");
        assert_eq!(msg, e.completion);
    }
}

/// The other side of each mode on a second sequencer: the owner of the remote region
/// registers it (remote read in read mode, remote write in write mode), its check port grants
/// every request the first sequencer issued, with the address the bytes go to or come from;
/// after the transfer the owner deregisters, learning the byte count, and the descriptor
/// reaches nothing any more.
#[test]
fn the_peer_sequencer_grants_every_request_of_a_transfer_and_releases_after_it() {
    let p = p();
    for read_mode in [true, false] {
        let rest = 5 * p.segment + 77;
        let mut owner = Rig::ideal(p);
        let (acc, base) = if read_mode {
            (access::REMOTE_READ, 0x5_0000_0000u64)
        } else {
            (access::REMOTE_WRITE, 0x6_0000_0000u64)
        };
        let rkey = owner.register(9, acc, base, rest);
        let mut mover = Rig::ideal(p);
        let lkey = mover.register(9, access::LOCAL, 0x100, rest);
        mover.command(Command::start(!read_mode, 9, 5, base, rkey, rest, lkey));
        mover.run_until_cpls(1, 100_000);
        assert_eq!((mover.cpls[0].1.status, mover.cpls[0].1.bytes), (0, rest));
        for q in mover.san.log.clone() {
            // The request's own absolute address, as the target side sees it.
            let c = Check { conn: q.conn, key: q.rkey, write: q.write, addr: q.raddr, len: q.len };
            assert_eq!(owner.check(c), (fault::OK, true), "{q:?}");
        }
        // The other direction's access is refused.
        let c = Check { conn: 9, key: rkey, write: read_mode, addr: base, len: 8 };
        assert_eq!(owner.check(c).0, fault::ACCESS);
        let o = owner.command(Command::deregister(9, rkey));
        assert_eq!((o.m_axis_rsp_status, o.m_axis_rsp_len), (rsp_status::OK, rest));
        let c = Check { conn: 9, key: rkey, write: !read_mode, addr: base, len: 8 };
        assert_eq!(owner.check(c).0, fault::BAD_KEY);
    }
}

// ------------------------------------------------------------------------------------------
// The documented timing diagram.

/// A 16-byte START_READ with 8-byte segments (two one-beat requests), SAN latency 2, every
/// output ready: command, response, requests, responses, completion.
fn sequencer_waveform() -> String {
    let p = SequencerParams { segment: 8, san_latency: 2, ..SequencerParams::default() };
    let mut r = Rig::ideal(p);
    let lkey = r.register(3, access::LOCAL, 0x1000, 16);
    let start = Command::start(false, 3, 0x51, 0x8000, 0x99, 16, lkey);
    let rows = [
        "s_axis_cmd_tvalid",
        "s_axis_cmd_tready",
        "m_axis_rsp_tvalid",
        "m_axis_rsp_status",
        "m_axis_rq_tvalid",
        "m_axis_rq_tready",
        "m_axis_rq_len",
        "s_axis_rs_tvalid",
        "s_axis_rs_tag",
        "m_axis_cpl_tvalid",
        "m_axis_cpl_bytes",
    ];
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut taken = false;
    for _ in 0..16 {
        let mut i = r.idle_in();
        if !taken {
            start.drive(&mut i);
        }
        let s = r.san.outputs(&SanIn::default());
        let mut full = i;
        full.m_axis_rq_tready = s.m_axis_rq_tready;
        full.s_axis_rs_tvalid = s.s_axis_rs_tvalid;
        full.s_axis_rs_tag = s.s_axis_rs_tag;
        let o = r.m.outputs(&full);
        let val = |name: &str| -> String {
            use sanswitch_model::ports::Ports;
            let v = SequencerIn::PORTS
                .iter()
                .position(|q| q.name == name)
                .map(|k| full.get(k))
                .or_else(|| {
                    SequencerOut::PORTS.iter().position(|q| q.name == name).map(|k| o.get(k))
                })
                .unwrap();
            if name == "s_axis_rs_tag" { format!("{v:x}") } else { v.to_string() }
        };
        cols.push(rows.iter().map(|n| val(n)).collect());
        taken |= o.s_axis_cmd_tready && i.s_axis_cmd_tvalid;
        r.step(i);
    }
    let mut s = String::from("```\ncycle               ");
    for c in 0..cols.len() {
        s += &format!("{c:>4}");
    }
    s += "\n";
    for (k, name) in rows.iter().enumerate() {
        s += &format!("{name:<20}");
        for col in &cols {
            s += &format!("{:>4}", col[k]);
        }
        s += "\n";
    }
    s += "```\n";
    s
}

/// The sequencer's documentation: its section of docs/HARDWARE.md.
fn sequencer_doc() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/HARDWARE.md"))
        .expect("docs/HARDWARE.md")
}

#[test]
fn sequencer_doc_has_the_timing_diagram() {
    let w = sequencer_waveform();
    if std::env::var("UPDATE_DOCS").is_ok() {
        println!("{w}");
    }
    assert!(sequencer_doc().contains(&w), "the sequencer's timing diagram is stale:\n{w}");
}

#[test]
fn sequencer_doc_names_every_port() {
    use sanswitch_model::ports::Ports;
    let d = sequencer_doc();
    for q in SequencerIn::PORTS.iter().chain(SequencerOut::PORTS) {
        assert!(d.contains(&format!("`{}`", q.name)), "port {} not documented", q.name);
    }
}
