//! Deterministic scenarios: one per path of the session protocol and one per failure, each
//! checking the exact message sequence, the completion statuses and the delivered bytes.
//! `docs/PROTOCOL.md` cites these tests by name.
//!
//! The first part runs two endpoints over [`Fabric`]; the last part drives a single
//! [`Endpoint`] by hand (a scripted peer) to inject protocol violations.

use std::collections::{BTreeMap, VecDeque};

use sanswitch_model::WsaError;
use sanswitch_model::endpoint::{
    Access, Action, BufId, Config, Endpoint, Event, RdmaError, ReqId, Role, State,
};
use sanswitch_model::fabric::{AppOutput, Fabric, FabricConfig, Faults};
use sanswitch_model::wire::{
    Descriptor, Frame, Header, HelloParams, Kind, Message, ParseError, max_payload,
};

use Kind::*;

// ------------------------------------------------------------------------------------------
// Fabric helpers.

/// A fabric with one connection (node 0 initiator, node 1 acceptor), handshake done, trace on.
fn setup(c0: Config, c1: Config, fc: FabricConfig) -> (Fabric, usize, Vec<AppOutput>) {
    let mut f = Fabric::new(fc);
    f.enable_trace();
    let conn = f.connect(Endpoint::new(Role::Initiator, c0), Endpoint::new(Role::Acceptor, c1));
    let outs = run(&mut f);
    (f, conn, outs)
}

fn default_setup() -> (Fabric, usize) {
    let (f, conn, _) = setup(Config::default(), Config::default(), FabricConfig::default());
    (f, conn)
}

/// Run until nothing is scheduled; return the application outputs.
fn run(f: &mut Fabric) -> Vec<AppOutput> {
    let n = f.run(1_000_000);
    assert!(!f.busy(), "still busy after {n} events");
    f.take_outputs()
}

/// Every frame node `from` sent, in order.
fn frames(f: &Fabric, from: usize) -> Vec<Frame> {
    f.trace().iter().filter(|t| t.2 == from).map(|t| t.3.clone()).collect()
}

/// The kinds node `from` sent, in order.
fn kinds(f: &Fabric, from: usize) -> Vec<Kind> {
    frames(f, from).iter().map(|fr| fr.msg.kind()).collect()
}

/// Every message on the connection in the order sent: (from node, kind).
fn sequence(f: &Fabric) -> Vec<(usize, Kind)> {
    f.trace().iter().map(|t| (t.2, t.3.msg.kind())).collect()
}

/// The frames of `kind` node `from` sent.
fn sent_of(f: &Fabric, from: usize, kind: Kind) -> Vec<Frame> {
    frames(f, from).into_iter().filter(|fr| fr.msg.kind() == kind).collect()
}

fn payload_lens(f: &Fabric, from: usize) -> Vec<usize> {
    sent_of(f, from, Data).iter().map(|fr| fr.msg.payload().len()).collect()
}

/// Send completions on `node`: (req, result).
fn send_results(outs: &[AppOutput], node: usize) -> Vec<(ReqId, Result<usize, WsaError>)> {
    outs.iter()
        .filter(|o| o.node == node)
        .filter_map(|o| match &o.action {
            Action::CompleteSend { req, result } => Some((*req, *result)),
            _ => None,
        })
        .collect()
}

/// Receive completions on `node`: (req, Ok((data, urgent)) or Err).
#[allow(clippy::type_complexity)]
fn recv_results(
    outs: &[AppOutput],
    node: usize,
) -> Vec<(ReqId, Result<(Vec<u8>, bool), WsaError>)> {
    outs.iter()
        .filter(|o| o.node == node)
        .filter_map(|o| match &o.action {
            Action::CompleteRecv { req, result } => {
                Some((*req, result.clone().map(|r| (r.data, r.urgent))))
            }
            _ => None,
        })
        .collect()
}

fn count(outs: &[AppOutput], node: usize, pred: fn(&Action) -> bool) -> usize {
    outs.iter().filter(|o| o.node == node && pred(&o.action)).count()
}

fn teardowns(outs: &[AppOutput], node: usize) -> usize {
    count(outs, node, |a| matches!(a, Action::Teardown))
}

/// Post one large receive on `node` and run: what is buffered (up to one urgency run).
fn read(f: &mut Fabric, conn: usize, node: usize, req: ReqId) -> Result<(Vec<u8>, bool), WsaError> {
    f.app(conn, node, Event::AppRecv { req, max: 1 << 24 });
    let outs = run(f);
    let r = recv_results(&outs, node);
    assert_eq!(r.len(), 1, "one completion for recv {req}: {outs:?}");
    r[0].1.clone()
}

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

fn send(f: &mut Fabric, conn: usize, node: usize, req: ReqId, data: Vec<u8>) {
    f.app(conn, node, Event::AppSend { req, data, urgent: false });
}

/// Configuration whose large sends are small enough to list every message: 4 KiB buffers,
/// sends above 4 KiB go zero-copy.
fn small_threshold(rdma_read: bool) -> Config {
    Config { rdma_threshold: 4096, rdma_read, ..Config::default() }
}

// ------------------------------------------------------------------------------------------
// Session setup.

#[test]
fn handshake_hello_helloack_grants_credits_equal_to_posted_buffers() {
    let c0 = Config { recv_bufs: 6, buf_size: 2048, rdma_read: false, ..Config::default() };
    let c1 = Config { recv_bufs: 10, buf_size: 8192, rdma_read: true, ..Config::default() };
    let (mut f, conn, outs) = setup(c0, c1, FabricConfig::default());
    assert_eq!(sequence(&f), [(0, Hello), (1, HelloAck)]);
    let hello = &f.trace()[0].3;
    assert_eq!(hello.header, Header { bufs: 6, mseq: 1, mseq_ack: 0 });
    assert_eq!(hello.msg, Message::Hello(HelloParams { rdma_read: false, buf_size: 2048 }));
    let ack = &f.trace()[1].3;
    assert_eq!(ack.header, Header { bufs: 10, mseq: 1, mseq_ack: 1 });
    assert_eq!(ack.msg, Message::HelloAck(HelloParams { rdma_read: true, buf_size: 8192 }));
    // The acceptor completes its accept when it answers; the initiator on the HelloAck.
    let connected: Vec<usize> =
        outs.iter().filter(|o| o.action == Action::Connected).map(|o| o.node).collect();
    assert_eq!(connected, [1, 0]);
    let (e0, e1) = (f.endpoint(conn, 0), f.endpoint(conn, 1));
    assert_eq!((e0.state(), e1.state()), (State::Established, State::Established));
    assert_eq!(e0.peer(), Some(&HelloParams { rdma_read: true, buf_size: 8192 }));
    assert_eq!(e1.peer(), Some(&HelloParams { rdma_read: false, buf_size: 2048 }));
    assert_eq!((e0.posted(), e1.posted()), (6, 10));
    // Credits = the peer's posted buffers minus own unacknowledged messages: the initiator's
    // Hello is acknowledged by the HelloAck, the acceptor's HelloAck is not yet.
    assert_eq!(e0.credits(), 10);
    assert_eq!(e1.credits(), 6 - 1);
    // The initiator's first message acknowledges the HelloAck.
    send(&mut f, conn, 0, 1, vec![7]);
    run(&mut f);
    assert_eq!(f.endpoint(conn, 1).credits(), 6);
}

// ------------------------------------------------------------------------------------------
// Copy path.

#[test]
fn small_send_goes_as_one_data_message() {
    let (mut f, conn) = default_setup();
    f.app(conn, 1, Event::AppRecv { req: 10, max: 1000 });
    let data = pattern(100, 1);
    send(&mut f, conn, 0, 1, data.clone());
    let outs = run(&mut f);
    assert_eq!(kinds(&f, 0), [Hello, Data]);
    assert_eq!(kinds(&f, 1), [HelloAck]);
    let d = &sent_of(&f, 0, Data)[0];
    assert_eq!(d.header, Header { bufs: 8, mseq: 2, mseq_ack: 1 });
    assert_eq!(d.msg, Message::Data { urgent: false, payload: data.clone() });
    assert_eq!(send_results(&outs, 0), [(1, Ok(100))]);
    assert_eq!(recv_results(&outs, 1), [(10, Ok((data, false)))]);
    let s = f.endpoint(conn, 0).stats();
    assert_eq!((s.sends_copy, s.bytes_inline, s.bytes_rdma), (1, 100, 0));
}

#[test]
fn send_larger_than_a_buffer_spans_several_data_messages() {
    let (mut f, conn) = default_setup();
    let data = pattern(10_000, 2); // below the 16 KiB threshold
    send(&mut f, conn, 0, 1, data.clone());
    let outs = run(&mut f);
    assert_eq!(kinds(&f, 0), [Hello, Data, Data, Data]);
    let room = max_payload(Data, false, 4096);
    assert_eq!(room, 4080);
    assert_eq!(payload_lens(&f, 0), [4080, 4080, 10_000 - 2 * 4080]);
    assert_eq!(send_results(&outs, 0), [(1, Ok(10_000))]);
    assert_eq!(read(&mut f, conn, 1, 10), Ok((data, false)));
}

#[test]
fn urgent_data_is_never_mixed_with_normal_data_in_one_recv() {
    let (mut f, conn) = default_setup();
    let (a, u, b) = (pattern(10, 1), pattern(5, 2), pattern(7, 3));
    send(&mut f, conn, 0, 1, a.clone());
    f.app(conn, 0, Event::AppSend { req: 2, data: u.clone(), urgent: true });
    send(&mut f, conn, 0, 3, b.clone());
    let outs = run(&mut f);
    let urgent: Vec<bool> = sent_of(&f, 0, Data)
        .iter()
        .map(|fr| matches!(fr.msg, Message::Data { urgent: true, .. }))
        .collect();
    assert_eq!(urgent, [false, true, false]);
    assert_eq!(send_results(&outs, 0), [(1, Ok(10)), (2, Ok(5)), (3, Ok(7))]);
    // All 22 bytes are buffered; each receive stops where the urgency changes.
    assert_eq!(read(&mut f, conn, 1, 10), Ok((a, false)));
    assert_eq!(read(&mut f, conn, 1, 11), Ok((u, true)));
    assert_eq!(read(&mut f, conn, 1, 12), Ok((b, false)));
}

