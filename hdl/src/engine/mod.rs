//! The engine: the parser and the pool manager joined by receive admission, the controller,
//! the message builder and delivery, with the receive-buffer RAM (model:
//! `sanswitch_model::blocks::engine`, whose documentation draws the data flow).
//!
//! # Ports
//! The ports are `sanswitch_model::blocks::engine::{EngineIn, EngineOut}`, one signal per
//! field with the same name and width (`sim/build.rs` checks the generated Verilog against
//! that table), plus `clock`.
//!
//! # Structure
//! This file only joins the units, each a block of its own with its ports and timing in its
//! file's documentation:
//! - [`HostQueues`] (`host_queues.rs`): the command and completion FIFOs and the SAN's
//!   connection-event FIFOs;
//! - [`RxPath`] (`rx_path.rs`): [`RxAdmit`] (`rx_admit.rs`), the parser
//!   ([`crate::parser::ControlParser`]) and [`RxBuffers`] (`rx_buffers.rs`: the
//!   receive-buffer RAM);
//! - [`ControlPlane`] (`control_plane.rs`): the [`Controller`] (`controller/`) with the pool
//!   manager ([`crate::pool::PoolManager`]) and the sequencer ([`crate::sequencer::Sequencer`]);
//! - [`Builder`] (`builder.rs`) and [`Delivery`] (`delivery.rs`);
//! - [`CntMux`] (`cnt_mux.rs`): the counter read port's choice of bank.

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

pub mod builder;
pub mod cnt_mux;
pub mod control_plane;
pub mod controller;
pub mod delivery;
pub mod host_queues;
pub mod records;
pub mod rx_admit;
pub mod rx_buffers;
pub mod rx_path;

pub use builder::Builder;
pub use cnt_mux::CntMux;
pub use control_plane::ControlPlane;
pub use controller::Controller;
pub use delivery::Delivery;
pub use host_queues::HostQueues;
pub use rx_admit::RxAdmit;
pub use rx_buffers::RxBuffers;
pub use rx_path::RxPath;

