//! The cycle-level SAN between two nodes' SAN ports (the engine's, which the NIC top shares):
//! what both two-node harnesses ([`EnginePair`](crate::engine_pair::EnginePair) and
//! [`NicPair`](crate::nic_pair::NicPair)) put between their engines.
//!
//! - **Messages**: per direction, a pipe of beats with a latency in cycles and a bandwidth of
//!   one beat per cycle; connection `c` of node 0 is connection `c` of node 1. A connection
//!   torn down by one engine is told to the other in order after the beats sent before.
//! - **RDMA** (the provider beneath the engines): an engine's request crosses the SAN and is
//!   offered to the *target* engine's check port; only its grant lets the SAN touch the
//!   target's host memory (no table of the peer's regions lives here). A read's data comes
//!   back with the response and is placed at the initiator's local address as the response is
//!   delivered; a write's data is taken from the initiator's memory as the request leaves;
//!   that data moves on an RDMA lane per direction of one beat per cycle (beside the message
//!   stream), then takes the SAN latency. Both sides' accesses are checked against what the
//!   hosts lent ([`HostMem`]). A denied request moves nothing and answers the check's
//!   reason; granted requests may be failed at a given rate, as the transport would.
//!
//! The harness owns the random generator and the hosts; the fabric only moves what it is
//! handed, so each harness keeps its own faults and counters.

use std::collections::VecDeque;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::blocks::engine::{Beat, EngineIn, EngineOut};
use crate::host_mem::HostMem;

/// An RDMA request on the SAN, from the initiator's `m_axis_rq_*`.
#[derive(Clone, Debug)]
struct Rdma {
    /// Arrival at the target.
    at: u64,
    tag: u16,
    write: bool,
    conn: u8,
    raddr: u64,
    rkey: u32,
    laddr: u64,
    len: u32,
    /// A write's bytes, read from the initiator's memory as the request left.
    data: Vec<u8>,
    /// Made up by the SAN: its answer goes nowhere.
    junk: bool,
}

/// An RDMA response on its way back to the initiator.
#[derive(Clone, Debug)]
struct RdmaRsp {
    at: u64,
    tag: u16,
    status: u8,
    /// A read's bytes and where the initiator placed them.
    place: Option<(u64, Vec<u8>)>,
}

/// The SAN between node 0 and node 1.
#[derive(Clone, Debug, Default)]
pub struct SanFabric {
    /// Cycles from a beat leaving one node to its arrival at the other.
    latency: u64,
    /// What is on the wire toward node `n`: arrival cycle, connection, and a beat (or `None`:
    /// the connection went down, told in order after every beat sent before).
    san: [VecDeque<(u64, u8, Option<Beat>)>; 2],
    /// RDMA requests toward node `n` (it is their target), before and after its check port
    /// took them; responses toward node `n` (it issued them).
    rq_san: [VecDeque<Rdma>; 2],
    checking: [VecDeque<Rdma>; 2],
    rs_san: [VecDeque<RdmaRsp>; 2],
    /// RDMA data leaving node `n` (a read's data from its target, a write's from its
    /// initiator) goes on a lane of one beat per cycle, free again from this cycle.
    lane_free: [u64; 2],
    /// RDMA requests each node issued, the bytes RDMA moved into each node's memory, and
    /// requests denied by the target's checks or failed by the SAN.
    pub rdma_requests: [u64; 2],
    pub rdma_bytes: [u64; 2],
    pub rdma_denied: u64,
    pub rdma_failed: u64,
    /// RDMA requests the SAN made up ([`SanFabric::junk_rdma`]).
    pub rdma_junk: u64,
    /// What went wrong on the SAN's side of a handshake.
    pub problems: Vec<String>,
}

impl SanFabric {
    pub fn new(latency: u64) -> Self {
        SanFabric { latency, ..SanFabric::default() }
    }

    /// Forget everything in flight (both nodes were reset); the counters stay.
    pub fn clear(&mut self) {
        self.san = Default::default();
        self.rq_san = Default::default();
        self.checking = Default::default();
        self.rs_san = Default::default();
        self.lane_free = [0; 2];
    }

