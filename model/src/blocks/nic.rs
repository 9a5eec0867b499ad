//! The NIC top's cycle model: the host interface in front of the engine, both sharing one
//! host-memory port through the arbiter ([`DmaArb`]). What a PCIe card (or the board's
//! bridge) connects: a register port, a host-memory port, and the engine's SAN port.
//!
//! # Ports
//! - `s_axil_*`: the host interface's register port (`docs/REGISTERS.md`).
//! - Host memory (`m_axis_dmard_*` requests, `s_axis_dmard_*` data in request order,
//!   `m_axis_dmawr_*` write bursts): as the engine's, shared by ring fetches, completion
//!   writes and the engine's data.
//! - The SAN port, exactly the engine's ([`san_fields`]).
//! - `fault_nomem` (the engine's fault injection; tie to 0), `cq_event` (the host interface's).
//!
//! # Timing
//! Nothing between the units is registered: the host interface's command and the engine's
//! completion pass as they are, the arbiter adds no cycle. A command written into the
//! submission ring reaches the engine's command port after the doorbell's register write,
//! one fetch round trip to host memory and its four beats.

use super::dma_arb::{Asks, DmaArb, DmaArbIn, Master};
use super::engine::{EngineIn, EngineModel};
use super::hostif::{HostIf, HostIfIn};
use crate::params::{CONN_BITS, EngineParams};
use crate::ports::CycleModel;
use crate::regs::HostParams;

/// Calls `$m!(args; field, ...)` with the names of the SAN port's inputs and outputs, which
/// the NIC top and the engine share: the one list the NIC's model, its harness and its
/// port tables copy between the two.
#[macro_export]
macro_rules! san_fields {
    (inputs, $m:ident!($($a:tt)*)) => {
        $m!($($a)*; m_axis_tx_tready, s_axis_rx_tvalid, s_axis_rx_tdata, s_axis_rx_tkeep,
            s_axis_rx_tlast, s_axis_rx_tuser, s_axis_down_tvalid, s_axis_down_conn,
            m_axis_down_tready, m_axis_rq_tready, s_axis_rs_tvalid, s_axis_rs_tag,
            s_axis_rs_status, s_axis_ac_tvalid, s_axis_ac_conn, s_axis_ac_key, s_axis_ac_write,
            s_axis_ac_addr, s_axis_ac_len, m_axis_ck_tready, fault_nomem)
    };
    (outputs, $m:ident!($($a:tt)*)) => {
        $m!($($a)*; m_axis_tx_tvalid, m_axis_tx_tdata, m_axis_tx_tkeep, m_axis_tx_tlast,
            m_axis_tx_tuser, s_axis_rx_tready, s_axis_down_tready, m_axis_down_tvalid,
            m_axis_down_conn, m_axis_rq_tvalid, m_axis_rq_tag, m_axis_rq_write, m_axis_rq_conn,
            m_axis_rq_raddr, m_axis_rq_rkey, m_axis_rq_laddr, m_axis_rq_lkey, m_axis_rq_len,
            s_axis_rs_tready, s_axis_ac_tready, m_axis_ck_tvalid, m_axis_ck_grant,
            m_axis_ck_reason)
    };
}

/// Copies the named fields from `$src` to `$dst`.
#[macro_export]
macro_rules! copy_fields {
    ($dst:expr, $src:expr; $($f:ident),*) => { $( $dst.$f = $src.$f; )* };
}

crate::ports! {
    /// The NIC top's inputs.
    pub struct NicIn {
        reset: bool = 1,
        s_axil_awvalid: bool = 1,
        s_axil_awaddr: u16 = 12,
        s_axil_wvalid: bool = 1,
        s_axil_wdata: u32 = 32,
        s_axil_bready: bool = 1,
        s_axil_arvalid: bool = 1,
        s_axil_araddr: u16 = 12,
        s_axil_rready: bool = 1,
        m_axis_dmard_tready: bool = 1,
        s_axis_dmard_tvalid: bool = 1,
        s_axis_dmard_tdata: u64 = 64,
        s_axis_dmard_tkeep: u8 = 8,
        s_axis_dmard_tlast: bool = 1,
        m_axis_dmawr_tready: bool = 1,
        m_axis_tx_tready: bool = 1,
        s_axis_rx_tvalid: bool = 1,
        s_axis_rx_tdata: u64 = 64,
        s_axis_rx_tkeep: u8 = 8,
        s_axis_rx_tlast: bool = 1,
        s_axis_rx_tuser: u8 = CONN_BITS,
        s_axis_down_tvalid: bool = 1,
        s_axis_down_conn: u8 = CONN_BITS,
        m_axis_down_tready: bool = 1,
        m_axis_rq_tready: bool = 1,
        s_axis_rs_tvalid: bool = 1,
        s_axis_rs_tag: u16 = 16,
        s_axis_rs_status: u8 = 3,
        s_axis_ac_tvalid: bool = 1,
        s_axis_ac_conn: u8 = CONN_BITS,
        s_axis_ac_key: u32 = 32,
        s_axis_ac_write: bool = 1,
        s_axis_ac_addr: u64 = 64,
        s_axis_ac_len: u32 = 32,
        m_axis_ck_tready: bool = 1,
        fault_nomem: bool = 1,
    }
}

