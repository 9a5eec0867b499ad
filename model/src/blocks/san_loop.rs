//! Cycle model of the board's on-chip SAN loopback (`docs/BOARD.md`, "SAN loopback"): what
//! joins the two NICs on the XEM7010 where the simulations put
//! [`SanFabric`](crate::san_fabric::SanFabric).
//!
//! - **Messages**: per direction a link ([`MsgLink`]): node `a`'s `m_axis_tx_*` beats and
//!   `m_axis_down_*` teardowns, in the order the node hands them over (a beat before a
//!   teardown offered in the same cycle), through a two-entry FIFO to node `b`'s
//!   `s_axis_rx_*` / `s_axis_down_*` (the connection number in `tuser` / `conn`).
//! - **RDMA**: per direction a copy unit ([`RdmaCopy`]), one request at a time: the
//!   initiator's request is offered to the target's check port; a denial or a grant of no
//!   bytes is answered at once; a granted copy inside both memories moves the bytes word by
//!   word through the memories' word ports (read the source word, make the destination word
//!   from it and the one before, write it with the bytes of the range masked in), then
//!   answers 0; a range outside either memory is answered `TRANSPORT` and counted
//!   (`cnt_oob`), nothing moved.
//! - **Word ports**: per node memory the two units' requests meet in a [`WordArb`] (round
//!   robin), whose read data the memory gives exactly one cycle after the read is granted
//!   (as `NodeMem` does).
//!
//! # Timing
//! A link passes a beat from input to output in one cycle, one a cycle. A copy unit takes a
//! request in `Idle`, offers the check the next cycle, waits for the answer, copies at one
//! destination word per three cycles while its ports are free (read granted, word arrives,
//! write granted), and offers the response the cycle after the last write.

use crate::bridge::NODE_MEM_BYTES;
use crate::ports::CycleModel;
use crate::status::fault;

crate::ports! {
    /// SAN loopback inputs: each node's SAN outputs, and each node memory's word port.
    pub struct SanLoopIn {
        reset: bool = 1,
        s_axis_tx_tvalid_0: bool = 1,
        s_axis_tx_tvalid_1: bool = 1,
        s_axis_tx_tdata_0: u64 = 64,
        s_axis_tx_tdata_1: u64 = 64,
        s_axis_tx_tkeep_0: u8 = 8,
        s_axis_tx_tkeep_1: u8 = 8,
        s_axis_tx_tlast_0: bool = 1,
        s_axis_tx_tlast_1: bool = 1,
        s_axis_tx_tuser_0: u8 = 8,
        s_axis_tx_tuser_1: u8 = 8,
        s_axis_down_tvalid_0: bool = 1,
        s_axis_down_tvalid_1: bool = 1,
        s_axis_down_conn_0: u8 = 8,
        s_axis_down_conn_1: u8 = 8,
        m_axis_rx_tready_0: bool = 1,
        m_axis_rx_tready_1: bool = 1,
        m_axis_down_tready_0: bool = 1,
        m_axis_down_tready_1: bool = 1,
        s_axis_rq_tvalid_0: bool = 1,
        s_axis_rq_tvalid_1: bool = 1,
        s_axis_rq_tag_0: u16 = 16,
        s_axis_rq_tag_1: u16 = 16,
        s_axis_rq_write_0: bool = 1,
        s_axis_rq_write_1: bool = 1,
        s_axis_rq_conn_0: u8 = 8,
        s_axis_rq_conn_1: u8 = 8,
        s_axis_rq_raddr_0: u64 = 64,
        s_axis_rq_raddr_1: u64 = 64,
        s_axis_rq_rkey_0: u32 = 32,
        s_axis_rq_rkey_1: u32 = 32,
        s_axis_rq_laddr_0: u64 = 64,
        s_axis_rq_laddr_1: u64 = 64,
        s_axis_rq_len_0: u32 = 32,
        s_axis_rq_len_1: u32 = 32,
        m_axis_rs_tready_0: bool = 1,
        m_axis_rs_tready_1: bool = 1,
        m_axis_ac_tready_0: bool = 1,
        m_axis_ac_tready_1: bool = 1,
        s_axis_ck_tvalid_0: bool = 1,
        s_axis_ck_tvalid_1: bool = 1,
        s_axis_ck_grant_0: bool = 1,
        s_axis_ck_grant_1: bool = 1,
        s_axis_ck_reason_0: u8 = 3,
        s_axis_ck_reason_1: u8 = 3,
        m_mem_ready_0: bool = 1,
        m_mem_ready_1: bool = 1,
        s_mem_rdata_0: u64 = 64,
        s_mem_rdata_1: u64 = 64,
    }
}