    /// Anything on the wire or waiting for a check.
    pub fn busy(&self) -> bool {
        (0..2).any(|n| {
            !self.san[n].is_empty()
                || !self.rq_san[n].is_empty()
                || !self.checking[n].is_empty()
                || !self.rs_san[n].is_empty()
        })
    }

    /// Beats (and teardowns) on the wire toward node `n`.
    pub fn toward(&self, n: usize) -> usize {
        self.san[n].len()
    }

    /// Node `n`'s SAN inputs in cycle `now`: the message beat or teardown that has arrived,
    /// the peer's RDMA request to check, the response to its own. The readies are the
    /// harness's.
    pub fn inputs(&self, n: usize, now: u64, i: &mut EngineIn) {
        if let Some(r) = self.rq_san[n].front().filter(|r| r.at <= now) {
            i.s_axis_ac_tvalid = true;
            i.s_axis_ac_conn = r.conn;
            i.s_axis_ac_key = r.rkey;
            i.s_axis_ac_write = r.write;
            i.s_axis_ac_addr = r.raddr;
            i.s_axis_ac_len = r.len;
        }
        if let Some(r) = self.rs_san[n].front().filter(|r| r.at <= now) {
            i.s_axis_rs_tvalid = true;
            i.s_axis_rs_tag = r.tag;
            i.s_axis_rs_status = r.status;
        }
        match self.san[n].front() {
            Some(&(at, conn, Some(b))) if at <= now => {
                i.s_axis_rx_tvalid = true;
                i.s_axis_rx_tdata = b.data;
                i.s_axis_rx_tkeep = b.keep;
                i.s_axis_rx_tlast = b.last;
                i.s_axis_rx_tuser = conn;
            }
            Some(&(at, conn, None)) if at <= now => {
                i.s_axis_down_tvalid = true;
                i.s_axis_down_conn = conn;
            }
            _ => {}
        }
    }

    /// A beat node `n` sent on `conn` in cycle `now` (as the harness passes it on: it may
    /// have made it malformed).
    pub fn send_beat(&mut self, n: usize, now: u64, conn: u8, b: Beat) {
        self.san[1 - n].push_back((now + self.latency, conn, Some(b)));
    }

    /// Node `n` tore `conn` down in cycle `now`.
    pub fn send_down(&mut self, n: usize, now: u64, conn: u8) {
        self.san[1 - n].push_back((now + self.latency, conn, None));
    }

    /// Node `n` took the beat or teardown offered to it.
    pub fn take_rx(&mut self, n: usize) {
        self.san[n].pop_front();
    }

    /// The SAN brings node `n` an RDMA request nobody made (a random connection of
    /// `conns + 2`, key, direction and range), to be denied by its check; the response would
    /// go to the other node. With no zero-copy transfers configured, a random stale response
    /// is sent to `n` as well, which its sequencer must drop.
    pub fn junk_rdma(
        &mut self,
        n: usize,
        now: u64,
        rng: &mut ChaCha8Rng,
        conns: u32,
        zero_copy: bool,
    ) {
        let r = Rdma {
            at: now,
            tag: rng.r#gen(),
            write: rng.gen_bool(0.5),
            conn: rng.gen_range(0..conns + 2).min(255) as u8,
            raddr: rng.r#gen(),
            rkey: rng.r#gen(),
            laddr: 0,
            len: rng.gen_range(0..=4096),
            data: Vec::new(),
            junk: true,
        };
        let r = Rdma { data: vec![0; if r.write { r.len as usize } else { 0 }], ..r };
        self.rdma_junk += 1;
        self.rq_san[n].push_back(r);
        if !zero_copy {
            // No transfer runs: any response is stale, and must be dropped as such.
            let tag = rng.r#gen();
            let status = rng.gen_range(0..8);
            self.rs_san[n].push_back(RdmaRsp { at: now, tag, status, place: None });
        }
    }