/// The engine; `A` is the pool manager's state-RAM address width.
#[derive(LogicBlock, Default)]
pub struct Engine<const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_cmd_tvalid: Signal<In, Bit>,
    pub s_axis_cmd_opcode: Signal<In, Bits<8>>,
    pub s_axis_cmd_conn: Signal<In, Bits<16>>,
    pub s_axis_cmd_tag: Signal<In, Bits<32>>,
    pub s_axis_cmd_addr: Signal<In, Bits<64>>,
    pub s_axis_cmd_len: Signal<In, Bits<32>>,
    pub s_axis_cmd_aux: Signal<In, Bits<64>>,
    pub m_axis_cpl_tready: Signal<In, Bit>,
    pub m_axis_dmard_tready: Signal<In, Bit>,
    pub s_axis_dmard_tvalid: Signal<In, Bit>,
    pub s_axis_dmard_tdata: Signal<In, Bits<64>>,
    pub s_axis_dmard_tkeep: Signal<In, Bits<8>>,
    pub s_axis_dmard_tlast: Signal<In, Bit>,
    pub m_axis_dmawr_tready: Signal<In, Bit>,
    pub m_axis_tx_tready: Signal<In, Bit>,
    pub s_axis_rx_tvalid: Signal<In, Bit>,
    pub s_axis_rx_tdata: Signal<In, Bits<64>>,
    pub s_axis_rx_tkeep: Signal<In, Bits<8>>,
    pub s_axis_rx_tlast: Signal<In, Bit>,
    pub s_axis_rx_tuser: Signal<In, Bits<8>>,
    pub s_axis_down_tvalid: Signal<In, Bit>,
    pub s_axis_down_conn: Signal<In, Bits<8>>,
    pub m_axis_down_tready: Signal<In, Bit>,
    pub m_axis_rq_tready: Signal<In, Bit>,
    pub s_axis_rs_tvalid: Signal<In, Bit>,
    pub s_axis_rs_tag: Signal<In, Bits<16>>,
    pub s_axis_rs_status: Signal<In, Bits<3>>,
    pub s_axis_ac_tvalid: Signal<In, Bit>,
    pub s_axis_ac_conn: Signal<In, Bits<8>>,
    pub s_axis_ac_key: Signal<In, Bits<32>>,
    pub s_axis_ac_write: Signal<In, Bit>,
    pub s_axis_ac_addr: Signal<In, Bits<64>>,
    pub s_axis_ac_len: Signal<In, Bits<32>>,
    pub m_axis_ck_tready: Signal<In, Bit>,
    pub cnt_rd_index: Signal<In, Bits<8>>,
    pub fault_nomem: Signal<In, Bit>,

    pub s_axis_cmd_tready: Signal<Out, Bit>,
    pub m_axis_cpl_tvalid: Signal<Out, Bit>,
    pub m_axis_cpl_tag: Signal<Out, Bits<32>>,
    pub m_axis_cpl_bytes: Signal<Out, Bits<32>>,
    pub m_axis_cpl_conn: Signal<Out, Bits<16>>,
    pub m_axis_cpl_status: Signal<Out, Bits<16>>,
    pub m_axis_cpl_opcode: Signal<Out, Bits<8>>,
    pub m_axis_cpl_urgent: Signal<Out, Bit>,
    pub m_axis_cpl_eof: Signal<Out, Bit>,
    pub m_axis_dmard_tvalid: Signal<Out, Bit>,
    pub m_axis_dmard_addr: Signal<Out, Bits<64>>,
    pub m_axis_dmard_len: Signal<Out, Bits<32>>,
    pub s_axis_dmard_tready: Signal<Out, Bit>,
    pub m_axis_dmawr_tvalid: Signal<Out, Bit>,
    pub m_axis_dmawr_addr: Signal<Out, Bits<64>>,
    pub m_axis_dmawr_tdata: Signal<Out, Bits<64>>,
    pub m_axis_dmawr_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_dmawr_tlast: Signal<Out, Bit>,
    pub m_axis_tx_tvalid: Signal<Out, Bit>,
    pub m_axis_tx_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tx_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tx_tlast: Signal<Out, Bit>,
    pub m_axis_tx_tuser: Signal<Out, Bits<8>>,
    pub s_axis_rx_tready: Signal<Out, Bit>,
    pub s_axis_down_tready: Signal<Out, Bit>,
    pub m_axis_down_tvalid: Signal<Out, Bit>,
    pub m_axis_down_conn: Signal<Out, Bits<8>>,
    pub m_axis_rq_tvalid: Signal<Out, Bit>,
    pub m_axis_rq_tag: Signal<Out, Bits<16>>,
    pub m_axis_rq_write: Signal<Out, Bit>,
    pub m_axis_rq_conn: Signal<Out, Bits<8>>,
    pub m_axis_rq_raddr: Signal<Out, Bits<64>>,
    pub m_axis_rq_rkey: Signal<Out, Bits<32>>,
    pub m_axis_rq_laddr: Signal<Out, Bits<64>>,
    pub m_axis_rq_lkey: Signal<Out, Bits<32>>,
    pub m_axis_rq_len: Signal<Out, Bits<32>>,
    pub s_axis_rs_tready: Signal<Out, Bit>,
    pub s_axis_ac_tready: Signal<Out, Bit>,
    pub m_axis_ck_tvalid: Signal<Out, Bit>,
    pub m_axis_ck_grant: Signal<Out, Bit>,
    pub m_axis_ck_reason: Signal<Out, Bits<3>>,
    pub cnt_rd_data: Signal<Out, Bits<32>>,

    queues: HostQueues,
    rx: RxPath,
    cp: ControlPlane<A>,
    builder: Builder,
    delivery: Delivery,
    cnt: CntMux,
}

impl<const A: usize> Engine<A> {
    pub fn new(p: &EngineParams) -> Self {
        p.validate().expect("valid engine parameters");
        Engine {
            queues: HostQueues::new(),
            rx: RxPath::new(p),
            cp: ControlPlane::new(p),
            builder: Builder::default(),
            delivery: Delivery::new(p),
            cnt: CntMux::new(),
            ..Default::default()
        }
    }
}