crate::ports! {
    /// SAN loopback outputs: each node's SAN inputs, each node memory's word-port request,
    /// and the counters.
    pub struct SanLoopOut {
        s_axis_tx_tready_0: bool = 1,
        s_axis_tx_tready_1: bool = 1,
        s_axis_down_tready_0: bool = 1,
        s_axis_down_tready_1: bool = 1,
        m_axis_rx_tvalid_0: bool = 1,
        m_axis_rx_tvalid_1: bool = 1,
        m_axis_rx_tdata_0: u64 = 64,
        m_axis_rx_tdata_1: u64 = 64,
        m_axis_rx_tkeep_0: u8 = 8,
        m_axis_rx_tkeep_1: u8 = 8,
        m_axis_rx_tlast_0: bool = 1,
        m_axis_rx_tlast_1: bool = 1,
        m_axis_rx_tuser_0: u8 = 8,
        m_axis_rx_tuser_1: u8 = 8,
        m_axis_down_tvalid_0: bool = 1,
        m_axis_down_tvalid_1: bool = 1,
        m_axis_down_conn_0: u8 = 8,
        m_axis_down_conn_1: u8 = 8,
        s_axis_rq_tready_0: bool = 1,
        s_axis_rq_tready_1: bool = 1,
        m_axis_rs_tvalid_0: bool = 1,
        m_axis_rs_tvalid_1: bool = 1,
        m_axis_rs_tag_0: u16 = 16,
        m_axis_rs_tag_1: u16 = 16,
        m_axis_rs_status_0: u8 = 3,
        m_axis_rs_status_1: u8 = 3,
        m_axis_ac_tvalid_0: bool = 1,
        m_axis_ac_tvalid_1: bool = 1,
        m_axis_ac_conn_0: u8 = 8,
        m_axis_ac_conn_1: u8 = 8,
        m_axis_ac_key_0: u32 = 32,
        m_axis_ac_key_1: u32 = 32,
        m_axis_ac_write_0: bool = 1,
        m_axis_ac_write_1: bool = 1,
        m_axis_ac_addr_0: u64 = 64,
        m_axis_ac_addr_1: u64 = 64,
        m_axis_ac_len_0: u32 = 32,
        m_axis_ac_len_1: u32 = 32,
        s_axis_ck_tready_0: bool = 1,
        s_axis_ck_tready_1: bool = 1,
        m_mem_valid_0: bool = 1,
        m_mem_valid_1: bool = 1,
        m_mem_write_0: bool = 1,
        m_mem_write_1: bool = 1,
        m_mem_index_0: u16 = 16,
        m_mem_index_1: u16 = 16,
        m_mem_wdata_0: u64 = 64,
        m_mem_wdata_1: u64 = 64,
        m_mem_wmask_0: u8 = 8,
        m_mem_wmask_1: u8 = 8,
        cnt_copies: u16 = 16,
        cnt_oob: u16 = 16,
        busy: bool = 1,
    }
}

/// One side of a direction, as its link and copy unit see it: a node's SAN outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeSide {
    pub tx_valid: bool,
    pub tx_data: u64,
    pub tx_keep: u8,
    pub tx_last: bool,
    pub tx_user: u8,
    pub down_valid: bool,
    pub down_conn: u8,
    pub rx_ready: bool,
    pub down_ready: bool,
    pub rq: Option<Rq>,
    pub rs_ready: bool,
    pub ac_ready: bool,
    pub ck: Option<(bool, u8)>,
}

