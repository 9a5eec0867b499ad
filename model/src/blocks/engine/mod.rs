//! Cycle-accurate model of the engine (`hdl/src/engine/`): the parser, the pool manager and
//! (with the zero-copy paths) the sequencer, joined by the units that make them a session
//! protocol offload.
//!
//! ```text
//!  s_axis_cmd ─► cmd FIFO ─┐                               ┌─► builder ─► m_axis_tx (SAN)
//!                          ├─► controller ◄──► pool        │      ▲ m_axis_dmard / s_axis_dmard
//!  s_axis_rx ─► rx_admit ─► parser ─ hdr ─┘  │  ▲          │
//!  (SAN)                      └─ payload ─► receive-buffer RAM ─► delivery ─► m_axis_dmawr
//!                                            └─► completion FIFO ─► m_axis_cpl
//! ```
//!
//! - [`rx_admit`]: picks the posted receive buffer each incoming message lands in; a message
//!   for a connection with none posted (the peer overran its credits) is dropped and reported.
//! - the parser checks every message; its payload beats go into the on-chip receive-buffer
//!   RAM, its header records to the controller.
//! - [`controller`]: the protocol, one event at a time, with per-connection state and
//!   queues; it asks the pool for buffers, credits and header fields, and hands work to:
//! - [`builder`]: builds each message (header, extension, inline payload read from host
//!   memory) onto the SAN send stream;
//! - [`delivery`]: copies received payload from the receive-buffer RAM into the host's posted
//!   buffers.
//!
//! Every unit talks to the next through a FIFO or a valid/ready pair whose ready comes from
//! registers, so the model computes every block's outputs first, then every handshake, then
//! clocks them all.

pub mod builder;
pub mod controller;
pub mod delivery;
pub mod rx_admit;

use crate::blocks::parser::{ParserIn, ParserModel, ParserOut};
use crate::blocks::pool::{PoolIn, PoolModel, PoolOut};
use crate::blocks::sequencer::{SequencerIn, SequencerModel, SequencerOut};
use crate::blocks::widgets::Fifo;
use crate::host::{Command, Completion};
use crate::params::{CONN_BITS, EngineParams};
use crate::ports::CycleModel;

use builder::Builder;
use controller::Controller;
use delivery::Delivery;
use rx_admit::RxAdmit;

crate::ports! {
    /// Engine inputs.
    pub struct EngineIn {
        /// Synchronous reset of every unit (the pool then sweeps its state RAM).
        reset: bool = 1,
        /// Command stream (record channel): one host command entry per beat.
        s_axis_cmd_tvalid: bool = 1,
        s_axis_cmd_opcode: u8 = 8,
        s_axis_cmd_conn: u16 = 16,
        s_axis_cmd_tag: u32 = 32,
        s_axis_cmd_addr: u64 = 64,
        s_axis_cmd_len: u32 = 32,
        s_axis_cmd_aux: u64 = 64,
        m_axis_cpl_tready: bool = 1,
        /// Host memory read requests: taken when high.
        m_axis_dmard_tready: bool = 1,
        /// Host memory read data: the bytes from the request's address, packed from byte 0,
        /// `tlast` on the request's last beat, `tkeep` the bytes of that beat.
        s_axis_dmard_tvalid: bool = 1,
        s_axis_dmard_tdata: u64 = 64,
        s_axis_dmard_tkeep: u8 = 8,
        s_axis_dmard_tlast: bool = 1,
        m_axis_dmawr_tready: bool = 1,
        /// SAN send-message stream.
        m_axis_tx_tready: bool = 1,
        /// SAN receive-message stream: `tuser` the connection.
        s_axis_rx_tvalid: bool = 1,
        s_axis_rx_tdata: u64 = 64,
        s_axis_rx_tkeep: u8 = 8,
        s_axis_rx_tlast: bool = 1,
        s_axis_rx_tuser: u8 = CONN_BITS,
        /// SAN connection events: the peer's end of connection `conn` went down (the peer
        /// reset it, or the SAN lost it).
        s_axis_down_tvalid: bool = 1,
        s_axis_down_conn: u8 = CONN_BITS,
        m_axis_down_tready: bool = 1,
        /// RDMA requests out (the sequencer's), taken when high.
        m_axis_rq_tready: bool = 1,
        /// RDMA responses in (always taken): the request's tag and a fault code.
        s_axis_rs_tvalid: bool = 1,
        s_axis_rs_tag: u16 = 16,
        s_axis_rs_status: u8 = 3,
        /// The peer's RDMA requests, each checked against the registration table before the
        /// SAN port touches host memory for it: connection, key, direction, range.
        s_axis_ac_tvalid: bool = 1,
        s_axis_ac_conn: u8 = CONN_BITS,
        s_axis_ac_key: u32 = 32,
        s_axis_ac_write: bool = 1,
        s_axis_ac_addr: u64 = 64,
        s_axis_ac_len: u32 = 32,
        m_axis_ck_tready: bool = 1,
        /// Counter read port: block `[7:5]` ([`cnt_block`]), counter `[4:0]` of that block's
        /// bank; its value is on `cnt_rd_data` the next cycle.
        cnt_rd_index: u8 = 8,
        /// Fault injection (tie to 0 in a product): a registration the controller asks for
        /// while this is high fails as if its temporary allocation had (the sequencer's
        /// `s_axis_cmd_nomem`: a send then completes with WSAENOBUFS, a receiver answers
        /// SendByCopy).
        fault_nomem: bool = 1,
    }
}