crate::ports! {
    /// The NIC top's outputs.
    pub struct NicOut {
        s_axil_awready: bool = 1,
        s_axil_wready: bool = 1,
        s_axil_bvalid: bool = 1,
        s_axil_bresp: u8 = 2,
        s_axil_arready: bool = 1,
        s_axil_rvalid: bool = 1,
        s_axil_rdata: u32 = 32,
        s_axil_rresp: u8 = 2,
        m_axis_dmard_tvalid: bool = 1,
        m_axis_dmard_addr: u64 = 64,
        m_axis_dmard_len: u32 = 32,
        s_axis_dmard_tready: bool = 1,
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
        m_axis_down_tvalid: bool = 1,
        m_axis_down_conn: u8 = CONN_BITS,
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
        m_axis_ck_tvalid: bool = 1,
        m_axis_ck_grant: bool = 1,
        m_axis_ck_reason: u8 = 3,
        cq_event: u8 = 8,
    }
}

/// The NIC top's cycle model.
#[derive(Clone, Debug)]
pub struct NicModel {
    pub host: HostIf,
    pub engine: EngineModel,
    arb: DmaArb,
}

/// Everything the units see in one cycle, worked out from the NIC's inputs and their state.
struct Wires {
    hi: HostIfIn,
    ei: EngineIn,
    o: NicOut,
    /// The arbiter's own inputs this cycle (the masters' asks and what the port took).
    arb: DmaArbIn,
}

impl NicModel {
    pub fn new(p: EngineParams, h: &HostParams) -> Self {
        NicModel { host: HostIf::new(&p, h), engine: EngineModel::new(p), arb: DmaArb::default() }
    }

    /// Host-memory reads outstanding at the arbiter.
    pub fn reads_outstanding(&self) -> usize {
        self.arb.reads_outstanding()
    }