impl<const A: usize> Logic for Engine<A> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, queues, rx, cp, builder, delivery, cnt);
        self.queues.reset.next = self.reset.val();
        self.rx.reset.next = self.reset.val();
        self.cp.reset.next = self.reset.val();
        self.builder.reset.next = self.reset.val();
        self.delivery.reset.next = self.reset.val();
        self.cnt.reset.next = self.reset.val();

        // Commands in, completions out, the SAN's connection events.
        self.queues.s_axis_cmd_tvalid.next = self.s_axis_cmd_tvalid.val();
        self.queues.s_axis_cmd_opcode.next = self.s_axis_cmd_opcode.val();
        self.queues.s_axis_cmd_conn.next = self.s_axis_cmd_conn.val();
        self.queues.s_axis_cmd_tag.next = self.s_axis_cmd_tag.val();
        self.queues.s_axis_cmd_addr.next = self.s_axis_cmd_addr.val();
        self.queues.s_axis_cmd_len.next = self.s_axis_cmd_len.val();
        self.queues.s_axis_cmd_aux.next = self.s_axis_cmd_aux.val();
        self.s_axis_cmd_tready.next = self.queues.s_axis_cmd_tready.val();
        self.queues.m_axis_cpl_tready.next = self.m_axis_cpl_tready.val();
        self.m_axis_cpl_tvalid.next = self.queues.m_axis_cpl_tvalid.val();
        self.m_axis_cpl_tag.next = self.queues.m_axis_cpl_tag.val();
        self.m_axis_cpl_bytes.next = self.queues.m_axis_cpl_bytes.val();
        self.m_axis_cpl_conn.next = self.queues.m_axis_cpl_conn.val();
        self.m_axis_cpl_status.next = self.queues.m_axis_cpl_status.val();
        self.m_axis_cpl_opcode.next = self.queues.m_axis_cpl_opcode.val();
        self.m_axis_cpl_urgent.next = self.queues.m_axis_cpl_urgent.val();
        self.m_axis_cpl_eof.next = self.queues.m_axis_cpl_eof.val();
        self.queues.s_axis_down_tvalid.next = self.s_axis_down_tvalid.val();
        self.queues.s_axis_down_conn.next = self.s_axis_down_conn.val();
        self.s_axis_down_tready.next = self.queues.s_axis_down_tready.val();
        self.queues.m_axis_down_tready.next = self.m_axis_down_tready.val();
        self.m_axis_down_tvalid.next = self.queues.m_axis_down_tvalid.val();
        self.m_axis_down_conn.next = self.queues.m_axis_down_conn.val();
        self.queues.take_cmd.next = self.cp.take_cmd.val();
        self.cp.cmd_valid.next = self.queues.cmd_valid.val();
        self.cp.cmd.next = self.queues.cmd.val();
        self.queues.cpl_push.next = self.cp.cpl_push.val();
        self.queues.cpl.next = self.cp.cpl.val();
        self.cp.cpl_can_push.next = self.queues.cpl_can_push.val();
        self.queues.take_down.next = self.cp.take_down.val();
        self.cp.down_valid.next = self.queues.down_valid.val();
        self.cp.down_conn.next = self.queues.down_conn.val();
        self.queues.down_push.next = self.cp.down_push.val();
        self.queues.down_push_conn.next = self.cp.adm_conn.val();
        self.cp.down_can_push.next = self.queues.down_can_push.val();

        // Receive: admission, parser, receive-buffer RAM; overruns and headers are events.
        self.rx.s_axis_rx_tvalid.next = self.s_axis_rx_tvalid.val();
        self.rx.s_axis_rx_tdata.next = self.s_axis_rx_tdata.val();
        self.rx.s_axis_rx_tkeep.next = self.s_axis_rx_tkeep.val();
        self.rx.s_axis_rx_tlast.next = self.s_axis_rx_tlast.val();
        self.rx.s_axis_rx_tuser.next = self.s_axis_rx_tuser.val();
        self.s_axis_rx_tready.next = self.rx.s_axis_rx_tready.val();
        self.rx.take_ovr.next = self.cp.take_ovr.val();
        self.cp.ovr_valid.next = self.rx.ovr_valid.val();
        self.cp.ovr_conn.next = self.rx.ovr_conn.val();
        self.rx.adm_valid.next = self.cp.adm_valid.val();
        self.rx.adm_conn.next = self.cp.adm_conn.val();
        self.rx.adm_post.next = self.cp.adm_post.val();
        self.rx.adm_buf.next = self.cp.adm_buf.val();
        self.rx.adm_open.next = self.cp.adm_open.val();
        self.rx.take_hdr.next = self.cp.take_hdr.val();
        self.cp.hdr_valid.next = self.rx.hdr_valid.val();
        self.cp.hdr.next = self.rx.hdr.val();

        // The sequencer's SAN side: RDMA requests and responses, the peer's access checks.
        self.cp.fault_nomem.next = self.fault_nomem.val();
        self.cp.m_axis_rq_tready.next = self.m_axis_rq_tready.val();
        self.m_axis_rq_tvalid.next = self.cp.m_axis_rq_tvalid.val();
        self.m_axis_rq_tag.next = self.cp.m_axis_rq_tag.val();
        self.m_axis_rq_write.next = self.cp.m_axis_rq_write.val();
        self.m_axis_rq_conn.next = self.cp.m_axis_rq_conn.val();
        self.m_axis_rq_raddr.next = self.cp.m_axis_rq_raddr.val();
        self.m_axis_rq_rkey.next = self.cp.m_axis_rq_rkey.val();
        self.m_axis_rq_laddr.next = self.cp.m_axis_rq_laddr.val();
        self.m_axis_rq_lkey.next = self.cp.m_axis_rq_lkey.val();
        self.m_axis_rq_len.next = self.cp.m_axis_rq_len.val();
        self.cp.s_axis_rs_tvalid.next = self.s_axis_rs_tvalid.val();
        self.cp.s_axis_rs_tag.next = self.s_axis_rs_tag.val();
        self.cp.s_axis_rs_status.next = self.s_axis_rs_status.val();
        self.s_axis_rs_tready.next = self.cp.s_axis_rs_tready.val();
        self.cp.s_axis_ac_tvalid.next = self.s_axis_ac_tvalid.val();
        self.cp.s_axis_ac_conn.next = self.s_axis_ac_conn.val();
        self.cp.s_axis_ac_key.next = self.s_axis_ac_key.val();
        self.cp.s_axis_ac_write.next = self.s_axis_ac_write.val();
        self.cp.s_axis_ac_addr.next = self.s_axis_ac_addr.val();
        self.cp.s_axis_ac_len.next = self.s_axis_ac_len.val();
        self.s_axis_ac_tready.next = self.cp.s_axis_ac_tready.val();
        self.cp.m_axis_ck_tready.next = self.m_axis_ck_tready.val();
        self.m_axis_ck_tvalid.next = self.cp.m_axis_ck_tvalid.val();
        self.m_axis_ck_grant.next = self.cp.m_axis_ck_grant.val();
        self.m_axis_ck_reason.next = self.cp.m_axis_ck_reason.val();

        // The counter read port.
        self.cnt.rd_index.next = self.cnt_rd_index.val();
        self.rx.cnt_rd_index.next = self.cnt.bank_index.val();
        self.cp.cnt_rd_index.next = self.cnt.bank_index.val();
        self.cnt.parser_data.next = self.rx.cnt_rd_data.val();
        self.cnt.pool_data.next = self.cp.pool_cnt_data.val();
        self.cnt.seq_data.next = self.cp.seq_cnt_data.val();
        self.cnt_rd_data.next = self.cnt.rd_data.val();

        // Sending: the builder, its host memory reads.
        self.builder.job_push.next = self.cp.job_push.val();
        self.builder.job.next = self.cp.job.val();
        self.builder.sent_pop.next = self.cp.take_sent.val();
        self.cp.sent_valid.next = self.builder.sent_valid.val();
        self.cp.sent.next = self.builder.sent.val();
        self.cp.job_can_push.next = self.builder.job_can_push.val();
        self.builder.tx_ready.next = self.m_axis_tx_tready.val();
        self.builder.rd_ready.next = self.m_axis_dmard_tready.val();
        self.builder.rdd_valid.next = self.s_axis_dmard_tvalid.val();
        self.builder.rdd_data.next = self.s_axis_dmard_tdata.val();
        self.builder.rdd_keep.next = self.s_axis_dmard_tkeep.val();
        self.builder.rdd_last.next = self.s_axis_dmard_tlast.val();
        self.m_axis_tx_tvalid.next = self.builder.tx_valid.val();
        self.m_axis_tx_tdata.next = self.builder.tx_data.val();
        self.m_axis_tx_tkeep.next = self.builder.tx_keep.val();
        self.m_axis_tx_tlast.next = self.builder.tx_last.val();
        self.m_axis_tx_tuser.next = self.builder.tx_conn.val();
        self.m_axis_dmard_tvalid.next = self.builder.rd_valid.val();
        self.m_axis_dmard_addr.next = self.builder.rd_addr.val();
        self.m_axis_dmard_len.next = self.builder.rd_len.val();
        self.s_axis_dmard_tready.next = self.builder.rdd_ready.val();

        // Delivery: the receive-buffer RAM into host memory.
        self.delivery.job_push.next = self.cp.dj_push.val();
        self.delivery.job.next = self.cp.dj.val();
        self.delivery.done_pop.next = self.cp.take_dlv.val();
        self.cp.dlv_valid.next = self.delivery.done_valid.val();
        self.cp.dlv.next = self.delivery.done.val();
        self.cp.dj_can_push.next = self.delivery.job_can_push.val();
        self.rx.ram_addr.next = self.delivery.ram_addr.val();
        self.delivery.ram_data.next = self.rx.ram_data.val();
        self.delivery.wr_ready.next = self.m_axis_dmawr_tready.val();
        self.m_axis_dmawr_tvalid.next = self.delivery.wr_valid.val();
        self.m_axis_dmawr_addr.next = self.delivery.wr_addr.val();
        self.m_axis_dmawr_tdata.next = self.delivery.wr_data.val();
        self.m_axis_dmawr_tkeep.next = self.delivery.wr_keep.val();
        self.m_axis_dmawr_tlast.next = self.delivery.wr_last.val();
    }
}