crate::ports! {
    /// Engine outputs.
    pub struct EngineOut {
        s_axis_cmd_tready: bool = 1,
        /// Completion stream: one host completion entry per beat.
        m_axis_cpl_tvalid: bool = 1,
        m_axis_cpl_tag: u32 = 32,
        m_axis_cpl_bytes: u32 = 32,
        m_axis_cpl_conn: u16 = 16,
        m_axis_cpl_status: u16 = 16,
        m_axis_cpl_opcode: u8 = 8,
        m_axis_cpl_urgent: bool = 1,
        m_axis_cpl_eof: bool = 1,
        /// Host memory read request: `len` bytes from `addr`.
        m_axis_dmard_tvalid: bool = 1,
        m_axis_dmard_addr: u64 = 64,
        m_axis_dmard_len: u32 = 32,
        s_axis_dmard_tready: bool = 1,
        /// Host memory write stream: beat `k` of a burst goes to `addr + 8k`, its bytes
        /// `tkeep` (contiguous from byte 0); `addr` is held for the whole burst.
        m_axis_dmawr_tvalid: bool = 1,
        m_axis_dmawr_addr: u64 = 64,
        m_axis_dmawr_tdata: u64 = 64,
        m_axis_dmawr_tkeep: u8 = 8,
        m_axis_dmawr_tlast: bool = 1,
        m_axis_tx_tvalid: bool = 1,
        m_axis_tx_tdata: u64 = 64,
        m_axis_tx_tkeep: u8 = 8,
        m_axis_tx_tlast: bool = 1,
        m_axis_tx_tuser: u8 = CONN_BITS,
        s_axis_rx_tready: bool = 1,
        s_axis_down_tready: bool = 1,
        /// Tear connection `conn` down on the SAN (it was reset here): the peer's engine is
        /// told, after every message sent before.
        m_axis_down_tvalid: bool = 1,
        m_axis_down_conn: u8 = CONN_BITS,
        /// RDMA request: `len` bytes between the peer's `raddr` (key `rkey`) and host memory
        /// at `laddr` (registered here under `lkey`); `write` 1 pushes to the peer, 0 pulls.
        /// Its response carries `tag` back.
        m_axis_rq_tvalid: bool = 1,
        m_axis_rq_tag: u16 = 16,
        m_axis_rq_write: bool = 1,
        m_axis_rq_conn: u8 = CONN_BITS,
        m_axis_rq_raddr: u64 = 64,
        m_axis_rq_rkey: u32 = 32,
        m_axis_rq_laddr: u64 = 64,
        m_axis_rq_lkey: u32 = 32,
        m_axis_rq_len: u32 = 32,
        s_axis_rs_tready: bool = 1,
        s_axis_ac_tready: bool = 1,
        /// The check's verdict, in the order the checks came: granted, or the first failing
        /// reason (`status::fault`).
        m_axis_ck_tvalid: bool = 1,
        m_axis_ck_grant: bool = 1,
        m_axis_ck_reason: u8 = 3,
        /// The counter `cnt_rd_index` named the cycle before (0 for a block that is not).
        cnt_rd_data: u32 = 32,
    }
}

