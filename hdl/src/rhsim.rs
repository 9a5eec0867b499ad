//! Driving a block in rust-hdl's own simulator through its model's port structs, so the same
//! lockstep check runs there as in Verilator (short runs: rust-hdl simulates ~10 k cycles/s).

use rust_hdl::prelude::*;
use sanswitch_model::blocks::parser::{ParserIn, ParserOut};

use crate::parser::ControlParser;

fn b<const N: usize>(v: u64) -> Bits<N> {
    Bits::<N>::from(v)
}
fn u<const N: usize>(s: &Signal<Out, Bits<N>>) -> u64 {
    s.val().to_u64()
}

/// Set the parser's inputs from a port struct.
pub fn parser_set(x: &mut ControlParser, i: &ParserIn) {
    x.reset.next = i.reset;
    x.in_valid.next = i.in_valid;
    x.in_data.next = b(i.in_data);
    x.in_last.next = i.in_last;
    x.in_last_bytes.next = b(i.in_last_bytes as u64);
    x.in_conn.next = b(i.in_conn as u64);
    x.hdr_ready.next = i.hdr_ready;
    x.pay_ready.next = i.pay_ready;
}

/// Read the parser's outputs into a port struct.
pub fn parser_get(x: &ControlParser) -> ParserOut {
    ParserOut {
        in_ready: x.in_ready.val(),
        hdr_valid: x.hdr_valid.val(),
        hdr_conn: u(&x.hdr_conn) as u8,
        hdr_error: u(&x.hdr_error) as u8,
        hdr_mid: u(&x.hdr_mid) as u8,
        hdr_flags: u(&x.hdr_flags) as u8,
        hdr_bufs: u(&x.hdr_bufs) as u16,
        hdr_len: u(&x.hdr_len) as u32,
        hdr_mseq: u(&x.hdr_mseq) as u32,
        hdr_mseq_ack: u(&x.hdr_mseq_ack) as u32,
        hdr_ext: u(&x.hdr_ext),
        hdr_desc_addr: u(&x.hdr_desc_addr),
        hdr_desc_key: u(&x.hdr_desc_key) as u32,
        hdr_desc_len: u(&x.hdr_desc_len) as u32,
        pay_valid: x.pay_valid.val(),
        pay_data: u(&x.pay_data),
        pay_last: x.pay_last.val(),
        pay_last_bytes: u(&x.pay_last_bytes) as u8,
        pay_bad: x.pay_bad.val(),
        pay_conn: u(&x.pay_conn) as u8,
        cnt_good: u(&x.cnt_good) as u32,
        cnt_truncated: u(&x.cnt_truncated) as u32,
        cnt_length_mismatch: u(&x.cnt_length_mismatch) as u32,
        cnt_unknown_kind: u(&x.cnt_unknown_kind) as u32,
        cnt_reserved_bits: u(&x.cnt_reserved_bits) as u32,
        cnt_descriptor_misplaced: u(&x.cnt_descriptor_misplaced) as u32,
        cnt_payload_misplaced: u(&x.cnt_payload_misplaced) as u32,
        cnt_too_long: u(&x.cnt_too_long) as u32,
        cnt_bad_field: u(&x.cnt_bad_field) as u32,
    }
}

