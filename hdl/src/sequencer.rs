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
//! - **Checks**: a two-stage pipeline (RAM read, verdict) into an output register with one
//!   skid slot; `ac_ready` admits a check only while at most one is held.
//!
//! Every output comes from a register; `ac_ready`, `cmd_ready` and `rs_ready` depend on
//! registers only.

use rust_hdl::prelude::*;
use sanswitch_model::blocks::sequencer::{MAX_OPS, access, cmd, cst, fault, ost, rsp_status};
use sanswitch_model::params::SequencerParams;

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

/// A check taken, with the table facts sampled when it was taken.
#[derive(Copy, Clone, Debug, Default, PartialEq, LogicStruct)]
pub struct ChkRec {
    pub conn: Bits<8>,
    pub key: Bits<32>,
    pub write: Bit,
    pub addr: Bits<64>,
    pub span_end: Bits<65>,
    pub valid: Bit,
    pub rconn: Bits<8>,
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
    pub cmd_valid: Signal<In, Bit>,
    pub cmd_op: Signal<In, Bits<3>>,
    pub cmd_conn: Signal<In, Bits<8>>,
    pub cmd_access: Signal<In, Bits<2>>,
    pub cmd_nomem: Signal<In, Bit>,
    pub cmd_xfer: Signal<In, Bits<32>>,
    pub cmd_addr: Signal<In, Bits<64>>,
    pub cmd_key: Signal<In, Bits<32>>,
    pub cmd_len: Signal<In, Bits<32>>,
    pub cmd_lkey: Signal<In, Bits<32>>,
    pub rsp_ready: Signal<In, Bit>,
    pub cpl_ready: Signal<In, Bit>,
    pub rq_ready: Signal<In, Bit>,
    pub rs_valid: Signal<In, Bit>,
    pub rs_tag: Signal<In, Bits<16>>,
    pub rs_status: Signal<In, Bits<3>>,
    pub ac_valid: Signal<In, Bit>,
    pub ac_conn: Signal<In, Bits<8>>,
    pub ac_key: Signal<In, Bits<32>>,
    pub ac_write: Signal<In, Bit>,
    pub ac_addr: Signal<In, Bits<64>>,
    pub ac_len: Signal<In, Bits<32>>,
    pub ck_ready: Signal<In, Bit>,