/// The blocks behind the engine's counter read port (`cnt_rd_index[7:5]`); each block's
/// counters are documented with the block (`docs/HARDWARE.md`).
pub mod cnt_block {
    pub const PARSER: u8 = 0;
    pub const POOL: u8 = 1;
    pub const SEQUENCER: u8 = 2;
}

/// One beat of a byte stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Beat {
    pub data: u64,
    pub keep: u8,
    pub last: bool,
}

/// Depth of the command FIFO.
pub const CMD_FIFO: usize = 2;
/// Depth of the completion FIFO.
pub const CPL_FIFO: usize = 4;
/// Depth of the builder's and delivery's job FIFOs.
pub const JOB_FIFO: usize = 2;
pub const DLV_FIFO: usize = 2;
/// Depth of the builder's message-sent FIFO and delivery's done FIFO: every job the unit can
/// hold (its job FIFO, the job in progress) and one being finished, so neither unit waits to
/// report while the controller waits to hand it a job (a deadlock otherwise: see the
/// controller's event priorities).
pub const SENT_FIFO: usize = JOB_FIFO + 2;
pub const DONE_FIFO: usize = DLV_FIFO + 2;

/// The engine's cycle model.
#[derive(Clone, Debug)]
pub struct EngineModel {
    p: EngineParams,
    pub cmd: Fifo<Command>,
    pub cpl: Fifo<Completion>,
    /// The peer's connections gone down (in), ours to tear down (out).
    pub down_in: Fifo<u8>,
    pub down_out: Fifo<u8>,
    pub admit: RxAdmit,
    pub parser: ParserModel,
    pub pool: PoolModel,
    pub seq: SequencerModel,
    pub ctl: Controller,
    pub builder: Builder,
    pub delivery: Delivery,
    /// The receive-buffer RAM: `connections * recv_bufs` buffers of `buf_words` words.
    pub rxmem: Vec<u64>,
    /// Payload write pointer of the message the parser is passing (words into its buffer).
    pub rx_wptr: usize,
    /// The block the counter read port named the cycle before.
    pub cnt_sel: u8,
}

impl EngineModel {
    pub fn new(p: EngineParams) -> Self {
        p.validate().expect("valid engine parameters");
        EngineModel {
            cmd: Fifo::new(CMD_FIFO),
            cpl: Fifo::new(CPL_FIFO),
            down_in: Fifo::new(2),
            down_out: Fifo::new(2),
            admit: RxAdmit::new(&p),
            parser: ParserModel::new(p.parser()),
            pool: PoolModel::new(p.pool()),
            seq: SequencerModel::new(p.sequencer()),
            ctl: Controller::new(&p),
            builder: Builder::new(),
            delivery: Delivery::new(&p),
            rxmem: vec![0; p.rx_words()],
            rx_wptr: 0,
            cnt_sel: 0,
            p,
        }
    }

    pub fn params(&self) -> &EngineParams {
        &self.p
    }