/// Run the parser in rust-hdl's simulator beside its cycle model for `cycles` cycles of
/// random stimulus, comparing every output every cycle. Returns the first mismatch.
pub fn parser_lockstep(
    p: &sanswitch_model::params::ParserParams,
    seed: u64,
    cycles: u64,
) -> Result<(), String> {
    use sanswitch_model::blocks::parser::ParserModel;
    use sanswitch_model::blocks::stimulus::ParserDriver;
    use sanswitch_model::ports::CycleModel;
    use std::sync::{Arc, Mutex};

    let mut uut = ControlParser::new(p);
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<ControlParser>| x.clock.next = !x.clock.val());
    let result = Arc::new(Mutex::new(Ok(())));
    let res = result.clone();
    let p = *p;
    sim.add_testbench(move |mut sim: Sim<ControlParser>| {
        let mut x = sim.init()?;
        let mut model = ParserModel::new(p);
        let mut drv = ParserDriver::new(seed, p.buf_size, p.connections, 0.3);
        drv.record = false;
        let reset = ParserIn { reset: true, ..ParserIn::default() };
        parser_set(&mut x, &reset);
        wait_clock_cycle!(sim, clock, x);
        model.clock(&reset);
        for cycle in 0..cycles {
            let i = drv.inputs();
            parser_set(&mut x, &i);
            let hw = parser_get(&x);
            let sw = model.outputs(&i);
            if hw != sw {
                *res.lock().unwrap() = Err(format!("cycle {cycle}: rust-hdl {hw:?}\nmodel {sw:?}"));
                break;
            }
            wait_clock_cycle!(sim, clock, x);
            model.clock(&i);
            drv.advance(i.in_valid && sw.in_ready);
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), (cycles + 4) * 10 + 100).map_err(|e| format!("{e:?}"))?;
    result.lock().expect("testbench finished").clone()
}

/// Set the pool manager's inputs from a port struct.
pub fn pool_set<const A: usize>(
    x: &mut crate::pool::PoolManager<A>,
    i: &sanswitch_model::blocks::pool::PoolIn,
) {
    x.reset.next = i.reset;
    x.req_valid.next = i.req_valid;
    x.req_op.next = b(i.req_op as u64);
    x.req_conn.next = b(i.req_conn as u64);
    x.req_class.next = b(i.req_class as u64);
    x.req_buf.next = b(i.req_buf as u64);
    x.req_a.next = b(i.req_a as u64);
    x.req_b.next = b(i.req_b as u64);
    x.req_c.next = b(i.req_c as u64);
    x.req_bufs.next = b(i.req_bufs as u64);
    x.resp_ready.next = i.resp_ready;
}

/// Read the pool manager's outputs into a port struct.
pub fn pool_get<const A: usize>(
    x: &crate::pool::PoolManager<A>,
) -> sanswitch_model::blocks::pool::PoolOut {
    sanswitch_model::blocks::pool::PoolOut {
        req_ready: x.req_ready.val(),
        resp_valid: x.resp_valid.val(),
        resp_op: u(&x.resp_op) as u8,
        resp_conn: u(&x.resp_conn) as u8,
        resp_status: u(&x.resp_status) as u8,
        resp_buf: u(&x.resp_buf) as u8,
        resp_mseq: u(&x.resp_mseq) as u32,
        resp_ack: u(&x.resp_ack) as u32,
        resp_bufs: u(&x.resp_bufs) as u16,
        resp_credits: u(&x.resp_credits) as u16,
        resp_update_due: x.resp_update_due.val(),
        cnt_no_buf: u(&x.cnt_no_buf) as u32,
        cnt_no_credit: u(&x.cnt_no_credit) as u32,
        cnt_closed: u(&x.cnt_closed) as u32,
        cnt_double_free: u(&x.cnt_double_free) as u32,
        cnt_never_handed_out: u(&x.cnt_never_handed_out) as u32,
        cnt_repost_range: u(&x.cnt_repost_range) as u32,
        cnt_double_post: u(&x.cnt_double_post) as u32,
        cnt_not_posted: u(&x.cnt_not_posted) as u32,
        cnt_seq_gap: u(&x.cnt_seq_gap) as u32,
        cnt_bad_ack: u(&x.cnt_bad_ack) as u32,
        cnt_bad_bufs: u(&x.cnt_bad_bufs) as u32,
        cnt_bad_op: u(&x.cnt_bad_op) as u32,
    }
}

