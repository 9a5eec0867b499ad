//! Stimulus for the pool manager: requests that mostly follow the protocol (messages arrive
//! in posted buffers with the next sequence number and a valid acknowledgement, buffers are
//! freed and re-posted once), a share of illegal ones (double free, buffer never handed out,
//! re-post past the pool or twice, sequence gaps, bad acknowledgements, too many buffers
//! advertised, unknown connections and opcodes), random connections, random `s_axis_req_tvalid`
//! gaps and random `m_axis_resp_tready` backpressure.
//!
//! A private model follows the requests the block takes, so legal requests stay legal.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::pool::{PoolIn, PoolModel, PoolOut, class, op};
use crate::params::PoolParams;

pub struct PoolDriver {
    rng: ChaCha8Rng,
    shadow: PoolModel,
    p: PoolParams,
    pending: Option<PoolIn>,
    /// Probability that a request is offered in a cycle.
    pub valid_rate: f64,
    /// Probability that `m_axis_resp_tready` is high.
    pub ready_rate: f64,
    /// Share of deliberately illegal requests.
    pub bad_share: f64,
}

impl PoolDriver {
    pub fn new(seed: u64, p: PoolParams, bad_share: f64) -> Self {
        PoolDriver {
            rng: ChaCha8Rng::seed_from_u64(seed),
            shadow: PoolModel::new(p),
            p,
            pending: None,
            valid_rate: 0.85,
            ready_rate: 0.8,
            bad_share,
        }
    }

    fn pick_bit(&mut self, mask: u16) -> Option<u8> {
        if mask == 0 {
            return None;
        }
        let n = mask.count_ones();
        let k = self.rng.gen_range(0..n);
        let mut seen = 0;
        for b in 0..16 {
            if mask & (1 << b) != 0 {
                if seen == k {
                    return Some(b);
                }
                seen += 1;
            }
        }
        None
    }

