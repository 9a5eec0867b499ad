//! The pool manager's edges, decided and refused rather than aliased or accepted: CLOSE of a
//! connection that is not open, ids at or above `connections`, OPEN operands no connection
//! can reach (each at its boundary and one past it).

use sanswitch_model::blocks::pool::{PoolIn, PoolModel, PoolOut, op, status};
use sanswitch_model::params::PoolParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_model::wire::MIN_POSTED;

/// Offer `r` until taken, then run until its response; return it.
fn request(m: &mut PoolModel, r: PoolIn) -> PoolOut {
    let mut taken = false;
    for _ in 0..100 {
        let i = PoolIn { s_axis_req_tvalid: !taken, m_axis_resp_tready: true, ..r };
        let o = m.outputs(&i);
        m.clock(&i);
        taken |= i.s_axis_req_tvalid && o.s_axis_req_tready;
        if taken && o.m_axis_resp_tvalid {
            return o;
        }
    }
    panic!("no response to {r:?}");
}

fn fresh() -> PoolModel {
    let mut m = PoolModel::new(PoolParams::default());
    m.clock(&PoolIn { reset: true, ..PoolIn::default() });
    m
}

fn open(conn: u8, a: u32, b: u32, bufs: u16, buf: u8) -> PoolIn {
    PoolIn {
        s_axis_req_op: op::OPEN,
        s_axis_req_conn: conn,
        s_axis_req_a: a,
        s_axis_req_b: b,
        s_axis_req_c: 77,
        s_axis_req_bufs: bufs,
        s_axis_req_buf: buf,
        ..PoolIn::default()
    }
}

#[test]
fn close_of_a_connection_not_open_is_refused() {
    let mut m = fresh();
    let o = request(&mut m, PoolIn { s_axis_req_op: op::CLOSE, ..PoolIn::default() });
    assert_eq!(o.m_axis_resp_status, status::CLOSED);
    assert_eq!(request(&mut m, open(0, 1, 0, 8, 0)).m_axis_resp_status, status::OK);
    let close = PoolIn { s_axis_req_op: op::CLOSE, ..PoolIn::default() };
    assert_eq!(request(&mut m, close).m_axis_resp_status, status::OK);
    assert_eq!(request(&mut m, close).m_axis_resp_status, status::CLOSED, "closed twice");
    assert_eq!(m.counters.get(status::CLOSED as usize), 2);
}

#[test]
fn ids_past_the_connections_are_refused_and_show_nothing_of_the_aliased_word() {
    let p = PoolParams::default();
    let mut m = fresh();
    // Connection 0 open with recognisable state; id `connections` aliases its RAM word.
    assert_eq!(request(&mut m, open(0, 1000, 999, 8, 0)).m_axis_resp_status, status::OK);
    let last = (p.connections - 1) as u8;
    assert_eq!(request(&mut m, open(last, 5, 4, 8, 0)).m_axis_resp_status, status::OK);
    for o in [op::OPEN, op::CLOSE, op::ALLOC, op::FREE, op::RECV, op::REPOST, op::QUERY] {
        let mut r = open(p.connections as u8, 1000, 999, 8, 0);
        r.s_axis_req_op = o;
        let out = request(&mut m, r);
        assert_eq!(out.m_axis_resp_status, status::CLOSED, "op {o}");
        assert_eq!(
            (out.m_axis_resp_mseq, out.m_axis_resp_ack, out.m_axis_resp_bufs),
            (0, 0, 0),
            "op {o}: no field of another connection's word"
        );
    }
    let q = PoolIn { s_axis_req_op: op::QUERY, s_axis_req_conn: 0, ..PoolIn::default() };
    assert_eq!(request(&mut m, q).m_axis_resp_mseq, 1000, "connection 0 untouched");
}

#[test]
fn open_refuses_operands_no_connection_can_reach() {
    let p = PoolParams::default();
    let mut m = fresh();
    let ok = |m: &mut PoolModel, r| request(m, r).m_axis_resp_status;
    // Unacknowledged messages (a - 1 - b, wrap-safe) up to the peer's posted buffers.
    assert_eq!(ok(&mut m, open(1, 9, 0, 8, 0)), status::OK);
    assert_eq!(ok(&mut m, open(1, 10, 0, 8, 0)), status::BAD_OPEN);
    assert_eq!(ok(&mut m, open(1, 3, u32::MAX - 5, 8, 0)), status::OK, "across the wrap");
    assert_eq!(ok(&mut m, open(1, 4, u32::MAX - 5, 8, 0)), status::BAD_OPEN);
    // The case: 65,540 unacknowledged messages were once taken as 4 credits.
    assert_eq!(ok(&mut m, open(1, 65_541, 0, 8, 0)), status::BAD_OPEN);
    // Posted buffers at least MIN_POSTED.
    assert_eq!(ok(&mut m, open(1, 1, 0, MIN_POSTED, 0)), status::OK);
    assert_eq!(ok(&mut m, open(1, 1, 0, MIN_POSTED - 1, 0)), status::BAD_OPEN);
    // Received and unacknowledged messages at most our receive pool.
    assert_eq!(ok(&mut m, open(1, 1, 0, 8, p.recv_bufs)), status::OK);
    assert_eq!(ok(&mut m, open(1, 1, 0, 8, p.recv_bufs + 1)), status::BAD_OPEN);
    // A refused OPEN changes nothing: the connection keeps its last good state.
    let q = PoolIn { s_axis_req_op: op::QUERY, s_axis_req_conn: 1, ..PoolIn::default() };
    assert_eq!(request(&mut m, q).m_axis_resp_mseq, 1);
    assert_eq!(m.counters.get(status::BAD_OPEN as usize), 5);
}
