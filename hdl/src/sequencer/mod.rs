//! The RDMA read/write sequencer: registration table, op table, RDMA requests, completion
//! requests and remote-access checks.
//!
//! # Ports
//! The ports are `sanswitch_model::blocks::sequencer::{SequencerIn, SequencerOut}`, one
//! signal per field with the same name and width (`sim/build.rs` checks the generated
//! Verilog against that table), plus `clock`. The model's module documentation describes
//! them; `docs/HARDWARE.md` ("RDMA read/write sequencer") gives the protocol.
//!
//! # Structure (one register per model field, `sanswitch_model::blocks::sequencer`)
//! - **Command unit**: a three-state FSM. IDLE takes a command into the `c_*` registers and
//!   reads the registration RAM at the command's key; VERDICT decides (free slots by priority
//!   chains, key and bounds compares) into `v_*`; APPLY writes the table or the op table and
//!   loads the response register once it is free.
//! - **Registration table**: `valid` and `conn` per entry in flip-flops (so a free slot, an
//!   abort's release and a check's connection need no RAM port), key, access, address and
//!   length in two copies of a 32-word RAM (one read port for commands, one for checks;
//!   both written together).
//! - **Op table**: one set of registers per op. The issue unit picks an op that may issue
//!   (round robin) one cycle and issues its request the next, so at most one request leaves
//!   every two cycles; addresses are `base + offset`, formed at issue.
//! - **Responses** are registered on arrival and matched the next cycle against the op named
//!   by the tag: slot, generation (stale otherwise), and the request in flight whose segment
//!   number the tag carries (a duplicate otherwise).
//! - **Completions**: the lowest op whose transfer is done leaves when the output is free.
//! - **Checks**: their own block, [`AccessChecker`] (`checks.rs`): a two-stage pipeline (RAM
//!   read, verdict) into a `SkidBuffer`; `s_axis_ac_tready` admits a check only while at most
//!   one is held. It owns the check copy of the table RAM and its counter lane.
//! - **Counters**: one `CounterBank` per unit (command, response, completion; the checker's
//!   inside it), read through one registered index (`cnt_rd_index`/`cnt_rd_data`).
//!
//! Every output comes from a register (or a multiplexer or inverter of registers);
//! `s_axis_ac_tready`, `s_axis_cmd_tready` and `s_axis_rs_tready` depend on registers only.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::sequencer::{MAX_OPS, access, cmd, cnt, cst, fault, ost, rsp_status};
use sanswitch_model::params::SequencerParams;

mod checks;
pub use checks::{AccessChecker, ChkRec};

use crate::widgets::CounterBank;
use crate::widgets::counter_bank::IDX;

/// A registration-table RAM word.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct RegRec {
    pub key: Bits<32>,
    pub access: Bits<2>,
    pub addr: Bits<64>,
    pub len: Bits<32>,
}

/// A command response.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct RspRec {
    pub op: Bits<3>,
    pub conn: Bits<8>,
    pub status: Bits<3>,
    pub key: Bits<32>,
    pub len: Bits<32>,
}

/// A completion request.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct CplRec {
    pub conn: Bits<8>,
    pub xfer: Bits<32>,
    pub bytes: Bits<32>,
    pub write: Bit,
    pub status: Bits<3>,
}

/// An RDMA request.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct RqRec {
    pub tag: Bits<16>,
    pub write: Bit,
    pub conn: Bits<8>,
    pub raddr: Bits<64>,
    pub rkey: Bits<32>,
    pub laddr: Bits<64>,
    pub lkey: Bits<32>,
    pub len: Bits<32>,
}

/// A check's answer.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct CkRec {
    pub grant: Bit,
    pub reason: Bits<3>,
}

