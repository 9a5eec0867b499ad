//! The workload checker is strict: a WSAENOBUFS needs a failed registration behind it, and
//! only a connection that really was aborted may lose bytes or fail sends. Each test makes
//! an endpoint misbehave (through `run_tampered`) and checks that the checker says so.

use sanswitch_model::WsaError;
use sanswitch_model::endpoint::Action;
use sanswitch_model::fabric::AbortAt;
use sanswitch_model::workload::{Summary, Workload, run, run_tampered};

fn workload() -> Workload {
    Workload { seed: 7, connections: 2, sends: 12, max_size: 64 * 1024, ..Workload::default() }
}

/// Runs `w` turning the first successful send completion on `conn` into `err`.
fn with_first_send_failed(w: &Workload, conn: usize, err: WsaError) -> Summary {
    let mut done = false;
    run_tampered(w, &mut |_, _| {}, &mut |c, _, a| {
        if let Action::CompleteSend { result, .. } = a
            && c == conn
            && result.is_ok()
            && !done
        {
            *result = Err(err);
            done = true;
        }
    })
}

fn complains(s: &Summary, what: &str) -> bool {
    !s.intact && s.problems.iter().any(|p| p.contains(what))
}

#[test]
fn untampered_runs_are_intact() {
    let s = run(&workload(), &mut |_, _| {});
    assert!(s.intact, "{:#?}", s.problems);
}

#[test]
fn wsaenobufs_without_a_failed_registration_is_caught() {
    // No registration fails in this workload: a WSAENOBUFS has nothing behind it.
    let s = with_first_send_failed(&workload(), 0, WsaError::NoBufs);
    assert!(complains(&s, "registrations of a send's buffer failed"), "{:#?}", s.problems);
}

#[test]
fn a_configured_abort_that_never_fires_excuses_nothing() {
    let mut w = workload();
    w.fabric.faults.abort = Some(AbortAt { conn: 0, node: 1, after_messages: u64::MAX });
    assert!(run(&w, &mut |_, _| {}).intact);
    let s = with_first_send_failed(&w, 0, WsaError::ConnReset);
    assert!(complains(&s, "WSAECONNRESET"), "{:#?}", s.problems);
}

#[test]
fn an_abort_on_one_connection_excuses_nothing_on_another() {
    let mut w = workload();
    w.fabric.faults.abort = Some(AbortAt { conn: 0, node: 1, after_messages: 6 });
    let s = run(&w, &mut |_, _| {});
    assert!(s.intact, "{:#?}", s.problems);
    assert!(s.completions.contains_key("WSA_OPERATION_ABORTED"), "the abort fired: {s:#?}");
    // Connection 1 was not aborted: it delivers everything, both ways.
    for d in s.directions.iter().filter(|d| d.conn == 1) {
        assert_eq!(d.bytes_received, d.bytes_offered, "{d:?}");
    }
    let s = with_first_send_failed(&w, 1, WsaError::ConnReset);
    assert!(complains(&s, "conn 1"), "{:#?}", s.problems);
}
