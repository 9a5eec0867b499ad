//! Cycle model of the host-memory arbiter: two masters (the host interface's ring traffic and
//! the engine's data traffic) share the NIC's one host-memory port.
//!
//! - **Reads**: a request is passed straight through from the master picked this cycle (round
//!   robin when both ask, the one not served last time first; a master whose request was
//!   shown and not taken keeps the grant until it is taken, so the port's request stays as
//!   it was, as AXI4-Stream requires, whoever else asks meanwhile); the picked master is
//!   remembered, in request order, in a queue of [`RD_OUTSTANDING`] entries, and the read data
//!   (which the host returns in request order) goes to the master at the queue's head until
//!   its `tlast`. A full queue takes no request.
//! - **Writes**: bursts are never interleaved: the master whose beat is taken without `tlast`
//!   keeps the port until its `tlast`; between bursts, round robin as for reads, a beat
//!   shown and not taken keeping its master's grant as a request does.
//!
//! Every path is combinational (a multiplexer and the handshake's AND), through the
//! registered queue head, burst owner and round-robin bit: the arbiter adds no cycle of
//! latency. Used by [`Nic`](super::nic::NicModel); the same decisions in rust-hdl are
//! `hdl/src/nic/dma_arb.rs`.

use std::collections::VecDeque;

/// Read requests the host may have outstanding (the owner queue's depth).
pub const RD_OUTSTANDING: usize = 4;

/// A master of the host-memory port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Master {
    /// The host interface (ring fetches, completion writes).
    #[default]
    Host,
    /// The engine (send data in, received data out).
    Engine,
}

/// What both masters ask for in a cycle (their `tvalid`s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Asks {
    pub host: bool,
    pub engine: bool,
}

/// The arbiter's state.
#[derive(Clone, Debug, Default)]
pub struct DmaArb {
    /// Who each outstanding read belongs to, oldest first.
    rd_owner: VecDeque<Master>,
    /// Who was granted the last read request / write beat.
    rd_last: Master,
    wr_last: Master,
    /// The master in the middle of a write burst.
    wr_lock: Option<Master>,
    /// The master whose read request / write beat was shown in the last cycle and not
    /// taken: it keeps the grant while it asks.
    rd_hold: Option<Master>,
    wr_hold: Option<Master>,
}

impl Asks {
    fn by(&self, m: Master) -> bool {
        match m {
            Master::Host => self.host,
            Master::Engine => self.engine,
        }
    }
}

/// Round robin between two: the one not served last when both ask.
fn pick(a: Asks, last: Master) -> Option<Master> {
    match (a.host, a.engine) {
        (true, true) => Some(if last == Master::Engine { Master::Host } else { Master::Engine }),
        (true, false) => Some(Master::Host),
        (false, true) => Some(Master::Engine),
        (false, false) => None,
    }
}

impl DmaArb {
    /// The master whose read request goes to the host this cycle (taken if the host's
    /// `tready` is high).
    pub fn rd_grant(&self, a: Asks) -> Option<Master> {
        if self.rd_owner.len() == RD_OUTSTANDING {
            // Only a taken request fills the queue, so no held request meets it full.
            debug_assert!(self.rd_hold.is_none());
            None
        } else if let Some(m) = self.rd_hold.filter(|&m| a.by(m)) {
            Some(m)
        } else {
            pick(a, self.rd_last)
        }
    }

    /// The master the read data of this cycle belongs to.
    pub fn rd_data_owner(&self) -> Option<Master> {
        self.rd_owner.front().copied()
    }

    /// The master whose write beat goes to the host this cycle.
    pub fn wr_grant(&self, a: Asks) -> Option<Master> {
        match self.wr_lock.or(self.wr_hold.filter(|&m| a.by(m))) {
            Some(m) => Some(m),
            None => pick(a, self.wr_last),
        }
    }

    /// The clock edge: `rd_shown` the master whose request was on the port, `rd_req` the
    /// one whose request was taken, `rd_last` whether a last data beat was taken,
    /// `wr_shown` the master whose write beat was on the port, `wr` the master and `tlast`
    /// of a write beat taken.
    pub fn clock(
        &mut self,
        reset: bool,
        rd_shown: Option<Master>,
        rd_req: Option<Master>,
        rd_last: bool,
        wr_shown: Option<Master>,
        wr: Option<(Master, bool)>,
    ) {
        if reset {
            *self = DmaArb::default();
            return;
        }
        self.rd_hold = rd_shown.filter(|_| rd_req.is_none());
        self.wr_hold = wr_shown.filter(|_| wr.is_none());
        if rd_last {
            self.rd_owner.pop_front();
        }
        if let Some(m) = rd_req {
            self.rd_owner.push_back(m);
            self.rd_last = m;
        }
        if let Some((m, last)) = wr {
            self.wr_last = m;
            self.wr_lock = if last { None } else { Some(m) };
        }
    }

    /// Reads outstanding.
    pub fn reads_outstanding(&self) -> usize {
        self.rd_owner.len()
    }
}

