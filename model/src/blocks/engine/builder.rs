//! Message builder (`hdl/src/engine/builder.rs`): each control message onto the SAN send
//! stream.
//!
//! A job from the controller holds the message's fixed words (header, extension,
//! descriptor: built by the controller from the pool's answer) and where its inline payload
//! is in host memory. The builder sends the fixed words, asks host memory for the payload
//! (one read request, issued the cycle after the message's first beat) and passes the data
//! beats on as they come; the payload starts on a word boundary of the message, so no beat
//! is realigned. When the message's last beat is loaded it reports the message sent (the
//! send buffer can be freed, and the send it finishes completed: its bytes are read).
//!
//! Timing: one output register; back-to-back messages with no idle beat between them when
//! host memory keeps up. `s_axis_dmard_tready` is combinational from `m_axis_tx_tready`
//! (a ready-to-ready path, no valid depends on it).

use crate::blocks::widgets::Fifo;
use crate::host::Completion;

use super::{Beat, EngineIn, JOB_FIFO, SENT_FIFO};

/// Most fixed words of a message: header (2), extension (1), descriptor (2).
pub const MAX_FIXED: usize = 5;

/// One message to build.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxJob {
    pub conn: u8,
    /// The send buffer the pool handed out (freed when sent), if `pooled`.
    pub buf: u8,
    pub pooled: bool,
    pub words: [u64; MAX_FIXED],
    pub nwords: u8,
    pub pay_addr: u64,
    pub pay_len: u32,
    /// The send this message finishes: completed when it is sent.
    pub cpl: Option<Completion>,
}

/// A message sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    pub conn: u8,
    pub buf: u8,
    pub pooled: bool,
    pub cpl: Option<Completion>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cur {
    pub job: TxJob,
    /// Next fixed word.
    pub k: u8,
    /// The payload read is still to be asked for.
    pub req_due: bool,
}

#[derive(Clone, Debug)]
pub struct Builder {
    pub jobs: Fifo<TxJob>,
    pub sent: Fifo<Sent>,
    pub cur: Option<Cur>,
    /// Toward the SAN: a beat and its connection.
    pub out: Option<(u8, Beat)>,
    /// Messages sent.
    pub messages: u64,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    pub fn new() -> Self {
        Builder {
            jobs: Fifo::new(JOB_FIFO),
            sent: Fifo::new(SENT_FIFO),
            cur: None,
            out: None,
            messages: 0,
        }
    }

    /// The host memory read request offered: address and length.
    pub fn dma_req(&self) -> Option<(u64, u32)> {
        self.cur.filter(|c| c.req_due).map(|c| (c.job.pay_addr, c.job.pay_len))
    }

    fn can_load(&self, i: &EngineIn) -> bool {
        self.out.is_none() || i.m_axis_tx_tready
    }

    /// `s_axis_dmard_tready`: a payload beat is wanted and has somewhere to go.
    pub fn dma_ready(&self, i: &EngineIn) -> bool {
        self.cur.is_some_and(|c| c.k == c.job.nwords)
            && self.can_load(i)
            && (!i.s_axis_dmard_tlast || self.sent.can_push())
    }

    pub fn clock(&mut self, i: &EngineIn, push: Option<TxJob>, sent_pop: bool) {
        let load = self.can_load(i);
        if self.out.is_some() && i.m_axis_tx_tready {
            self.out = None;
        }
        let dma_ready = self.dma_ready(i);
        if let Some(c) = &mut self.cur
            && c.req_due
            && i.m_axis_dmard_tready
        {
            c.req_due = false;
        }
        let mut pop = false;
        let mut sent = None;
        if load {
            let mut cur = self.cur.or_else(|| {
                self.jobs.head().map(|&job| {
                    pop = true;
                    Cur { job, k: 0, req_due: false }
                })
            });
            if let Some(c) = &mut cur {
                let first = pop;
                let beat = if c.k < c.job.nwords {
                    let last = c.k + 1 == c.job.nwords && c.job.pay_len == 0;
                    if last && !self.sent.can_push() {
                        None
                    } else {
                        let w = c.job.words[c.k as usize];
                        c.k += 1;
                        Some(Beat { data: w, keep: 0xFF, last })
                    }
                } else if i.s_axis_dmard_tvalid && dma_ready {
                    Some(Beat {
                        data: i.s_axis_dmard_tdata,
                        keep: i.s_axis_dmard_tkeep,
                        last: i.s_axis_dmard_tlast,
                    })
                } else {
                    None
                };
                if first {
                    c.req_due = c.job.pay_len > 0;
                }
                if let Some(b) = beat {
                    self.out = Some((c.job.conn, b));
                    if b.last {
                        sent = Some(Sent {
                            conn: c.job.conn,
                            buf: c.job.buf,
                            pooled: c.job.pooled,
                            cpl: c.job.cpl,
                        });
                        self.messages += 1;
                    }
                }
                self.cur = if sent.is_some() { None } else { Some(*c) };
            }
        }
        self.jobs.clock(pop, push);
        self.sent.clock(sent_pop, sent);
    }
}
