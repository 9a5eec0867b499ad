//! Each widget in rust-hdl's simulator against its cycle model, cycle by cycle, with random
//! inputs, resets included; and a deliberately wrong model caught. The controller's
//! combinational `PumpStep` against the model's order, every condition at its boundary.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::{Bits, Block, simulate};
use sanswitch_hdl::engine::controller::{PumpStep, SendEntry};
use sanswitch_hdl::engine::records::{CmdRec, ConnWord, SqEnt};
use sanswitch_hdl::rhsim;
use sanswitch_hdl::widgets::{CounterBank, Fifo, LutFifo, SkidBuffer};
use sanswitch_model::blocks::widgets::counter_bank::{CounterBankIn, CounterBankOut};
use sanswitch_model::blocks::widgets::fifo::{FifoIn, FifoOut};
use sanswitch_model::blocks::widgets::skid::{SkidIn, SkidOut};
use sanswitch_model::blocks::widgets::{self as model};
use sanswitch_model::host::Opcode;
use sanswitch_model::params::EngineParams;
use sanswitch_model::ports::{CycleModel, Stimulus};

/// Random skid inputs that follow the producer's rule (push only while `can_push`).
struct SkidStim(ChaCha8Rng);

impl Stimulus<SkidIn, SkidOut> for SkidStim {
    fn next(&mut self) -> SkidIn {
        let r = &mut self.0;
        SkidIn {
            reset: r.gen_bool(0.01),
            push: r.gen_bool(0.7),
            push_data: r.r#gen(),
            out_ready: r.gen_bool(0.6),
        }
    }
    fn observe(&mut self, _i: &SkidIn, _o: &SkidOut) {}
}

/// Random counter events (indexes up to one past the bank and beyond), reads and resets.
struct BankStim(ChaCha8Rng, usize);

impl Stimulus<CounterBankIn, CounterBankOut> for BankStim {
    fn next(&mut self) -> CounterBankIn {
        let (r, len) = (&mut self.0, self.1 as u8);
        // Up to one past the bank (when that fits the index's 5 bits), or any index.
        let near = |r: &mut ChaCha8Rng| {
            if r.gen_bool(0.8) { r.gen_range(0..=len.min(31)) } else { r.gen_range(0..32) }
        };
        CounterBankIn {
            reset: r.gen_bool(0.002),
            inc: r.gen_bool(0.8),
            inc_index: near(r),
            rd_index: near(r),
        }
    }
    fn observe(&mut self, _i: &CounterBankIn, _o: &CounterBankOut) {}
}

#[test]
fn skid_buffer_matches_its_model() {
    // The widget trusts its producer: the stimulus pushes only while `can_push` (a registered
    // output, so a shadow model tells it before the cycle).
    struct Polite(SkidStim, model::Skid<u16>);
    impl Stimulus<SkidIn, SkidOut> for Polite {
        fn next(&mut self) -> SkidIn {
            let mut i = self.0.next();
            i.push &= self.1.can_push();
            CycleModel::clock(&mut self.1, &i);
            i
        }
        fn observe(&mut self, _i: &SkidIn, _o: &SkidOut) {}
    }
    let stim = Polite(SkidStim(ChaCha8Rng::seed_from_u64(1)), Default::default());
    rhsim::lockstep(SkidBuffer::<Bits<16>>::default(), model::Skid::<u16>::default(), stim, 4000)
        .unwrap();
}

/// Random FIFO inputs that follow the user's rule (push only while `can_push`, pop only while
/// `valid`: registered outputs, so a shadow model tells them before the cycle), with bursts
/// of mostly-push and mostly-pop (long enough, at a net half an entry a cycle, to fill the
/// deepest FIFO) so the ring fills, empties and wraps.
struct FifoStim(ChaCha8Rng, model::Fifo<u16>, u64);

impl FifoStim {
    fn new(seed: u64, depth: usize) -> Self {
        FifoStim(ChaCha8Rng::seed_from_u64(seed), model::Fifo::new(depth), 0)
    }
}

impl Stimulus<FifoIn, FifoOut> for FifoStim {
    fn next(&mut self) -> FifoIn {
        let (r, shadow) = (&mut self.0, &mut self.1);
        self.2 += 1;
        let filling = (self.2 / 80) % 2 == 0;
        let mut i = FifoIn {
            reset: r.gen_bool(0.005),
            push: r.gen_bool(if filling { 0.8 } else { 0.3 }),
            push_data: r.r#gen(),
            pop: r.gen_bool(if filling { 0.3 } else { 0.8 }),
        };
        i.push &= shadow.can_push();
        i.pop &= !shadow.is_empty();
        CycleModel::clock(shadow, &i);
        i
    }
    fn observe(&mut self, _i: &FifoIn, _o: &FifoOut) {}
}

#[test]
fn fifo_matches_its_model_at_every_depth() {
    for depth in [1, 2, 3, 4, 5, 16] {
        let stim = FifoStim::new(depth as u64, depth);
        rhsim::lockstep(Fifo::<Bits<16>>::new(depth), model::Fifo::<u16>::new(depth), stim, 3000)
            .unwrap_or_else(|e| panic!("depth {depth}: {e}"));
    }
}

