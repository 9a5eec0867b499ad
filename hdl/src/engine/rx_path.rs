//! The engine's receive front end: [`RxAdmit`] (the buffer each message lands in), the
//! parser ([`ControlParser`]) and [`RxBuffers`] (the receive-buffer RAM its payload goes
//! to). What the controller sees of it is the parser's header record and the overrun FIFO;
//! what the delivery sees is the RAM's read port.
//!
//! # Ports
//! - `s_axis_rx_*` (in, `tready` out): the SAN receive stream, `tuser` the connection.
//! - `ovr_valid`, `ovr_conn` (out) / `take_ovr` (in): connections whose peer overran its
//!   credits ([`RxAdmit`]'s FIFO).
//! - `adm_valid`, `adm_conn`, `adm_post`, `adm_buf`, `adm_open` (in): the controller's change
//!   to a connection's posted bitmap ([`RxAdmit`]'s `op_*`).
//! - `hdr_valid`, `hdr` (out) / `take_hdr` (in): the parser's header stream as one record.
//! - `ram_addr` (in) / `ram_data` (out): the receive-buffer RAM's read port (data the
//!   cycle after the address).
//! - `cnt_rd_index` (in) / `cnt_rd_data` (out): the parser's counter bank.
//! - `reset` (in): synchronous, every unit.
//!
//! # Timing
//! The units' own; nothing here adds a register. The payload stream is always taken (the
//! RAM writes a beat a cycle).

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

use super::records::HdrRec;
use super::{RxAdmit, RxBuffers};
use crate::parser::ControlParser;

#[derive(LogicBlock, Default)]
pub struct RxPath {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_rx_tvalid: Signal<In, Bit>,
    pub s_axis_rx_tdata: Signal<In, Bits<64>>,
    pub s_axis_rx_tkeep: Signal<In, Bits<8>>,
    pub s_axis_rx_tlast: Signal<In, Bit>,
    pub s_axis_rx_tuser: Signal<In, Bits<8>>,
    pub take_ovr: Signal<In, Bit>,
    pub adm_valid: Signal<In, Bit>,
    pub adm_conn: Signal<In, Bits<8>>,
    pub adm_post: Signal<In, Bit>,
    pub adm_buf: Signal<In, Bits<8>>,
    pub adm_open: Signal<In, Bit>,
    pub take_hdr: Signal<In, Bit>,
    pub ram_addr: Signal<In, Bits<16>>,
    pub cnt_rd_index: Signal<In, Bits<5>>,
    pub s_axis_rx_tready: Signal<Out, Bit>,
    pub ovr_valid: Signal<Out, Bit>,
    pub ovr_conn: Signal<Out, Bits<8>>,
    pub hdr_valid: Signal<Out, Bit>,
    pub hdr: Signal<Out, HdrRec>,
    pub ram_data: Signal<Out, Bits<64>>,
    pub cnt_rd_data: Signal<Out, Bits<32>>,
    admit: RxAdmit,
    parser: ControlParser,
    rxbuf: RxBuffers,
}

impl RxPath {
    pub fn new(p: &EngineParams) -> Self {
        RxPath {
            admit: RxAdmit::new(p),
            parser: ControlParser::new(&p.parser()),
            rxbuf: RxBuffers::new(p),
            ..Default::default()
        }
    }
}

impl Logic for RxPath {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, admit, parser, rxbuf);
        self.admit.reset.next = self.reset.val();
        self.parser.reset.next = self.reset.val();
        self.rxbuf.reset.next = self.reset.val();
        // Admission: the SAN stream in, the controller's bitmap changes, the overruns out.
        self.admit.rx_valid.next = self.s_axis_rx_tvalid.val();
        self.admit.rx_data.next = self.s_axis_rx_tdata.val();
        self.admit.rx_keep.next = self.s_axis_rx_tkeep.val();
        self.admit.rx_last.next = self.s_axis_rx_tlast.val();
        self.admit.rx_conn.next = self.s_axis_rx_tuser.val();
        self.s_axis_rx_tready.next = self.admit.rx_ready.val();
        self.admit.ovr_pop.next = self.take_ovr.val();
        self.ovr_valid.next = self.admit.ovr_valid.val();
        self.ovr_conn.next = self.admit.ovr_conn.val();
        self.admit.op_valid.next = self.adm_valid.val();
        self.admit.op_conn.next = self.adm_conn.val();
        self.admit.op_post.next = self.adm_post.val();
        self.admit.op_buf.next = self.adm_buf.val();
        self.admit.op_open.next = self.adm_open.val();
        // The parser: admitted messages in, headers to the controller, payload to the RAM.
        self.admit.out_ready.next = self.parser.s_axis_rx_tready.val();
        self.parser.s_axis_rx_tvalid.next = self.admit.out_valid.val();
        self.parser.s_axis_rx_tdata.next = self.admit.out_data.val();
        self.parser.s_axis_rx_tkeep.next = self.admit.out_keep.val();
        self.parser.s_axis_rx_tlast.next = self.admit.out_last.val();
        self.parser.s_axis_rx_tuser.next = self.admit.out_user.val();
        self.parser.m_axis_hdr_tready.next = self.take_hdr.val();
        self.parser.m_axis_pay_tready.next = true;
        self.parser.cnt_rd_index.next = self.cnt_rd_index.val();
        self.cnt_rd_data.next = self.parser.cnt_rd_data.val();
        self.hdr_valid.next = self.parser.m_axis_hdr_tvalid.val();
        self.hdr.next.tuser = self.parser.m_axis_hdr_tuser.val();
        self.hdr.next.error = self.parser.m_axis_hdr_error.val();
        self.hdr.next.mid = self.parser.m_axis_hdr_mid.val();
        self.hdr.next.flags = self.parser.m_axis_hdr_flags.val();
        self.hdr.next.bufs = self.parser.m_axis_hdr_bufs.val();
        self.hdr.next.len = self.parser.m_axis_hdr_len.val();
        self.hdr.next.mseq = self.parser.m_axis_hdr_mseq.val();
        self.hdr.next.ack = self.parser.m_axis_hdr_mseq_ack.val();
        self.hdr.next.ext = self.parser.m_axis_hdr_ext.val();
        self.hdr.next.daddr = self.parser.m_axis_hdr_desc_addr.val();
        self.hdr.next.dkey = self.parser.m_axis_hdr_desc_key.val();
        self.hdr.next.dlen = self.parser.m_axis_hdr_desc_len.val();
        // The receive-buffer RAM.
        self.rxbuf.s_axis_pay_tvalid.next = self.parser.m_axis_pay_tvalid.val();
        self.rxbuf.s_axis_pay_tdata.next = self.parser.m_axis_pay_tdata.val();
        self.rxbuf.s_axis_pay_tlast.next = self.parser.m_axis_pay_tlast.val();
        self.rxbuf.s_axis_pay_tuser.next = self.parser.m_axis_pay_tuser.val();
        self.rxbuf.rd_addr.next = self.ram_addr.val();
        self.ram_data.next = self.rxbuf.rd_data.val();
    }
}