/// An RDMA request as the initiator's `m_axis_rq_*` gives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rq {
    pub tag: u16,
    pub write: bool,
    pub conn: u8,
    pub raddr: u64,
    pub rkey: u32,
    pub laddr: u64,
    pub len: u32,
}

/// An entry of a message link: a beat, or a teardown of `conn`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkEntry {
    pub down: bool,
    pub conn: u8,
    pub data: u64,
    pub keep: u8,
    pub last: bool,
}

/// One direction's messages: an output register with one skid slot (as
/// [`Skid`](super::widgets::Skid)).
#[derive(Clone, Debug, Default)]
pub struct MsgLink {
    out: Option<LinkEntry>,
    skid: Option<LinkEntry>,
}

impl MsgLink {
    fn can_push(&self) -> bool {
        self.skid.is_none()
    }

    /// The readies toward the sending node: (tx, down).
    pub fn readies(&self, a: &NodeSide) -> (bool, bool) {
        (self.can_push(), self.can_push() && !a.tx_valid)
    }

    /// The entry offered to the receiving node.
    pub fn head(&self) -> Option<LinkEntry> {
        self.out
    }

    pub fn clock(&mut self, a: &NodeSide, b: &NodeSide) {
        let push = if self.can_push() && a.tx_valid {
            Some(LinkEntry {
                down: false,
                conn: a.tx_user,
                data: a.tx_data,
                keep: a.tx_keep,
                last: a.tx_last,
            })
        } else if self.can_push() && a.down_valid {
            Some(LinkEntry { down: true, conn: a.down_conn, ..Default::default() })
        } else {
            None
        };
        let taken = self.out.is_some_and(|e| if e.down { b.down_ready } else { b.rx_ready });
        if self.out.is_none() || taken {
            self.out = self.skid.take().or(push);
        } else if push.is_some() {
            self.skid = push;
        }
    }
}

/// A word-port request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WordReq {
    pub write: bool,
    pub index: u16,
    pub wdata: u64,
    pub wmask: u8,
}

/// Two masters on one word port, round robin; the read data (one cycle after its grant) to
/// the master whose read it is.
#[derive(Clone, Copy, Debug, Default)]
pub struct WordArb {
    /// Master `b` was served last; the read granted last cycle was `b`'s.
    last_b: bool,
    owner_b: bool,
}

impl WordArb {
    /// Whether `b` is the one offered to the memory.
    pub fn pick_b(&self, a: Option<WordReq>, b: Option<WordReq>) -> bool {
        b.is_some() && (a.is_none() || !self.last_b)
    }

    /// The memory's read data goes to `b`.
    pub fn rdata_to_b(&self) -> bool {
        self.owner_b
    }

    pub fn clock(&mut self, a: Option<WordReq>, b: Option<WordReq>, ready: bool) {
        let pick_b = self.pick_b(a, b);
        if let Some(r) = if pick_b { b } else { a }.filter(|_| ready) {
            self.last_b = pick_b;
            if !r.write {
                self.owner_b = pick_b;
            }
        }
    }
}

/// A copy unit's step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CopyState {
    #[default]
    Idle,
    Check,
    Wait,
    Copy,
    Resp,
}

/// One direction's RDMA unit: requests of node `i` (the initiator) on node `t`'s memory.
#[derive(Clone, Debug, Default)]
pub struct RdmaCopy {
    st: CopyState,
    rq: Rq,
    status: u8,
    /// The copy: the next source word to read, the next destination word to write, the
    /// destination words not yet made, the byte shift from source to destination words,
    /// the first and last words' masks, the word read before, the word made and not yet
    /// written.
    src: u16,
    dst: u16,
    left: u16,
    shift: u32,
    first: bool,
    mask_lo: u8,
    mask_hi: u8,
    primed: bool,
    prev: u64,
    pend: Option<u64>,
    rd_fly: bool,
}

/// What a copy unit offers in a cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CopyOut {
    pub rq_ready: bool,
    pub ac: Option<Rq>,
    pub ck_ready: bool,
    pub rs: Option<(u16, u8)>,
    /// Requests on the initiator's memory and the target's.
    pub imem: Option<WordReq>,
    pub tmem: Option<WordReq>,
}