    /// What a quiet engine still holds: call it once every command has completed and
    /// nothing is on the wire. A unit with work left, a connection with a request queued, a
    /// message in the builder, a delivery in flight, a flush not done, or a closed or aborted
    /// connection whose pool is still open (its buffers and credits not returned).
    pub fn leaks(&self) -> Vec<String> {
        use controller::{Phase, St};
        let mut l = Vec::new();
        let mut unit = |busy: bool, what: &str| {
            if busy {
                l.push(format!("{what} holds work"));
            }
        };
        unit(!self.cmd.is_empty(), "command FIFO");
        unit(!self.cpl.is_empty(), "completion FIFO");
        unit(!self.down_in.is_empty() || !self.down_out.is_empty(), "teardown FIFOs");
        unit(self.ctl.phase != Phase::Idle, "the controller (not idle)");
        let b = &self.builder;
        unit(!b.jobs.is_empty() || !b.sent.is_empty() || b.cur.is_some(), "builder");
        let d = &self.delivery;
        unit(
            !d.jobs.is_empty() || !d.done.is_empty() || d.cur.is_some() || d.finishing.is_some(),
            "delivery",
        );
        for (c, w) in self.ctl.conns.iter().enumerate() {
            let mut bad = Vec::new();
            if !w.sq.is_empty() || !w.rq.is_empty() {
                bad.push(format!("{} sends and {} receives queued", w.sq.len(), w.rq.len()));
            }
            if w.tx_inflight != 0 || w.dlv_busy {
                bad.push(format!(
                    "{} messages in the builder, delivery {}",
                    w.tx_inflight, w.dlv_busy
                ));
            }
            if w.flush_pending.is_some() {
                bad.push("a flush not done".into());
            }
            let pool = &self.pool.ram[c];
            if matches!(w.st, St::Free | St::Closed | St::Aborted) && pool.open {
                bad.push(format!("{:?} but its pool is open: {pool:?}", w.st));
            }
            if w.st == St::Established && pool.send_used != 0 {
                bad.push(format!("{} send buffers never freed", pool.send_used));
            }
            if w.tx_x != controller::TxX::None
                || w.rx_x != controller::RxX::None
                || w.tx_due.is_some()
                || w.rx_due.is_some()
                || w.op_live
            {
                bad.push(format!(
                    "a transfer not over: {:?} {:?}, owed {:?} {:?}, op {}",
                    w.tx_x, w.rx_x, w.tx_due, w.rx_due, w.op_live
                ));
            }
            if !bad.is_empty() {
                l.push(format!("connection {c}: {}", bad.join("; ")));
            }
        }
        // Every registration released, every transfer over.
        let regs = self.seq.valid.iter().filter(|&&v| v).count();
        if regs != 0 {
            l.push(format!("{regs} registrations never released"));
        }
        let ops = self.seq.ops.iter().filter(|o| o.st != 0).count();
        if ops != 0 || self.seq.cpl_v {
            l.push(format!("{ops} RDMA transfers in the op table"));
        }
        l
    }

    /// Word index of receive buffer `buf` of connection `conn` in the receive-buffer RAM.
    pub fn buf_base(p: &EngineParams, conn: u8, buf: u8) -> usize {
        (conn as usize * p.recv_slots() + buf as usize) * p.buf_words()
    }

    /// Every sub-block's inputs for this cycle, given the engine's inputs.
    fn wires(&self) -> Wires {
        let po = self.parser.outputs(&ParserIn::default());
        let pool_o = self.pool.outputs(&PoolIn::default());
        let seq_o = self.seq.outputs(&SequencerIn::default());
        let ctl = self.ctl.comb(&po, &pool_o, &seq_o, self);
        let parser_in = ParserIn {
            reset: false,
            s_axis_rx_tvalid: self.admit.out.is_some(),
            s_axis_rx_tdata: self.admit.out.map_or(0, |b| b.0.data),
            s_axis_rx_tkeep: self.admit.out.map_or(0, |b| b.0.keep),
            s_axis_rx_tlast: self.admit.out.is_some_and(|b| b.0.last),
            s_axis_rx_tuser: self.admit.out.map_or(0, |b| b.1),
            m_axis_hdr_tready: ctl.take_hdr,
            // The receive-buffer RAM takes a beat every cycle.
            m_axis_pay_tready: true,
            cnt_rd_index: 0,
        };
        let pool_in = PoolIn {
            reset: false,
            s_axis_req_tvalid: ctl.pool_req.is_some(),
            m_axis_resp_tready: true,
            cnt_rd_index: 0,
            ..ctl.pool_req.unwrap_or_default()
        };
        Wires { po, pool_o, seq_o, ctl, parser_in, pool_in, rx_ready: self.admit.in_ready(&po) }
    }