/// Run the pool manager (16 connections) in rust-hdl's simulator beside its cycle model.
pub fn pool_lockstep(
    p: &sanswitch_model::params::PoolParams,
    seed: u64,
    cycles: u64,
) -> Result<(), String> {
    use sanswitch_model::blocks::pool::{PoolIn, PoolModel};
    use sanswitch_model::blocks::pool_stimulus::PoolDriver;
    use sanswitch_model::ports::CycleModel;
    use std::sync::{Arc, Mutex};

    type P16 = crate::pool::PoolManager<4>;
    let mut uut = P16::new(p);
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<P16>| x.clock.next = !x.clock.val());
    let result = Arc::new(Mutex::new(Ok(())));
    let res = result.clone();
    let p = *p;
    sim.add_testbench(move |mut sim: Sim<P16>| {
        let mut x = sim.init()?;
        let mut model = PoolModel::new(p);
        let mut drv = PoolDriver::new(seed, p, 0.15);
        let reset = PoolIn { reset: true, ..PoolIn::default() };
        pool_set(&mut x, &reset);
        wait_clock_cycle!(sim, clock, x);
        model.clock(&reset);
        for cycle in 0..cycles {
            let i = drv.inputs();
            pool_set(&mut x, &i);
            let hw = pool_get(&x);
            let sw = model.outputs(&i);
            if hw != sw {
                *res.lock().unwrap() = Err(format!("cycle {cycle}: rust-hdl {hw:?}\nmodel {sw:?}"));
                break;
            }
            wait_clock_cycle!(sim, clock, x);
            model.clock(&i);
            drv.advance(&i, &sw);
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), (cycles + 4) * 10 + 100).map_err(|e| format!("{e:?}"))?;
    result.lock().expect("testbench finished").clone()
}

/// Set the sequencer's inputs from a port struct.
pub fn sequencer_set(
    x: &mut crate::sequencer::Sequencer,
    i: &sanswitch_model::blocks::sequencer::SequencerIn,
) {
    x.reset.next = i.reset;
    x.cmd_valid.next = i.cmd_valid;
    x.cmd_op.next = b(i.cmd_op as u64);
    x.cmd_conn.next = b(i.cmd_conn as u64);
    x.cmd_access.next = b(i.cmd_access as u64);
    x.cmd_nomem.next = i.cmd_nomem;
    x.cmd_xfer.next = b(i.cmd_xfer as u64);
    x.cmd_addr.next = b(i.cmd_addr);
    x.cmd_key.next = b(i.cmd_key as u64);
    x.cmd_len.next = b(i.cmd_len as u64);
    x.cmd_lkey.next = b(i.cmd_lkey as u64);
    x.rsp_ready.next = i.rsp_ready;
    x.cpl_ready.next = i.cpl_ready;
    x.rq_ready.next = i.rq_ready;
    x.rs_valid.next = i.rs_valid;
    x.rs_tag.next = b(i.rs_tag as u64);
    x.rs_status.next = b(i.rs_status as u64);
    x.ac_valid.next = i.ac_valid;
    x.ac_conn.next = b(i.ac_conn as u64);
    x.ac_key.next = b(i.ac_key as u64);
    x.ac_write.next = i.ac_write;
    x.ac_off.next = b(i.ac_off as u64);
    x.ac_len.next = b(i.ac_len as u64);
    x.ck_ready.next = i.ck_ready;
}