    fn wires(&self, i: &NicIn) -> Wires {
        let a = &self.arb;
        // The host interface's outputs toward the engine and the arbiter depend on its state
        // only; the engine's on its state and the read data.
        let mut hi = HostIfIn {
            reset: i.reset,
            s_axil_awvalid: i.s_axil_awvalid,
            s_axil_awaddr: i.s_axil_awaddr,
            s_axil_wvalid: i.s_axil_wvalid,
            s_axil_wdata: i.s_axil_wdata,
            s_axil_bready: i.s_axil_bready,
            s_axil_arvalid: i.s_axil_arvalid,
            s_axil_araddr: i.s_axil_araddr,
            s_axil_rready: i.s_axil_rready,
            ..HostIfIn::default()
        };
        let ho0 = self.host.outputs(&hi);
        let mut ei = EngineIn {
            reset: i.reset,
            s_axis_cmd_tvalid: ho0.m_axis_cmd_tvalid,
            s_axis_cmd_opcode: ho0.m_axis_cmd_opcode,
            s_axis_cmd_conn: ho0.m_axis_cmd_conn,
            s_axis_cmd_tag: ho0.m_axis_cmd_tag,
            s_axis_cmd_addr: ho0.m_axis_cmd_addr,
            s_axis_cmd_len: ho0.m_axis_cmd_len,
            s_axis_cmd_aux: ho0.m_axis_cmd_aux,
            m_axis_cpl_tready: ho0.s_axis_cpl_tready,
            cnt_rd_index: ho0.cnt_rd_index,
            ..EngineIn::default()
        };
        san_fields!(inputs, copy_fields!(ei, i));
        let eo0 = self.engine.outputs(&ei);

        // Host-memory reads: the request picked, and the data to the queue head's master.
        let rd_grant =
            a.rd_grant(Asks { host: ho0.m_axis_fetch_tvalid, engine: eo0.m_axis_dmard_tvalid });
        let rd_owner = a.rd_data_owner();
        hi.m_axis_fetch_tready = i.m_axis_dmard_tready && rd_grant == Some(Master::Host);
        ei.m_axis_dmard_tready = i.m_axis_dmard_tready && rd_grant == Some(Master::Engine);
        hi.s_axis_fetch_tvalid = i.s_axis_dmard_tvalid && rd_owner == Some(Master::Host);
        hi.s_axis_fetch_tdata = i.s_axis_dmard_tdata;
        hi.s_axis_fetch_tlast = i.s_axis_dmard_tlast;
        ei.s_axis_dmard_tvalid = i.s_axis_dmard_tvalid && rd_owner == Some(Master::Engine);
        ei.s_axis_dmard_tdata = i.s_axis_dmard_tdata;
        ei.s_axis_dmard_tkeep = i.s_axis_dmard_tkeep;
        ei.s_axis_dmard_tlast = i.s_axis_dmard_tlast;

        // Host-memory writes: whole bursts, one master at a time.
        let wr_grant =
            a.wr_grant(Asks { host: ho0.m_axis_cqwr_tvalid, engine: eo0.m_axis_dmawr_tvalid });
        hi.m_axis_cqwr_tready = i.m_axis_dmawr_tready && wr_grant == Some(Master::Host);
        ei.m_axis_dmawr_tready = i.m_axis_dmawr_tready && wr_grant == Some(Master::Engine);

        // Between the units: the command and completion streams, the counter port.
        hi.m_axis_cmd_tready = eo0.s_axis_cmd_tready;
        hi.s_axis_cpl_tvalid = eo0.m_axis_cpl_tvalid;
        hi.s_axis_cpl_tag = eo0.m_axis_cpl_tag;
        hi.s_axis_cpl_bytes = eo0.m_axis_cpl_bytes;
        hi.s_axis_cpl_conn = eo0.m_axis_cpl_conn;
        hi.s_axis_cpl_status = eo0.m_axis_cpl_status;
        hi.s_axis_cpl_opcode = eo0.m_axis_cpl_opcode;
        hi.s_axis_cpl_urgent = eo0.m_axis_cpl_urgent;
        hi.s_axis_cpl_eof = eo0.m_axis_cpl_eof;
        hi.cnt_rd_data = eo0.cnt_rd_data;
        let ho = self.host.outputs(&hi);
        let eo = self.engine.outputs(&ei);

        let mut o = NicOut {
            s_axil_awready: ho.s_axil_awready,
            s_axil_wready: ho.s_axil_wready,
            s_axil_bvalid: ho.s_axil_bvalid,
            s_axil_bresp: ho.s_axil_bresp,
            s_axil_arready: ho.s_axil_arready,
            s_axil_rvalid: ho.s_axil_rvalid,
            s_axil_rdata: ho.s_axil_rdata,
            s_axil_rresp: ho.s_axil_rresp,
            cq_event: ho.cq_event,
            ..NicOut::default()
        };
        san_fields!(outputs, copy_fields!(o, eo));
        match rd_grant {
            Some(Master::Host) => {
                o.m_axis_dmard_tvalid = true;
                o.m_axis_dmard_addr = ho.m_axis_fetch_addr;
                o.m_axis_dmard_len = ho.m_axis_fetch_len;
            }
            Some(Master::Engine) => {
                o.m_axis_dmard_tvalid = true;
                o.m_axis_dmard_addr = eo.m_axis_dmard_addr;
                o.m_axis_dmard_len = eo.m_axis_dmard_len;
            }
            None => {}
        }
        o.s_axis_dmard_tready = match rd_owner {
            Some(Master::Host) => ho.s_axis_fetch_tready,
            Some(Master::Engine) => eo.s_axis_dmard_tready,
            None => false,
        };
        match wr_grant {
            Some(Master::Host) => {
                o.m_axis_dmawr_tvalid = ho.m_axis_cqwr_tvalid;
                o.m_axis_dmawr_addr = ho.m_axis_cqwr_addr;
                o.m_axis_dmawr_tdata = ho.m_axis_cqwr_tdata;
                o.m_axis_dmawr_tkeep = ho.m_axis_cqwr_tkeep;
                o.m_axis_dmawr_tlast = ho.m_axis_cqwr_tlast;
            }
            Some(Master::Engine) => {
                o.m_axis_dmawr_tvalid = eo.m_axis_dmawr_tvalid;
                o.m_axis_dmawr_addr = eo.m_axis_dmawr_addr;
                o.m_axis_dmawr_tdata = eo.m_axis_dmawr_tdata;
                o.m_axis_dmawr_tkeep = eo.m_axis_dmawr_tkeep;
                o.m_axis_dmawr_tlast = eo.m_axis_dmawr_tlast;
            }
            None => {}
        }
        // The masters' `tvalid`s do not depend on their `tready`s (AXI4-Stream), so the asks
        // of the first evaluation are this cycle's.
        let arb = DmaArbIn {
            reset: i.reset,
            host_rd: ho0.m_axis_fetch_tvalid,
            eng_rd: eo0.m_axis_dmard_tvalid,
            rd_ready: i.m_axis_dmard_tready,
            rd_done: o.s_axis_dmard_tready && i.s_axis_dmard_tvalid && i.s_axis_dmard_tlast,
            host_wr: ho0.m_axis_cqwr_tvalid,
            eng_wr: eo0.m_axis_dmawr_tvalid,
            wr_take: i.m_axis_dmawr_tready,
            wr_last: o.m_axis_dmawr_tlast,
        };
        Wires { hi, ei, o, arb }
    }
}

impl CycleModel for NicModel {
    type In = NicIn;
    type Out = NicOut;

    fn outputs(&self, i: &NicIn) -> NicOut {
        self.wires(i).o
    }

    fn clock(&mut self, i: &NicIn) {
        let w = self.wires(i);
        self.host.clock(&w.hi);
        self.engine.clock(&w.ei);
        CycleModel::clock(&mut self.arb, &w.arb);
    }
}
