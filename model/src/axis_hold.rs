//! The AXI4-Stream rule a source must keep, checked from outside a block (AMBA AXI4-Stream
//! Protocol Specification, ARM IHI 0051A, 2.2.1): once `TVALID` is asserted it stays
//! asserted, with the transfer's payload unchanged, until the cycle `TREADY` takes it.
//!
//! A lockstep shows that the Verilog does what the model does; it cannot show that what both
//! do is legal on a port. [`AxisHold`] can: it remembers each stream's payload in a cycle that
//! offered it and did not hand it over, and reports the next cycle if that stream's `TVALID`
//! fell or its payload moved. [`engine_streams`] and [`nic_streams`] list an engine's and a
//! NIC's output streams (valid, ready and payload fields), so the engine pair and the NIC
//! pair check every one of them every cycle, on the models and on the Verilog alike.

use crate::blocks::engine::{EngineIn, EngineOut};
use crate::blocks::nic::{NicIn, NicOut};

/// The most payload fields a stream has (`m_axis_rq`'s eight).
pub const MAX_FIELDS: usize = 8;

/// A stream's payload fields, in its port order, zero past its last field (fixed-size, so
/// checking a pair's streams every cycle allocates nothing).
pub type Payload = [u64; MAX_FIELDS];

/// One output stream in one cycle: its name, `TVALID`, `TREADY` and payload fields.
pub struct Stream {
    pub name: &'static str,
    pub valid: bool,
    pub ready: bool,
    pub payload: Payload,
}

/// `fields` as a [`Payload`].
fn payload(fields: &[u64]) -> Payload {
    let mut p = [0; MAX_FIELDS];
    p[..fields.len()].copy_from_slice(fields);
    p
}

/// The payloads offered and not taken in the last cycle, by stream name (the vector keeps
/// its capacity from cycle to cycle).
#[derive(Clone, Debug, Default)]
pub struct AxisHold {
    held: Vec<(&'static str, Payload)>,
}

impl AxisHold {
    /// Checks this cycle's streams against the last cycle's: one message for each stream
    /// that dropped `TVALID` or moved its payload before the handshake.
    pub fn check(&mut self, streams: &[Stream]) -> Vec<String> {
        let mut wrong = Vec::new();
        for (name, was) in &self.held {
            let Some(s) = streams.iter().find(|s| s.name == *name) else { continue };
            if !s.valid {
                wrong.push(format!("{name}: TVALID dropped before TREADY took {was:x?}"));
            } else if s.payload != *was {
                wrong.push(format!(
                    "{name}: payload moved before TREADY took it: {was:x?} -> {:x?}",
                    s.payload
                ));
            }
        }
        self.held.clear();
        self.held
            .extend(streams.iter().filter(|s| s.valid && !s.ready).map(|s| (s.name, s.payload)));
        wrong
    }
}

/// The output streams an engine and a NIC both have (host memory's and the SAN's), from
/// any `i`/`o` pair with their port names.
macro_rules! shared_streams {
    ($i:expr, $o:expr) => {{
        let (i, o) = ($i, $o);
        let s = |name, valid, ready, fields: &[u64]| Stream {
            name,
            valid,
            ready,
            payload: payload(fields),
        };
        [
            s(
                "m_axis_dmard",
                o.m_axis_dmard_tvalid,
                i.m_axis_dmard_tready,
                &[o.m_axis_dmard_addr, o.m_axis_dmard_len as u64],
            ),
            s(
                "m_axis_dmawr",
                o.m_axis_dmawr_tvalid,
                i.m_axis_dmawr_tready,
                &[
                    o.m_axis_dmawr_addr,
                    o.m_axis_dmawr_tdata,
                    o.m_axis_dmawr_tkeep as u64,
                    o.m_axis_dmawr_tlast as u64,
                ],
            ),
            s(
                "m_axis_tx",
                o.m_axis_tx_tvalid,
                i.m_axis_tx_tready,
                &[
                    o.m_axis_tx_tdata,
                    o.m_axis_tx_tkeep as u64,
                    o.m_axis_tx_tlast as u64,
                    o.m_axis_tx_tuser as u64,
                ],
            ),
            s(
                "m_axis_down",
                o.m_axis_down_tvalid,
                i.m_axis_down_tready,
                &[o.m_axis_down_conn as u64],
            ),
            s(
                "m_axis_rq",
                o.m_axis_rq_tvalid,
                i.m_axis_rq_tready,
                &[
                    o.m_axis_rq_tag as u64,
                    o.m_axis_rq_write as u64,
                    o.m_axis_rq_conn as u64,
                    o.m_axis_rq_raddr,
                    o.m_axis_rq_rkey as u64,
                    o.m_axis_rq_laddr,
                    o.m_axis_rq_lkey as u64,
                    o.m_axis_rq_len as u64,
                ],
            ),
            s(
                "m_axis_ck",
                o.m_axis_ck_tvalid,
                i.m_axis_ck_tready,
                &[o.m_axis_ck_grant as u64, o.m_axis_ck_reason as u64],
            ),
        ]
    }};
}

/// The engine's output streams in one cycle (`o` the engine's outputs, `i` what its
/// neighbours drive, their `TREADY`s).
pub fn engine_streams(i: &EngineIn, o: &EngineOut) -> [Stream; 7] {
    let [a, b, c, d, e, f] = shared_streams!(i, o);
    let cpl = Stream {
        name: "m_axis_cpl",
        valid: o.m_axis_cpl_tvalid,
        ready: i.m_axis_cpl_tready,
        payload: payload(&[
            o.m_axis_cpl_tag as u64,
            o.m_axis_cpl_bytes as u64,
            o.m_axis_cpl_conn as u64,
            o.m_axis_cpl_status as u64,
            o.m_axis_cpl_opcode as u64,
            o.m_axis_cpl_urgent as u64,
            o.m_axis_cpl_eof as u64,
        ]),
    };
    [a, b, c, d, e, f, cpl]
}

/// The NIC's output streams in one cycle (its completions go to the host interface's
/// rings inside it, so it has no completion stream).
pub fn nic_streams(i: &NicIn, o: &NicOut) -> [Stream; 6] {
    shared_streams!(i, o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(valid: bool, ready: bool, p: u64) -> Vec<Stream> {
        vec![Stream { name: "x", valid, ready, payload: payload(&[p]) }]
    }

    #[test]
    fn a_payload_held_until_taken_passes() {
        let mut h = AxisHold::default();
        assert!(h.check(&one(true, false, 5)).is_empty());
        assert!(h.check(&one(true, false, 5)).is_empty());
        assert!(h.check(&one(true, true, 5)).is_empty());
        // Taken: the next transfer may be anything, or nothing.
        assert!(h.check(&one(true, false, 6)).is_empty());
        assert!(h.check(&one(true, true, 6)).is_empty());
        assert!(h.check(&one(false, false, 0)).is_empty());
    }

    #[test]
    fn a_dropped_valid_or_moved_payload_is_reported() {
        let mut h = AxisHold::default();
        h.check(&one(true, false, 5));
        let w = h.check(&one(false, false, 5));
        assert!(w.len() == 1 && w[0].contains("TVALID dropped"), "{w:?}");
        h.check(&one(true, false, 5));
        let w = h.check(&one(true, true, 7));
        assert!(w.len() == 1 && w[0].contains("payload moved"), "{w:?}");
    }
}