impl RdmaCopy {
    pub fn state(&self) -> CopyState {
        self.st
    }

    /// `words`: the memories' size, a power of two (a source word read outside, whose bytes
    /// are all masked out, wraps inside).
    pub fn outputs(&self, words: u32) -> CopyOut {
        let mut o = CopyOut::default();
        match self.st {
            CopyState::Idle => o.rq_ready = true,
            CopyState::Check => o.ac = Some(self.rq),
            CopyState::Wait => o.ck_ready = true,
            CopyState::Resp => o.rs = Some((self.rq.tag, self.status)),
            CopyState::Copy => {
                // A read: source in the target's memory, destination in the initiator's.
                let (src_t, dst_t) = (!self.rq.write, self.rq.write);
                let req = if let Some(w) = self.pend {
                    let mut m = 0xFF;
                    if self.first {
                        m &= self.mask_lo;
                    }
                    if self.left == 0 {
                        m &= self.mask_hi;
                    }
                    Some((dst_t, WordReq { write: true, index: self.dst, wdata: w, wmask: m }))
                } else if !self.rd_fly && self.left > 0 {
                    let index = self.src & (words - 1) as u16;
                    Some((src_t, WordReq { index, ..Default::default() }))
                } else {
                    None
                };
                if let Some((t, r)) = req {
                    if t {
                        o.tmem = Some(r);
                    } else {
                        o.imem = Some(r);
                    }
                }
            }
        }
        o
    }

    /// A clock edge. `ini`/`tgt`: the two nodes' SAN outputs; `igrant`/`tgrant`: this
    /// unit's word request on that memory was taken; `rdata`: the two memories' read data
    /// (initiator's, target's), of which the source's is the word read last cycle while a
    /// read is in flight (the memories answer a cycle after the grant).
    pub fn clock(
        &mut self,
        ini: &NodeSide,
        tgt: &NodeSide,
        igrant: bool,
        tgrant: bool,
        rdata: [u64; 2],
        words: u32,
    ) -> CopyEvent {
        let mut ev = CopyEvent::None;
        match self.st {
            CopyState::Idle => {
                if let Some(r) = ini.rq {
                    self.rq = r;
                    self.st = CopyState::Check;
                }
            }
            CopyState::Check => {
                if tgt.ac_ready {
                    self.st = CopyState::Wait;
                }
            }
            CopyState::Wait => {
                if let Some((grant, reason)) = tgt.ck {
                    self.st = CopyState::Resp;
                    let (s, d) = if self.rq.write {
                        (self.rq.laddr, self.rq.raddr)
                    } else {
                        (self.rq.raddr, self.rq.laddr)
                    };
                    let n = u64::from(self.rq.len);
                    let bytes = 8 * u64::from(words);
                    if !grant {
                        self.status = reason;
                    } else if n == 0 {
                        self.status = fault::OK;
                    } else if s >= bytes || n > bytes - s || d >= bytes || n > bytes - d {
                        self.status = fault::TRANSPORT;
                        ev = CopyEvent::Oob;
                    } else {
                        self.status = fault::OK;
                        self.st = CopyState::Copy;
                        let d0 = d & 7;
                        self.src = ((s >> 3) as u16).wrapping_sub(u16::from(s & 7 < d0));
                        self.dst = (d >> 3) as u16;
                        self.left = (((d + n - 1) >> 3) - (d >> 3) + 1) as u16;
                        self.shift = (s.wrapping_sub(d) & 7) as u32;
                        self.first = true;
                        self.mask_lo = 0xFFu8 << d0;
                        self.mask_hi = 0xFFu8 >> (7 - ((d + n - 1) & 7));
                        self.primed = false;
                        self.pend = None;
                        self.rd_fly = false;
                    }
                }
            }
            CopyState::Copy => {
                let (src_grant, dst_grant) =
                    if self.rq.write { (igrant, tgrant) } else { (tgrant, igrant) };
                if self.rd_fly {
                    let rdata = if self.rq.write { rdata[0] } else { rdata[1] };
                    self.rd_fly = false;
                    if self.primed {
                        let both = u128::from(rdata) << 64 | u128::from(self.prev);
                        self.pend = Some((both >> (8 * self.shift)) as u64);
                        self.left -= 1;
                    }
                    self.primed = true;
                    self.prev = rdata;
                } else if self.pend.is_some() {
                    if dst_grant {
                        self.pend = None;
                        self.first = false;
                        self.dst = self.dst.wrapping_add(1);
                        if self.left == 0 {
                            self.st = CopyState::Resp;
                            ev = CopyEvent::Done;
                        }
                    }
                } else if self.left > 0 && src_grant {
                    self.rd_fly = true;
                    self.src = self.src.wrapping_add(1);
                }
            }
            CopyState::Resp => {
                if ini.rs_ready {
                    self.st = CopyState::Idle;
                }
            }
        }
        ev
    }
}