#[test]
fn urgent_send_above_threshold_still_goes_by_copy() {
    let (mut f, conn) = default_setup();
    let data = pattern(20_000, 4);
    f.app(conn, 0, Event::AppSend { req: 1, data: data.clone(), urgent: true });
    let outs = run(&mut f);
    assert_eq!(kinds(&f, 0), [Hello, Data, Data, Data, Data, Data]);
    assert_eq!(payload_lens(&f, 0), [4080, 4080, 4080, 4080, 20_000 - 4 * 4080]);
    assert!(
        sent_of(&f, 0, Data).iter().all(|fr| matches!(fr.msg, Message::Data { urgent: true, .. }))
    );
    assert_eq!(send_results(&outs, 0), [(1, Ok(20_000))]);
    assert_eq!(f.stats().peak_registrations, 0);
    assert_eq!(f.endpoint(conn, 0).stats().sends_read, 0);
    assert_eq!(read(&mut f, conn, 1, 10), Ok((data, true)));
}

#[test]
fn zero_length_send_completes_at_once_and_sends_nothing() {
    let (mut f, conn) = default_setup();
    f.app(conn, 1, Event::AppRecv { req: 10, max: 100 });
    send(&mut f, conn, 0, 1, vec![]);
    // Completed inside the call, before any event runs.
    assert_eq!(send_results(&f.take_outputs(), 0), [(1, Ok(0))]);
    let outs = run(&mut f);
    assert_eq!(sequence(&f), [(0, Hello), (1, HelloAck)]);
    // The receiver's pending receive is not completed (no end of stream, no empty data).
    assert!(recv_results(&outs, 1).is_empty());
    assert_eq!(f.endpoint(conn, 0).stats().bytes_inline, 0);
}

// ------------------------------------------------------------------------------------------
// Zero-copy paths.

#[test]
fn large_send_read_mode_rdma_read_then_read_complete() {
    let (mut f, conn) = default_setup(); // both sides support RDMA read
    let data = pattern(100_000, 5);
    send(&mut f, conn, 0, 1, data.clone());
    let outs = run(&mut f);
    assert_eq!(kinds(&f, 0), [Hello, LargeSend]);
    assert_eq!(kinds(&f, 1), [HelloAck, ReadComplete]);
    let ls = &sent_of(&f, 0, LargeSend)[0];
    let inline = 4096 - 40; // as much as the peer's buffer holds after header, ext, desc
    let rest = 100_000 - inline;
    let Message::LargeSend { total, desc: Some(desc), payload } = &ls.msg else {
        panic!("read-mode LargeSend carries a descriptor: {ls:?}")
    };
    assert_eq!((*total, desc.len as usize, payload.as_slice()), (100_000, rest, &data[..inline]));
    assert_eq!(
        sent_of(&f, 1, ReadComplete)[0].msg,
        Message::ReadComplete { xfer: ls.header.mseq, bytes: rest as u32 }
    );
    // Two reads: one full 64 KiB segment and the remainder.
    assert_eq!((f.stats().rdma_reads, f.stats().rdma_bytes), (2, rest as u64));
    assert_eq!(send_results(&outs, 0), [(1, Ok(100_000))]);
    // The send completes only after the ReadComplete arrived.
    let rc_time = f.trace().iter().find(|t| t.3.msg.kind() == ReadComplete).unwrap().0;
    let done = outs.iter().find(|o| o.node == 0 && matches!(o.action, Action::CompleteSend { .. }));
    assert!(done.unwrap().time_ns > rc_time);
    assert_eq!((f.registrations(0), f.registrations(1)), (0, 0));
    assert_eq!(f.endpoint(conn, 0).live_registrations(), 0);
    assert_eq!(f.endpoint(conn, 1).live_registrations(), 0);
    let s = f.endpoint(conn, 0).stats();
    assert_eq!((s.sends_read, s.bytes_rdma, s.bytes_inline), (1, rest as u64, inline as u64));
    assert_eq!(read(&mut f, conn, 1, 10), Ok((data, false)));
}

#[test]
fn large_send_write_mode_sink_avail_rdma_write_then_write_complete() {
    let c1 = Config { rdma_read: false, ..Config::default() }; // receiver cannot RDMA-read
    let (mut f, conn, _) = setup(Config::default(), c1, FabricConfig::default());
    let data = pattern(100_000, 6);
    send(&mut f, conn, 0, 1, data.clone());
    let outs = run(&mut f);
    assert_eq!(kinds(&f, 0), [Hello, LargeSend, WriteComplete]);
    assert_eq!(kinds(&f, 1), [HelloAck, SinkAvail]);
    let ls = &sent_of(&f, 0, LargeSend)[0];
    let inline = 4096 - 24; // no descriptor in write mode
    let rest = (100_000 - inline) as u32;
    assert_eq!(
        ls.msg,
        Message::LargeSend { total: 100_000, desc: None, payload: data[..inline].to_vec() }
    );
    let Message::SinkAvail { xfer, desc } = sent_of(&f, 1, SinkAvail)[0].msg else {
        unreachable!()
    };
    assert_eq!((xfer, desc.len), (ls.header.mseq, rest));
    assert_eq!(
        sent_of(&f, 0, WriteComplete)[0].msg,
        Message::WriteComplete { xfer: ls.header.mseq, bytes: rest }
    );
    assert_eq!((f.stats().rdma_writes, f.stats().rdma_bytes), (2, rest as u64));
    assert_eq!(send_results(&outs, 0), [(1, Ok(100_000))]);
    assert_eq!((f.registrations(0), f.registrations(1)), (0, 0));
    assert_eq!(f.endpoint(conn, 0).stats().sends_write, 1);
    assert_eq!(read(&mut f, conn, 1, 10), Ok((data, false)));
}

#[test]
fn wsaenobufs_when_sender_registration_table_is_full() {
    let fc = FabricConfig { reg_capacity: 1, ..FabricConfig::default() };
    let (mut f, conn, _) = setup(Config::default(), Config::default(), fc);
    // Fill node 0's one-entry table.
    assert!(f.raw_register(conn, 0, 999, Access::Local, vec![0; 16]).is_some());
    send(&mut f, conn, 0, 1, pattern(100_000, 7));
    let small = pattern(50, 8);
    send(&mut f, conn, 0, 2, small.clone());
    let outs = run(&mut f);
    assert_eq!(send_results(&outs, 0), [(1, Err(WsaError::NoBufs)), (2, Ok(50))]);
    // Nothing of the failed send went out.
    assert_eq!(kinds(&f, 0), [Hello, Data]);
    assert_eq!(payload_lens(&f, 0), [50]);
    assert_eq!(f.stats().table_full, 1);
    let s = f.endpoint(conn, 0).stats();
    assert_eq!((s.reg_failures, s.completions["WSAENOBUFS"]), (1, 1));
    // Later sends still work, large ones keep failing cleanly while the table stays full.
    send(&mut f, conn, 0, 3, pattern(100_000, 9));
    send(&mut f, conn, 0, 4, pattern(20, 10));
    let outs = run(&mut f);
    assert_eq!(send_results(&outs, 0), [(3, Err(WsaError::NoBufs)), (4, Ok(20))]);
    let mut expected = small;
    expected.extend(pattern(20, 10));
    assert_eq!(read(&mut f, conn, 1, 10), Ok((expected, false)));
    assert_eq!((f.registrations(0), f.registrations(1)), (1, 0));
    assert_eq!(f.endpoint(conn, 0).state(), State::Established);
}

#[test]
fn wsaenobufs_when_temporary_memory_cannot_be_allocated() {
    let faults = Faults { nomem_rate: 1.0, ..Faults::default() };
    let fc = FabricConfig { faults, ..FabricConfig::default() };
    let (mut f, conn, _) = setup(Config::default(), Config::default(), fc);
    send(&mut f, conn, 0, 1, pattern(100_000, 7));
    let small = pattern(50, 8);
    send(&mut f, conn, 0, 2, small.clone());
    let outs = run(&mut f);
    assert_eq!(send_results(&outs, 0), [(1, Err(WsaError::NoBufs)), (2, Ok(50))]);
    assert_eq!(kinds(&f, 0), [Hello, Data]);
    assert_eq!(f.stats().injected_reg_failures, 1);
    assert_eq!(f.endpoint(conn, 0).stats().reg_failures, 1);
    assert_eq!(read(&mut f, conn, 1, 10), Ok((small, false)));
    assert_eq!((f.registrations(0), f.registrations(1)), (0, 0));
}

/// Receiver's table full: it answers SendByCopy and the rest arrives as Data.
fn receiver_cannot_register(rdma_read: bool) {
    let fc = FabricConfig { reg_capacity: 1, ..FabricConfig::default() };
    let (mut f, conn, _) = setup(small_threshold(true), small_threshold(rdma_read), fc);
    assert!(f.raw_register(conn, 1, 999, Access::Local, vec![0; 16]).is_some());
    let data = pattern(10_000, 11);
    send(&mut f, conn, 0, 1, data.clone());
    let outs = run(&mut f);
    let inline = if rdma_read { 4096 - 40 } else { 4096 - 24 };
    let rest = 10_000 - inline;
    assert_eq!(kinds(&f, 0), [Hello, LargeSend, Data, Data]);
    assert_eq!(kinds(&f, 1), [HelloAck, SendByCopy]);
    let ls = &sent_of(&f, 0, LargeSend)[0];
    assert_eq!(ls.msg.payload().len(), inline);
    assert_eq!(sent_of(&f, 1, SendByCopy)[0].msg, Message::SendByCopy { xfer: ls.header.mseq });
    assert_eq!(payload_lens(&f, 0), [4080, rest - 4080]);
    assert_eq!(send_results(&outs, 0), [(1, Ok(10_000))]);
    assert_eq!(f.endpoint(conn, 0).stats().sends_fallback, 1);
    assert_eq!(f.endpoint(conn, 1).stats().reg_failures, 1);
    assert_eq!((f.stats().rdma_reads, f.stats().rdma_writes), (0, 0));
    assert_eq!(read(&mut f, conn, 1, 10), Ok((data, false)));
    assert_eq!((f.registrations(0), f.registrations(1)), (0, 1));
}

#[test]
fn receiver_registration_failure_read_mode_falls_back_to_send_by_copy() {
    receiver_cannot_register(true);
}

#[test]
fn receiver_registration_failure_write_mode_falls_back_to_send_by_copy() {
    receiver_cannot_register(false);
}