    /// The sequencer's inputs: the controller's command and answers taken, the SAN port's
    /// RDMA handshakes and the peer's checks.
    fn seq_in(i: &EngineIn, ctl: &controller::Comb) -> SequencerIn {
        let c = ctl.seq_req.unwrap_or_default();
        SequencerIn {
            reset: false,
            s_axis_cmd_tvalid: ctl.seq_req.is_some(),
            m_axis_rsp_tready: ctl.take_rsp,
            m_axis_cpl_tready: ctl.take_xfer,
            m_axis_rq_tready: i.m_axis_rq_tready,
            s_axis_rs_tvalid: i.s_axis_rs_tvalid,
            s_axis_rs_tag: i.s_axis_rs_tag,
            s_axis_rs_status: i.s_axis_rs_status,
            s_axis_ac_tvalid: i.s_axis_ac_tvalid,
            s_axis_ac_conn: i.s_axis_ac_conn,
            s_axis_ac_key: i.s_axis_ac_key,
            s_axis_ac_write: i.s_axis_ac_write,
            s_axis_ac_addr: i.s_axis_ac_addr,
            s_axis_ac_len: i.s_axis_ac_len,
            m_axis_ck_tready: i.m_axis_ck_tready,
            cnt_rd_index: i.cnt_rd_index & 0x1F,
            s_axis_cmd_nomem: i.fault_nomem,
            ..c
        }
    }
}

/// What the units show each other during one cycle.
pub struct Wires {
    pub po: ParserOut,
    pub pool_o: PoolOut,
    pub seq_o: SequencerOut,
    pub ctl: controller::Comb,
    pub parser_in: ParserIn,
    pub pool_in: PoolIn,
    pub rx_ready: bool,
}

impl CycleModel for EngineModel {
    type In = EngineIn;
    type Out = EngineOut;

    fn outputs(&self, i: &EngineIn) -> EngineOut {
        let w = self.wires();
        let c = self.cpl.head().copied().unwrap_or_default();
        let rd = self.builder.dma_req();
        let wr = self.delivery.out;
        let tx = if i.reset { self.builder.out } else { self.builder.tx(w.ctl.fx_job) };
        EngineOut {
            s_axis_cmd_tready: self.cmd.can_push(),
            m_axis_cpl_tvalid: self.cpl.head().is_some(),
            m_axis_cpl_tag: c.tag,
            m_axis_cpl_bytes: c.bytes,
            m_axis_cpl_conn: c.conn,
            m_axis_cpl_status: c.status,
            m_axis_cpl_opcode: c.opcode,
            m_axis_cpl_urgent: c.urgent,
            m_axis_cpl_eof: c.eof,
            m_axis_dmard_tvalid: rd.is_some(),
            m_axis_dmard_addr: rd.map_or(0, |r| r.0),
            m_axis_dmard_len: rd.map_or(0, |r| r.1),
            s_axis_dmard_tready: self.builder.dma_ready(i),
            m_axis_dmawr_tvalid: wr.is_some(),
            m_axis_dmawr_addr: wr.map_or(0, |w| w.0),
            m_axis_dmawr_tdata: wr.map_or(0, |w| w.1.data),
            m_axis_dmawr_tkeep: wr.map_or(0, |w| w.1.keep),
            m_axis_dmawr_tlast: wr.is_some_and(|w| w.1.last),
            m_axis_tx_tvalid: tx.is_some(),
            m_axis_tx_tdata: tx.map_or(0, |t| t.1.data),
            m_axis_tx_tkeep: tx.map_or(0, |t| t.1.keep),
            m_axis_tx_tlast: tx.is_some_and(|t| t.1.last),
            m_axis_tx_tuser: tx.map_or(0, |t| t.0),
            s_axis_rx_tready: w.rx_ready,
            s_axis_down_tready: self.down_in.can_push(),
            m_axis_down_tvalid: self.down_out.head().is_some(),
            m_axis_down_conn: self.down_out.head().copied().unwrap_or(0),
            m_axis_rq_tvalid: w.seq_o.m_axis_rq_tvalid,
            m_axis_rq_tag: w.seq_o.m_axis_rq_tag,
            m_axis_rq_write: w.seq_o.m_axis_rq_write,
            m_axis_rq_conn: w.seq_o.m_axis_rq_conn,
            m_axis_rq_raddr: w.seq_o.m_axis_rq_raddr,
            m_axis_rq_rkey: w.seq_o.m_axis_rq_rkey,
            m_axis_rq_laddr: w.seq_o.m_axis_rq_laddr,
            m_axis_rq_lkey: w.seq_o.m_axis_rq_lkey,
            m_axis_rq_len: w.seq_o.m_axis_rq_len,
            s_axis_rs_tready: w.seq_o.s_axis_rs_tready,
            s_axis_ac_tready: w.seq_o.s_axis_ac_tready,
            m_axis_ck_tvalid: w.seq_o.m_axis_ck_tvalid,
            m_axis_ck_grant: w.seq_o.m_axis_ck_grant,
            m_axis_ck_reason: w.seq_o.m_axis_ck_reason,
            cnt_rd_data: match self.cnt_sel {
                cnt_block::PARSER => w.po.cnt_rd_data,
                cnt_block::POOL => w.pool_o.cnt_rd_data,
                cnt_block::SEQUENCER => w.seq_o.cnt_rd_data,
                _ => 0,
            },
        }
    }