/// What a copy unit's clock edge finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyEvent {
    None,
    /// A copy's last word written.
    Done,
    /// A granted range outside a memory, answered `TRANSPORT`.
    Oob,
}

/// The SAN loopback.
#[derive(Clone, Debug)]
pub struct SanLoopModel {
    words: u32,
    /// `links[a]`: node `a` to node `1 - a`; `units[i]`: node `i`'s requests; `arbs[n]`:
    /// node `n`'s memory, master `a` the unit initiating from `n`, `b` the other.
    links: [MsgLink; 2],
    units: [RdmaCopy; 2],
    arbs: [WordArb; 2],
    copies: u16,
    oob: u16,
}

impl Default for SanLoopModel {
    fn default() -> Self {
        SanLoopModel::new(NODE_MEM_BYTES / 8)
    }
}

impl SanLoopModel {
    /// A loopback between two node memories of `words` 64-bit words each.
    pub fn new(words: u32) -> Self {
        SanLoopModel {
            words,
            links: Default::default(),
            units: Default::default(),
            arbs: Default::default(),
            copies: 0,
            oob: 0,
        }
    }

    pub fn unit_state(&self, n: usize) -> CopyState {
        self.units[n].state()
    }

    /// Node `n`'s side of the inputs.
    pub fn side(i: &SanLoopIn, n: usize) -> NodeSide {
        if n == 0 {
            NodeSide {
                tx_valid: i.s_axis_tx_tvalid_0,
                tx_data: i.s_axis_tx_tdata_0,
                tx_keep: i.s_axis_tx_tkeep_0,
                tx_last: i.s_axis_tx_tlast_0,
                tx_user: i.s_axis_tx_tuser_0,
                down_valid: i.s_axis_down_tvalid_0,
                down_conn: i.s_axis_down_conn_0,
                rx_ready: i.m_axis_rx_tready_0,
                down_ready: i.m_axis_down_tready_0,
                rq: i.s_axis_rq_tvalid_0.then_some(Rq {
                    tag: i.s_axis_rq_tag_0,
                    write: i.s_axis_rq_write_0,
                    conn: i.s_axis_rq_conn_0,
                    raddr: i.s_axis_rq_raddr_0,
                    rkey: i.s_axis_rq_rkey_0,
                    laddr: i.s_axis_rq_laddr_0,
                    len: i.s_axis_rq_len_0,
                }),
                rs_ready: i.m_axis_rs_tready_0,
                ac_ready: i.m_axis_ac_tready_0,
                ck: i.s_axis_ck_tvalid_0.then_some((i.s_axis_ck_grant_0, i.s_axis_ck_reason_0)),
            }
        } else {
            NodeSide {
                tx_valid: i.s_axis_tx_tvalid_1,
                tx_data: i.s_axis_tx_tdata_1,
                tx_keep: i.s_axis_tx_tkeep_1,
                tx_last: i.s_axis_tx_tlast_1,
                tx_user: i.s_axis_tx_tuser_1,
                down_valid: i.s_axis_down_tvalid_1,
                down_conn: i.s_axis_down_conn_1,
                rx_ready: i.m_axis_rx_tready_1,
                down_ready: i.m_axis_down_tready_1,
                rq: i.s_axis_rq_tvalid_1.then_some(Rq {
                    tag: i.s_axis_rq_tag_1,
                    write: i.s_axis_rq_write_1,
                    conn: i.s_axis_rq_conn_1,
                    raddr: i.s_axis_rq_raddr_1,
                    rkey: i.s_axis_rq_rkey_1,
                    laddr: i.s_axis_rq_laddr_1,
                    len: i.s_axis_rq_len_1,
                }),
                rs_ready: i.m_axis_rs_tready_1,
                ac_ready: i.m_axis_ac_tready_1,
                ck: i.s_axis_ck_tvalid_1.then_some((i.s_axis_ck_grant_1, i.s_axis_ck_reason_1)),
            }
        }
    }

