//! The pool manager's transactions agree with the endpoint model's on the same events: the
//! same send buffers handed out, the same header fields (bufs, mseq, mseq_ack), the same
//! credits after every event, and credit-only updates due at the same points.
//!
//! One endpoint of a fabric run is recorded (every event and the actions it answered); each is
//! replayed into the pool manager's model as the engine would issue it: OPEN when the session
//! is negotiated, RECV and REPOST for each message received, ALLOC for each message sent,
//! FREE for each send completion.

use sanswitch_model::blocks::pool::{PoolIn, PoolModel, Resp, class, op, status};
use sanswitch_model::endpoint::{Action, Config, Endpoint, Event, Role};
use sanswitch_model::fabric::{Fabric, FabricConfig};
use sanswitch_model::params::PoolParams;
use sanswitch_model::wire::{Frame, Kind, Message};

fn class_of(k: Kind) -> u8 {
    match k {
        Kind::Data | Kind::LargeSend => class::DATA,
        Kind::CreditUpdate | Kind::Abort => class::UPDATE,
        _ => class::CONTROL,
    }
}

struct Mirror {
    pool: PoolModel,
    cfg: Config,
    open: bool,
    checks: u64,
}

impl Mirror {
    fn req(&mut self, i: PoolIn) -> Resp {
        let (r, new) = self.pool.execute(&i);
        if let Some(n) = new {
            self.pool.ram[0] = n;
        }
        r
    }

    fn query(&mut self) -> Resp {
        self.req(PoolIn { s_axis_req_op: op::QUERY, ..PoolIn::default() })
    }

    fn replay(&mut self, ev: &Event, actions: &[Action], ep_credits: u32, ep_due: bool) {
        let s = self.cfg.send_bufs;
        if let Event::MessageReceived { buf, bytes } = ev {
            let f = Frame::decode(bytes, self.cfg.buf_size as usize).expect("well-formed traffic");
            if !self.open {
                if let Message::HelloAck(_) = f.msg {
                    let r = self.req(PoolIn {
                        s_axis_req_op: op::OPEN,
                        s_axis_req_a: f.header.mseq_ack.wrapping_add(1),
                        s_axis_req_b: f.header.mseq_ack,
                        s_axis_req_c: f.header.mseq,
                        s_axis_req_bufs: f.header.bufs,
                        s_axis_req_buf: 1, // the HelloAck is owed an acknowledgement
                        ..PoolIn::default()
                    });
                    assert_eq!(r.status, status::OK);
                    self.open = true;
                    // The HelloAck's own buffer is re-posted before the session opens; what
                    // follows Connected in this batch (queued sends) is mirrored below.
                    let after =
                        actions.iter().position(|a| *a == Action::Connected).map_or(0, |k| k + 1);
                    return self.mirror_actions(ev, &actions[after..], ep_credits, ep_due);
                }
                return;
            }
            let r = self.req(PoolIn {
                s_axis_req_op: op::RECV,
                s_axis_req_buf: (*buf - s) as u8,
                s_axis_req_a: f.header.mseq,
                s_axis_req_b: f.header.mseq_ack,
                s_axis_req_bufs: f.header.bufs,
                ..PoolIn::default()
            });
            assert_eq!(r.status, status::OK, "RECV of {:?}", f.msg.kind());
        }
        if let Event::SendDone { buf } = ev
            && self.open
        {
            let r = self.req(PoolIn {
                s_axis_req_op: op::FREE,
                s_axis_req_buf: *buf as u8,
                ..PoolIn::default()
            });
            assert_eq!(r.status, status::OK, "FREE {buf}");
        }
        if !self.open {
            return;
        }
        self.mirror_actions(ev, actions, ep_credits, ep_due);
    }