/// Read the sequencer's outputs into a port struct.
pub fn sequencer_get(
    x: &crate::sequencer::Sequencer,
) -> sanswitch_model::blocks::sequencer::SequencerOut {
    sanswitch_model::blocks::sequencer::SequencerOut {
        cmd_ready: x.cmd_ready.val(),
        rsp_valid: x.rsp_valid.val(),
        rsp_op: u(&x.rsp_op) as u8,
        rsp_conn: u(&x.rsp_conn) as u8,
        rsp_status: u(&x.rsp_status) as u8,
        rsp_key: u(&x.rsp_key) as u32,
        rsp_len: u(&x.rsp_len) as u32,
        cpl_valid: x.cpl_valid.val(),
        cpl_conn: u(&x.cpl_conn) as u8,
        cpl_xfer: u(&x.cpl_xfer) as u32,
        cpl_bytes: u(&x.cpl_bytes) as u32,
        cpl_write: x.cpl_write.val(),
        cpl_status: u(&x.cpl_status) as u8,
        rq_valid: x.rq_valid.val(),
        rq_tag: u(&x.rq_tag) as u16,
        rq_write: x.rq_write.val(),
        rq_conn: u(&x.rq_conn) as u8,
        rq_raddr: u(&x.rq_raddr),
        rq_rkey: u(&x.rq_rkey) as u32,
        rq_laddr: u(&x.rq_laddr),
        rq_lkey: u(&x.rq_lkey) as u32,
        rq_len: u(&x.rq_len) as u32,
        rs_ready: x.rs_ready.val(),
        ac_ready: x.ac_ready.val(),
        ck_valid: x.ck_valid.val(),
        ck_grant: x.ck_grant.val(),
        ck_reason: u(&x.ck_reason) as u8,
        ck_addr: u(&x.ck_addr),
        cnt_nobufs: u(&x.cnt_nobufs) as u32,
        cnt_dereg_stale: u(&x.cnt_dereg_stale) as u32,
        cnt_bad_desc: u(&x.cnt_bad_desc) as u32,
        cnt_busy: u(&x.cnt_busy) as u32,
        cnt_rdma_err: u(&x.cnt_rdma_err) as u32,
        cnt_stale: u(&x.cnt_stale) as u32,
        cnt_dup: u(&x.cnt_dup) as u32,
        cnt_aborted: u(&x.cnt_aborted) as u32,
        cnt_deny_key: u(&x.cnt_deny_key) as u32,
        cnt_deny_conn: u(&x.cnt_deny_conn) as u32,
        cnt_deny_access: u(&x.cnt_deny_access) as u32,
        cnt_deny_bounds: u(&x.cnt_deny_bounds) as u32,
    }
}

/// Run the sequencer in rust-hdl's simulator beside its cycle model for `cycles` cycles of
/// `drv`'s stimulus (random commands and checks, the SAN port model with faults), comparing
/// every output every cycle. Returns the driver (for its statistics) or the first mismatch.
pub fn sequencer_lockstep(
    p: &sanswitch_model::params::SequencerParams,
    drv: sanswitch_model::blocks::seq_stimulus::SeqDriver,
    cycles: u64,
) -> Result<sanswitch_model::blocks::seq_stimulus::SeqDriver, String> {
    use crate::sequencer::Sequencer;
    use sanswitch_model::blocks::sequencer::{SequencerIn, SequencerModel};
    use sanswitch_model::ports::CycleModel;
    use std::sync::{Arc, Mutex};

    let mut uut = Sequencer::new(p);
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Sequencer>| x.clock.next = !x.clock.val());
    let result = Arc::new(Mutex::new(Err("not run".to_string())));
    let res = result.clone();
    let p = *p;
    let drv = Arc::new(Mutex::new(Some(drv)));
    sim.add_testbench(move |mut sim: Sim<Sequencer>| {
        let mut x = sim.init()?;
        let mut drv = drv.lock().unwrap().take().expect("one testbench run");
        let mut model = SequencerModel::new(p);
        let reset = SequencerIn { reset: true, ..SequencerIn::default() };
        sequencer_set(&mut x, &reset);
        wait_clock_cycle!(sim, clock, x);
        model.clock(&reset);
        let mut out = Ok(());
        for cycle in 0..cycles {
            let i = drv.inputs();
            sequencer_set(&mut x, &i);
            let hw = sequencer_get(&x);
            let sw = model.outputs(&i);
            if hw != sw {
                out = Err(format!("cycle {cycle}: rust-hdl {hw:?}\nmodel {sw:?}"));
                break;
            }
            wait_clock_cycle!(sim, clock, x);
            model.clock(&i);
            drv.observe(&i, &sw);
        }
        *res.lock().unwrap() = out.map(|_| drv);
        sim.done(x)
    });
    sim.run(Box::new(uut), (cycles + 4) * 10 + 100).map_err(|e| format!("{e:?}"))?;
    let mut r = result.lock().expect("testbench finished");
    std::mem::replace(&mut *r, Err("taken".into()))
}