    /// `bytes` of RDMA data leave node `n` on its lane, one beat per cycle after what is
    /// already on it: the cycle the last beat is out.
    fn lane(&mut self, n: usize, now: u64, bytes: usize) -> u64 {
        let start = self.lane_free[n].max(now);
        self.lane_free[n] = start + bytes.div_ceil(8) as u64;
        self.lane_free[n]
    }

    /// Node `n`'s RDMA handshakes in cycle `now` (`i` what it was shown, `o` what it showed):
    /// a request leaving it, a request taken by its check port, a check answered (the SAN
    /// acts on it, failing a granted request with probability `errors`), a response
    /// delivered to it. `mem` is both nodes' host memory. Returns whether anything moved.
    #[allow(clippy::too_many_arguments)]
    pub fn rdma(
        &mut self,
        n: usize,
        now: u64,
        i: &EngineIn,
        o: &EngineOut,
        mem: [&mut HostMem; 2],
        rng: &mut ChaCha8Rng,
        errors: f64,
    ) -> bool {
        let lat = self.latency;
        let [m0, m1] = mem;
        let (mine, _) = if n == 0 { (m0, m1) } else { (m1, m0) };
        let mut moved = false;
        if o.m_axis_rq_tvalid && i.m_axis_rq_tready {
            let (laddr, len) = (o.m_axis_rq_laddr, o.m_axis_rq_len);
            let data = if o.m_axis_rq_write {
                mine.check(n, laddr, len as u64, false);
                mine.read(laddr, len as usize)
            } else {
                Vec::new()
            };
            self.rdma_requests[n] += 1;
            // A write's data follows the request on node n's RDMA lane.
            let sent = self.lane(n, now, data.len());
            self.rq_san[1 - n].push_back(Rdma {
                at: sent + lat,
                tag: o.m_axis_rq_tag,
                write: o.m_axis_rq_write,
                conn: o.m_axis_rq_conn,
                raddr: o.m_axis_rq_raddr,
                rkey: o.m_axis_rq_rkey,
                laddr,
                len,
                data,
                junk: false,
            });
            moved = true;
        }
        if i.s_axis_ac_tvalid && o.s_axis_ac_tready {
            let r = self.rq_san[n].pop_front().expect("a check was offered");
            self.checking[n].push_back(r);
            moved = true;
        }
        if o.m_axis_ck_tvalid && i.m_axis_ck_tready {
            let Some(r) = self.checking[n].pop_front() else {
                self.problems.push(format!("node {n}: a check answered that was never asked"));
                return true;
            };
            let fail = o.m_axis_ck_grant && errors > 0.0 && rng.gen_bool(errors);
            let (status, place) = if !o.m_axis_ck_grant {
                self.rdma_denied += 1;
                (o.m_axis_ck_reason, None)
            } else if fail {
                self.rdma_failed += 1;
                (crate::status::fault::TRANSPORT, None)
            } else {
                mine.check(n, r.raddr, r.len as u64, r.write);
                // Into the target's memory (a write) or the initiator's (a read).
                self.rdma_bytes[if r.write { n } else { 1 - n }] += r.len as u64;
                if r.write {
                    mine.write(r.raddr, &r.data);
                    (0, None)
                } else {
                    (0, Some((r.laddr, mine.read(r.raddr, r.len as usize))))
                }
            };
            // A read's data travels back with its response on node n's RDMA lane.
            let sent = self.lane(n, now, place.as_ref().map_or(0, |(_, d)| d.len()));
            if !r.junk {
                let rsp = RdmaRsp { at: sent + lat, tag: r.tag, status, place };
                self.rs_san[1 - n].push_back(rsp);
            }
            moved = true;
        }
        if i.s_axis_rs_tvalid && o.s_axis_rs_tready {
            let r = self.rs_san[n].pop_front().expect("a response was offered");
            if let Some((laddr, data)) = r.place {
                mine.check(n, laddr, data.len() as u64, true);
                mine.write(laddr, &data);
            }
            moved = true;
        }
        moved
    }
}