/// The sequencer (see the module documentation).
#[derive(LogicBlock)]
pub struct Sequencer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_cmd_tvalid: Signal<In, Bit>,
    pub s_axis_cmd_op: Signal<In, Bits<3>>,
    pub s_axis_cmd_conn: Signal<In, Bits<8>>,
    pub s_axis_cmd_access: Signal<In, Bits<2>>,
    pub s_axis_cmd_nomem: Signal<In, Bit>,
    pub s_axis_cmd_xfer: Signal<In, Bits<32>>,
    pub s_axis_cmd_addr: Signal<In, Bits<64>>,
    pub s_axis_cmd_key: Signal<In, Bits<32>>,
    pub s_axis_cmd_len: Signal<In, Bits<32>>,
    pub s_axis_cmd_lkey: Signal<In, Bits<32>>,
    pub m_axis_rsp_tready: Signal<In, Bit>,
    pub m_axis_cpl_tready: Signal<In, Bit>,
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
    pub cnt_rd_index: Signal<In, Bits<IDX>>,

    pub s_axis_cmd_tready: Signal<Out, Bit>,
    pub m_axis_rsp_tvalid: Signal<Out, Bit>,
    pub m_axis_rsp_op: Signal<Out, Bits<3>>,
    pub m_axis_rsp_conn: Signal<Out, Bits<8>>,
    pub m_axis_rsp_status: Signal<Out, Bits<3>>,
    pub m_axis_rsp_key: Signal<Out, Bits<32>>,
    pub m_axis_rsp_len: Signal<Out, Bits<32>>,
    pub m_axis_cpl_tvalid: Signal<Out, Bit>,
    pub m_axis_cpl_conn: Signal<Out, Bits<8>>,
    pub m_axis_cpl_xfer: Signal<Out, Bits<32>>,
    pub m_axis_cpl_bytes: Signal<Out, Bits<32>>,
    pub m_axis_cpl_write: Signal<Out, Bit>,
    pub m_axis_cpl_status: Signal<Out, Bits<3>>,
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

    // --- command unit ---
    cst: DFF<Bits<2>>,
    c_op: DFF<Bits<3>>,
    c_conn: DFF<Bits<8>>,
    c_access: DFF<Bits<2>>,
    c_nomem: DFF<Bit>,
    c_xfer: DFF<Bits<32>>,
    c_addr: DFF<Bits<64>>,
    c_key: DFF<Bits<32>>,
    c_len: DFF<Bits<32>>,
    c_lkey: DFF<Bits<32>>,
    v_status: DFF<Bits<3>>,
    v_rslot: DFF<Bits<5>>,
    v_oslot: DFF<Bits<4>>,
    rsp_v: DFF<Bit>,
    rsp_q: DFF<RspRec>,
    // --- registration table ---
    r_valid: Vec<DFF<Bit>>,
    r_conn: Vec<DFF<Bits<8>>>,
    tab_c: RAM<RegRec, 5>,
    knext: DFFWithInit<Bits<32>>,
    // --- op table ---
    o_st: Vec<DFF<Bits<2>>>,
    o_gen: Vec<DFF<Bits<4>>>,
    o_wr: Vec<DFF<Bit>>,
    o_conn: Vec<DFF<Bits<8>>>,
    o_xfer: Vec<DFF<Bits<32>>>,
    o_raddr: Vec<DFF<Bits<64>>>,
    o_rkey: Vec<DFF<Bits<32>>>,
    o_laddr: Vec<DFF<Bits<64>>>,
    o_lkey: Vec<DFF<Bits<32>>>,
    o_total: Vec<DFF<Bits<32>>>,
    o_off: Vec<DFF<Bits<32>>>,
    o_rem: Vec<DFF<Bits<32>>>,
    o_more: Vec<DFF<Bit>>,
    o_lastseg: Vec<DFF<Bit>>,
    o_seq: Vec<DFF<Bits<8>>>,
    o_emask: Vec<DFF<Bits<16>>>,
    o_inflight: Vec<DFF<Bits<16>>>,
    o_status: Vec<DFF<Bits<3>>>,
    // --- issue ---
    iv: DFF<Bit>,
    isel: DFF<Bits<4>>,
    rrm: Vec<DFF<Bit>>,
    rq_v: DFF<Bit>,
    rq_q: DFF<RqRec>,
    // --- responses ---
    r_v: DFF<Bit>,
    r_tag: DFF<Bits<16>>,
    r_st: DFF<Bits<3>>,
    // --- completions ---
    cpl_v: DFF<Bit>,
    cpl_q: DFF<CplRec>,
    // --- checks ---
    // --- counters: one bank per unit (lane), one read port ---
    cnt_cmd: CounterBank,
    cnt_rs: CounterBank,
    cnt_cpl: CounterBank,
    cnt_sel: DFF<Bits<IDX>>,
    // --- remote-access checks (with their counter lane and table RAM copy) ---
    chk: AccessChecker,
    // Counter indices ([`cnt`]) and lane bounds.
    k_ci0: Constant<Bits<IDX>>,
    k_ci1: Constant<Bits<IDX>>,
    k_ci2: Constant<Bits<IDX>>,
    k_ci3: Constant<Bits<IDX>>,
    k_ci4: Constant<Bits<IDX>>,
    k_ci7: Constant<Bits<IDX>>,
    k_ci8: Constant<Bits<IDX>>,
    k_ci12: Constant<Bits<IDX>>,

    // --- constants ---
    k_idx5: Vec<Constant<Bits<5>>>,
    k_oidx: Vec<Constant<Bits<4>>>,
    k_ent: Vec<Constant<Bits<8>>>,
    k_onehot: Vec<Constant<Bits<16>>>,
    k_idx_mask: Constant<Bits<32>>,
    k_kstep: Constant<Bits<32>>,
    k_seg: Constant<Bits<32>>,
    k_seg2: Constant<Bits<32>>,
    k_wmask8: Constant<Bits<8>>,
    k_notw8: Constant<Bits<8>>,
    k_wtop: Constant<Bits<16>>,
    k_conn_max: Constant<Bits<8>>,
    k_cmd_reg: Constant<Bits<3>>,
    k_cmd_dereg: Constant<Bits<3>>,
    k_cmd_read: Constant<Bits<3>>,
    k_cmd_write: Constant<Bits<3>>,
    k_cmd_abort: Constant<Bits<3>>,
    k_acc_local: Constant<Bits<2>>,
    k_acc_bad: Constant<Bits<2>>,
    k_s_ok: Constant<Bits<3>>,
    k_s_nobufs: Constant<Bits<3>>,
    k_s_nomem: Constant<Bits<3>>,
    k_s_stale: Constant<Bits<3>>,
    k_s_baddesc: Constant<Bits<3>>,
    k_s_busy: Constant<Bits<3>>,
    k_s_badcmd: Constant<Bits<3>>,
    k_cs_transport: Constant<Bits<3>>,
    k_cs_aborted: Constant<Bits<3>>,
    k_cs_first_bad: Constant<Bits<3>>,
    k_st_free: Constant<Bits<2>>,
    k_st_run: Constant<Bits<2>>,
    k_st_done: Constant<Bits<2>>,
    k_c_idle: Constant<Bits<2>>,
    k_c_verdict: Constant<Bits<2>>,
    k_c_apply: Constant<Bits<2>>,
    k_rsp_zero: Constant<RspRec>,
    k_cpl_zero: Constant<CplRec>,
    k_rq_zero: Constant<RqRec>,

    // --- combinational: completions ---
    cdone: Vec<Signal<Local, Bit>>,
    cl: Vec<Signal<Local, Bit>>,
    cpick: Vec<Signal<Local, Bit>>,
    any_done: Signal<Local, Bit>,
    cpl_fire: Signal<Local, Bit>,
    crec: Signal<Local, CplRec>,
    // --- issue ---
    can: Vec<Signal<Local, Bit>>,
    cm: Vec<Signal<Local, Bit>>,
    lc: Vec<Signal<Local, Bit>>,
    lm: Vec<Signal<Local, Bit>>,
    pick: Vec<Signal<Local, Bit>>,
    below: Vec<Signal<Local, Bit>>,
    fire_i: Vec<Signal<Local, Bit>>,
    any_can: Signal<Local, Bit>,
    any_m: Signal<Local, Bit>,
    sel_can: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    pick_idx: Signal<Local, Bits<4>>,
    s_gen: Signal<Local, Bits<4>>,
    s_wr: Signal<Local, Bit>,
    s_conn: Signal<Local, Bits<8>>,
    s_raddr: Signal<Local, Bits<64>>,
    s_rkey: Signal<Local, Bits<32>>,
    s_laddr: Signal<Local, Bits<64>>,
    s_lkey: Signal<Local, Bits<32>>,
    s_off: Signal<Local, Bits<32>>,
    s_rem: Signal<Local, Bits<32>>,
    s_lastseg: Signal<Local, Bit>,
    s_seq: Signal<Local, Bits<8>>,
    rqrec: Signal<Local, RqRec>,
    // --- responses ---
    rslot: Signal<Local, Bits<4>>,
    rgen: Signal<Local, Bits<4>>,
    rseq: Signal<Local, Bits<8>>,
    rent: Signal<Local, Bits<8>>,
    eh: Signal<Local, Bits<16>>,
    err: Signal<Local, Bits<3>>,
    mine: Vec<Signal<Local, Bit>>,
    dist: Vec<Signal<Local, Bits<8>>>,
    good: Vec<Signal<Local, Bit>>,
    gm: Vec<Signal<Local, Bit>>,
    gg: Vec<Signal<Local, Bit>>,
    any_mine: Signal<Local, Bit>,
    any_good: Signal<Local, Bit>,
    clr_m: Vec<Signal<Local, Bits<16>>>,
    set_m: Vec<Signal<Local, Bits<16>>>,
    // --- command unit ---
    accept: Signal<Local, Bit>,
    in_k: Signal<Local, Bits<32>>,
    c_k: Signal<Local, Bits<32>>,
    cur_k: Signal<Local, Bits<32>>,
    vidx: Signal<Local, Bits<5>>,
    e_valid: Signal<Local, Bit>,
    e_conn: Signal<Local, Bits<8>>,
    e_ok: Signal<Local, Bit>,
    conn_ok: Signal<Local, Bit>,
    rl: Vec<Signal<Local, Bit>>,
    fr: Vec<Signal<Local, Bit>>,
    any_free_reg: Signal<Local, Bit>,
    free_rslot: Signal<Local, Bits<5>>,
    ol: Vec<Signal<Local, Bit>>,
    fo: Vec<Signal<Local, Bit>>,
    any_free_op: Signal<Local, Bit>,
    free_oslot: Signal<Local, Bits<4>>,
    busy_key: Signal<Local, Bit>,
    is_reg: Signal<Local, Bit>,
    is_dereg: Signal<Local, Bit>,
    is_start: Signal<Local, Bit>,
    is_abort: Signal<Local, Bit>,
    status: Signal<Local, Bits<3>>,
    apply: Signal<Local, Bit>,
    ok: Signal<Local, Bit>,
    a_is_reg: Signal<Local, Bit>,
    a_is_dereg: Signal<Local, Bit>,
    a_is_start: Signal<Local, Bit>,
    a_is_abort: Signal<Local, Bit>,
    newkey: Signal<Local, Bits<32>>,
    reg_we: Signal<Local, Bit>,
    regrec: Signal<Local, RegRec>,
    rsprec: Signal<Local, RspRec>,
    // --- checks ---
}