    /// Node `n` memory's requests: (from the unit initiating at `n`, from the other).
    fn mem_reqs(&self, n: usize) -> (Option<WordReq>, Option<WordReq>) {
        (self.units[n].outputs(self.words).imem, self.units[1 - n].outputs(self.words).tmem)
    }
}

impl CycleModel for SanLoopModel {
    type In = SanLoopIn;
    type Out = SanLoopOut;

    fn outputs(&self, i: &SanLoopIn) -> SanLoopOut {
        let sides = [Self::side(i, 0), Self::side(i, 1)];
        let u = [self.units[0].outputs(self.words), self.units[1].outputs(self.words)];
        let mut o = SanLoopOut::default();
        // The word ports.
        let mem = [0, 1].map(|n| {
            let (a, b) = self.mem_reqs(n);
            if self.arbs[n].pick_b(a, b) { b } else { a }
        });
        let (tx0, down0) = self.links[0].readies(&sides[0]);
        let (tx1, down1) = self.links[1].readies(&sides[1]);
        o.s_axis_tx_tready_0 = tx0;
        o.s_axis_down_tready_0 = down0;
        o.s_axis_tx_tready_1 = tx1;
        o.s_axis_down_tready_1 = down1;
        // Link `a` delivers to node `1 - a`.
        if let Some(e) = self.links[1].head() {
            if e.down {
                o.m_axis_down_tvalid_0 = true;
                o.m_axis_down_conn_0 = e.conn;
            } else {
                o.m_axis_rx_tvalid_0 = true;
                o.m_axis_rx_tdata_0 = e.data;
                o.m_axis_rx_tkeep_0 = e.keep;
                o.m_axis_rx_tlast_0 = e.last;
                o.m_axis_rx_tuser_0 = e.conn;
            }
        }
        if let Some(e) = self.links[0].head() {
            if e.down {
                o.m_axis_down_tvalid_1 = true;
                o.m_axis_down_conn_1 = e.conn;
            } else {
                o.m_axis_rx_tvalid_1 = true;
                o.m_axis_rx_tdata_1 = e.data;
                o.m_axis_rx_tkeep_1 = e.keep;
                o.m_axis_rx_tlast_1 = e.last;
                o.m_axis_rx_tuser_1 = e.conn;
            }
        }
        // Unit `n` answers node `n` and checks at node `1 - n`.
        o.s_axis_rq_tready_0 = u[0].rq_ready;
        o.s_axis_rq_tready_1 = u[1].rq_ready;
        if let Some((tag, status)) = u[0].rs {
            o.m_axis_rs_tvalid_0 = true;
            o.m_axis_rs_tag_0 = tag;
            o.m_axis_rs_status_0 = status;
        }
        if let Some((tag, status)) = u[1].rs {
            o.m_axis_rs_tvalid_1 = true;
            o.m_axis_rs_tag_1 = tag;
            o.m_axis_rs_status_1 = status;
        }
        if let Some(r) = u[1].ac {
            o.m_axis_ac_tvalid_0 = true;
            o.m_axis_ac_conn_0 = r.conn;
            o.m_axis_ac_key_0 = r.rkey;
            o.m_axis_ac_write_0 = r.write;
            o.m_axis_ac_addr_0 = r.raddr;
            o.m_axis_ac_len_0 = r.len;
        }
        if let Some(r) = u[0].ac {
            o.m_axis_ac_tvalid_1 = true;
            o.m_axis_ac_conn_1 = r.conn;
            o.m_axis_ac_key_1 = r.rkey;
            o.m_axis_ac_write_1 = r.write;
            o.m_axis_ac_addr_1 = r.raddr;
            o.m_axis_ac_len_1 = r.len;
        }
        o.s_axis_ck_tready_0 = u[1].ck_ready;
        o.s_axis_ck_tready_1 = u[0].ck_ready;
        if let Some(r) = mem[0] {
            o.m_mem_valid_0 = true;
            o.m_mem_write_0 = r.write;
            o.m_mem_index_0 = r.index;
            o.m_mem_wdata_0 = r.wdata;
            o.m_mem_wmask_0 = r.wmask;
        }
        if let Some(r) = mem[1] {
            o.m_mem_valid_1 = true;
            o.m_mem_write_1 = r.write;
            o.m_mem_index_1 = r.index;
            o.m_mem_wdata_1 = r.wdata;
            o.m_mem_wmask_1 = r.wmask;
        }
        o.cnt_copies = self.copies;
        o.cnt_oob = self.oob;
        o.busy = self.units.iter().any(|u| u.state() != CopyState::Idle)
            || self.links.iter().any(|l| l.head().is_some());
        o
    }