#[test]
fn rdma_write_error_sends_write_complete_zero_then_data() {
    let faults = Faults { rdma_error_rate: 1.0, ..Faults::default() };
    let fc = FabricConfig { faults, ..FabricConfig::default() };
    let (mut f, conn, _) = setup(small_threshold(true), small_threshold(false), fc);
    let data = pattern(10_000, 12);
    send(&mut f, conn, 0, 1, data.clone());
    let outs = run(&mut f);
    assert_eq!(kinds(&f, 0), [Hello, LargeSend, WriteComplete, Data, Data]);
    assert_eq!(kinds(&f, 1), [HelloAck, SinkAvail]);
    let xfer = sent_of(&f, 0, LargeSend)[0].header.mseq;
    assert_eq!(sent_of(&f, 0, WriteComplete)[0].msg, Message::WriteComplete { xfer, bytes: 0 });
    let rest = 10_000 - (4096 - 24);
    assert_eq!(payload_lens(&f, 0), [4080, rest - 4080]);
    assert_eq!(send_results(&outs, 0), [(1, Ok(10_000))]);
    assert_eq!(f.stats().injected_rdma_errors, 1);
    let s = f.endpoint(conn, 0).stats();
    assert_eq!((s.rdma_errors, s.sends_fallback, s.bytes_rdma), (1, 1, 0));
    assert_eq!(read(&mut f, conn, 1, 10), Ok((data, false)));
    assert_eq!((f.registrations(0), f.registrations(1)), (0, 0));
}

#[test]
fn rdma_read_error_sends_send_by_copy_then_data() {
    let faults = Faults { rdma_error_rate: 1.0, ..Faults::default() };
    let fc = FabricConfig { faults, ..FabricConfig::default() };
    let (mut f, conn, _) = setup(small_threshold(true), small_threshold(true), fc);
    let data = pattern(10_000, 13);
    send(&mut f, conn, 0, 1, data.clone());
    let outs = run(&mut f);
    assert_eq!(kinds(&f, 0), [Hello, LargeSend, Data, Data]);
    assert_eq!(kinds(&f, 1), [HelloAck, SendByCopy]);
    let xfer = sent_of(&f, 0, LargeSend)[0].header.mseq;
    assert_eq!(sent_of(&f, 1, SendByCopy)[0].msg, Message::SendByCopy { xfer });
    assert_eq!(send_results(&outs, 0), [(1, Ok(10_000))]);
    assert_eq!(f.endpoint(conn, 1).stats().rdma_errors, 1);
    assert_eq!(f.endpoint(conn, 0).stats().sends_fallback, 1);
    assert_eq!(read(&mut f, conn, 1, 10), Ok((data, false)));
    assert_eq!((f.registrations(0), f.registrations(1)), (0, 0));
}

// ------------------------------------------------------------------------------------------
// Credits.

/// The sender stalls at two credits and resumes on each CreditUpdate.
#[test]
fn credits_run_out_with_four_posted_buffers_and_credit_updates_resume_the_sender() {
    let c1 = Config { recv_bufs: 4, ..Config::default() };
    let (mut f, conn, _) = setup(Config::default(), c1, FabricConfig::default());
    let mut expected = Vec::new();
    for i in 0..8u8 {
        let d = pattern(100, i);
        expected.extend_from_slice(&d);
        send(&mut f, conn, 0, i as u64, d);
    }
    let outs = run(&mut f);
    let (d, cu) = ((0, Data), (1, CreditUpdate));
    assert_eq!(
        sequence(&f),
        [(0, Hello), (1, HelloAck), d, d, cu, d, d, cu, d, d, cu, d, d, cu],
        "4 credits: two Data, then wait (2 credits are kept back)"
    );
    assert_eq!(send_results(&outs, 0).len(), 8);
    assert!(f.endpoint(conn, 0).stats().credit_stalls > 0);
    assert_eq!(f.endpoint(conn, 1).stats().msgs_sent["CreditUpdate"], 4);
    assert_eq!(f.stats().credit_overruns, 0);
    assert_eq!(read(&mut f, conn, 1, 10), Ok((expected, false)));
}

/// Regression: the initiator's HelloAck counts as a message to acknowledge, so a sending
/// acceptor facing an initiator with 4 buffers gets a CreditUpdate instead of waiting forever.
#[test]
fn credit_updates_reach_an_acceptor_sending_to_an_initiator_with_four_buffers() {
    let c0 = Config { recv_bufs: 4, ..Config::default() };
    let (mut f, conn, _) = setup(c0, Config::default(), FabricConfig::default());
    let mut expected = Vec::new();
    for i in 0..5u8 {
        let d = pattern(100, i);
        expected.extend_from_slice(&d);
        send(&mut f, conn, 1, i as u64, d);
    }
    let outs = run(&mut f);
    let (d, cu) = ((1, Data), (0, CreditUpdate));
    // The unacknowledged HelloAck holds one credit: 3 left, so one Data before the stall.
    assert_eq!(sequence(&f), [(0, Hello), (1, HelloAck), d, cu, d, d, cu, d, d, cu]);
    assert_eq!(send_results(&outs, 1).len(), 5);
    assert_eq!(read(&mut f, conn, 0, 10), Ok((expected, false)));
}

// ------------------------------------------------------------------------------------------
// Teardown.

#[test]
fn graceful_shutdown_both_directions_ends_closed_with_teardown() {
    let (mut f, conn) = default_setup();
    send(&mut f, conn, 0, 1, b"abc".to_vec());
    f.app(conn, 0, Event::AppShutdown);
    f.app(conn, 1, Event::AppRecv { req: 10, max: 100 });
    f.app(conn, 1, Event::AppRecv { req: 11, max: 100 });
    let outs = run(&mut f);
    assert_eq!(kinds(&f, 0), [Hello, Data, Disconnect]);
    // Data, then end of stream (an empty receive).
    assert_eq!(
        recv_results(&outs, 1),
        [(10, Ok((b"abc".to_vec(), false))), (11, Ok((vec![], false)))]
    );
    // Half-closed: the other direction still works.
    assert_eq!(f.endpoint(conn, 0).state(), State::Established);
    send(&mut f, conn, 1, 2, b"xyz".to_vec());
    f.app(conn, 1, Event::AppShutdown);
    f.app(conn, 0, Event::AppRecv { req: 20, max: 100 });
    f.app(conn, 0, Event::AppRecv { req: 21, max: 100 });
    let outs = run(&mut f);
    assert_eq!(kinds(&f, 1), [HelloAck, Data, Disconnect]);
    assert_eq!(
        recv_results(&outs, 0),
        [(20, Ok((b"xyz".to_vec(), false))), (21, Ok((vec![], false)))]
    );
    assert_eq!(send_results(&outs, 1), [(2, Ok(3))]);
    for node in 0..2 {
        assert_eq!(f.endpoint(conn, node).state(), State::Closed);
        assert_eq!(teardowns(&outs, node), 1);
        assert_eq!(f.endpoint(conn, node).stats().violations(), 0);
    }
    // After the close: sends fail with WSAENOTCONN, receives see end of stream.
    send(&mut f, conn, 0, 3, b"late".to_vec());
    assert_eq!(send_results(&f.take_outputs(), 0), [(3, Err(WsaError::NotConn))]);
    assert_eq!(read(&mut f, conn, 0, 22), Ok((vec![], false)));
    assert!(!sequence(&f).iter().any(|&(_, k)| k == Abort));
}

#[test]
fn graceful_close_by_both_applications() {
    let (mut f, conn) = default_setup();
    f.app(conn, 0, Event::AppRecv { req: 20, max: 100 });
    send(&mut f, conn, 0, 1, b"abc".to_vec());
    f.app(conn, 0, Event::AppClose);
    // The Data went at once; the close cancels the closing side's pending receive.
    let outs = f.take_outputs();
    assert_eq!(send_results(&outs, 0), [(1, Ok(3))]);
    assert_eq!(recv_results(&outs, 0), [(20, Err(WsaError::OperationAborted))]);
    run(&mut f);
    assert_eq!(kinds(&f, 0), [Hello, Data, Disconnect]);
    assert_eq!(read(&mut f, conn, 1, 10), Ok((b"abc".to_vec(), false)));
    assert_eq!(read(&mut f, conn, 1, 11), Ok((vec![], false)));
    f.app(conn, 1, Event::AppClose);
    let outs = run(&mut f);
    assert_eq!(kinds(&f, 1), [HelloAck, Disconnect]);
    for node in 0..2 {
        assert_eq!(f.endpoint(conn, node).state(), State::Closed);
        assert_eq!(teardowns(&outs, node), 1);
    }
    // A closed socket's receive fails: the application gave it up.
    f.app(conn, 0, Event::AppRecv { req: 21, max: 10 });
    assert_eq!(recv_results(&f.take_outputs(), 0), [(21, Err(WsaError::NotConn))]);
}

#[test]
fn close_with_unread_data_is_abortive_and_peer_sees_connreset() {
    let (mut f, conn) = default_setup();
    send(&mut f, conn, 0, 1, b"never read".to_vec());
    f.app(conn, 0, Event::AppRecv { req: 20, max: 100 });
    run(&mut f);
    f.app(conn, 1, Event::AppClose);
    let outs = run(&mut f);
    assert_eq!(kinds(&f, 1), [HelloAck, Abort]);
    assert_eq!(recv_results(&outs, 0), [(20, Err(WsaError::ConnReset))]);
    for node in 0..2 {
        assert_eq!(f.endpoint(conn, node).state(), State::Aborted);
        assert_eq!(teardowns(&outs, node), 1);
    }
    send(&mut f, conn, 0, 2, b"x".to_vec());
    assert_eq!(send_results(&f.take_outputs(), 0), [(2, Err(WsaError::ConnReset))]);
    f.app(conn, 1, Event::AppRecv { req: 30, max: 100 });
    assert_eq!(recv_results(&f.take_outputs(), 1), [(30, Err(WsaError::NotConn))]);
}