fn c<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

fn v<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

impl Sequencer {
    pub fn new(p: &SequencerParams) -> Self {
        p.validate().expect("valid sequencer parameters");
        let nops = p.ops as usize;
        let nregs = p.reg_entries as usize;
        let w = p.window as usize;
        assert!(nops <= MAX_OPS);
        Sequencer {
            clock: Default::default(),
            reset: Default::default(),
            s_axis_cmd_tvalid: Default::default(),
            s_axis_cmd_op: Default::default(),
            s_axis_cmd_conn: Default::default(),
            s_axis_cmd_access: Default::default(),
            s_axis_cmd_nomem: Default::default(),
            s_axis_cmd_xfer: Default::default(),
            s_axis_cmd_addr: Default::default(),
            s_axis_cmd_key: Default::default(),
            s_axis_cmd_len: Default::default(),
            s_axis_cmd_lkey: Default::default(),
            m_axis_rsp_tready: Default::default(),
            m_axis_cpl_tready: Default::default(),
            m_axis_rq_tready: Default::default(),
            s_axis_rs_tvalid: Default::default(),
            s_axis_rs_tag: Default::default(),
            s_axis_rs_status: Default::default(),
            s_axis_ac_tvalid: Default::default(),
            s_axis_ac_conn: Default::default(),
            s_axis_ac_key: Default::default(),
            s_axis_ac_write: Default::default(),
            s_axis_ac_addr: Default::default(),
            s_axis_ac_len: Default::default(),
            m_axis_ck_tready: Default::default(),
            cnt_rd_index: Default::default(),
            s_axis_cmd_tready: Default::default(),
            m_axis_rsp_tvalid: Default::default(),
            m_axis_rsp_op: Default::default(),
            m_axis_rsp_conn: Default::default(),
            m_axis_rsp_status: Default::default(),
            m_axis_rsp_key: Default::default(),
            m_axis_rsp_len: Default::default(),
            m_axis_cpl_tvalid: Default::default(),
            m_axis_cpl_conn: Default::default(),
            m_axis_cpl_xfer: Default::default(),
            m_axis_cpl_bytes: Default::default(),
            m_axis_cpl_write: Default::default(),
            m_axis_cpl_status: Default::default(),
            m_axis_rq_tvalid: Default::default(),
            m_axis_rq_tag: Default::default(),
            m_axis_rq_write: Default::default(),
            m_axis_rq_conn: Default::default(),
            m_axis_rq_raddr: Default::default(),
            m_axis_rq_rkey: Default::default(),
            m_axis_rq_laddr: Default::default(),
            m_axis_rq_lkey: Default::default(),
            m_axis_rq_len: Default::default(),
            s_axis_rs_tready: Default::default(),
            s_axis_ac_tready: Default::default(),
            m_axis_ck_tvalid: Default::default(),
            m_axis_ck_grant: Default::default(),
            m_axis_ck_reason: Default::default(),
            cnt_rd_data: Default::default(),
            cst: Default::default(),
            c_op: Default::default(),
            c_conn: Default::default(),
            c_access: Default::default(),
            c_nomem: Default::default(),
            c_xfer: Default::default(),
            c_addr: Default::default(),
            c_key: Default::default(),
            c_len: Default::default(),
            c_lkey: Default::default(),
            v_status: Default::default(),
            v_rslot: Default::default(),
            v_oslot: Default::default(),
            rsp_v: Default::default(),
            rsp_q: Default::default(),
            r_valid: v(nregs),
            r_conn: v(nregs),
            tab_c: Default::default(),
            knext: DFFWithInit::new((p.reg_entries as u64).into()),
            o_st: v(nops),
            o_gen: v(nops),
            o_wr: v(nops),
            o_conn: v(nops),
            o_xfer: v(nops),
            o_raddr: v(nops),
            o_rkey: v(nops),
            o_laddr: v(nops),
            o_lkey: v(nops),
            o_total: v(nops),
            o_off: v(nops),
            o_rem: v(nops),
            o_more: v(nops),
            o_lastseg: v(nops),
            o_seq: v(nops),
            o_emask: v(nops),
            o_inflight: v(nops),
            o_status: v(nops),
            iv: Default::default(),
            isel: Default::default(),
            rrm: v(nops),
            rq_v: Default::default(),
            rq_q: Default::default(),
            r_v: Default::default(),
            r_tag: Default::default(),
            r_st: Default::default(),
            cpl_v: Default::default(),
            cpl_q: Default::default(),
            cnt_cmd: CounterBank::new(cnt::LANES[0].1),
            cnt_rs: CounterBank::new(cnt::LANES[1].1),
            cnt_cpl: CounterBank::new(cnt::LANES[2].1),
            cnt_sel: Default::default(),
            chk: AccessChecker::new(p.reg_entries as u32),
            k_ci0: c(0),
            k_ci1: c(1),
            k_ci2: c(2),
            k_ci3: c(3),
            k_ci4: c(cnt::LANES[1].0 as u64),
            k_ci7: c(cnt::LANES[2].0 as u64),
            k_ci8: c(cnt::LANES[3].0 as u64),
            k_ci12: c(cnt::COUNT as u64),
            k_idx5: (0..nregs).map(|j| c(j as u64)).collect(),
            k_oidx: (0..nops).map(|i| c(i as u64)).collect(),
            k_ent: (0..w).map(|j| c(j as u64)).collect(),
            k_onehot: (0..w).map(|j| c(1 << j)).collect(),
            k_idx_mask: c(p.reg_entries as u64 - 1),
            k_kstep: c(p.reg_entries as u64),
            k_seg: c(p.segment as u64),
            k_seg2: c(2 * p.segment as u64),
            k_wmask8: c(w as u64 - 1),
            k_notw8: c(!(w as u64 - 1) & 0xFF),
            k_wtop: c(1 << (w - 1)),
            k_conn_max: c(p.connections as u64 - 1),
            k_cmd_reg: c(cmd::REGISTER as u64),
            k_cmd_dereg: c(cmd::DEREGISTER as u64),
            k_cmd_read: c(cmd::START_READ as u64),
            k_cmd_write: c(cmd::START_WRITE as u64),
            k_cmd_abort: c(cmd::ABORT as u64),
            k_acc_local: c(access::LOCAL as u64),
            k_acc_bad: c(3),
            k_s_ok: c(rsp_status::OK as u64),
            k_s_nobufs: c(rsp_status::NOBUFS as u64),
            k_s_nomem: c(rsp_status::NOMEM as u64),
            k_s_stale: c(rsp_status::STALE as u64),
            k_s_baddesc: c(rsp_status::BADDESC as u64),
            k_s_busy: c(rsp_status::BUSY as u64),
            k_s_badcmd: c(rsp_status::BADCMD as u64),
            k_cs_transport: c(fault::TRANSPORT as u64),
            k_cs_aborted: c(fault::ABORTED as u64),
            k_cs_first_bad: c(fault::FIRST_NOT_SAN as u64),
            k_st_free: c(ost::FREE as u64),
            k_st_run: c(ost::RUN as u64),
            k_st_done: c(ost::DONE as u64),
            k_c_idle: c(cst::IDLE as u64),
            k_c_verdict: c(cst::VERDICT as u64),
            k_c_apply: c(cst::APPLY as u64),
            k_rsp_zero: Constant::new(RspRec::default()),
            k_cpl_zero: Constant::new(CplRec::default()),
            k_rq_zero: Constant::new(RqRec::default()),
            cdone: v(nops),
            cl: v(nops + 1),
            cpick: v(nops),
            any_done: Default::default(),
            cpl_fire: Default::default(),
            crec: Default::default(),
            can: v(nops),
            cm: v(nops),
            lc: v(nops + 1),
            lm: v(nops + 1),
            pick: v(nops),
            below: v(nops),
            fire_i: v(nops),
            any_can: Default::default(),
            any_m: Default::default(),
            sel_can: Default::default(),
            fire: Default::default(),
            pick_idx: Default::default(),
            s_gen: Default::default(),
            s_wr: Default::default(),
            s_conn: Default::default(),
            s_raddr: Default::default(),
            s_rkey: Default::default(),
            s_laddr: Default::default(),
            s_lkey: Default::default(),
            s_off: Default::default(),
            s_rem: Default::default(),
            s_lastseg: Default::default(),
            s_seq: Default::default(),
            rqrec: Default::default(),
            rslot: Default::default(),
            rgen: Default::default(),
            rseq: Default::default(),
            rent: Default::default(),
            eh: Default::default(),
            err: Default::default(),
            mine: v(nops),
            dist: v(nops),
            good: v(nops),
            gm: v(nops + 1),
            gg: v(nops + 1),
            any_mine: Default::default(),
            any_good: Default::default(),
            clr_m: v(nops),
            set_m: v(nops),
            accept: Default::default(),
            in_k: Default::default(),
            c_k: Default::default(),
            cur_k: Default::default(),
            vidx: Default::default(),
            e_valid: Default::default(),
            e_conn: Default::default(),
            e_ok: Default::default(),
            conn_ok: Default::default(),
            rl: v(nregs + 1),
            fr: v(nregs),
            any_free_reg: Default::default(),
            free_rslot: Default::default(),
            ol: v(nops + 1),
            fo: v(nops),
            any_free_op: Default::default(),
            free_oslot: Default::default(),
            busy_key: Default::default(),
            is_reg: Default::default(),
            is_dereg: Default::default(),
            is_start: Default::default(),
            is_abort: Default::default(),
            status: Default::default(),
            apply: Default::default(),
            ok: Default::default(),
            a_is_reg: Default::default(),
            a_is_dereg: Default::default(),
            a_is_start: Default::default(),
            a_is_abort: Default::default(),
            newkey: Default::default(),
            reg_we: Default::default(),
            regrec: Default::default(),
            rsprec: Default::default(),
        }
    }
}