    pub cmd_ready: Signal<Out, Bit>,
    pub rsp_valid: Signal<Out, Bit>,
    pub rsp_op: Signal<Out, Bits<3>>,
    pub rsp_conn: Signal<Out, Bits<8>>,
    pub rsp_status: Signal<Out, Bits<3>>,
    pub rsp_key: Signal<Out, Bits<32>>,
    pub rsp_len: Signal<Out, Bits<32>>,
    pub cpl_valid: Signal<Out, Bit>,
    pub cpl_conn: Signal<Out, Bits<8>>,
    pub cpl_xfer: Signal<Out, Bits<32>>,
    pub cpl_bytes: Signal<Out, Bits<32>>,
    pub cpl_write: Signal<Out, Bit>,
    pub cpl_status: Signal<Out, Bits<3>>,
    pub rq_valid: Signal<Out, Bit>,
    pub rq_tag: Signal<Out, Bits<16>>,
    pub rq_write: Signal<Out, Bit>,
    pub rq_conn: Signal<Out, Bits<8>>,
    pub rq_raddr: Signal<Out, Bits<64>>,
    pub rq_rkey: Signal<Out, Bits<32>>,
    pub rq_laddr: Signal<Out, Bits<64>>,
    pub rq_lkey: Signal<Out, Bits<32>>,
    pub rq_len: Signal<Out, Bits<32>>,
    pub rs_ready: Signal<Out, Bit>,
    pub ac_ready: Signal<Out, Bit>,
    pub ck_valid: Signal<Out, Bit>,
    pub ck_grant: Signal<Out, Bit>,
    pub ck_reason: Signal<Out, Bits<3>>,
    pub cnt_nobufs: Signal<Out, Bits<32>>,
    pub cnt_dereg_stale: Signal<Out, Bits<32>>,
    pub cnt_bad_desc: Signal<Out, Bits<32>>,
    pub cnt_busy: Signal<Out, Bits<32>>,
    pub cnt_rdma_err: Signal<Out, Bits<32>>,
    pub cnt_stale: Signal<Out, Bits<32>>,
    pub cnt_dup: Signal<Out, Bits<32>>,
    pub cnt_aborted: Signal<Out, Bits<32>>,
    pub cnt_deny_key: Signal<Out, Bits<32>>,
    pub cnt_deny_conn: Signal<Out, Bits<32>>,
    pub cnt_deny_access: Signal<Out, Bits<32>>,
    pub cnt_deny_bounds: Signal<Out, Bits<32>>,

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
    tab_k: RAM<RegRec, 5>,
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
    ac_rdy: DFFWithInit<Bit>,
    s1_v: DFF<Bit>,
    s1_q: DFF<ChkRec>,
    ck_out_v: DFF<Bit>,
    ck_out: DFF<CkRec>,
    ck_skid_v: DFF<Bit>,
    ck_skid: DFF<CkRec>,
    n_nobufs: DFF<Bits<32>>,
    n_dereg_stale: DFF<Bits<32>>,
    n_bad_desc: DFF<Bits<32>>,
    n_busy: DFF<Bits<32>>,
    n_rdma_err: DFF<Bits<32>>,
    n_stale: DFF<Bits<32>>,
    n_dup: DFF<Bits<32>>,
    n_aborted: DFF<Bits<32>>,
    n_deny_key: DFF<Bits<32>>,
    n_deny_conn: DFF<Bits<32>>,
    n_deny_access: DFF<Bits<32>>,
    n_deny_bounds: DFF<Bits<32>>,

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
    k_acc_rr: Constant<Bits<2>>,
    k_acc_rw: Constant<Bits<2>>,
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
    k_rs_key: Constant<Bits<3>>,
    k_rs_conn: Constant<Bits<3>>,
    k_rs_access: Constant<Bits<3>>,
    k_rs_bounds: Constant<Bits<3>>,
    k_st_free: Constant<Bits<2>>,
    k_st_run: Constant<Bits<2>>,
    k_st_done: Constant<Bits<2>>,
    k_c_idle: Constant<Bits<2>>,
    k_c_verdict: Constant<Bits<2>>,
    k_c_apply: Constant<Bits<2>>,
    k_rsp_zero: Constant<RspRec>,
    k_cpl_zero: Constant<CplRec>,
    k_rq_zero: Constant<RqRec>,
    k_chk_zero: Constant<ChkRec>,
    k_ck_zero: Constant<CkRec>,

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
    acc: Signal<Local, Bit>,
    a_valid: Signal<Local, Bit>,
    a_rconn: Signal<Local, Bits<8>>,
    a_idx: Signal<Local, Bits<5>>,
    chkrec: Signal<Local, ChkRec>,
    key_ok: Signal<Local, Bit>,
    conn_ok2: Signal<Local, Bit>,
    acc_ok: Signal<Local, Bit>,
    bnd_ok: Signal<Local, Bit>,
    ckrec: Signal<Local, CkRec>,
    n_out_v: Signal<Local, Bit>,
    n_skid_v: Signal<Local, Bit>,
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
            cmd_valid: Default::default(),
            cmd_op: Default::default(),
            cmd_conn: Default::default(),
            cmd_access: Default::default(),
            cmd_nomem: Default::default(),
            cmd_xfer: Default::default(),
            cmd_addr: Default::default(),
            cmd_key: Default::default(),
            cmd_len: Default::default(),
            cmd_lkey: Default::default(),
            rsp_ready: Default::default(),
            cpl_ready: Default::default(),
            rq_ready: Default::default(),
            rs_valid: Default::default(),
            rs_tag: Default::default(),
            rs_status: Default::default(),
            ac_valid: Default::default(),
            ac_conn: Default::default(),
            ac_key: Default::default(),
            ac_write: Default::default(),
            ac_addr: Default::default(),
            ac_len: Default::default(),
            ck_ready: Default::default(),
            cmd_ready: Default::default(),
            rsp_valid: Default::default(),
            rsp_op: Default::default(),
            rsp_conn: Default::default(),
            rsp_status: Default::default(),
            rsp_key: Default::default(),
            rsp_len: Default::default(),
            cpl_valid: Default::default(),
            cpl_conn: Default::default(),
            cpl_xfer: Default::default(),
            cpl_bytes: Default::default(),
            cpl_write: Default::default(),
            cpl_status: Default::default(),
            rq_valid: Default::default(),
            rq_tag: Default::default(),
            rq_write: Default::default(),
            rq_conn: Default::default(),
            rq_raddr: Default::default(),
            rq_rkey: Default::default(),
            rq_laddr: Default::default(),
            rq_lkey: Default::default(),
            rq_len: Default::default(),
            rs_ready: Default::default(),
            ac_ready: Default::default(),
            ck_valid: Default::default(),
            ck_grant: Default::default(),
            ck_reason: Default::default(),
            cnt_nobufs: Default::default(),
            cnt_dereg_stale: Default::default(),
            cnt_bad_desc: Default::default(),
            cnt_busy: Default::default(),
            cnt_rdma_err: Default::default(),
            cnt_stale: Default::default(),
            cnt_dup: Default::default(),
            cnt_aborted: Default::default(),
            cnt_deny_key: Default::default(),
            cnt_deny_conn: Default::default(),
            cnt_deny_access: Default::default(),
            cnt_deny_bounds: Default::default(),
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
            tab_k: Default::default(),
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
            ac_rdy: DFFWithInit::new(true),
            s1_v: Default::default(),
            s1_q: Default::default(),
            ck_out_v: Default::default(),
            ck_out: Default::default(),
            ck_skid_v: Default::default(),
            ck_skid: Default::default(),
            n_nobufs: Default::default(),
            n_dereg_stale: Default::default(),
            n_bad_desc: Default::default(),
            n_busy: Default::default(),
            n_rdma_err: Default::default(),
            n_stale: Default::default(),
            n_dup: Default::default(),
            n_aborted: Default::default(),
            n_deny_key: Default::default(),
            n_deny_conn: Default::default(),
            n_deny_access: Default::default(),
            n_deny_bounds: Default::default(),
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
            k_acc_rr: c(access::REMOTE_READ as u64),
            k_acc_rw: c(access::REMOTE_WRITE as u64),
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
            k_rs_key: c(fault::BAD_KEY as u64),
            k_rs_conn: c(fault::CONNECTION as u64),
            k_rs_access: c(fault::ACCESS as u64),
            k_rs_bounds: c(fault::BOUNDS as u64),
            k_st_free: c(ost::FREE as u64),
            k_st_run: c(ost::RUN as u64),
            k_st_done: c(ost::DONE as u64),
            k_c_idle: c(cst::IDLE as u64),
            k_c_verdict: c(cst::VERDICT as u64),
            k_c_apply: c(cst::APPLY as u64),
            k_rsp_zero: Constant::new(RspRec::default()),
            k_cpl_zero: Constant::new(CplRec::default()),
            k_rq_zero: Constant::new(RqRec::default()),
            k_chk_zero: Constant::new(ChkRec::default()),
            k_ck_zero: Constant::new(CkRec::default()),
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
            acc: Default::default(),
            a_valid: Default::default(),
            a_rconn: Default::default(),
            a_idx: Default::default(),
            chkrec: Default::default(),
            key_ok: Default::default(),
            conn_ok2: Default::default(),
            acc_ok: Default::default(),
            bnd_ok: Default::default(),
            ckrec: Default::default(),
            n_out_v: Default::default(),
            n_skid_v: Default::default(),
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
            self,
            clock,
            cst,
            c_op,
            c_conn,
            c_access,
            c_nomem,
            c_xfer,
            c_addr,
            c_key,
            c_len,
            c_lkey,
            v_status,
            v_rslot,
            v_oslot,
            rsp_v,
            rsp_q,
            knext,
            iv,
            isel,
            rq_v,
            rq_q,
            r_v,
            r_tag,
            r_st,
            cpl_v,
            cpl_q,
            ac_rdy,
            s1_v,
            s1_q,
            ck_out_v,
            ck_out,
            ck_skid_v,
            ck_skid,
            n_nobufs,
            n_dereg_stale,
            n_bad_desc,
            n_busy,
            n_rdma_err,
            n_stale,
            n_dup,
            n_aborted,
            n_deny_key,
            n_deny_conn,
            n_deny_access,
            n_deny_bounds
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
        self.tab_k.read_clock.next = self.clock.val();
        self.tab_k.write_clock.next = self.clock.val();

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
        self.cpl_fire.next = self.any_done.val() & (!self.cpl_v.q.val() | self.cpl_ready.val());
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
                self.n_aborted.d.next = self.n_aborted.q.val() + 1;
            }
        } else if self.cpl_v.q.val() & self.cpl_ready.val() {
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
        self.fire.next =
            self.iv.q.val() & self.sel_can.val() & (!self.rq_v.q.val() | self.rq_ready.val());
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
        } else if self.rq_v.q.val() & self.rq_ready.val() {
            self.rq_v.d.next = false;
        }

        // ================= responses: registered, matched the next cycle =================
        self.r_v.d.next = self.rs_valid.val();
        self.r_tag.d.next = self.rs_tag.val();
        self.r_st.d.next = self.rs_status.val();
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
        if self.r_v.q.val() & !self.any_mine.val() {
            self.n_stale.d.next = self.n_stale.q.val() + 1;
        }
        if self.any_mine.val() & !self.any_good.val() {
            self.n_dup.d.next = self.n_dup.q.val() + 1;
        }
        if self.any_good.val() & self.err.val().any() {
            self.n_rdma_err.d.next = self.n_rdma_err.q.val() + 1;
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
        self.accept.next = (self.cst.q.val() == self.k_c_idle.val()) & self.cmd_valid.val();
        self.in_k.next = self.cmd_lkey.val();
        if self.cmd_op.val() == self.k_cmd_dereg.val() {
            self.in_k.next = self.cmd_key.val();
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
            self.c_op.d.next = self.cmd_op.val();
            self.c_conn.d.next = self.cmd_conn.val();
            self.c_access.d.next = self.cmd_access.val();
            self.c_nomem.d.next = self.cmd_nomem.val();
            self.c_xfer.d.next = self.cmd_xfer.val();
            self.c_addr.d.next = self.cmd_addr.val();
            self.c_key.d.next = self.cmd_key.val();
            self.c_len.d.next = self.cmd_len.val();
            self.c_lkey.d.next = self.cmd_lkey.val();
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
            & (!self.rsp_v.q.val() | self.rsp_ready.val());
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
        self.tab_k.write_address.next = self.v_rslot.q.val();
        self.tab_k.write_data.next = self.regrec.val();
        self.tab_k.write_enable.next = self.reg_we.val();
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
                self.n_nobufs.d.next = self.n_nobufs.q.val() + 1;
            }
            if self.v_status.q.val() == self.k_s_stale.val() {
                self.n_dereg_stale.d.next = self.n_dereg_stale.q.val() + 1;
            }
            if (self.v_status.q.val() == self.k_s_baddesc.val())
                | (self.v_status.q.val() == self.k_s_badcmd.val())
            {
                self.n_bad_desc.d.next = self.n_bad_desc.q.val() + 1;
            }
            if self.v_status.q.val() == self.k_s_busy.val() {
                self.n_busy.d.next = self.n_busy.q.val() + 1;
            }
        } else if self.rsp_v.q.val() & self.rsp_ready.val() {
            self.rsp_v.d.next = false;
        }

        // ================= remote-access checks =================
        self.acc.next = self.ac_valid.val() & self.ac_rdy.q.val();
        self.a_idx.next = bit_cast::<5, 32>(self.ac_key.val() & self.k_idx_mask.val());
        self.tab_k.read_address.next = self.a_idx.val();
        self.a_valid.next = false;
        self.a_rconn.next = 0.into();
        for j in 0..self.r_valid.len() {
            if self.a_idx.val() == self.k_idx5[j].val() {
                self.a_valid.next = self.r_valid[j].q.val();
                self.a_rconn.next = self.r_conn[j].q.val();
            }
        }
        self.chkrec.next.conn = self.ac_conn.val();
        self.chkrec.next.key = self.ac_key.val();
        self.chkrec.next.write = self.ac_write.val();
        self.chkrec.next.addr = self.ac_addr.val();
        self.chkrec.next.span_end =
            bit_cast::<65, 64>(self.ac_addr.val()) + bit_cast::<65, 32>(self.ac_len.val());
        self.chkrec.next.valid = self.a_valid.val();
        self.chkrec.next.rconn = self.a_rconn.val();
        self.s1_v.d.next = self.acc.val();
        if self.acc.val() {
            self.s1_q.d.next = self.chkrec.val();
        }
        self.key_ok.next =
            self.s1_q.q.val().valid & (self.tab_k.read_data.val().key == self.s1_q.q.val().key);
        self.conn_ok2.next = self.s1_q.q.val().rconn == self.s1_q.q.val().conn;
        self.acc_ok.next = self.tab_k.read_data.val().access == self.k_acc_rr.val();
        if self.s1_q.q.val().write {
            self.acc_ok.next = self.tab_k.read_data.val().access == self.k_acc_rw.val();
        }
        // `base <= addr && addr + len <= base + rlen`, in 65 bits (no wrap).
        self.bnd_ok.next = (self.s1_q.q.val().addr >= self.tab_k.read_data.val().addr)
            & (self.s1_q.q.val().span_end
                <= bit_cast::<65, 64>(self.tab_k.read_data.val().addr)
                    + bit_cast::<65, 32>(self.tab_k.read_data.val().len));
        self.ckrec.next.grant = false;
        if !self.key_ok.val() {
            self.ckrec.next.reason = self.k_rs_key.val();
        } else if !self.conn_ok2.val() {
            self.ckrec.next.reason = self.k_rs_conn.val();
        } else if !self.acc_ok.val() {
            self.ckrec.next.reason = self.k_rs_access.val();
        } else if !self.bnd_ok.val() {
            self.ckrec.next.reason = self.k_rs_bounds.val();
        } else {
            self.ckrec.next.reason = 0.into();
            self.ckrec.next.grant = true;
        }
        if self.s1_v.q.val() {
            if self.ckrec.val().reason == self.k_rs_key.val() {
                self.n_deny_key.d.next = self.n_deny_key.q.val() + 1;
            }
            if self.ckrec.val().reason == self.k_rs_conn.val() {
                self.n_deny_conn.d.next = self.n_deny_conn.q.val() + 1;
            }
            if self.ckrec.val().reason == self.k_rs_access.val() {
                self.n_deny_access.d.next = self.n_deny_access.q.val() + 1;
            }
            if self.ckrec.val().reason == self.k_rs_bounds.val() {
                self.n_deny_bounds.d.next = self.n_deny_bounds.q.val() + 1;
            }
        }
        // The answer register with one skid slot.
        self.n_out_v.next = self.ck_out_v.q.val();
        self.n_skid_v.next = self.ck_skid_v.q.val();
        if !self.ck_out_v.q.val() | self.ck_ready.val() {
            if self.ck_skid_v.q.val() {
                self.ck_out.d.next = self.ck_skid.q.val();
                self.n_skid_v.next = false;
            } else {
                self.n_out_v.next = self.s1_v.q.val();
                if self.s1_v.q.val() {
                    self.ck_out.d.next = self.ckrec.val();
                }
            }
        } else if self.s1_v.q.val() {
            self.ck_skid.d.next = self.ckrec.val();
            self.n_skid_v.next = true;
        }
        self.ck_out_v.d.next = self.n_out_v.val();
        self.ck_skid_v.d.next = self.n_skid_v.val();
        // At most two checks held, so the one in the first stage always finds a slot.
        self.ac_rdy.d.next = !((self.acc.val() & self.n_out_v.val())
            | (self.acc.val() & self.n_skid_v.val())
            | (self.n_out_v.val() & self.n_skid_v.val()));

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
            self.ac_rdy.d.next = true;
            self.s1_v.d.next = false;
            self.s1_q.d.next = self.k_chk_zero.val();
            self.ck_out_v.d.next = false;
            self.ck_out.d.next = self.k_ck_zero.val();
            self.ck_skid_v.d.next = false;
            self.ck_skid.d.next = self.k_ck_zero.val();
            self.n_nobufs.d.next = 0.into();
            self.n_dereg_stale.d.next = 0.into();
            self.n_bad_desc.d.next = 0.into();
            self.n_busy.d.next = 0.into();
            self.n_rdma_err.d.next = 0.into();
            self.n_stale.d.next = 0.into();
            self.n_dup.d.next = 0.into();
            self.n_aborted.d.next = 0.into();
            self.n_deny_key.d.next = 0.into();
            self.n_deny_conn.d.next = 0.into();
            self.n_deny_access.d.next = 0.into();
            self.n_deny_bounds.d.next = 0.into();
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
        self.cmd_ready.next = self.cst.q.val() == self.k_c_idle.val();
        self.rsp_valid.next = self.rsp_v.q.val();
        self.rsp_op.next = self.rsp_q.q.val().op;
        self.rsp_conn.next = self.rsp_q.q.val().conn;
        self.rsp_status.next = self.rsp_q.q.val().status;
        self.rsp_key.next = self.rsp_q.q.val().key;
        self.rsp_len.next = self.rsp_q.q.val().len;
        self.cpl_valid.next = self.cpl_v.q.val();
        self.cpl_conn.next = self.cpl_q.q.val().conn;
        self.cpl_xfer.next = self.cpl_q.q.val().xfer;
        self.cpl_bytes.next = self.cpl_q.q.val().bytes;
        self.cpl_write.next = self.cpl_q.q.val().write;
        self.cpl_status.next = self.cpl_q.q.val().status;
        self.rq_valid.next = self.rq_v.q.val();
        self.rq_tag.next = self.rq_q.q.val().tag;
        self.rq_write.next = self.rq_q.q.val().write;
        self.rq_conn.next = self.rq_q.q.val().conn;
        self.rq_raddr.next = self.rq_q.q.val().raddr;
        self.rq_rkey.next = self.rq_q.q.val().rkey;
        self.rq_laddr.next = self.rq_q.q.val().laddr;
        self.rq_lkey.next = self.rq_q.q.val().lkey;
        self.rq_len.next = self.rq_q.q.val().len;
        self.rs_ready.next = true;
        self.ac_ready.next = self.ac_rdy.q.val();
        self.ck_valid.next = self.ck_out_v.q.val();
        self.ck_grant.next = self.ck_out.q.val().grant;
        self.ck_reason.next = self.ck_out.q.val().reason;
        self.cnt_nobufs.next = self.n_nobufs.q.val();
        self.cnt_dereg_stale.next = self.n_dereg_stale.q.val();
        self.cnt_bad_desc.next = self.n_bad_desc.q.val();
        self.cnt_busy.next = self.n_busy.q.val();
        self.cnt_rdma_err.next = self.n_rdma_err.q.val();
        self.cnt_stale.next = self.n_stale.q.val();
        self.cnt_dup.next = self.n_dup.q.val();
        self.cnt_aborted.next = self.n_aborted.q.val();
        self.cnt_deny_key.next = self.n_deny_key.q.val();
        self.cnt_deny_conn.next = self.n_deny_conn.q.val();
        self.cnt_deny_access.next = self.n_deny_access.q.val();
        self.cnt_deny_bounds.next = self.n_deny_bounds.q.val();
    }
}