    fn clock(&mut self, i: &SanLoopIn) {
        if i.reset {
            *self = SanLoopModel::new(self.words);
            return;
        }
        let sides = [Self::side(i, 0), Self::side(i, 1)];
        let ready = [i.m_mem_ready_0, i.m_mem_ready_1];
        let rdata = [i.s_mem_rdata_0, i.s_mem_rdata_1];
        // grant[n] = (the grant on memory n of the unit initiating at n, of the other unit).
        let mut grant = [[false; 2]; 2];
        for n in 0..2 {
            let (a, b) = self.mem_reqs(n);
            let pick_b = self.arbs[n].pick_b(a, b);
            grant[n] = [!pick_b && a.is_some() && ready[n], pick_b && ready[n]];
            self.arbs[n].clock(a, b, ready[n]);
        }
        for n in 0..2 {
            // Unit n: its initiator memory is n's (master a there), its target's is 1 - n's
            // (master b there).
            let ev = self.units[n].clock(
                &sides[n],
                &sides[1 - n],
                grant[n][0],
                grant[1 - n][1],
                [rdata[n], rdata[1 - n]],
                self.words,
            );
            match ev {
                CopyEvent::Done => self.copies = self.copies.wrapping_add(1),
                CopyEvent::Oob => self.oob = self.oob.wrapping_add(1),
                CopyEvent::None => {}
            }
        }
        self.links[0].clock(&sides[0], &sides[1]);
        self.links[1].clock(&sides[1], &sides[0]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::san_loop_stimulus::SanLoopDriver;
    use crate::ports::Stimulus;

    /// Runs the model under the random stimulus, which checks deliveries, responses and
    /// every byte written.
    #[test]
    fn random_traffic_keeps_the_san_meaning() {
        let mut m = SanLoopModel::new(8192);
        let mut s = SanLoopDriver::new(5, 8192);
        for _ in 0..300_000 {
            let i = s.next();
            let o = m.outputs(&i);
            s.observe(&i, &o);
            m.clock(&i);
        }
        eprintln!(
            "{} beats {} downs {} copies ({} B) {} denied {} oob",
            s.beats, s.downs, s.copies, s.copied_bytes, s.denied, s.oob
        );
        assert!(s.problems.is_empty(), "{:#?}", s.problems);
        assert!(s.beats > 50_000 && s.downs > 3_000, "{} {}", s.beats, s.downs);
        assert!(
            s.copies > 1_000 && s.denied > 200 && s.oob > 100,
            "{} {} {}",
            s.copies,
            s.denied,
            s.oob
        );
    }

    /// One copy at a time, every source and destination offset, lengths around word
    /// boundaries, ranges at both ends of the memory: the destination holds the source
    /// bytes and nothing else changed.
    #[test]
    fn every_alignment_copies_exactly_its_bytes() {
        const W: u32 = 64;
        let bytes = 8 * u64::from(W);
        let mut cases = Vec::new();
        for so in 0..8u64 {
            for dof in 0..8u64 {
                for len in [1u32, 2, 7, 8, 9, 15, 16, 17, 40] {
                    cases.push((so, 200 + dof, len));
                    cases.push((bytes - u64::from(len) - so % 2, 300 + dof, len));
                    cases.push((100 + so, bytes - u64::from(len), len));
                }
            }
        }
        for (k, &(s, d, len)) in cases.iter().enumerate() {
            let write = k % 2 == 1;
            let mut mem: [Vec<u64>; 2] = [0, 1].map(|n| {
                (0..W as u64)
                    .map(|w| (w + 64 * n + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
                    .collect()
            });
            let before = mem.clone();
            let (raddr, laddr) = if write { (d, s) } else { (s, d) };
            let mut m = SanLoopModel::new(W);
            let rq = SanLoopIn {
                s_axis_rq_tvalid_0: true,
                s_axis_rq_tag_0: 9,
                s_axis_rq_write_0: write,
                s_axis_rq_raddr_0: raddr,
                s_axis_rq_laddr_0: laddr,
                s_axis_rq_len_0: len,
                ..Default::default()
            };
            let mut reading = [None::<u16>; 2];
            let mut answered = None;
            for cycle in 0..400 {
                let mut i = if cycle == 0 { rq } else { SanLoopIn::default() };
                i.m_axis_ac_tready_1 = true;
                i.s_axis_ck_tvalid_1 = true;
                i.s_axis_ck_grant_1 = true;
                i.m_axis_rs_tready_0 = true;
                i.m_mem_ready_0 = true;
                i.m_mem_ready_1 = true;
                i.s_mem_rdata_0 = reading[0].map_or(0xDEAD, |w| mem[0][w as usize]);
                i.s_mem_rdata_1 = reading[1].map_or(0xDEAD, |w| mem[1][w as usize]);
                let o = m.outputs(&i);
                let ports = [
                    (
                        o.m_mem_valid_0,
                        o.m_mem_write_0,
                        o.m_mem_index_0,
                        o.m_mem_wdata_0,
                        o.m_mem_wmask_0,
                    ),
                    (
                        o.m_mem_valid_1,
                        o.m_mem_write_1,
                        o.m_mem_index_1,
                        o.m_mem_wdata_1,
                        o.m_mem_wmask_1,
                    ),
                ];
                for (n, &(v, w, idx, data, mask)) in ports.iter().enumerate() {
                    reading[n] = (v && !w).then_some(idx);
                    if v && w {
                        let bm = (0..8)
                            .filter(|b| mask >> b & 1 != 0)
                            .fold(0u64, |a, b| a | 0xFF << (8 * b));
                        let x = &mut mem[n][idx as usize];
                        *x = *x & !bm | data & bm;
                    }
                }
                if o.m_axis_rs_tvalid_0 {
                    answered = Some((o.m_axis_rs_tag_0, o.m_axis_rs_status_0));
                }
                m.clock(&i);
                if answered.is_some() {
                    break;
                }
            }
            assert_eq!(answered, Some((9, fault::OK)), "case {s} {d} {len} write {write}");
            let (src, dst) = if write { (0, 1) } else { (1, 0) };
            let byte = |m: &Vec<u64>, a: u64| (m[(a / 8) as usize] >> (8 * (a % 8))) as u8;
            for a in 0..bytes {
                let want = if (d..d + u64::from(len)).contains(&a) {
                    byte(&before[src], s + a - d)
                } else {
                    byte(&before[dst], a)
                };
                assert_eq!(
                    byte(&mem[dst], a),
                    want,
                    "byte {a} of case {s} {d} {len} write {write}"
                );
            }
            assert_eq!(mem[src], before[src]);
        }
    }
}