impl Default for Sequencer {
    fn default() -> Self {
        Self::new(&SequencerParams::default())
    }
}

impl Logic for Sequencer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, cst, c_op, c_conn, c_access, c_nomem, c_xfer, c_addr, c_key, c_len,
            c_lkey, v_status, v_rslot, v_oslot, rsp_v, rsp_q, knext, iv, isel, rq_v, rq_q, r_v,
            r_tag, r_st, cpl_v, cpl_q, cnt_sel
        );
        for j in 0..self.r_valid.len() {
            self.r_valid[j].clock.next = self.clock.val();
            self.r_valid[j].d.next = self.r_valid[j].q.val();
            self.r_conn[j].clock.next = self.clock.val();
            self.r_conn[j].d.next = self.r_conn[j].q.val();
        }
        for i in 0..self.o_st.len() {
            self.o_st[i].clock.next = self.clock.val();
            self.o_st[i].d.next = self.o_st[i].q.val();
            self.o_gen[i].clock.next = self.clock.val();
            self.o_gen[i].d.next = self.o_gen[i].q.val();
            self.o_wr[i].clock.next = self.clock.val();
            self.o_wr[i].d.next = self.o_wr[i].q.val();
            self.o_conn[i].clock.next = self.clock.val();
            self.o_conn[i].d.next = self.o_conn[i].q.val();
            self.o_xfer[i].clock.next = self.clock.val();
            self.o_xfer[i].d.next = self.o_xfer[i].q.val();
            self.o_raddr[i].clock.next = self.clock.val();
            self.o_raddr[i].d.next = self.o_raddr[i].q.val();
            self.o_rkey[i].clock.next = self.clock.val();
            self.o_rkey[i].d.next = self.o_rkey[i].q.val();
            self.o_laddr[i].clock.next = self.clock.val();
            self.o_laddr[i].d.next = self.o_laddr[i].q.val();
            self.o_lkey[i].clock.next = self.clock.val();
            self.o_lkey[i].d.next = self.o_lkey[i].q.val();
            self.o_total[i].clock.next = self.clock.val();
            self.o_total[i].d.next = self.o_total[i].q.val();
            self.o_off[i].clock.next = self.clock.val();
            self.o_off[i].d.next = self.o_off[i].q.val();
            self.o_rem[i].clock.next = self.clock.val();
            self.o_rem[i].d.next = self.o_rem[i].q.val();
            self.o_more[i].clock.next = self.clock.val();
            self.o_more[i].d.next = self.o_more[i].q.val();
            self.o_lastseg[i].clock.next = self.clock.val();
            self.o_lastseg[i].d.next = self.o_lastseg[i].q.val();
            self.o_seq[i].clock.next = self.clock.val();
            self.o_seq[i].d.next = self.o_seq[i].q.val();
            self.o_emask[i].clock.next = self.clock.val();
            self.o_emask[i].d.next = self.o_emask[i].q.val();
            self.o_inflight[i].clock.next = self.clock.val();
            self.o_inflight[i].d.next = self.o_inflight[i].q.val();
            self.o_status[i].clock.next = self.clock.val();
            self.o_status[i].d.next = self.o_status[i].q.val();
            self.rrm[i].clock.next = self.clock.val();
            self.rrm[i].d.next = self.rrm[i].q.val();
        }
        self.tab_c.read_clock.next = self.clock.val();
        self.tab_c.write_clock.next = self.clock.val();

        // ================= counters: one bank per unit, one read port =================
        self.cnt_cmd.clock.next = self.clock.val();
        self.cnt_rs.clock.next = self.clock.val();
        self.cnt_cpl.clock.next = self.clock.val();
        self.cnt_cmd.reset.next = self.reset.val();
        self.cnt_rs.reset.next = self.reset.val();
        self.cnt_cpl.reset.next = self.reset.val();
        self.cnt_cmd.inc.next = false;
        self.cnt_rs.inc.next = false;
        self.cnt_cpl.inc.next = false;
        self.cnt_cmd.inc_index.next = self.k_ci0.val();
        self.cnt_rs.inc_index.next = self.k_ci0.val();
        self.cnt_cpl.inc_index.next = self.k_ci0.val();
        self.cnt_cmd.rd_index.next = self.cnt_rd_index.val();
        self.cnt_rs.rd_index.next = self.cnt_rd_index.val() - self.k_ci4.val();
        self.cnt_cpl.rd_index.next = self.cnt_rd_index.val() - self.k_ci7.val();
        self.cnt_sel.d.next = self.cnt_rd_index.val();

        // ================= completions: the lowest op that is done =================
        self.cl[0].next = false;
        for i in 0..self.o_st.len() {
            self.cdone[i].next = self.o_st[i].q.val() == self.k_st_done.val();
            self.cpick[i].next = self.cdone[i].val() & !self.cl[i].val();
            self.cl[i + 1].next = self.cl[i].val() | self.cdone[i].val();
        }
        self.any_done.next = false;
        for i in 0..self.o_st.len() {
            self.any_done.next = self.cl[i + 1].val();
        }
        self.cpl_fire.next =
            self.any_done.val() & (!self.cpl_v.q.val() | self.m_axis_cpl_tready.val());
        self.crec.next = self.k_cpl_zero.val();
        for i in 0..self.o_st.len() {
            if self.cpick[i].val() {
                self.crec.next.conn = self.o_conn[i].q.val();
                self.crec.next.xfer = self.o_xfer[i].q.val();
                self.crec.next.bytes = 0.into();
                if self.o_status[i].q.val() == self.k_s_ok.val() {
                    self.crec.next.bytes = self.o_total[i].q.val();
                }
                self.crec.next.write = self.o_wr[i].q.val();
                self.crec.next.status = self.o_status[i].q.val();
            }
        }
        if self.cpl_fire.val() {
            self.cpl_q.d.next = self.crec.val();
            self.cpl_v.d.next = true;
            if self.crec.val().status == self.k_cs_aborted.val() {
                self.cnt_cpl.inc.next = true;
            }
        } else if self.cpl_v.q.val() & self.m_axis_cpl_tready.val() {
            self.cpl_v.d.next = false;
        }

        // ================= issue: pick one cycle, issue the next =================
        self.lc[0].next = false;
        self.lm[0].next = false;
        for i in 0..self.o_st.len() {
            self.can[i].next = (self.o_st[i].q.val() == self.k_st_run.val())
                & (self.o_status[i].q.val() == self.k_s_ok.val())
                & self.o_more[i].q.val()
                & !(self.o_inflight[i].q.val() & self.o_emask[i].q.val()).any();
            self.cm[i].next = self.can[i].val() & self.rrm[i].q.val();
            self.lc[i + 1].next = self.lc[i].val() | self.can[i].val();
            self.lm[i + 1].next = self.lm[i].val() | self.cm[i].val();
        }
        self.any_can.next = false;
        self.any_m.next = false;
        for i in 0..self.o_st.len() {
            self.any_can.next = self.lc[i + 1].val();
            self.any_m.next = self.lm[i + 1].val();
        }
        self.below[0].next = false;
        self.pick_idx.next = 0.into();
        self.sel_can.next = false;
        self.s_gen.next = 0.into();
        self.s_wr.next = false;
        self.s_conn.next = 0.into();
        self.s_raddr.next = 0.into();
        self.s_rkey.next = 0.into();
        self.s_laddr.next = 0.into();
        self.s_lkey.next = 0.into();
        self.s_off.next = 0.into();
        self.s_rem.next = 0.into();
        self.s_lastseg.next = false;
        self.s_seq.next = 0.into();
        for i in 0..self.o_st.len() {
            self.pick[i].next = self.can[i].val() & !self.lc[i].val();
            if self.any_m.val() {
                self.pick[i].next = self.cm[i].val() & !self.lm[i].val();
            }
            if self.pick[i].val() {
                self.pick_idx.next = self.k_oidx[i].val();
            }
            if self.isel.q.val() == self.k_oidx[i].val() {
                self.sel_can.next = self.can[i].val();
                self.s_gen.next = self.o_gen[i].q.val();
                self.s_wr.next = self.o_wr[i].q.val();
                self.s_conn.next = self.o_conn[i].q.val();
                self.s_raddr.next = self.o_raddr[i].q.val();
                self.s_rkey.next = self.o_rkey[i].q.val();
                self.s_laddr.next = self.o_laddr[i].q.val();
                self.s_lkey.next = self.o_lkey[i].q.val();
                self.s_off.next = self.o_off[i].q.val();
                self.s_rem.next = self.o_rem[i].q.val();
                self.s_lastseg.next = self.o_lastseg[i].q.val();
                self.s_seq.next = self.o_seq[i].q.val();
            }
        }
        // Ops below the pick (the last op's entry would be unused).
        for i in 1..self.below.len() {
            self.below[i].next = self.below[i - 1].val() | self.pick[i - 1].val();
        }
        self.fire.next = self.iv.q.val()
            & self.sel_can.val()
            & (!self.rq_v.q.val() | self.m_axis_rq_tready.val());
        if !self.iv.q.val() {
            if self.any_can.val() {
                self.iv.d.next = true;
                self.isel.d.next = self.pick_idx.val();
                for i in 0..self.o_st.len() {
                    self.rrm[i].d.next = self.below[i].val();
                }
            }
        } else if !self.sel_can.val() | self.fire.val() {
            self.iv.d.next = false;
        }
        self.rqrec.next.tag = (bit_cast::<16, 8>(self.s_seq.val()) << 8)
            | (bit_cast::<16, 4>(self.s_gen.val()) << 4)
            | bit_cast::<16, 4>(self.isel.q.val());
        self.rqrec.next.write = self.s_wr.val();
        self.rqrec.next.conn = self.s_conn.val();
        self.rqrec.next.raddr = self.s_raddr.val() + bit_cast::<64, 32>(self.s_off.val());
        self.rqrec.next.rkey = self.s_rkey.val();
        self.rqrec.next.laddr = self.s_laddr.val() + bit_cast::<64, 32>(self.s_off.val());
        self.rqrec.next.lkey = self.s_lkey.val();
        self.rqrec.next.len = self.k_seg.val();
        if self.s_lastseg.val() {
            self.rqrec.next.len = self.s_rem.val();
        }
        if self.fire.val() {
            self.rq_q.d.next = self.rqrec.val();
            self.rq_v.d.next = true;
        } else if self.rq_v.q.val() & self.m_axis_rq_tready.val() {
            self.rq_v.d.next = false;
        }

        // ================= responses: registered, matched the next cycle =================
        self.r_v.d.next = self.s_axis_rs_tvalid.val();
        self.r_tag.d.next = self.s_axis_rs_tag.val();
        self.r_st.d.next = self.s_axis_rs_status.val();
        self.rslot.next = self.r_tag.q.val().get_bits::<4>(0);
        self.rgen.next = self.r_tag.q.val().get_bits::<4>(4);
        self.rseq.next = self.r_tag.q.val().get_bits::<8>(8);
        self.rent.next = self.rseq.val() & self.k_wmask8.val();
        self.eh.next = 0.into();
        for j in 0..self.k_ent.len() {
            if self.rent.val() == self.k_ent[j].val() {
                self.eh.next = self.k_onehot[j].val();
            }
        }
        self.err.next = self.r_st.q.val();
        if self.r_st.q.val() >= self.k_cs_first_bad.val() {
            self.err.next = self.k_cs_transport.val();
        }
        self.gm[0].next = false;
        self.gg[0].next = false;
        for i in 0..self.o_st.len() {
            self.mine[i].next = self.r_v.q.val()
                & (self.rslot.val() == self.k_oidx[i].val())
                & (self.o_st[i].q.val() == self.k_st_run.val())
                & (self.o_gen[i].q.val() == self.rgen.val());
            self.dist[i].next = self.o_seq[i].q.val() - self.rseq.val() - 1;
            self.good[i].next = self.mine[i].val()
                & (self.o_inflight[i].q.val() & self.eh.val()).any()
                & !(self.dist[i].val() & self.k_notw8.val()).any();
            self.gm[i + 1].next = self.gm[i].val() | self.mine[i].val();
            self.gg[i + 1].next = self.gg[i].val() | self.good[i].val();
        }
        self.any_mine.next = false;
        self.any_good.next = false;
        for i in 0..self.o_st.len() {
            self.any_mine.next = self.gm[i + 1].val();
            self.any_good.next = self.gg[i + 1].val();
        }
        // Counter lane: stale, duplicate or RDMA error (they exclude each other).
        if self.r_v.q.val() & !self.any_mine.val() {
            self.cnt_rs.inc.next = true;
            self.cnt_rs.inc_index.next = self.k_ci1.val();
        }
        if self.any_mine.val() & !self.any_good.val() {
            self.cnt_rs.inc.next = true;
            self.cnt_rs.inc_index.next = self.k_ci2.val();
        }
        if self.any_good.val() & self.err.val().any() {
            self.cnt_rs.inc.next = true;
        }

        // ================= the op table: responses, issue, done, completion =================
        for i in 0..self.o_st.len() {
            self.fire_i[i].next = self.fire.val() & (self.isel.q.val() == self.k_oidx[i].val());
            self.clr_m[i].next = 0.into();
            if self.good[i].val() {
                self.clr_m[i].next = self.eh.val();
            }
            self.set_m[i].next = 0.into();
            if self.fire_i[i].val() {
                self.set_m[i].next = self.o_emask[i].q.val();
            }
            self.o_inflight[i].d.next =
                (self.o_inflight[i].q.val() & !self.clr_m[i].val()) | self.set_m[i].val();
            if self.good[i].val()
                & self.err.val().any()
                & (self.o_status[i].q.val() == self.k_s_ok.val())
            {
                self.o_status[i].d.next = self.err.val();
            }
            if self.fire_i[i].val() {
                self.o_off[i].d.next = self.o_off[i].q.val() + self.k_seg.val();
                self.o_rem[i].d.next = self.o_rem[i].q.val() - self.k_seg.val();
                if self.o_lastseg[i].q.val() {
                    self.o_rem[i].d.next = 0.into();
                }
                self.o_more[i].d.next = !self.o_lastseg[i].q.val();
                self.o_lastseg[i].d.next =
                    self.o_lastseg[i].q.val() | (self.o_rem[i].q.val() <= self.k_seg2.val());
                self.o_seq[i].d.next = self.o_seq[i].q.val() + 1;
                self.o_emask[i].d.next = self.o_emask[i].q.val() << 1;
                if (self.o_emask[i].q.val() & self.k_wtop.val()).any() {
                    self.o_emask[i].d.next = 1.into();
                }
            }
            if (self.o_st[i].q.val() == self.k_st_run.val())
                & !self.o_inflight[i].q.val().any()
                & (!self.o_more[i].q.val() | self.o_status[i].q.val().any())
            {
                self.o_st[i].d.next = self.k_st_done.val();
            }
            if self.cpl_fire.val() & self.cpick[i].val() {
                self.o_st[i].d.next = self.k_st_free.val();
            }
        }

        // ================= command unit =================
        self.accept.next = (self.cst.q.val() == self.k_c_idle.val()) & self.s_axis_cmd_tvalid.val();
        self.in_k.next = self.s_axis_cmd_lkey.val();
        if self.s_axis_cmd_op.val() == self.k_cmd_dereg.val() {
            self.in_k.next = self.s_axis_cmd_key.val();
        }
        self.c_k.next = self.c_lkey.q.val();
        if self.c_op.q.val() == self.k_cmd_dereg.val() {
            self.c_k.next = self.c_key.q.val();
        }
        self.cur_k.next = self.c_k.val();
        if self.cst.q.val() == self.k_c_idle.val() {
            self.cur_k.next = self.in_k.val();
        }
        self.tab_c.read_address.next = bit_cast::<5, 32>(self.cur_k.val() & self.k_idx_mask.val());
        if self.accept.val() {
            self.c_op.d.next = self.s_axis_cmd_op.val();
            self.c_conn.d.next = self.s_axis_cmd_conn.val();
            self.c_access.d.next = self.s_axis_cmd_access.val();
            self.c_nomem.d.next = self.s_axis_cmd_nomem.val();
            self.c_xfer.d.next = self.s_axis_cmd_xfer.val();
            self.c_addr.d.next = self.s_axis_cmd_addr.val();
            self.c_key.d.next = self.s_axis_cmd_key.val();
            self.c_len.d.next = self.s_axis_cmd_len.val();
            self.c_lkey.d.next = self.s_axis_cmd_lkey.val();
            self.cst.d.next = self.k_c_verdict.val();
        }

        // VERDICT
        self.vidx.next = bit_cast::<5, 32>(self.c_k.val() & self.k_idx_mask.val());
        self.e_valid.next = false;
        self.e_conn.next = 0.into();
        self.rl[0].next = false;
        self.free_rslot.next = 0.into();
        for j in 0..self.r_valid.len() {
            if self.vidx.val() == self.k_idx5[j].val() {
                self.e_valid.next = self.r_valid[j].q.val();
                self.e_conn.next = self.r_conn[j].q.val();
            }
            self.fr[j].next = !self.r_valid[j].q.val() & !self.rl[j].val();
            self.rl[j + 1].next = self.rl[j].val() | !self.r_valid[j].q.val();
            if self.fr[j].val() {
                self.free_rslot.next = self.k_idx5[j].val();
            }
        }
        self.any_free_reg.next = false;
        for j in 0..self.r_valid.len() {
            self.any_free_reg.next = self.rl[j + 1].val();
        }
        self.ol[0].next = false;
        self.free_oslot.next = 0.into();
        self.busy_key.next = false;
        for i in 0..self.o_st.len() {
            self.fo[i].next = (self.o_st[i].q.val() == self.k_st_free.val()) & !self.ol[i].val();
            self.ol[i + 1].next = self.ol[i].val() | (self.o_st[i].q.val() == self.k_st_free.val());
            if self.fo[i].val() {
                self.free_oslot.next = self.k_oidx[i].val();
            }
            if (self.o_st[i].q.val() != self.k_st_free.val())
                & (self.o_lkey[i].q.val() == self.c_key.q.val())
            {
                self.busy_key.next = true;
            }
        }
        self.any_free_op.next = false;
        for i in 0..self.o_st.len() {
            self.any_free_op.next = self.ol[i + 1].val();
        }
        self.e_ok.next = self.e_valid.val()
            & (self.tab_c.read_data.val().key == self.c_k.val())
            & (self.e_conn.val() == self.c_conn.q.val());
        self.conn_ok.next = self.c_conn.q.val() <= self.k_conn_max.val();
        self.is_reg.next = self.c_op.q.val() == self.k_cmd_reg.val();
        self.is_dereg.next = self.c_op.q.val() == self.k_cmd_dereg.val();
        self.is_start.next = (self.c_op.q.val() == self.k_cmd_read.val())
            | (self.c_op.q.val() == self.k_cmd_write.val());
        self.is_abort.next = self.c_op.q.val() == self.k_cmd_abort.val();
        self.status.next = self.k_s_badcmd.val();
        if self.is_reg.val() {
            if !self.conn_ok.val() | (self.c_access.q.val() == self.k_acc_bad.val()) {
                self.status.next = self.k_s_baddesc.val();
            } else if self.c_nomem.q.val() {
                self.status.next = self.k_s_nomem.val();
            } else if !self.any_free_reg.val() {
                self.status.next = self.k_s_nobufs.val();
            } else {
                self.status.next = self.k_s_ok.val();
            }
        }
        if self.is_dereg.val() {
            if !self.conn_ok.val() {
                self.status.next = self.k_s_baddesc.val();
            } else if !self.e_ok.val() {
                self.status.next = self.k_s_stale.val();
            } else if self.busy_key.val() {
                self.status.next = self.k_s_busy.val();
            } else {
                self.status.next = self.k_s_ok.val();
            }
        }
        if self.is_start.val() {
            if !self.conn_ok.val()
                | !self.e_ok.val()
                | (self.tab_c.read_data.val().access != self.k_acc_local.val())
                | (self.c_len.q.val() > self.tab_c.read_data.val().len)
            {
                self.status.next = self.k_s_baddesc.val();
            } else if !self.any_free_op.val() {
                self.status.next = self.k_s_busy.val();
            } else {
                self.status.next = self.k_s_ok.val();
            }
        }
        if self.is_abort.val() {
            if !self.conn_ok.val() {
                self.status.next = self.k_s_baddesc.val();
            } else {
                self.status.next = self.k_s_ok.val();
            }
        }
        if self.cst.q.val() == self.k_c_verdict.val() {
            self.v_status.d.next = self.status.val();
            self.v_rslot.d.next = self.vidx.val();
            if self.is_reg.val() {
                self.v_rslot.d.next = self.free_rslot.val();
            }
            self.v_oslot.d.next = self.free_oslot.val();
            self.cst.d.next = self.k_c_apply.val();
        }

        // APPLY
        self.apply.next = (self.cst.q.val() == self.k_c_apply.val())
            & (!self.rsp_v.q.val() | self.m_axis_rsp_tready.val());
        self.ok.next = self.v_status.q.val() == self.k_s_ok.val();
        self.a_is_reg.next = self.apply.val() & self.ok.val() & self.is_reg.val();
        self.a_is_dereg.next = self.apply.val() & self.ok.val() & self.is_dereg.val();
        self.a_is_start.next = self.apply.val() & self.ok.val() & self.is_start.val();
        self.a_is_abort.next = self.apply.val() & self.ok.val() & self.is_abort.val();
        self.newkey.next = self.knext.q.val() | bit_cast::<32, 5>(self.v_rslot.q.val());
        self.regrec.next.key = self.newkey.val();
        self.regrec.next.access = self.c_access.q.val();
        self.regrec.next.addr = self.c_addr.q.val();
        self.regrec.next.len = self.c_len.q.val();
        self.reg_we.next = self.a_is_reg.val() & !self.reset.val();
        self.tab_c.write_address.next = self.v_rslot.q.val();
        self.tab_c.write_data.next = self.regrec.val();
        self.tab_c.write_enable.next = self.reg_we.val();
        if self.a_is_reg.val() {
            self.knext.d.next = self.knext.q.val() + self.k_kstep.val();
        }
        for j in 0..self.r_valid.len() {
            if self.v_rslot.q.val() == self.k_idx5[j].val() {
                if self.a_is_reg.val() {
                    self.r_valid[j].d.next = true;
                    self.r_conn[j].d.next = self.c_conn.q.val();
                }
                if self.a_is_dereg.val() {
                    self.r_valid[j].d.next = false;
                }
            }
            if self.a_is_abort.val()
                & self.r_valid[j].q.val()
                & (self.r_conn[j].q.val() == self.c_conn.q.val())
            {
                self.r_valid[j].d.next = false;
            }
        }
        for i in 0..self.o_st.len() {
            if self.a_is_start.val() & (self.v_oslot.q.val() == self.k_oidx[i].val()) {
                self.o_st[i].d.next = self.k_st_run.val();
                self.o_gen[i].d.next = self.o_gen[i].q.val() + 1;
                self.o_wr[i].d.next = self.c_op.q.val() == self.k_cmd_write.val();
                self.o_conn[i].d.next = self.c_conn.q.val();
                self.o_xfer[i].d.next = self.c_xfer.q.val();
                self.o_raddr[i].d.next = self.c_addr.q.val();
                self.o_rkey[i].d.next = self.c_key.q.val();
                self.o_laddr[i].d.next = self.tab_c.read_data.val().addr;
                self.o_lkey[i].d.next = self.c_lkey.q.val();
                self.o_total[i].d.next = self.c_len.q.val();
                self.o_off[i].d.next = 0.into();
                self.o_rem[i].d.next = self.c_len.q.val();
                self.o_more[i].d.next = self.c_len.q.val().any();
                self.o_lastseg[i].d.next = self.c_len.q.val() <= self.k_seg.val();
                self.o_seq[i].d.next = 0.into();
                self.o_emask[i].d.next = 1.into();
                self.o_inflight[i].d.next = 0.into();
                self.o_status[i].d.next = 0.into();
            }
            if self.a_is_abort.val()
                & (self.o_st[i].q.val() != self.k_st_free.val())
                & (self.o_conn[i].q.val() == self.c_conn.q.val())
                & !(self.cpl_fire.val() & self.cpick[i].val())
            {
                self.o_st[i].d.next = self.k_st_done.val();
                self.o_status[i].d.next = self.k_cs_aborted.val();
            }
        }
        self.rsprec.next.op = self.c_op.q.val();
        self.rsprec.next.conn = self.c_conn.q.val();
        self.rsprec.next.status = self.v_status.q.val();
        self.rsprec.next.key = 0.into();
        if self.is_reg.val() & self.ok.val() {
            self.rsprec.next.key = self.newkey.val();
        }
        if self.is_dereg.val() {
            self.rsprec.next.key = self.c_key.q.val();
        }
        if self.is_start.val() & self.ok.val() {
            self.rsprec.next.key = bit_cast::<32, 4>(self.v_oslot.q.val());
        }
        self.rsprec.next.len = self.c_len.q.val();
        if self.is_dereg.val() {
            self.rsprec.next.len = 0.into();
            if self.ok.val() {
                self.rsprec.next.len = self.tab_c.read_data.val().len;
            }
        }
        if self.apply.val() {
            self.rsp_q.d.next = self.rsprec.val();
            self.rsp_v.d.next = true;
            self.cst.d.next = self.k_c_idle.val();
            if (self.v_status.q.val() == self.k_s_nobufs.val())
                | (self.v_status.q.val() == self.k_s_nomem.val())
            {
                self.cnt_cmd.inc.next = true;
            }
            if self.v_status.q.val() == self.k_s_stale.val() {
                self.cnt_cmd.inc.next = true;
                self.cnt_cmd.inc_index.next = self.k_ci1.val();
            }
            if (self.v_status.q.val() == self.k_s_baddesc.val())
                | (self.v_status.q.val() == self.k_s_badcmd.val())
            {
                self.cnt_cmd.inc.next = true;
                self.cnt_cmd.inc_index.next = self.k_ci2.val();
            }
            if self.v_status.q.val() == self.k_s_busy.val() {
                self.cnt_cmd.inc.next = true;
                self.cnt_cmd.inc_index.next = self.k_ci3.val();
            }
        } else if self.rsp_v.q.val() & self.m_axis_rsp_tready.val() {
            self.rsp_v.d.next = false;
        }

        // ================= remote-access checks: their own unit =================
        self.chk.clock.next = self.clock.val();
        self.chk.reset.next = self.reset.val();
        self.chk.ac_valid.next = self.s_axis_ac_tvalid.val();
        self.chk.ac_conn.next = self.s_axis_ac_conn.val();
        self.chk.ac_key.next = self.s_axis_ac_key.val();
        self.chk.ac_write.next = self.s_axis_ac_write.val();
        self.chk.ac_addr.next = self.s_axis_ac_addr.val();
        self.chk.ac_len.next = self.s_axis_ac_len.val();
        self.chk.ck_ready.next = self.m_axis_ck_tready.val();
        self.chk.e_valid.next = false;
        self.chk.e_conn.next = 0.into();
        for j in 0..self.r_valid.len() {
            if self.chk.idx.val() == self.k_idx5[j].val() {
                self.chk.e_valid.next = self.r_valid[j].q.val();
                self.chk.e_conn.next = self.r_conn[j].q.val();
            }
        }
        self.chk.wr_en.next = self.reg_we.val();
        self.chk.wr_addr.next = self.v_rslot.q.val();
        self.chk.wr_data.next = self.regrec.val();
        self.chk.rd_index.next = self.cnt_rd_index.val() - self.k_ci8.val();

        // ================= reset =================
        if self.reset.val() {
            self.cst.d.next = self.k_c_idle.val();
            self.c_op.d.next = 0.into();
            self.c_conn.d.next = 0.into();
            self.c_access.d.next = 0.into();
            self.c_nomem.d.next = false;
            self.c_xfer.d.next = 0.into();
            self.c_addr.d.next = 0.into();
            self.c_key.d.next = 0.into();
            self.c_len.d.next = 0.into();
            self.c_lkey.d.next = 0.into();
            self.v_status.d.next = 0.into();
            self.v_rslot.d.next = 0.into();
            self.v_oslot.d.next = 0.into();
            self.rsp_v.d.next = false;
            self.rsp_q.d.next = self.k_rsp_zero.val();
            self.knext.d.next = self.k_kstep.val();
            self.iv.d.next = false;
            self.isel.d.next = 0.into();
            self.rq_v.d.next = false;
            self.rq_q.d.next = self.k_rq_zero.val();
            self.r_v.d.next = false;
            self.r_tag.d.next = 0.into();
            self.r_st.d.next = 0.into();
            self.cpl_v.d.next = false;
            self.cpl_q.d.next = self.k_cpl_zero.val();
            self.cnt_sel.d.next = self.k_ci0.val();
            for j in 0..self.r_valid.len() {
                self.r_valid[j].d.next = false;
                self.r_conn[j].d.next = 0.into();
            }
            for i in 0..self.o_st.len() {
                self.o_st[i].d.next = 0.into();
                self.o_gen[i].d.next = 0.into();
                self.o_wr[i].d.next = false;
                self.o_conn[i].d.next = 0.into();
                self.o_xfer[i].d.next = 0.into();
                self.o_raddr[i].d.next = 0.into();
                self.o_rkey[i].d.next = 0.into();
                self.o_laddr[i].d.next = 0.into();
                self.o_lkey[i].d.next = 0.into();
                self.o_total[i].d.next = 0.into();
                self.o_off[i].d.next = 0.into();
                self.o_rem[i].d.next = 0.into();
                self.o_more[i].d.next = false;
                self.o_lastseg[i].d.next = false;
                self.o_seq[i].d.next = 0.into();
                self.o_emask[i].d.next = 0.into();
                self.o_inflight[i].d.next = 0.into();
                self.o_status[i].d.next = 0.into();
                self.rrm[i].d.next = false;
            }
        }

        // ================= outputs, all from registers =================
        self.s_axis_cmd_tready.next = self.cst.q.val() == self.k_c_idle.val();
        self.m_axis_rsp_tvalid.next = self.rsp_v.q.val();
        self.m_axis_rsp_op.next = self.rsp_q.q.val().op;
        self.m_axis_rsp_conn.next = self.rsp_q.q.val().conn;
        self.m_axis_rsp_status.next = self.rsp_q.q.val().status;
        self.m_axis_rsp_key.next = self.rsp_q.q.val().key;
        self.m_axis_rsp_len.next = self.rsp_q.q.val().len;
        self.m_axis_cpl_tvalid.next = self.cpl_v.q.val();
        self.m_axis_cpl_conn.next = self.cpl_q.q.val().conn;
        self.m_axis_cpl_xfer.next = self.cpl_q.q.val().xfer;
        self.m_axis_cpl_bytes.next = self.cpl_q.q.val().bytes;
        self.m_axis_cpl_write.next = self.cpl_q.q.val().write;
        self.m_axis_cpl_status.next = self.cpl_q.q.val().status;
        self.m_axis_rq_tvalid.next = self.rq_v.q.val();
        self.m_axis_rq_tag.next = self.rq_q.q.val().tag;
        self.m_axis_rq_write.next = self.rq_q.q.val().write;
        self.m_axis_rq_conn.next = self.rq_q.q.val().conn;
        self.m_axis_rq_raddr.next = self.rq_q.q.val().raddr;
        self.m_axis_rq_rkey.next = self.rq_q.q.val().rkey;
        self.m_axis_rq_laddr.next = self.rq_q.q.val().laddr;
        self.m_axis_rq_lkey.next = self.rq_q.q.val().lkey;
        self.m_axis_rq_len.next = self.rq_q.q.val().len;
        self.s_axis_rs_tready.next = true;
        self.s_axis_ac_tready.next = self.chk.ac_ready.val();
        self.m_axis_ck_tvalid.next = self.chk.ck_valid.val();
        self.m_axis_ck_grant.next = self.chk.ck_grant.val();
        self.m_axis_ck_reason.next = self.chk.ck_reason.val();
        // The lane holding the counter named the cycle before (registers only).
        self.cnt_rd_data.next = 0.into();
        if self.cnt_sel.q.val() < self.k_ci4.val() {
            self.cnt_rd_data.next = self.cnt_cmd.rd_data.val();
        } else if self.cnt_sel.q.val() < self.k_ci7.val() {
            self.cnt_rd_data.next = self.cnt_rs.rd_data.val();
        } else if self.cnt_sel.q.val() == self.k_ci7.val() {
            self.cnt_rd_data.next = self.cnt_cpl.rd_data.val();
        } else if self.cnt_sel.q.val() < self.k_ci12.val() {
            self.cnt_rd_data.next = self.chk.rd_data.val();
        }
    }
}