#[test]
fn data_arriving_after_app_close_resets_the_connection() {
    let (mut f, conn) = default_setup();
    f.app(conn, 0, Event::AppClose); // Disconnect goes out
    send(&mut f, conn, 1, 1, b"crossing".to_vec()); // crosses it
    f.app(conn, 1, Event::AppRecv { req: 10, max: 100 });
    let outs = run(&mut f);
    assert_eq!(kinds(&f, 0), [Hello, Disconnect, Abort]);
    assert_eq!(kinds(&f, 1), [HelloAck, Data]);
    assert_eq!(send_results(&outs, 1), [(1, Ok(8))]);
    // The peer first sees the end of stream, then the reset.
    assert_eq!(recv_results(&outs, 1), [(10, Ok((vec![], false)))]);
    assert_eq!(f.endpoint(conn, 0).state(), State::Aborted);
    assert_eq!(f.endpoint(conn, 1).state(), State::Aborted);
    send(&mut f, conn, 1, 2, b"x".to_vec());
    assert_eq!(send_results(&f.take_outputs(), 1), [(2, Err(WsaError::ConnReset))]);
}

/// Every request seen once: (req -> statuses).
fn once<T: Clone>(results: &[(ReqId, T)]) -> BTreeMap<ReqId, T> {
    let mut m = BTreeMap::new();
    for (req, r) in results {
        assert!(m.insert(*req, r.clone()).is_none(), "request {req} completed twice");
    }
    m
}

#[test]
fn abort_by_sender_during_rdma_read_completes_everything_once_and_releases_registrations() {
    let (mut f, conn) = default_setup();
    f.app(conn, 1, Event::AppRecv { req: 10, max: 1 << 20 });
    f.app(conn, 1, Event::AppRecv { req: 11, max: 1 << 20 });
    send(&mut f, conn, 0, 1, pattern(300_000, 1));
    send(&mut f, conn, 0, 2, pattern(10, 2));
    send(&mut f, conn, 0, 3, pattern(50_000, 3));
    // Step until the receiver has RDMA reads in flight.
    let mut outs = Vec::new();
    while f.endpoint(conn, 1).outstanding_ops() == 0 {
        assert!(f.step());
        outs.extend(f.take_outputs());
    }
    assert!(f.registrations(0) > 0 && f.registrations(1) > 0);
    f.app(conn, 0, Event::AppAbort);
    outs.extend(run(&mut f));
    assert_eq!(kinds(&f, 0), [Hello, LargeSend, Abort]);
    // The sender's teardown flushes the reads in flight (RdmaError::Flushed). The Abort is
    // queued on the sender's link behind the read data, so the receiver sees the failed
    // reads first and falls back with SendByCopy, which the torn-down sender never gets.
    assert_eq!(kinds(&f, 1), [HelloAck, SendByCopy]);
    assert!(f.endpoint(conn, 1).stats().rdma_errors > 0);
    assert_eq!(f.stats().dropped_after_teardown, 1);
    let sends = once(&send_results(&outs, 0));
    assert_eq!(sends.len(), 3);
    assert!(sends.values().all(|r| *r == Err(WsaError::OperationAborted)));
    let recvs = once(&recv_results(&outs, 1));
    // The first receive got the LargeSend's inline part; the other one is reset.
    assert_eq!(recvs[&10], Ok((pattern(300_000, 1)[..4056].to_vec(), false)));
    assert_eq!(recvs[&11], Err(WsaError::ConnReset));
    assert_eq!((f.registrations(0), f.registrations(1)), (0, 0));
    for node in 0..2 {
        assert_eq!(f.endpoint(conn, node).state(), State::Aborted);
        assert_eq!(f.endpoint(conn, node).live_registrations(), 0);
        assert_eq!(teardowns(&outs, node), 1);
    }
}

#[test]
fn abort_by_receiver_during_rdma_write_completes_everything_once_and_releases_registrations() {
    let c1 = Config { rdma_read: false, ..Config::default() };
    let (mut f, conn, _) = setup(Config::default(), c1, FabricConfig::default());
    f.app(conn, 1, Event::AppRecv { req: 10, max: 10 });
    f.app(conn, 1, Event::AppRecv { req: 11, max: 10 });
    f.app(conn, 1, Event::AppRecv { req: 12, max: 10 });
    send(&mut f, conn, 0, 1, pattern(300_000, 1));
    send(&mut f, conn, 0, 2, pattern(10, 2));
    let mut outs = Vec::new();
    while f.endpoint(conn, 0).outstanding_ops() == 0 {
        assert!(f.step());
        outs.extend(f.take_outputs());
    }
    f.app(conn, 1, Event::AppAbort);
    outs.extend(run(&mut f));
    assert_eq!(kinds(&f, 0), [Hello, LargeSend]);
    assert_eq!(kinds(&f, 1), [HelloAck, SinkAvail, Abort]);
    let sends = once(&send_results(&outs, 0));
    assert_eq!(sends.len(), 2);
    assert!(sends.values().all(|r| *r == Err(WsaError::ConnReset)));
    let recvs = once(&recv_results(&outs, 1));
    assert_eq!(recvs.len(), 3);
    assert_eq!(recvs[&10], Ok((pattern(300_000, 1)[..10].to_vec(), false)));
    assert_eq!(recvs[&11], Ok((pattern(300_000, 1)[10..20].to_vec(), false)));
    assert_eq!(recvs[&12], Ok((pattern(300_000, 1)[20..30].to_vec(), false)));
    // The writes in flight complete after the sender's abort and are dropped as stale.
    assert!(f.endpoint(conn, 0).stats().stale_completions > 0);
    f.app(conn, 1, Event::AppRecv { req: 13, max: 10 });
    assert_eq!(recv_results(&f.take_outputs(), 1), [(13, Err(WsaError::NotConn))]);
    assert_eq!((f.registrations(0), f.registrations(1)), (0, 0));
    for node in 0..2 {
        assert_eq!(f.endpoint(conn, node).state(), State::Aborted);
        assert_eq!(f.endpoint(conn, node).live_registrations(), 0);
    }
}

#[test]
fn sequence_numbers_wrap_without_violations() {
    let start = u32::MAX - 2;
    let c = Config { initial_seq: start, recv_bufs: 4, rdma_threshold: 4096, ..Config::default() };
    let (mut f, conn, _) = setup(c.clone(), c, FabricConfig::default());
    let mut expected = [Vec::new(), Vec::new()];
    let mut req = 0;
    for size in [100, 10_000, 100, 100, 100, 6_000, 100] {
        for (node, exp) in expected.iter_mut().enumerate() {
            req += 1;
            let d = pattern(size, req as u8);
            exp.extend_from_slice(&d);
            send(&mut f, conn, node, req, d);
        }
    }
    let outs = run(&mut f);
    assert!(send_results(&outs, 0).iter().chain(&send_results(&outs, 1)).all(|r| r.1.is_ok()));
    for node in 0..2 {
        let fr = frames(&f, node);
        let mseqs: Vec<u32> = fr.iter().map(|fr| fr.header.mseq).collect();
        let want: Vec<u32> = (0..mseqs.len() as u32).map(|i| start.wrapping_add(i)).collect();
        assert_eq!(mseqs, want);
        assert!(mseqs.len() > 4 && mseqs.contains(&0) && mseqs.contains(&u32::MAX));
        assert!(fr.iter().any(|fr| fr.msg.kind() == LargeSend));
        assert_eq!(f.endpoint(conn, node).stats().violations(), 0);
    }
    // Transfer ids and acknowledgements crossed the wrap too.
    let xfers: Vec<u32> = f
        .trace()
        .iter()
        .filter_map(|t| match t.3.msg {
            Message::ReadComplete { xfer, .. } => Some(xfer),
            _ => None,
        })
        .collect();
    assert!(xfers.len() >= 2);
    assert!(f.trace().iter().any(|t| t.3.header.mseq_ack == u32::MAX));
    assert!(f.trace().iter().any(|t| t.3.header.mseq_ack == 0));
    assert_eq!(read(&mut f, conn, 1, 100), Ok((expected[0].clone(), false)));
    assert_eq!(read(&mut f, conn, 0, 101), Ok((expected[1].clone(), false)));
}

#[test]
fn send_after_shutdown_fails_with_wsaeshutdown() {
    let (mut f, conn) = default_setup();
    f.app(conn, 0, Event::AppShutdown);
    send(&mut f, conn, 0, 1, b"late".to_vec());
    assert_eq!(send_results(&f.take_outputs(), 0), [(1, Err(WsaError::Shutdown))]);
    // The other direction still carries data.
    send(&mut f, conn, 1, 2, b"reply".to_vec());
    run(&mut f);
    assert_eq!(kinds(&f, 0), [Hello, Disconnect]);
    assert_eq!(kinds(&f, 1), [HelloAck, Data]);
    assert_eq!(read(&mut f, conn, 0, 10), Ok((b"reply".to_vec(), false)));
    assert_eq!(read(&mut f, conn, 1, 11), Ok((vec![], false)));
}

// ------------------------------------------------------------------------------------------
// Fabric access checks. Region contents are not observable from outside the fabric, so
// "nothing copied" is checked on the fabric's RDMA counters.

struct Regions {
    f: Fabric,
    a: usize,
    b: usize,
    /// Node 1, connection a: remote-readable 64 bytes.
    readable: Descriptor,
    /// Node 1, connection a: remote-writable 64 bytes.
    writable: Descriptor,
    /// Node 1, connection a: local only.
    local_remote: Descriptor,
    /// Node 1, connection b: remote-readable 64 bytes.
    other_conn: Descriptor,
    /// Node 0, connection a: local 64 bytes.
    local: Descriptor,
}

fn regions() -> Regions {
    let mut f = Fabric::new(FabricConfig::default());
    let a = f.connect(
        Endpoint::new(Role::Initiator, Config::default()),
        Endpoint::new(Role::Acceptor, Config::default()),
    );
    let b = f.connect(
        Endpoint::new(Role::Initiator, Config::default()),
        Endpoint::new(Role::Acceptor, Config::default()),
    );
    run(&mut f);
    let readable = f.raw_register(a, 1, 901, Access::RemoteRead, pattern(64, 1)).unwrap();
    let writable = f.raw_register(a, 1, 902, Access::RemoteWrite, vec![0; 64]).unwrap();
    let local_remote = f.raw_register(a, 1, 903, Access::Local, vec![0; 64]).unwrap();
    let other_conn = f.raw_register(b, 1, 904, Access::RemoteRead, pattern(64, 2)).unwrap();
    let local = f.raw_register(a, 0, 905, Access::Local, vec![0; 64]).unwrap();
    assert_eq!(f.descriptor_of(1, a, 901), Some(readable));
    Regions { f, a, b, readable, writable, local_remote, other_conn, local }
}

