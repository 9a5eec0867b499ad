//! Receive admission (`hdl/src/engine/rx_admit.rs`): the receive buffer each incoming
//! message lands in.
//!
//! Per connection, a bitmap of the receive buffers posted (a LUT RAM, one word per
//! connection). On a message's first beat the lowest posted buffer is taken and the message
//! passes to the parser tagged `{buf, conn}`; the controller posts the buffer again once the
//! message is consumed. A message for a connection with no buffer posted (the peer sent
//! without a credit), or for a connection id out of range, is dropped whole; the first is
//! reported to the controller (a credit overrun, which resets the connection), both are
//! counted.
//!
//! Timing: one output register toward the parser; `s_axis_rx_tready` comes from registers
//! (the register's state, the parser's registered ready, the report FIFO's room).

use crate::blocks::parser::{ParserOut, user};
use crate::blocks::widgets::Fifo;
use crate::params::EngineParams;

use super::{Beat, EngineIn, Wires};

/// A change to a connection's posted bitmap, from the controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdmitOp {
    /// Buffer `buf` is posted again.
    Post(u8),
    /// Every buffer posted (`true`: the connection opens) or none (`false`: it is gone).
    Reset(bool),
}

#[derive(Clone, Debug)]
pub struct RxAdmit {
    recv_bufs: u8,
    connections: u16,
    /// Posted receive buffers, per connection.
    pub avail: Vec<u16>,
    /// The message being passed: connection, buffer, dropped.
    pub cur: Option<(u8, u8, bool)>,
    /// Toward the parser: a beat and its `tuser`.
    pub out: Option<(Beat, u16)>,
    /// Connections whose peer overran its credits, for the controller.
    pub overruns: Fifo<u8>,
    /// Messages dropped (no buffer posted, or a connection out of range).
    pub dropped: u64,
}

impl RxAdmit {
    pub fn new(p: &EngineParams) -> Self {
        RxAdmit {
            recv_bufs: p.recv_bufs,
            connections: p.connections,
            avail: vec![0; (p.connections as usize).next_power_of_two()],
            cur: None,
            out: None,
            overruns: Fifo::new(2),
            dropped: 0,
        }
    }

    /// `s_axis_rx_tready`.
    pub fn in_ready(&self, po: &ParserOut) -> bool {
        (self.out.is_none() || po.s_axis_rx_tready) && self.overruns.can_push()
    }

    pub fn clock(&mut self, i: &EngineIn, w: &Wires) {
        if self.out.is_some() && w.po.s_axis_rx_tready {
            self.out = None;
        }
        let mut report = None;
        if i.s_axis_rx_tvalid && w.rx_ready {
            let (conn, buf, drop) = match self.cur {
                Some(c) => c,
                None => {
                    let conn = i.s_axis_rx_tuser;
                    let a = self.avail[conn as usize % self.avail.len()];
                    if (conn as u16) < self.connections && a != 0 {
                        let buf = a.trailing_zeros() as u8;
                        self.avail[conn as usize] &= !(1 << buf);
                        (conn, buf, false)
                    } else {
                        self.dropped += 1;
                        if (conn as u16) < self.connections {
                            report = Some(conn);
                        }
                        (conn, 0, true)
                    }
                }
            };
            let beat =
                Beat { data: i.s_axis_rx_tdata, keep: i.s_axis_rx_tkeep, last: i.s_axis_rx_tlast };
            if !drop {
                self.out = Some((beat, user::pack(conn, buf)));
            }
            self.cur = if beat.last { None } else { Some((conn, buf, drop)) };
        }
        if let Some((conn, op)) = w.ctl.fx_admit {
            let full = ((1u32 << self.recv_bufs) - 1) as u16;
            let a = &mut self.avail[conn as usize];
            match op {
                AdmitOp::Post(b) => *a |= 1 << b,
                AdmitOp::Reset(open) => *a = if open { full } else { 0 },
            }
        }
        self.overruns.clock(w.ctl.take_ovr, report);
    }
}