crate::ports! {
    /// The arbiter's own inputs (`hdl/src/nic/dma_arb.rs`, which the NIC wires to its
    /// masters and port): the masters' read-request and write-beat `tvalid`s, the port's
    /// read `tready`, a read's last data beat taken, a granted write beat taken and its
    /// `tlast`.
    pub struct DmaArbIn {
        reset: bool = 1,
        host_rd: bool = 1,
        eng_rd: bool = 1,
        rd_ready: bool = 1,
        rd_done: bool = 1,
        host_wr: bool = 1,
        eng_wr: bool = 1,
        wr_take: bool = 1,
        wr_last: bool = 1,
    }
}

crate::ports! {
    /// The arbiter's grants: this cycle's read request and write beat, and the owner of
    /// the read data (`rd_owner_eng`: a read is outstanding and the oldest is the engine's).
    pub struct DmaArbOut {
        rd_host: bool = 1,
        rd_eng: bool = 1,
        rd_owned: bool = 1,
        rd_owner_eng: bool = 1,
        wr_host: bool = 1,
        wr_eng: bool = 1,
    }
}

impl DmaArbIn {
    fn rd_asks(&self) -> Asks {
        Asks { host: self.host_rd, engine: self.eng_rd }
    }

    fn wr_asks(&self) -> Asks {
        Asks { host: self.host_wr, engine: self.eng_wr }
    }
}

/// The arbiter alone, as the HDL block's lockstep sees it; the NIC model clocks it the same
/// way (its grants, which route the masters' signals, from [`DmaArb::rd_grant`] and
/// [`DmaArb::wr_grant`]).
impl crate::ports::CycleModel for DmaArb {
    type In = DmaArbIn;
    type Out = DmaArbOut;

    fn outputs(&self, i: &DmaArbIn) -> DmaArbOut {
        let (rd, wr) = (self.rd_grant(i.rd_asks()), self.wr_grant(i.wr_asks()));
        DmaArbOut {
            rd_host: rd == Some(Master::Host),
            rd_eng: rd == Some(Master::Engine),
            rd_owned: self.reads_outstanding() > 0,
            rd_owner_eng: self.rd_data_owner() == Some(Master::Engine),
            wr_host: wr == Some(Master::Host),
            wr_eng: wr == Some(Master::Engine),
        }
    }

    fn clock(&mut self, i: &DmaArbIn) {
        let rd = self.rd_grant(i.rd_asks());
        // A write beat is shown when its granted master asks (the port's `tvalid`).
        let wr = self.wr_grant(i.wr_asks()).filter(|&m| i.wr_asks().by(m));
        let taken = wr.filter(|_| i.wr_take).map(|m| (m, i.wr_last));
        self.clock(i.reset, rd, rd.filter(|_| i.rd_ready), i.rd_done, wr, taken);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_alternate_and_the_queue_limits_them() {
        let mut a = DmaArb::default();
        let both = Asks { host: true, engine: true };
        let mut got = Vec::new();
        for _ in 0..RD_OUTSTANDING {
            let g = a.rd_grant(both).unwrap();
            got.push(g);
            a.clock(false, Some(g), Some(g), false, None, None);
        }
        assert_eq!(got, [Master::Engine, Master::Host, Master::Engine, Master::Host]);
        // Full: nothing more until a read ends.
        assert_eq!(a.rd_grant(both), None);
        assert_eq!(a.rd_data_owner(), Some(Master::Engine));
        a.clock(false, None, None, true, None, None);
        assert_eq!(a.rd_data_owner(), Some(Master::Host));
        assert!(a.rd_grant(both).is_some());
    }

    #[test]
    fn a_request_shown_and_not_taken_keeps_its_grant() {
        let mut a = DmaArb::default();
        let host = Asks { host: true, engine: false };
        let both = Asks { host: true, engine: true };
        // The host alone asks and is not taken; the engine (which round robin would pick
        // now) asks next: the host's request stays on the port until it is taken.
        assert_eq!(a.rd_grant(host), Some(Master::Host));
        a.clock(false, Some(Master::Host), None, false, None, None);
        assert_eq!(a.rd_grant(both), Some(Master::Host));
        a.clock(false, Some(Master::Host), None, false, None, None);
        assert_eq!(a.rd_grant(both), Some(Master::Host));
        a.clock(false, Some(Master::Host), Some(Master::Host), false, None, None);
        assert_eq!(a.rd_grant(both), Some(Master::Engine));
        // Writes likewise, between bursts.
        assert_eq!(a.wr_grant(host), Some(Master::Host));
        a.clock(false, None, None, false, Some(Master::Host), None);
        assert_eq!(a.wr_grant(both), Some(Master::Host));
        a.clock(false, None, None, false, Some(Master::Host), Some((Master::Host, true)));
        assert_eq!(a.wr_grant(both), Some(Master::Engine));
    }

    #[test]
    fn a_write_burst_keeps_the_port_to_its_last_beat() {
        let mut a = DmaArb::default();
        let both = Asks { host: true, engine: true };
        let g = a.wr_grant(both).unwrap();
        a.clock(false, None, None, false, Some(g), Some((g, false)));
        assert_eq!(a.wr_grant(both), Some(g));
        assert_eq!(a.wr_grant(Asks::default()), Some(g));
        a.clock(false, None, None, false, Some(g), Some((g, true)));
        assert_ne!(a.wr_grant(both), Some(g));
    }
}
