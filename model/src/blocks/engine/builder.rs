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
//! host memory keeps up. A job pushed into an idle builder (no job held, output register
//! empty) is on `m_axis_tx_*` in the cycle that pushes it: its first beat passes the output
//! register ([`Builder::pass`]), combinational from the controller's registers (the job and
//! the push, which depend on no input of this cycle); taken there, its second beat is
//! loaded at that edge, else its first, so a beat once shown stays until it is taken. A
//! message whose only beat is its first does not pass (its sent record would need the sent
//! FIFO's room in that cycle too): it is loaded at the edge as before.
//! `s_axis_dmard_tready` is combinational from `m_axis_tx_tready` (a ready-to-ready path, no
//! valid depends on it).

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

/// The progress of the message in progress: the job FIFO's head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cur {
    /// Next fixed word.
    pub k: u8,
    /// The payload read is still to be asked for.
    pub req_due: bool,
}

#[derive(Clone, Debug)]
pub struct Builder {
    /// The jobs: the message in progress (while `cur` is set) at the head, then those
    /// waiting. A job leaves when its last beat is loaded, so no register copies it.
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
            jobs: Fifo::new(JOB_FIFO + 1),
            sent: Fifo::new(SENT_FIFO),
            cur: None,
            out: None,
            messages: 0,
        }
    }

    /// The message in progress, if one is.
    fn in_progress(&self) -> Option<(TxJob, Cur)> {
        self.jobs.head().copied().zip(self.cur)
    }

    /// The host memory read request offered: address and length.
    pub fn dma_req(&self) -> Option<(u64, u32)> {
        self.in_progress().filter(|(_, c)| c.req_due).map(|(j, _)| (j.pay_addr, j.pay_len))
    }

    /// The beat on `m_axis_tx_*` while the output register is empty: the first beat of a
    /// job pushed into an idle builder this cycle (`push`, the controller's push), unless
    /// it is the message's last.
    pub fn pass(&self, push: Option<TxJob>) -> Option<(u8, Beat)> {
        let j = push.filter(|_| self.out.is_none() && self.jobs.is_empty())?;
        debug_assert!(self.cur.is_none(), "a message in progress is the FIFO's head");
        let only = j.nwords == 1 && j.pay_len == 0;
        (j.nwords > 0 && !only)
            .then_some((j.conn, Beat { data: j.words[0], keep: 0xFF, last: false }))
    }

    /// The beat on `m_axis_tx_*`: the output register's, else the one passing it.
    pub fn tx(&self, push: Option<TxJob>) -> Option<(u8, Beat)> {
        self.out.or_else(|| self.pass(push))
    }

    fn can_load(&self, i: &EngineIn) -> bool {
        self.out.is_none() || i.m_axis_tx_tready
    }

    /// `s_axis_dmard_tready`: a payload beat is wanted and has somewhere to go.
    pub fn dma_ready(&self, i: &EngineIn) -> bool {
        self.in_progress().is_some_and(|(j, c)| c.k == j.nwords)
            && self.can_load(i)
            && (!i.s_axis_dmard_tlast || self.sent.can_push())
    }

    /// A cycle. A job pushed while the FIFO is empty and the output can load gives its first
    /// beat at the same edge (it bypasses the FIFO's read: the FIFO still takes it, unless
    /// that beat is its last).
    pub fn clock(&mut self, i: &EngineIn, push: Option<TxJob>, sent_pop: bool) {
        // The pushed job's first beat taken as it passed: its second is the one to load.
        let passed = self.pass(push).is_some() && i.m_axis_tx_tready;
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
        let mut push = push;
        let mut sent = None;
        // The message a beat comes from: the one in progress, else the head, else the job
        // pushed now.
        let src = match (self.cur, self.jobs.head()) {
            (Some(c), Some(&j)) => Some((j, c, false)),
            (None, Some(&j)) => Some((j, Cur { k: 0, req_due: false }, true)),
            (None, None) => push.map(|j| (j, Cur { k: passed as u8, req_due: false }, true)),
            (Some(_), None) => unreachable!("a message in progress is the FIFO's head"),
        };
        if load && let Some((job, mut c, first)) = src {
            let bypass = self.jobs.is_empty();
            let beat = if c.k < job.nwords {
                let last = c.k + 1 == job.nwords && job.pay_len == 0;
                if last && !self.sent.can_push() {
                    None
                } else {
                    let w = job.words[c.k as usize];
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
                c.req_due = job.pay_len > 0;
            }
            self.cur = Some(c);
            if let Some(b) = beat {
                self.out = Some((job.conn, b));
                if b.last {
                    sent = Some(Sent {
                        conn: job.conn,
                        buf: job.buf,
                        pooled: job.pooled,
                        cpl: job.cpl,
                    });
                    self.messages += 1;
                    self.cur = None;
                    if bypass {
                        push = None;
                    } else {
                        pop = true;
                    }
                }
            }
        }
        self.jobs.clock(pop, push);
        self.sent.clock(sent_pop, sent);
    }
}