#[test]
fn a_fifo_one_entry_short_is_caught() {
    let stim = FifoStim::new(9, 4);
    let e = rhsim::lockstep(Fifo::<Bits<16>>::new(3), model::Fifo::<u16>::new(4), stim, 500)
        .map(|_| ())
        .unwrap_err();
    assert!(e.contains("can_push"), "{e}");
}

#[test]
fn lut_fifo_matches_its_model_at_every_depth() {
    // Every output every cycle, the head while empty included (the RAM word at the read
    // pointer); 32 is the RAM's own depth, where the pointers wrap with the ring full.
    for depth in [1, 2, 3, 4, 5, 16, 31, 32] {
        let stim = FifoStim::new(depth as u64, depth);
        let dut = LutFifo::<Bits<16>>::new(depth);
        rhsim::lockstep(dut, model::LutFifo::<u16>::new(depth), stim, 3000)
            .unwrap_or_else(|e| panic!("depth {depth}: {e}"));
    }
}

#[test]
fn a_lut_fifo_one_entry_short_is_caught() {
    let stim = FifoStim::new(9, 4);
    let e = rhsim::lockstep(LutFifo::<Bits<16>>::new(3), model::LutFifo::<u16>::new(4), stim, 500)
        .map(|_| ())
        .unwrap_err();
    assert!(e.contains("can_push"), "{e}");
}

#[test]
fn counter_bank_matches_its_model_at_every_size() {
    for len in [1, 9, 14, 32] {
        let stim = BankStim(ChaCha8Rng::seed_from_u64(len as u64), len);
        rhsim::lockstep(CounterBank::new(len), model::CounterBank::new(len), stim, 3000)
            .unwrap_or_else(|e| panic!("{len} counters: {e}"));
    }
}

/// A model that forgets the registered event: it counts in the same cycle.
struct EagerBank(model::CounterBank);

impl CycleModel for EagerBank {
    type In = CounterBankIn;
    type Out = CounterBankOut;
    fn outputs(&self, i: &CounterBankIn) -> CounterBankOut {
        self.0.outputs(i)
    }
    fn clock(&mut self, i: &CounterBankIn) {
        CycleModel::clock(&mut self.0, i);
        if i.inc && !i.reset {
            // Land the pending event at once: one cycle early.
            CycleModel::clock(&mut self.0, &CounterBankIn { inc: false, ..*i });
        }
    }
}

#[test]
fn a_wrong_counter_bank_model_is_caught() {
    let stim = BankStim(ChaCha8Rng::seed_from_u64(5), 9);
    let e = rhsim::lockstep(CounterBank::new(9), EagerBank(model::CounterBank::new(9)), stim, 500)
        .map(|_| ())
        .unwrap_err();
    assert!(e.contains("rd_data"), "{e}");
}

/// The pump's steps in the order `PumpStep` outputs them.
const STEPS: [&str; 8] = ["flush", "deliver", "eof", "idle", "owed", "zcopy", "data", "tail"];

/// The model's `Controller::pump_step` order, written from its documentation (not from the
/// widget): the step a connection word and send-queue head give, threshold `thresh`.
fn pump_step_oracle(cw: &ConnWord, sq: &SqEnt, thresh: u64) -> &'static str {
    const ESTABLISHED: u64 = 4;
    const ABORTED: u64 = 6;
    let st = cw.st.index() as u64;
    let rx_free = !cw.dlv_busy && cw.rq_n.index() != 0 && st != ABORTED;
    let large = cw.sent.index() == 0 && !sq.urgent && sq.len.index() as u64 > thresh;
    if cw.fl_v {
        "flush"
    } else if rx_free && cw.held_n.index() != 0 {
        "deliver"
    } else if rx_free && cw.fin_rcvd {
        "eof"
    } else if st != ESTABLISHED {
        "idle"
    } else if cw.rx_due.index() != 0 || cw.tx_due {
        "owed"
    } else if cw.sq_n.index() != 0 && (cw.tx_x.index() != 0 || large) {
        "zcopy"
    } else if cw.sq_n.index() != 0 {
        "data"
    } else {
        "tail"
    }
}