    fn request(&mut self) -> PoolIn {
        let r = &mut self.rng;
        // Now and then an id past the configured connections: exactly one past (the
        // boundary), or any.
        let conn = match r.gen_range(0..100) {
            0 => self.p.connections.min(255) as u8,
            1 => r.r#gen(),
            _ => r.gen_range(0..self.p.connections) as u8,
        };
        let mut i = PoolIn {
            s_axis_req_tvalid: true,
            s_axis_req_conn: conn,
            s_axis_req_class: r.gen_range(0..3),
            ..PoolIn::default()
        };
        let s = self.shadow.ram[conn as usize & ((1 << self.p.addr_bits()) - 1)];
        if self.rng.gen_bool(self.bad_share / 4.0) {
            return self.boundary_open(i);
        }
        if self.rng.gen_bool(self.bad_share) {
            // Anything at all, fields at random.
            let r = &mut self.rng;
            i.s_axis_req_op = r.gen_range(0..8);
            i.s_axis_req_class = r.gen_range(0..4);
            i.s_axis_req_buf = if r.gen_bool(0.5) { r.gen_range(0..20) } else { r.r#gen() };
            i.s_axis_req_a =
                if r.gen_bool(0.5) { s.rx_last.wrapping_add(r.gen_range(0..3)) } else { r.r#gen() };
            i.s_axis_req_b = if r.gen_bool(0.5) {
                s.peer_ack.wrapping_add(r.gen_range(0..20)).wrapping_sub(5)
            } else {
                r.r#gen()
            };
            i.s_axis_req_c = r.r#gen();
            i.s_axis_req_bufs = if r.gen_bool(0.5) {
                s.peer_max.wrapping_add(r.gen_range(0..3))
            } else {
                r.r#gen()
            };
            return i;
        }
        let recv_mask = ((1u32 << self.p.recv_bufs) - 1) as u16;
        let send_mask = ((1u32 << self.p.send_bufs) - 1) as u16;
        let choice = if !s.open { 0 } else { self.rng.gen_range(1..100) };
        match choice {
            0 | 1 => {
                let r = &mut self.rng;
                let tx: u32 =
                    if r.gen_bool(0.5) { u32::MAX - r.gen_range(0..40) } else { r.r#gen() };
                let acceptor = r.gen_bool(0.5);
                i.s_axis_req_op = op::OPEN;
                i.s_axis_req_a = tx;
                i.s_axis_req_b = tx.wrapping_sub(if acceptor { 2 } else { 1 });
                i.s_axis_req_c =
                    if r.gen_bool(0.5) { u32::MAX - r.gen_range(0..40) } else { r.r#gen() };
                i.s_axis_req_bufs = r.gen_range(4..=16);
                i.s_axis_req_buf = (!acceptor) as u8;
            }
            2 => i.s_axis_req_op = op::CLOSE,
            3..=30 => i.s_axis_req_op = op::ALLOC,
            31..=50 => {
                i.s_axis_req_op = op::FREE;
                i.s_axis_req_buf = self.pick_bit(s.send_used & send_mask).unwrap_or(0);
                // The last send buffer, or one past it.
                if self.rng.gen_bool(0.05) {
                    i.s_axis_req_buf = self.p.send_bufs - 1 + self.rng.gen_range(0..2);
                }
            }
            51..=75 => {
                i.s_axis_req_op = op::RECV;
                i.s_axis_req_buf = self.pick_bit(s.recv_posted & recv_mask).unwrap_or(0);
                i.s_axis_req_a = s.rx_last.wrapping_add(1);
                let span = s.tx_next.wrapping_sub(1).wrapping_sub(s.peer_ack);
                i.s_axis_req_b = s.peer_ack.wrapping_add(self.rng.gen_range(0..=span.min(64)));
                i.s_axis_req_bufs = self.rng.gen_range(0..=s.peer_max);
                // The limits at their boundary and one past it: the newest acknowledgement
                // (`tx_next - 1`) or one more; as many buffers as negotiated, or one more.
                match self.rng.gen_range(0..20) {
                    0 => i.s_axis_req_b = s.tx_next.wrapping_sub(1),
                    1 => i.s_axis_req_b = s.tx_next,
                    2 => i.s_axis_req_bufs = s.peer_max,
                    3 => i.s_axis_req_bufs = s.peer_max.wrapping_add(1),
                    _ => {}
                }
            }
            76..=95 => {
                i.s_axis_req_op = op::REPOST;
                i.s_axis_req_buf = self.pick_bit(!s.recv_posted & recv_mask).unwrap_or(0);
                // The last buffer of the pool, or one past it.
                if self.rng.gen_bool(0.05) {
                    i.s_axis_req_buf = self.p.recv_bufs - 1 + self.rng.gen_range(0..2);
                }
            }
            _ => {
                i.s_axis_req_op = op::QUERY;
                i.s_axis_req_class = class::DATA;
            }
        }
        i
    }

    /// An OPEN at one of its limits, or one past it: unacknowledged messages equal to the
    /// peer's posted buffers (or one more), posted buffers at `MIN_POSTED` (or one fewer),
    /// messages received and unacknowledged equal to the receive pool (or one more).
    fn boundary_open(&mut self, mut i: PoolIn) -> PoolIn {
        let r = &mut self.rng;
        let past = r.gen_bool(0.5);
        let bufs: u16 = r.gen_range(crate::wire::MIN_POSTED..=16);
        let tx: u32 = if r.gen_bool(0.3) { r.gen_range(0..4) } else { r.r#gen() };
        i.s_axis_req_op = op::OPEN;
        i.s_axis_req_a = tx;
        i.s_axis_req_b = tx.wrapping_sub(1);
        i.s_axis_req_c = r.r#gen();
        i.s_axis_req_bufs = bufs;
        i.s_axis_req_buf = 0;
        match r.gen_range(0..3) {
            0 => {
                let inflight = bufs as u32 + past as u32;
                i.s_axis_req_b = tx.wrapping_sub(1).wrapping_sub(inflight);
            }
            1 => i.s_axis_req_bufs = crate::wire::MIN_POSTED - past as u16,
            _ => i.s_axis_req_buf = self.p.recv_bufs + past as u8,
        }
        i
    }

    /// Inputs for the coming cycle.
    pub fn inputs(&mut self) -> PoolIn {
        let mut i = match self.pending {
            Some(i) => i,
            None if self.rng.gen_bool(self.valid_rate) => {
                let i = self.request();
                self.pending = Some(i);
                i
            }
            None => PoolIn {
                s_axis_req_a: self.rng.r#gen(),
                s_axis_req_op: self.rng.gen_range(0..8),
                ..PoolIn::default()
            },
        };
        i.m_axis_resp_tready = self.rng.gen_bool(self.ready_rate);
        i.cnt_rd_index = self.rng.gen_range(0..1 << crate::params::CNT_INDEX_BITS);
        i
    }

    /// A reset was applied: the block forgets every connection, and so does the shadow.
    pub fn reset(&mut self) {
        self.pending = None;
        self.shadow = PoolModel::new(self.p);
    }

    /// After the edge: what the block showed during the cycle.
    pub fn advance(&mut self, i: &PoolIn, o: &PoolOut) {
        if i.s_axis_req_tvalid && o.s_axis_req_tready {
            self.pending = None;
            let (_, new) = self.shadow.execute(i);
            if let Some(n) = new {
                self.shadow.ram[i.s_axis_req_conn as usize & ((1 << self.p.addr_bits()) - 1)] = n;
            }
        }
    }
}

impl crate::ports::Stimulus<PoolIn, PoolOut> for PoolDriver {
    fn next(&mut self) -> PoolIn {
        self.inputs()
    }
    fn observe(&mut self, i: &PoolIn, o: &PoolOut) {
        self.advance(i, o);
    }
    fn reset(&mut self) {
        PoolDriver::reset(self)
    }
}