    fn clock(&mut self, i: &EngineIn) {
        if i.reset {
            // Registers clear; RAM contents stay (the receive buffers; the controller's
            // connection words are swept Free, one per cycle, and the pool's likewise).
            let rxmem = std::mem::take(&mut self.rxmem);
            let pool_ram = std::mem::take(&mut self.pool.ram);
            let mut pool = self.pool.clone();
            pool.ram = pool_ram;
            pool.clock(&PoolIn { reset: true, ..PoolIn::default() });
            let mut seq = self.seq.clone();
            seq.clock(&SequencerIn { reset: true, ..SequencerIn::default() });
            *self = EngineModel::new(self.p);
            self.rxmem = rxmem;
            self.pool = pool;
            self.seq = seq;
            self.ctl.sweep = self.p.connections;
            return;
        }
        let mut w = self.wires();
        // The counter read port: every bank reads the counter index, the block is registered.
        let idx = i.cnt_rd_index & 0x1F;
        w.parser_in.cnt_rd_index = idx;
        w.pool_in.cnt_rd_index = idx;
        self.cnt_sel = i.cnt_rd_index >> 5;
        // Receive-buffer RAM: the parser's payload beats, never past their buffer.
        if w.po.m_axis_pay_tvalid {
            let u = w.po.m_axis_pay_tuser;
            let (conn, buf) =
                (crate::blocks::parser::user::conn(u), crate::blocks::parser::user::buf(u));
            if (conn as u16) < self.p.connections
                && buf < self.p.recv_bufs
                && self.rx_wptr < self.p.buf_words()
            {
                let a = Self::buf_base(&self.p, conn, buf) + self.rx_wptr;
                self.rxmem[a] = w.po.m_axis_pay_tdata;
            }
            self.rx_wptr = if w.po.m_axis_pay_tlast { 0 } else { self.rx_wptr + 1 };
        }
        let cmd_push = (i.s_axis_cmd_tvalid && self.cmd.can_push()).then_some(Command {
            opcode: i.s_axis_cmd_opcode,
            flags: 0,
            conn: i.s_axis_cmd_conn,
            tag: i.s_axis_cmd_tag,
            addr: i.s_axis_cmd_addr,
            len: i.s_axis_cmd_len,
            aux: i.s_axis_cmd_aux,
        });
        let cpl_pop = i.m_axis_cpl_tready && !self.cpl.is_empty();
        self.admit.clock(i, &w);
        self.builder.clock(i, w.ctl.fx_job, w.ctl.take_sent);
        self.delivery.clock(i, w.ctl.fx_dlv, w.ctl.take_dlv, &self.rxmem, &self.p);
        self.ctl.clock(&w.ctl);
        self.cmd.clock(w.ctl.take_cmd, cmd_push);
        let down_push =
            (i.s_axis_down_tvalid && self.down_in.can_push()).then_some(i.s_axis_down_conn);
        self.down_in.clock(w.ctl.take_down, down_push);
        let down_pop = i.m_axis_down_tready && !self.down_out.is_empty();
        self.down_out.clock(down_pop, w.ctl.fx_down);
        self.cpl.clock(cpl_pop, w.ctl.fx_cpl);
        self.parser.clock(&w.parser_in);
        self.pool.clock(&w.pool_in);
        self.seq.clock(&Self::seq_in(i, &w.ctl));
    }
}