#[test]
fn pump_step_follows_the_models_order() {
    let p = EngineParams::default();
    let thresh = p.rdma_threshold as u64;
    let mut uut = PumpStep::default();
    uut.connect_all();
    let mut r = ChaCha8Rng::seed_from_u64(17);
    let mut seen = std::collections::BTreeMap::<&str, u32>::new();
    for i in 0..20_000 {
        // Each condition near its boundary: counts 0, 1 or many; lengths one either side of
        // the threshold; every state code.
        let count = |r: &mut ChaCha8Rng| -> Bits<5> {
            [0u64, 1, r.gen_range(2..32u64)][r.gen_range(0..3)].into()
        };
        let mut cw = ConnWord {
            fl_v: r.gen_bool(0.1),
            dlv_busy: r.gen_bool(0.3),
            rq_n: count(&mut r),
            st: r.gen_range(0..8u64).into(),
            held_n: count(&mut r),
            fin_rcvd: r.gen_bool(0.3),
            rx_due: r.gen_range(0..4u64).into(),
            tx_due: r.gen_bool(0.3),
            sq_n: count(&mut r),
            tx_x: if r.gen_bool(0.6) { 0.into() } else { r.gen_range(1..8u64).into() },
            sent: if r.gen_bool(0.6) { 0.into() } else { r.gen_range(1..100_000u64).into() },
            ..Default::default()
        };
        if r.gen_bool(0.5) {
            cw.st = 4.into();
        }
        if r.gen_bool(0.5) {
            cw.rx_due = 0.into();
            cw.tx_due = false;
        }
        let len = thresh + r.gen_range(0..3u64) - 1
            + [0, r.gen_range(0..1_000_000u64)][r.gen_range(0..2)];
        let sq = SqEnt {
            tag: (r.r#gen::<u32>() as u64).into(),
            addr: r.r#gen::<u64>().into(),
            len: len.into(),
            urgent: r.gen_bool(0.2),
            // As `SendEntry` makes it (its own test below).
            big: len > thresh,
        };
        let want = pump_step_oracle(&cw, &sq, thresh);
        assert_eq!(pump_steps(&mut uut, cw, sq), [want], "case {i}: word {cw:?}, send {sq:?}");
        *seen.entry(want).or_default() += 1;
    }
    assert_eq!(seen.len(), STEPS.len(), "steps seen: {seen:?}");
    // The zero-copy threshold at its boundary and one past it, and what keeps a long send
    // on the copy path (urgent, or already started by Data messages).
    let mut cw = ConnWord { st: 4.into(), sq_n: 1.into(), ..Default::default() };
    let mut sq = SqEnt { len: (thresh + 1).into(), big: true, ..Default::default() };
    assert_eq!(pump_steps(&mut uut, cw, sq), ["zcopy"], "a send past the threshold");
    sq.urgent = true;
    assert_eq!(pump_steps(&mut uut, cw, sq), ["data"], "urgent data never goes zero-copy");
    sq.urgent = false;
    cw.sent = 1.into();
    assert_eq!(pump_steps(&mut uut, cw, sq), ["data"], "a send already started by Data");
    cw.tx_x = 1.into();
    assert_eq!(pump_steps(&mut uut, cw, sq), ["zcopy"], "a transfer under way");
}

#[test]
fn a_send_entry_goes_zero_copy_one_byte_past_the_threshold() {
    let p = EngineParams::default();
    let thresh = p.rdma_threshold as u64;
    let mut uut = SendEntry::new(&p);
    uut.connect_all();
    let mut entry = |len: u64, opcode: u64| {
        let cmd = CmdRec {
            opcode: opcode.into(),
            tag: 7.into(),
            addr: 0x1234_5678_9abc.into(),
            len: len.into(),
            ..Default::default()
        };
        uut.cmd.next = cmd;
        assert!(simulate(&mut uut, 100), "SendEntry settles");
        let e = uut.ent.val();
        assert_eq!((e.tag, e.addr, e.len), (cmd.tag, cmd.addr, cmd.len), "the command's fields");
        (e.big, e.urgent)
    };
    let send = Opcode::Send.code() as u64;
    let urgent = Opcode::SendUrgent.code() as u64;
    assert_eq!(entry(0, send), (false, false));
    assert_eq!(entry(thresh, send), (false, false), "the threshold's length: copy");
    assert_eq!(entry(thresh + 1, send), (true, false), "one byte past it: zero-copy");
    assert_eq!(entry(u32::MAX as u64, urgent), (true, true), "urgent is the pump's to refuse");
    // An engine without the zero-copy paths (threshold `u32::MAX`) never marks one.
    let mut p = p;
    p.rdma_threshold = u32::MAX;
    let mut none = SendEntry::new(&p);
    none.connect_all();
    none.cmd.next =
        CmdRec { opcode: send.into(), len: (u32::MAX as u64).into(), ..Default::default() };
    assert!(simulate(&mut none, 100));
    assert!(!none.ent.val().big);
}

/// The steps `PumpStep` sets for a word and a send-queue head, settled.
fn pump_steps(uut: &mut PumpStep, cw: ConnWord, sq: SqEnt) -> Vec<&'static str> {
    uut.cw.next = cw;
    uut.sq_f.next = sq;
    assert!(simulate(uut, 100), "PumpStep settles");
    let outs = [
        uut.flush.val(),
        uut.deliver.val(),
        uut.eof.val(),
        uut.idle.val(),
        uut.owed.val(),
        uut.zcopy.val(),
        uut.data.val(),
        uut.tail.val(),
    ];
    STEPS.iter().zip(outs).filter(|(_, o)| *o).map(|(n, _)| *n).collect()
}