    fn mirror_actions(&mut self, ev: &Event, actions: &[Action], ep_credits: u32, ep_due: bool) {
        let s = self.cfg.send_bufs;
        for a in actions {
            match a {
                Action::PostRecv { buf } => {
                    let r = self.req(PoolIn {
                        s_axis_req_op: op::REPOST,
                        s_axis_req_buf: (*buf - s) as u8,
                        ..PoolIn::default()
                    });
                    assert_eq!(r.status, status::OK, "REPOST {buf}");
                }
                Action::Send { buf, frame, .. } => {
                    let k = frame.msg.kind();
                    if k == Kind::CreditUpdate {
                        assert!(self.query().update_due, "a credit update sent while none was due");
                    }
                    let r = self.req(PoolIn {
                        s_axis_req_op: op::ALLOC,
                        s_axis_req_class: class_of(k),
                        ..PoolIn::default()
                    });
                    assert_eq!(r.status, status::OK, "ALLOC for {k:?}");
                    assert_eq!(r.buf as u16, *buf, "send buffer for {k:?}");
                    assert_eq!(r.mseq, frame.header.mseq);
                    assert_eq!(r.ack, frame.header.mseq_ack);
                    assert_eq!(r.bufs, frame.header.bufs);
                    self.checks += 1;
                }
                Action::Teardown => {
                    self.req(PoolIn { s_axis_req_op: op::CLOSE, ..PoolIn::default() });
                    self.open = false;
                    return;
                }
                _ => {}
            }
        }
        let q = self.query();
        assert_eq!(q.credits as u32, ep_credits, "credits after {ev:?}");
        assert_eq!(q.update_due, ep_due, "update due after {ev:?}");
    }
}

fn run(seed: u64, recv_bufs: u16, send_bufs: u16, read: bool) -> u64 {
    let cfg = Config {
        recv_bufs,
        send_bufs,
        rdma_read: read,
        initial_seq: u32::MAX - 3,
        ..Config::default()
    };
    let mut f = Fabric::new(FabricConfig::default());
    f.record_actions(0, 0);
    f.connect(
        Endpoint::new(Role::Initiator, cfg.clone()),
        Endpoint::new(Role::Acceptor, cfg.clone()),
    );
    // A mixed workload both ways: small sends, sends spanning several messages, large sends
    // (zero-copy control messages), urgent data; receives kept posted.
    let mut x = seed;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut req = 1;
    for _ in 0..200 {
        for node in 0..2 {
            let size = match next() % 10 {
                0 => 40_000 + (next() % 100_000) as usize,
                1..=3 => (next() % 9000) as usize,
                _ => 1 + (next() % 500) as usize,
            };
            f.app(
                0,
                node,
                Event::AppSend { req, data: vec![node as u8; size], urgent: next() % 17 == 0 },
            );
            req += 1;
            f.app(0, 1 - node, Event::AppRecv { req, max: 1 << 20 });
            req += 1;
        }
        f.run(40 + next() % 200);
    }
    f.app(0, 0, Event::AppShutdown);
    f.app(0, 1, Event::AppShutdown);
    for _ in 0..2000 {
        f.app(0, 0, Event::AppRecv { req, max: 1 << 20 });
        f.app(0, 1, Event::AppRecv { req: req + 1, max: 1 << 20 });
        req += 2;
        if f.run(1000) == 0 {
            break;
        }
    }
    // Replay the recorded endpoint into the pool manager. Credits and due flags are compared
    // with the endpoint's after each event: recompute them by replaying the endpoint too.
    let mut ep = Endpoint::new(Role::Initiator, cfg.clone());
    let mut sink = Vec::new();
    ep.start(&mut sink);
    let mut m = Mirror {
        pool: PoolModel::new(PoolParams {
            connections: 1,
            send_bufs: send_bufs as u8,
            recv_bufs: recv_bufs as u8,
        }),
        cfg,
        open: false,
        checks: 0,
    };
    for (ev, actions) in f.action_log() {
        let mut out = Vec::new();
        ep.handle(ev.clone(), &mut out);
        assert_eq!(&out, actions, "the endpoint replays deterministically");
        m.replay(ev, actions, ep.credits(), ep.credit_update_due());
    }
    assert!(m.checks > 100, "too few messages checked: {}", m.checks);
    m.checks
}

#[test]
fn pool_agrees_with_endpoint_read_mode() {
    run(1, 8, 8, true);
}

#[test]
fn pool_agrees_with_endpoint_write_mode() {
    run(2, 8, 8, false);
}

#[test]
fn pool_agrees_with_endpoint_when_credits_run_out() {
    run(3, 4, 2, true);
    run(4, 4, 3, false);
}
