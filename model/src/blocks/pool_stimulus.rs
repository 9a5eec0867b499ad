//! Stimulus for the pool manager: requests that mostly follow the protocol (messages arrive
//! in posted buffers with the next sequence number and a valid acknowledgement, buffers are
//! freed and re-posted once), a share of illegal ones (double free, buffer never handed out,
//! re-post past the pool or twice, sequence gaps, bad acknowledgements, too many buffers
//! advertised, unknown connections and opcodes), random connections, random `req_valid`
//! gaps and random `resp_ready` backpressure.
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
    /// Probability that `resp_ready` is high.
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
        let conn =
            if r.gen_bool(0.02) { r.r#gen() } else { r.gen_range(0..self.p.connections) as u8 };
        let mut i = PoolIn {
            req_valid: true,
            req_conn: conn,
            req_class: r.gen_range(0..3),
            ..PoolIn::default()
        };
        let s = self.shadow.ram[conn as usize & ((1 << self.p.addr_bits()) - 1)];
        if self.rng.gen_bool(self.bad_share) {
            // Anything at all, fields at random.
            let r = &mut self.rng;
            i.req_op = r.gen_range(0..8);
            i.req_class = r.gen_range(0..4);
            i.req_buf = if r.gen_bool(0.5) { r.gen_range(0..20) } else { r.r#gen() };
            i.req_a =
                if r.gen_bool(0.5) { s.rx_last.wrapping_add(r.gen_range(0..3)) } else { r.r#gen() };
            i.req_b = if r.gen_bool(0.5) {
                s.peer_ack.wrapping_add(r.gen_range(0..20)).wrapping_sub(5)
            } else {
                r.r#gen()
            };
            i.req_c = r.r#gen();
            i.req_bufs = if r.gen_bool(0.5) {
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
                i.req_op = op::OPEN;
                i.req_a = tx;
                i.req_b = tx.wrapping_sub(if acceptor { 2 } else { 1 });
                i.req_c = if r.gen_bool(0.5) { u32::MAX - r.gen_range(0..40) } else { r.r#gen() };
                i.req_bufs = r.gen_range(4..=16);
                i.req_buf = (!acceptor) as u8;
            }
            2 => i.req_op = op::CLOSE,
            3..=30 => i.req_op = op::ALLOC,
            31..=50 => {
                i.req_op = op::FREE;
                i.req_buf = self.pick_bit(s.send_used & send_mask).unwrap_or(0);
            }
            51..=75 => {
                i.req_op = op::RECV;
                i.req_buf = self.pick_bit(s.recv_posted & recv_mask).unwrap_or(0);
                i.req_a = s.rx_last.wrapping_add(1);
                let span = s.tx_next.wrapping_sub(1).wrapping_sub(s.peer_ack);
                i.req_b = s.peer_ack.wrapping_add(self.rng.gen_range(0..=span.min(64)));
                i.req_bufs = self.rng.gen_range(0..=s.peer_max);
            }
            76..=95 => {
                i.req_op = op::REPOST;
                i.req_buf = self.pick_bit(!s.recv_posted & recv_mask).unwrap_or(0);
            }
            _ => {
                i.req_op = op::QUERY;
                i.req_class = class::DATA;
            }
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
                req_a: self.rng.r#gen(),
                req_op: self.rng.gen_range(0..8),
                ..PoolIn::default()
            },
        };
        i.resp_ready = self.rng.gen_bool(self.ready_rate);
        i
    }

    /// After the edge: what the block showed during the cycle.
    pub fn advance(&mut self, i: &PoolIn, o: &PoolOut) {
        if i.req_valid && o.req_ready {
            self.pending = None;
            let (_, new) = self.shadow.execute(i);
            if let Some(n) = new {
                self.shadow.ram[i.req_conn as usize & ((1 << self.p.addr_bits()) - 1)] = n;
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
}