/// Run `op` and check it failed with `want` and moved no byte.
fn refused(r: &mut Regions, read: bool, remote: Descriptor, off: u32, len: u32, want: RdmaError) {
    let before = r.f.stats().clone();
    let got = r.f.raw_rdma(r.a, 0, read, r.local, remote, off, len);
    assert_eq!(got, Err(want));
    let after = r.f.stats();
    assert_eq!(
        (after.rdma_reads, after.rdma_writes, after.rdma_bytes),
        (before.rdma_reads, before.rdma_writes, before.rdma_bytes),
        "nothing copied"
    );
    let name = format!("{want:?}");
    let n = |s: &sanswitch_model::fabric::FabricStats| s.access_violations.get(&name).copied();
    assert_eq!(n(after).unwrap_or(0), n(&before).unwrap_or(0) + 1);
}

#[test]
fn rdma_within_a_region_with_the_right_access_succeeds() {
    let mut r = regions();
    let (a, local, readable, writable) = (r.a, r.local, r.readable, r.writable);
    assert_eq!(r.f.raw_rdma(a, 0, true, local, readable, 0, 64), Ok(()));
    assert_eq!(r.f.raw_rdma(a, 0, false, local, writable, 8, 56), Ok(()));
    let s = r.f.stats();
    assert_eq!((s.rdma_reads, s.rdma_writes, s.rdma_bytes), (1, 1, 120));
    assert!(s.access_violations.is_empty());
}

#[test]
fn rdma_with_an_unknown_key_is_refused() {
    let mut r = regions();
    let bad = Descriptor { key: 0xBAD0_BAD0, ..r.readable };
    refused(&mut r, true, bad, 0, 8, RdmaError::BadKey);
}

#[test]
fn rdma_with_the_key_of_another_connection_is_refused() {
    let mut r = regions();
    let other = r.other_conn;
    refused(&mut r, true, other, 0, 8, RdmaError::BadKey);
    // The same key works on its own connection.
    let local_b = r.f.raw_register(r.b, 0, 906, Access::Local, vec![0; 64]).unwrap();
    assert_eq!(r.f.raw_rdma(r.b, 0, true, local_b, other, 0, 8), Ok(()));
}

#[test]
fn rdma_read_of_a_write_only_region_is_refused() {
    let mut r = regions();
    let w = r.writable;
    refused(&mut r, true, w, 0, 8, RdmaError::AccessDenied);
    let l = r.local_remote;
    refused(&mut r, true, l, 0, 8, RdmaError::AccessDenied);
}

#[test]
fn rdma_write_of_a_read_only_region_is_refused() {
    let mut r = regions();
    let rd = r.readable;
    refused(&mut r, false, rd, 0, 8, RdmaError::AccessDenied);
    let l = r.local_remote;
    refused(&mut r, false, l, 0, 8, RdmaError::AccessDenied);
}

#[test]
fn rdma_out_of_bounds_is_refused() {
    let mut r = regions();
    let (rd, w) = (r.readable, r.writable);
    refused(&mut r, true, rd, 60, 8, RdmaError::OutOfBounds);
    refused(&mut r, false, w, 0, 65, RdmaError::OutOfBounds);
    refused(&mut r, true, rd, u32::MAX, 2, RdmaError::OutOfBounds);
    // The local side is checked too.
    let big = r.f.raw_register(r.a, 1, 907, Access::RemoteRead, vec![1; 128]).unwrap();
    refused(&mut r, true, big, 0, 100, RdmaError::OutOfBounds);
}

#[test]
fn rdma_with_a_descriptor_released_after_its_transfer_is_refused() {
    let (mut f, conn) = default_setup();
    send(&mut f, conn, 0, 1, pattern(100_000, 1));
    run(&mut f);
    let Message::LargeSend { desc: Some(desc), .. } = sent_of(&f, 0, LargeSend)[0].msg.clone()
    else {
        panic!("read mode")
    };
    assert_eq!(f.registrations(0), 0);
    let local = f.raw_register(conn, 1, 900, Access::Local, vec![0; desc.len as usize]).unwrap();
    assert_eq!(f.raw_rdma(conn, 1, true, local, desc, 0, 8), Err(RdmaError::BadKey));
    assert_eq!(f.stats().rdma_reads, 2);
}

#[test]
fn rdma_on_a_torn_down_connection_is_flushed() {
    let mut r = regions();
    let (a, local, readable) = (r.a, r.local, r.readable);
    r.f.app(a, 0, Event::AppAbort);
    run(&mut r.f);
    assert_eq!(r.f.raw_rdma(a, 0, true, local, readable, 0, 8), Err(RdmaError::Flushed));
    assert_eq!(r.f.stats().rdma_reads, 0);
}

// ------------------------------------------------------------------------------------------
// Protocol violations, injected by a scripted peer driving one endpoint.

/// One endpoint and a hand-written peer. The peer numbers its messages from `mseq`,
/// acknowledges the endpoint's latest message and advertises `bufs` buffers.
#[derive(Clone)]
struct Peer {
    ep: Endpoint,
    posted: VecDeque<BufId>,
    mseq: u32,
    ack: u32,
    bufs: u16,
    /// Every frame the endpoint sent.
    sent: Vec<Frame>,
}

const PEER_SEQ: u32 = 100;

impl Peer {
    /// An acceptor that received a Hello (bufs 8, mseq 100, RDMA read, 4 KiB) and answered.
    fn acceptor(cfg: Config) -> Peer {
        Peer::acceptor_of(cfg, HelloParams { rdma_read: true, buf_size: 4096 })
    }

    /// An acceptor that received a Hello with `hello` and answered.
    fn acceptor_of(cfg: Config, hello: HelloParams) -> Peer {
        let mut p = Peer::idle(Role::Acceptor, cfg);
        let acts = p.recv(Message::Hello(hello));
        assert!(acts.contains(&Action::Connected));
        assert_eq!(p.kinds(), [HelloAck]);
        assert_eq!(p.ep.state(), State::Established);
        p
    }

    /// A started endpoint, nothing received yet.
    fn idle(role: Role, cfg: Config) -> Peer {
        let mut p = Peer {
            ep: Endpoint::new(role, cfg),
            posted: VecDeque::new(),
            mseq: PEER_SEQ,
            ack: 0,
            bufs: 8,
            sent: Vec::new(),
        };
        let mut out = Vec::new();
        p.ep.start(&mut out);
        p.absorb(out);
        p
    }

    /// An initiator that sent Hello; the HelloAck is up to the test.
    fn initiator(cfg: Config) -> Peer {
        let p = Peer::idle(Role::Initiator, cfg);
        assert_eq!(p.kinds(), [Hello]);
        p
    }

    /// Track posted buffers and sent frames; free send buffers at once. Returns every action.
    fn absorb(&mut self, out: Vec<Action>) -> Vec<Action> {
        let mut all = Vec::new();
        let mut queue = VecDeque::from(out);
        while let Some(a) = queue.pop_front() {
            match &a {
                Action::PostRecv { buf } => self.posted.push_back(*buf),
                Action::Send { buf, frame, .. } => {
                    self.sent.push(frame.clone());
                    self.ack = frame.header.mseq;
                    let mut more = Vec::new();
                    self.ep.handle(Event::SendDone { buf: *buf }, &mut more);
                    queue.extend(more);
                }
                _ => {}
            }
            all.push(a);
        }
        all
    }

    fn handle(&mut self, ev: Event) -> Vec<Action> {
        let mut out = Vec::new();
        self.ep.handle(ev, &mut out);
        self.absorb(out)
    }

    /// Deliver raw bytes into the oldest posted buffer.
    fn recv_bytes(&mut self, bytes: Vec<u8>) -> (BufId, Vec<Action>) {
        let buf = self.posted.pop_front().expect("a posted buffer");
        (buf, self.handle(Event::MessageReceived { buf, bytes }))
    }

    fn next_header(&mut self) -> Header {
        let h = Header { bufs: self.bufs, mseq: self.mseq, mseq_ack: self.ack };
        self.mseq = self.mseq.wrapping_add(1);
        h
    }

    /// Deliver `msg` with the next header.
    fn recv(&mut self, msg: Message) -> Vec<Action> {
        let header = self.next_header();
        self.recv_frame(Frame { header, msg })
    }

    fn recv_frame(&mut self, f: Frame) -> Vec<Action> {
        self.recv_bytes(f.encode()).1
    }

    fn kinds(&self) -> Vec<Kind> {
        self.sent.iter().map(|f| f.msg.kind()).collect()
    }

    /// Queue requests that a reset must complete: a receive, and a large send waiting for
    /// its registration (the answer is withheld). Returns the registration id.
    fn pending_requests(&mut self) -> u64 {
        self.handle(Event::AppRecv { req: 50, max: 100 });
        let acts = self.handle(Event::AppSend { req: 51, data: vec![1; 100_000], urgent: false });
        let regs: Vec<u64> = acts
            .iter()
            .filter_map(|a| match a {
                Action::Register { reg, .. } => Some(*reg),
                _ => None,
            })
            .collect();
        assert_eq!(regs.len(), 1);
        regs[0]
    }
}

/// The endpoint reset the connection: Abort sent (when `abort_msg`), both pending requests
/// completed with WSAECONNRESET, torn down; the withheld registration is released when it
/// is finally answered.
fn assert_reset(p: &mut Peer, acts: &[Action], reg: u64, abort_msg: bool) {
    assert_eq!(p.ep.state(), State::Aborted);
    assert_eq!(p.kinds().last() == Some(&Abort), abort_msg, "sent: {:?}", p.kinds());
    assert!(acts.contains(&Action::CompleteRecv { req: 50, result: Err(WsaError::ConnReset) }));
    assert!(acts.contains(&Action::CompleteSend { req: 51, result: Err(WsaError::ConnReset) }));
    assert_eq!(acts.last(), Some(&Action::Teardown));
    let desc = Descriptor { addr: 0x1000, key: 1, len: 100_000 - 4056 };
    let late = p.handle(Event::Registered { reg, result: Ok(desc) });
    assert_eq!(late, [Action::Deregister { reg }]);
    p.handle(Event::Deregistered { reg, data: vec![] });
    assert_eq!(p.ep.live_registrations(), 0);
    // Whatever arrives now is ignored.
    let n = p.sent.len();
    p.recv(Message::CreditUpdate);
    assert_eq!(p.sent.len(), n);
}

fn hand_header(bufs: u16, len: u32) -> Vec<u8> {
    let mut b = vec![0xFF, 0x00];
    b.extend_from_slice(&bufs.to_le_bytes());
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(&(PEER_SEQ + 1).to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    b
}

#[test]
fn violation_malformed_message_of_each_parse_error_aborts_with_connreset() {
    let with = |mid: u8, flags: u8, len: u32, extra: &[u8]| {
        let mut b = hand_header(8, len);
        b[0] = mid;
        b[1] = flags;
        b.extend_from_slice(extra);
        b
    };
    let mut too_long = with(0xFF, 0, 4097, &[0; 4081]);
    too_long.truncate(4097);
    let cases: Vec<(ParseError, Vec<u8>)> = vec![
        (ParseError::Truncated { got: 10, need: 16 }, with(0x07, 0, 16, &[])[..10].to_vec()),
        (ParseError::LengthMismatch { field: 20, got: 16 }, with(0x07, 0, 20, &[])),
        (ParseError::UnknownKind(0x08), with(0x08, 0, 16, &[])),
        (ParseError::ReservedBits, with(0x07, 0x80, 16, &[])),
        (ParseError::DescriptorMisplaced, with(0xFF, 0x02, 17, &[1])),
        (ParseError::PayloadMisplaced, with(0xFF, 0, 16, &[])),
        (ParseError::TooLong { len: 4097, max: 4096 }, too_long),
        (ParseError::BadField, with(0x00, 0, 24, &[2, 1, 0, 0, 0, 0x10, 0, 0])),
    ];
    for (err, bytes) in cases {
        assert_eq!(Frame::decode(&bytes, 4096), Err(err));
        let mut p = Peer::acceptor(Config::default());
        let reg = p.pending_requests();
        let (buf, acts) = p.recv_bytes(bytes);
        let mut counts = [0; ParseError::COUNT];
        counts[err.index()] = 1;
        assert_eq!(p.ep.stats().parse_errors, counts, "{err:?}");
        assert_eq!(p.ep.stats().violations(), 1);
        // The buffer goes back before the abort.
        assert_eq!(acts[0], Action::PostRecv { buf }, "{err:?}");
        assert_reset(&mut p, &acts, reg, true);
    }
}

#[test]
fn violation_sequence_gap_aborts_with_connreset() {
    let mut p = Peer::acceptor(Config::default());
    let reg = p.pending_requests();
    p.mseq += 1; // skip one
    let acts = p.recv(Message::Data { urgent: false, payload: vec![1] });
    assert_eq!(p.ep.stats().sequence_gaps, 1);
    assert_reset(&mut p, &acts, reg, true);
}

#[test]
fn violation_ack_of_a_message_never_sent_aborts_with_connreset() {
    let mut p = Peer::acceptor(Config::default());
    let reg = p.pending_requests();
    p.ack += 1; // the endpoint has not sent this one
    let acts = p.recv(Message::CreditUpdate);
    assert_eq!(p.ep.stats().bad_acks, 1);
    assert_reset(&mut p, &acts, reg, true);
}

#[test]
fn violation_ack_going_backwards_aborts_with_connreset() {
    let mut p = Peer::acceptor(Config::default());
    p.recv(Message::CreditUpdate); // acknowledges the HelloAck (mseq 1)
    let reg = p.pending_requests();
    p.ack -= 1;
    let acts = p.recv(Message::CreditUpdate);
    assert_eq!(p.ep.stats().bad_acks, 1);
    assert_reset(&mut p, &acts, reg, true);
}

#[test]
fn violation_helloack_with_bad_ack_aborts_without_abort_message() {
    let mut p = Peer::initiator(Config::default());
    p.ack = 7; // the Hello was mseq 1
    let acts = p.recv(Message::HelloAck(HelloParams { rdma_read: true, buf_size: 4096 }));
    assert_eq!(p.ep.stats().bad_acks, 1);
    assert_eq!(p.ep.state(), State::Aborted);
    assert_eq!(p.kinds(), [Hello]); // no session yet: no Abort message
    assert!(!acts.contains(&Action::Connected));
    assert_eq!(acts.last(), Some(&Action::Teardown));
}

#[test]
fn violation_bufs_above_negotiated_count_aborts_with_connreset() {
    let mut p = Peer::acceptor(Config::default());
    let reg = p.pending_requests();
    p.bufs = 7; // fewer than negotiated is fine
    p.recv(Message::CreditUpdate);
    assert_eq!(p.ep.state(), State::Established);
    p.bufs = 9; // the Hello said 8
    let acts = p.recv(Message::CreditUpdate);
    assert_eq!(p.ep.stats().bad_credits, 1);
    assert_reset(&mut p, &acts, reg, true);
}

#[test]
fn violation_credit_overrun_aborts_with_connreset() {
    let mut p = Peer::acceptor(Config::default());
    let reg = p.pending_requests();
    let acts = p.handle(Event::CreditOverrun);
    assert_eq!(p.ep.stats().credit_overruns, 1);
    assert_reset(&mut p, &acts, reg, true);
}

#[test]
fn violation_message_into_an_unposted_buffer_is_a_credit_overrun() {
    let mut p = Peer::acceptor(Config::default());
    let reg = p.pending_requests();
    let h = p.next_header();
    let bytes = Frame { header: h, msg: Message::CreditUpdate }.encode();
    let acts = p.handle(Event::MessageReceived { buf: 0, bytes }); // a send buffer
    assert_eq!(p.ep.stats().credit_overruns, 1);
    assert_reset(&mut p, &acts, reg, true);
}

#[test]
fn violation_data_during_incoming_transfer_is_unexpected() {
    let mut p = Peer::acceptor(Config::default());
    let desc = Descriptor { addr: 0x1000, key: 5, len: 9_900 };
    let acts =
        p.recv(Message::LargeSend { total: 10_000, desc: Some(desc), payload: vec![1; 100] });
    let rx_reg: Vec<u64> = acts
        .iter()
        .filter_map(|a| match a {
            Action::Register { reg, access: Access::Local, data } if data.len() == 9_900 => {
                Some(*reg)
            }
            _ => None,
        })
        .collect();
    assert_eq!(rx_reg.len(), 1);
    let reg = p.pending_requests();
    let acts = p.recv(Message::Data { urgent: false, payload: vec![2] });
    assert_eq!(p.ep.stats().unexpected, 1);
    // The pending receive took the LargeSend's inline bytes before; the send is reset.
    assert!(acts.contains(&Action::CompleteSend { req: 51, result: Err(WsaError::ConnReset) }));
    assert_eq!(p.ep.state(), State::Aborted);
    assert_eq!(p.kinds().last(), Some(&Abort));
    // Both withheld registrations are released when answered.
    for r in [rx_reg[0], reg] {
        let d = Descriptor { addr: 0x2000, key: 9, len: 1 };
        assert_eq!(
            p.handle(Event::Registered { reg: r, result: Ok(d) }),
            [Action::Deregister { reg: r }]
        );
    }
}

#[test]
fn violation_second_large_send_or_wrong_mode_is_unexpected() {
    // A read-capable endpoint gets a LargeSend without descriptor (write mode).
    let mut p = Peer::acceptor(Config::default());
    let reg = p.pending_requests();
    let acts = p.recv(Message::LargeSend { total: 10_000, desc: None, payload: vec![] });
    assert_eq!(p.ep.stats().unexpected, 1);
    assert_reset(&mut p, &acts, reg, true);
    // A second LargeSend while the first is open.
    let mut p = Peer::acceptor(Config { rdma_read: false, ..Config::default() });
    p.recv(Message::LargeSend { total: 10_000, desc: None, payload: vec![] });
    let acts = p.recv(Message::LargeSend { total: 10_000, desc: None, payload: vec![] });
    assert_eq!(p.ep.stats().unexpected, 1);
    assert_eq!(p.ep.state(), State::Aborted);
    assert_eq!(acts.last(), Some(&Action::Teardown));
}

#[test]
fn violation_message_before_hello_is_unexpected() {
    let mut p = Peer::idle(Role::Acceptor, Config::default());
    let acts = p.recv(Message::Data { urgent: false, payload: vec![1] });
    assert_eq!(p.ep.stats().unexpected, 1);
    assert_eq!(p.ep.state(), State::Aborted);
    assert!(p.sent.is_empty()); // no session: no Abort message
    assert_eq!(acts.last(), Some(&Action::Teardown));
    // Likewise a HelloAck to an acceptor, or a Hello to an initiator.
    let mut p = Peer::initiator(Config::default());
    p.ack = 1;
    p.recv(Message::Hello(HelloParams { rdma_read: true, buf_size: 4096 }));
    assert_eq!((p.ep.stats().unexpected, p.ep.state()), (1, State::Aborted));
}

#[test]
fn violation_data_or_disconnect_after_peer_disconnect_is_unexpected() {
    let mut p = Peer::acceptor(Config::default());
    p.recv(Message::Disconnect);
    assert_eq!(p.ep.state(), State::Established);
    let acts = p.recv(Message::Data { urgent: false, payload: vec![1] });
    assert_eq!(p.ep.stats().unexpected, 1);
    assert_eq!(p.ep.state(), State::Aborted);
    assert_eq!(p.kinds().last(), Some(&Abort));
    assert_eq!(acts.last(), Some(&Action::Teardown));
    let mut p = Peer::acceptor(Config::default());
    p.recv(Message::Disconnect);
    p.recv(Message::Disconnect);
    assert_eq!((p.ep.stats().unexpected, p.ep.state()), (1, State::Aborted));
    // A Disconnect in the middle of an incoming transfer.
    let mut p = Peer::acceptor(Config { rdma_read: false, ..Config::default() });
    p.recv(Message::LargeSend { total: 10_000, desc: None, payload: vec![] });
    p.recv(Message::Disconnect);
    assert_eq!((p.ep.stats().unexpected, p.ep.state()), (1, State::Aborted));
}

/// An endpoint whose large send of 100 000 bytes (read mode) is announced; returns the
/// LargeSend's mseq (the transfer id) and the rest's length.
fn announced(p: &mut Peer) -> (u32, u32) {
    let acts = p.handle(Event::AppSend { req: 60, data: vec![3; 100_000], urgent: false });
    let Some(Action::Register { reg, data, .. }) =
        acts.iter().find(|a| matches!(a, Action::Register { .. }))
    else {
        panic!("registration expected")
    };
    let (reg, rest) = (*reg, data.len() as u32);
    let d = Descriptor { addr: 0x1000, key: 3, len: rest };
    p.handle(Event::Registered { reg, result: Ok(d) });
    let ls = p.sent.last().unwrap();
    assert_eq!(ls.msg.kind(), LargeSend);
    (ls.header.mseq, rest)
}

#[test]
fn violation_transfer_message_with_wrong_byte_count_is_bad_transfer() {
    // ReadComplete for the open transfer but not the whole rest.
    let mut p = Peer::acceptor(Config::default());
    let (xfer, rest) = announced(&mut p);
    let acts = p.recv(Message::ReadComplete { xfer, bytes: rest - 1 });
    assert_eq!(p.ep.stats().bad_transfers, 1);
    assert!(acts.contains(&Action::CompleteSend { req: 60, result: Err(WsaError::ConnReset) }));
    assert_eq!(p.kinds().last(), Some(&Abort));
    // SinkAvail whose sink is not the size of the rest (write mode: the peer cannot read).
    let mut p =
        Peer::acceptor_of(Config::default(), HelloParams { rdma_read: false, buf_size: 4096 });
    let (xfer, rest) = announced(&mut p);
    assert_eq!(
        p.sent.last().unwrap().msg,
        Message::LargeSend { total: 100_000, desc: None, payload: vec![3; 4096 - 24] }
    );
    p.recv(Message::SinkAvail { xfer, desc: Descriptor { addr: 0x9000, key: 4, len: rest + 1 } });
    assert_eq!((p.ep.stats().bad_transfers, p.ep.state()), (1, State::Aborted));
    // WriteComplete neither 0 nor the whole sink.
    let mut p = Peer::acceptor(Config { rdma_read: false, ..Config::default() });
    let acts = p.recv(Message::LargeSend { total: 10_000, desc: None, payload: vec![] });
    let Some(Action::Register { reg, .. }) =
        acts.iter().find(|a| matches!(a, Action::Register { .. }))
    else {
        panic!()
    };
    let reg = *reg;
    p.handle(Event::Registered {
        reg,
        result: Ok(Descriptor { addr: 0x5000, key: 8, len: 10_000 }),
    });
    assert_eq!(p.kinds().last(), Some(&SinkAvail));
    let xfer = PEER_SEQ + 1;
    p.recv(Message::WriteComplete { xfer, bytes: 5_000 });
    assert_eq!((p.ep.stats().bad_transfers, p.ep.state()), (1, State::Aborted));
}

#[test]
fn stale_transfer_messages_for_an_unknown_xfer_are_counted_and_ignored() {
    let mut p = Peer::acceptor(Config::default());
    // Nothing open at all.
    p.recv(Message::ReadComplete { xfer: 12_345, bytes: 10 });
    p.recv(Message::SendByCopy { xfer: 12_345 });
    p.recv(Message::WriteComplete { xfer: 12_345, bytes: 10 });
    p.recv(Message::SinkAvail { xfer: 12_345, desc: Descriptor { addr: 1, key: 1, len: 1 } });
    assert_eq!(p.ep.stats().stale_xfer, 4);
    // Consumed like any message: four of them make a credit update due, nothing else.
    assert_eq!(p.kinds(), [HelloAck, CreditUpdate]);
    // A transfer open, messages naming another one.
    let (xfer, rest) = announced(&mut p);
    p.recv(Message::ReadComplete { xfer: xfer.wrapping_add(7), bytes: rest });
    p.recv(Message::SendByCopy { xfer: xfer.wrapping_sub(1) });
    assert_eq!(p.ep.stats().stale_xfer, 6);
    assert_eq!(p.ep.stats().violations(), 0);
    assert_eq!(p.ep.state(), State::Established);
    // The connection is fine: the right ReadComplete completes the send.
    let acts = p.recv(Message::ReadComplete { xfer, bytes: rest });
    assert!(acts.contains(&Action::CompleteSend { req: 60, result: Ok(100_000) }));
    assert!(acts.iter().any(|a| matches!(a, Action::Deregister { .. })));
    // A late duplicate of it is stale too.
    p.recv(Message::ReadComplete { xfer, bytes: rest });
    assert_eq!(p.ep.stats().stale_xfer, 7);
    assert_eq!(p.ep.state(), State::Established);
    assert!(!p.kinds().contains(&Abort));
}

#[test]
fn duplicate_hello_is_counted_and_ignored() {
    let mut p = Peer::acceptor(Config::default());
    // A repeat of the Hello (same mseq) after the session exists.
    let h = Header { bufs: 8, mseq: PEER_SEQ, mseq_ack: 0 };
    let hello = Message::Hello(HelloParams { rdma_read: false, buf_size: 64 });
    let acts = p.recv_frame(Frame { header: h, msg: hello });
    assert_eq!(p.ep.stats().duplicate_hello, 1);
    assert!(acts.iter().all(|a| matches!(a, Action::PostRecv { .. })));
    // It consumed no sequence number and changed no negotiated parameter.
    assert_eq!(p.ep.peer(), Some(&HelloParams { rdma_read: true, buf_size: 4096 }));
    p.handle(Event::AppRecv { req: 1, max: 10 });
    let acts = p.recv(Message::Data { urgent: false, payload: vec![4, 5] });
    assert!(acts.iter().any(|a| matches!(a, Action::CompleteRecv { req: 1, result: Ok(_) })));
    assert_eq!(p.ep.stats().violations(), 0);
    assert_eq!(p.ep.state(), State::Established);
    // Same for a HelloAck repeated to an initiator.
    let mut q = Peer::initiator(Config::default());
    q.ack = 1;
    let ack = Message::HelloAck(HelloParams { rdma_read: true, buf_size: 4096 });
    let h = q.next_header();
    q.recv_frame(Frame { header: h, msg: ack.clone() });
    assert_eq!(q.ep.state(), State::Established);
    q.recv_frame(Frame { header: h, msg: ack });
    assert_eq!((q.ep.stats().duplicate_hello, q.ep.state()), (1, State::Established));
}

/// The single `Register` action among `acts`: (reg, access, bytes).
fn registration(acts: &[Action]) -> (u64, Access, usize) {
    let regs: Vec<_> = acts
        .iter()
        .filter_map(|a| match a {
            Action::Register { reg, access, data } => Some((*reg, *access, data.len())),
            _ => None,
        })
        .collect();
    assert_eq!(regs.len(), 1, "{acts:?}");
    regs[0]
}

/// Regression: the peer may send Data and Disconnect right after WriteComplete. If they
/// arrive before the sink's deregistration is answered, they wait for the sink's bytes and
/// then follow them in the stream (they used to be taken for Data during a transfer).
#[test]
fn stream_after_write_complete_waits_for_the_sink_to_be_released() {
    let mut p = Peer::acceptor(Config { rdma_read: false, ..Config::default() });
    let acts = p.recv(Message::LargeSend { total: 10_000, desc: None, payload: vec![1; 100] });
    let (reg, access, len) = registration(&acts);
    assert_eq!((access, len), (Access::RemoteWrite, 9_900));
    let sink = Descriptor { addr: 0x5000, key: 8, len: 9_900 };
    p.handle(Event::Registered { reg, result: Ok(sink) });
    assert_eq!(p.sent.last().unwrap().msg, Message::SinkAvail { xfer: PEER_SEQ + 1, desc: sink });
    let acts = p.recv(Message::WriteComplete { xfer: PEER_SEQ + 1, bytes: 9_900 });
    assert!(acts.contains(&Action::Deregister { reg }));
    // Before the answer: the next Data and the Disconnect arrive.
    p.recv(Message::Data { urgent: false, payload: vec![2; 10] });
    p.recv(Message::Disconnect);
    assert_eq!(p.ep.state(), State::Established);
    assert_eq!(p.ep.stats().violations(), 0);
    p.handle(Event::Deregistered { reg, data: vec![9; 9_900] });
    let acts = p.handle(Event::AppRecv { req: 1, max: 1 << 20 });
    let mut want = vec![1; 100];
    want.extend(vec![9; 9_900]);
    want.extend(vec![2; 10]);
    assert!(acts.contains(&Action::CompleteRecv {
        req: 1,
        result: Ok(sanswitch_model::endpoint::Received { data: want, urgent: false })
    }));
    let acts = p.handle(Event::AppRecv { req: 2, max: 10 });
    assert!(acts.contains(&Action::CompleteRecv {
        req: 2,
        result: Ok(sanswitch_model::endpoint::Received { data: vec![], urgent: false })
    }));
}

/// Regression: after ReadComplete the peer may start its next large send at once; a
/// LargeSend that arrives before the landing region's deregistration is answered waits.
#[test]
fn large_send_after_read_complete_waits_for_the_region_to_be_released() {
    let mut p = Peer::acceptor(Config::default());
    let src = Descriptor { addr: 0x8000, key: 5, len: 9_900 };
    let acts = p.recv(Message::LargeSend { total: 10_000, desc: Some(src), payload: vec![1; 100] });
    let (reg, access, len) = registration(&acts);
    assert_eq!((access, len), (Access::Local, 9_900));
    let local = Descriptor { addr: 0x1000, key: 1, len: 9_900 };
    let acts = p.handle(Event::Registered { reg, result: Ok(local) });
    let reads: Vec<_> = acts
        .iter()
        .filter_map(|a| match a {
            Action::RdmaRead { op, remote, len, .. } => Some((*op, *remote, *len)),
            _ => None,
        })
        .collect();
    assert_eq!(reads, [(1, src, 9_900)]);
    let acts = p.handle(Event::RdmaDone { op: 1, result: Ok(()) });
    assert_eq!(
        p.sent.last().unwrap().msg,
        Message::ReadComplete { xfer: PEER_SEQ + 1, bytes: 9_900 }
    );
    assert!(acts.contains(&Action::Deregister { reg }));
    let next = Descriptor { addr: 0x9000, key: 6, len: 5_000 };
    let acts = p.recv(Message::LargeSend { total: 5_000, desc: Some(next), payload: vec![] });
    assert!(!acts.iter().any(|a| matches!(a, Action::Register { .. })), "held: {acts:?}");
    assert_eq!(p.ep.stats().violations(), 0);
    let acts = p.handle(Event::Deregistered { reg, data: vec![9; 9_900] });
    let (_, access, len) = registration(&acts);
    assert_eq!((access, len), (Access::Local, 5_000));
    assert_eq!(p.ep.state(), State::Established);
}

/// Each kind of message keeps its own reserve of credits: Data and LargeSend go only with
/// more than 2, transfer control and Disconnect with more than 1, CreditUpdate and Abort with
/// more than 0. When credits come back, the endpoint sends transfer control first, then data,
/// then the Disconnect, then a CreditUpdate if one is still due. The scripted peer
/// acknowledges the HelloAck and then nothing until the end.
#[test]
fn credit_reserves_and_the_order_of_messages_within_a_turn() {
    let mut p = Peer::acceptor(Config::default()); // the peer posted 8 buffers
    p.recv(Message::CreditUpdate); // acknowledges the HelloAck
    let fixed = p.ack;
    assert_eq!(p.ep.credits(), 8);
    for req in 0..10 {
        p.handle(Event::AppSend { req, data: vec![req as u8; 10], urgent: false });
    }
    // 8, 7, 6, 5, 4, 3 credits: six Data; at 2 the rest wait.
    assert_eq!(p.kinds(), [HelloAck, Data, Data, Data, Data, Data, Data]);
    assert_eq!(p.ep.credits(), 2);
    assert_eq!(p.ep.stats().credit_stalls, 1);
    // At 2 credits a control message still goes: SendByCopy for a LargeSend it cannot take.
    p.ack = fixed;
    let src = Descriptor { addr: 0x8000, key: 5, len: 990 };
    let acts = p.recv(Message::LargeSend { total: 1000, desc: Some(src), payload: vec![7; 10] });
    let (reg, _, _) = registration(&acts);
    p.handle(Event::Registered {
        reg,
        result: Err(sanswitch_model::endpoint::RegError::TableFull),
    });
    assert_eq!(p.kinds().last(), Some(&SendByCopy));
    assert_eq!(p.ep.credits(), 1);
    // At 1 credit only a CreditUpdate goes, once one is due (4 messages for 8 buffers).
    for n in [250, 250, 250, 240] {
        p.ack = fixed;
        p.recv(Message::Data { urgent: false, payload: vec![8; n] });
    }
    assert_eq!(p.kinds().last(), Some(&CreditUpdate));
    assert_eq!(p.ep.credits(), 0);
    // At 0 nothing goes, not even a due CreditUpdate.
    let n = p.sent.len();
    for _ in 0..4 {
        p.ack = fixed;
        p.recv(Message::CreditUpdate);
    }
    assert!(p.ep.credit_update_due());
    assert_eq!(p.sent.len(), n);
    // Nor an Abort: the peer learns of it from the teardown.
    let mut q = p.clone();
    let acts = q.handle(Event::AppAbort);
    assert_eq!(q.sent.len(), n);
    assert_eq!(acts.last(), Some(&Action::Teardown));
    assert_eq!(
        acts.iter()
            .filter(|a| matches!(
                a,
                Action::CompleteSend { result: Err(WsaError::OperationAborted), .. }
            ))
            .count(),
        4
    );
    // Owe a control message too: another LargeSend the endpoint cannot take. And shut down.
    p.ack = fixed;
    let src = Descriptor { addr: 0x8000, key: 6, len: 490 };
    let acts = p.recv(Message::LargeSend { total: 500, desc: Some(src), payload: vec![7; 10] });
    let (reg, _, _) = registration(&acts);
    p.handle(Event::Registered {
        reg,
        result: Err(sanswitch_model::endpoint::RegError::TableFull),
    });
    p.handle(Event::AppShutdown);
    assert_eq!(p.sent.len(), n);
    // An acknowledgement of everything restores 8 credits. Order within the turn: transfer
    // control, then data, then the Disconnect once the queue is empty; the due CreditUpdate
    // is no longer due, since every message sent is an advertisement.
    p.ack = p.sent.last().unwrap().header.mseq;
    let acts = p.recv(Message::CreditUpdate);
    assert_eq!(
        p.sent[n..].iter().map(|f| f.msg.kind()).collect::<Vec<_>>(),
        [SendByCopy, Data, Data, Data, Data, Disconnect]
    );
    assert_eq!(
        acts.iter().filter(|a| matches!(a, Action::CompleteSend { result: Ok(10), .. })).count(),
        4
    );
    assert!(!p.ep.credit_update_due());
    assert_eq!(p.ep.credits(), 2);
    assert_eq!(p.ep.stats().violations(), 0);
}

// ------------------------------------------------------------------------------------------
// Credits under any delivery order.

/// Two endpoints joined by in-order wires, with every event (a delivery in either direction,
/// a send-buffer completion, an application request) taken in a random order. Few buffers
/// make the credit rules bind all the time. A `lazy` side shuts down only after the end of the
/// peer's stream, so with no sends of its own it stays silent while the peer sends. The
/// protocol must never overrun a buffer, never get stuck, and deliver both streams intact.
fn random_delivery_order(
    seed: u64,
    recv_bufs: [u16; 2],
    send_bufs: [u16; 2],
    sends: [usize; 2],
    lazy: [bool; 2],
) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut cfg = |n: usize| Config {
        recv_bufs: recv_bufs[n],
        send_bufs: send_bufs[n],
        buf_size: 64,
        rdma_threshold: u32::MAX, // copy path only
        initial_seq: rng.r#gen(),
        ..Config::default()
    };
    let cfgs = [cfg(0), cfg(1)];
    let mut eps = [
        Endpoint::new(Role::Initiator, cfgs[0].clone()),
        Endpoint::new(Role::Acceptor, cfgs[1].clone()),
    ];
    let mut posted: [VecDeque<BufId>; 2] = Default::default();
    let mut wire: [VecDeque<Vec<u8>>; 2] = Default::default();
    let mut send_done: [Vec<BufId>; 2] = Default::default();
    let mut plan: [Vec<(Vec<u8>, bool)>; 2] = Default::default();
    for (n, p) in plan.iter_mut().enumerate() {
        for i in 0..sends[n] {
            let n = rng.gen_range(1..=300);
            p.push((pattern(n, i as u8), rng.gen_bool(0.1)));
        }
    }
    let mut next = [0usize; 2];
    let mut recvs_open = [0usize; 2];
    let mut received: [Vec<(Vec<u8>, bool)>; 2] = Default::default();
    let mut eof = [false; 2];
    let mut shut = [false; 2];
    let mut req = 0;
    let mut pending: VecDeque<(usize, Vec<Action>)> = VecDeque::new();
    for n in [1, 0] {
        let mut out = Vec::new();
        eps[n].start(&mut out);
        pending.push_back((n, out));
    }
    loop {
        while let Some((n, out)) = pending.pop_front() {
            for a in out {
                match a {
                    Action::PostRecv { buf } => posted[n].push_back(buf),
                    Action::Send { buf, bytes, .. } => {
                        wire[n].push_back(bytes);
                        send_done[n].push(buf);
                    }
                    Action::CompleteSend { result, .. } => assert!(result.is_ok()),
                    Action::CompleteRecv { result, .. } => {
                        recvs_open[n] -= 1;
                        let r = result.expect("receive ok");
                        if r.data.is_empty() {
                            eof[n] = true;
                        } else {
                            received[n].push((r.data, r.urgent));
                        }
                    }
                    Action::Connected | Action::Teardown => {}
                    other => panic!("unexpected action on the copy path: {other:?}"),
                }
            }
        }
        // Everything that could happen now.
        let mut choices: Vec<(usize, u8)> = Vec::new();
        for n in 0..2 {
            if !wire[n].is_empty() {
                choices.push((n, 0));
            }
            if !send_done[n].is_empty() {
                choices.push((n, 1));
            }
            let up = eps[n].state() == State::Established;
            if up && next[n] < sends[n] {
                choices.push((n, 2));
            }
            if up && next[n] == sends[n] && !shut[n] && (!lazy[n] || eof[n]) {
                choices.push((n, 3));
            }
            if !eof[n] && recvs_open[n] < 2 && eps[n].state() != State::Idle {
                choices.push((n, 4));
            }
        }
        let Some(&(n, what)) = choices.get(rng.gen_range(0..choices.len().max(1))) else {
            break;
        };
        let mut out = Vec::new();
        match what {
            0 => {
                let bytes = wire[n].pop_front().unwrap();
                let to = 1 - n;
                let buf = posted[to].pop_front().expect("credits prevent overruns");
                eps[to].handle(Event::MessageReceived { buf, bytes }, &mut out);
                pending.push_back((to, out));
                continue;
            }
            1 => {
                let i = rng.gen_range(0..send_done[n].len());
                let buf = send_done[n].swap_remove(i);
                eps[n].handle(Event::SendDone { buf }, &mut out);
            }
            2 => {
                let (data, urgent) = plan[n][next[n]].clone();
                next[n] += 1;
                req += 1;
                eps[n].handle(Event::AppSend { req, data, urgent }, &mut out);
            }
            3 => {
                shut[n] = true;
                eps[n].handle(Event::AppShutdown, &mut out);
            }
            _ => {
                recvs_open[n] += 1;
                req += 1;
                let max = rng.gen_range(1..=400);
                eps[n].handle(Event::AppRecv { req, max }, &mut out);
            }
        }
        pending.push_back((n, out));
    }
    for n in 0..2 {
        assert!(eof[n], "seed {seed}: node {n} never saw the end of stream (stuck)");
        assert_eq!(eps[n].state(), State::Closed, "seed {seed}");
        assert_eq!(eps[n].stats().violations(), 0);
        // Both streams intact, urgent runs never mixed with normal bytes.
        let mut got = Vec::new();
        for (d, u) in &received[n] {
            got.extend(d.iter().map(|b| (*b, *u)));
        }
        let want: Vec<(u8, bool)> =
            plan[1 - n].iter().flat_map(|(d, u)| d.iter().map(move |b| (*b, *u))).collect();
        assert!(got == want, "seed {seed}: stream {} -> {n} differs", 1 - n);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 96, ..Default::default() })]

    #[test]
    fn credit_rules_never_deadlock_under_random_delivery_order(
        seed in proptest::prelude::any::<u64>(),
        r0 in 4u16..=6, r1 in 4u16..=6, s0 in 2u16..=4, s1 in 2u16..=4,
        n0 in 0usize..40, n1 in 0usize..40, lazy in 0..3,
    ) {
        random_delivery_order(seed, [r0, r1], [s0, s1], [n0, n1], [lazy == 1, lazy == 2]);
    }
}
