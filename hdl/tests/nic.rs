//! The NIC top (host interface + engine + host-memory arbiter) in rust-hdl's own simulator
//! beside its cycle model, compared every cycle, under the host driver: two NICs over the
//! cycle-level SAN, the driver's loopback (every byte checked, both ways), one connection
//! aborted mid-stream, backpressure on every port.
//!
//! The Verilator version (`sanswitch-sim`'s `loopback_sim`) runs a million cycles; this one
//! is short and exists so that `cargo mutants`, which runs this crate's tests, sees changes
//! to the NIC's own wiring and arbiter.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sanswitch_driver::loopback::{self, LoopbackOptions};
use sanswitch_driver::pair::pair;
use sanswitch_driver::{Device, Endpoint, SocketConfig};
use sanswitch_hdl::rhsim::{self, RhChecked};
use sanswitch_hdl::{hostif, nic, on_big_stack};
use sanswitch_model::blocks::dma_arb::{DmaArb, DmaArbIn, DmaArbOut, RD_OUTSTANDING};
use sanswitch_model::blocks::nic::NicModel;
use sanswitch_model::engine_pair::PairConfig;
use sanswitch_model::ports::{CycleModel, Stimulus};
use sanswitch_model::regs::HostParams;

fn run() {
    let cfg = PairConfig { stall: 0.2, seed: 3, san_latency: 8, ..PairConfig::default() };
    let (p, h) = (cfg.params, HostParams::default());
    assert_eq!(p.connections, 16, "Nic<4, _>: 4 connection address bits");
    let make = || {
        RhChecked::new(NicModel::new(p, &h), nic::Nic::<4, { hostif::QUEUE_PAIRS }>::new(&p, &h))
    };
    let sc = SocketConfig { wait_limit: 100_000, ..SocketConfig::default() };
    let eps = pair(cfg, [make(), make()])
        .map(|t| Endpoint::new(Device::open(t).expect("open"), sc.clone()).expect("endpoint"));
    let o = LoopbackOptions {
        connections: 3,
        bytes: 24 << 10,
        max_write: 6 << 10,
        urgent: 0.05,
        aborts: 1,
        seed: 3,
        ..Default::default()
    };
    let r = loopback::run(&eps, &o, |_, _| {}).unwrap_or_else(|e| panic!("{o:?}: {e}"));
    let (problems, cycles) = eps[0].with_transport(|t| {
        let p = t.pair.borrow();
        (p.problems(), p.cycle)
    });
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(r.aborted, 1);
    assert!(r.bytes > 0);
    eprintln!("{} B both ways in {cycles} cycles, every cycle compared", r.bytes);
}

#[test]
fn nic_matches_model_in_rust_hdl_simulator_under_the_driver() {
    on_big_stack("nic", run);
}

/// Random asks and handshakes for the arbiter alone, keeping the rules its masters and port
/// keep (a granted write beat is taken only while its master asks; a read's last beat only
/// while a read is outstanding): a shadow model gives this cycle's grants before they are
/// driven. Phases of heavy reads with a slow host (the owner queue fills: its limit at 4
/// and one past) alternate with phases of fast read data; write bursts of 1 to 4 beats.
struct ArbStim {
    rng: ChaCha8Rng,
    shadow: DmaArb,
    cycle: u64,
    /// Cycles the owner queue was full with a request waiting (the limit hit).
    full_and_asked: u64,
    /// Cycles a shown request or beat was not taken (its grant kept next cycle).
    held: u64,
}

impl Stimulus<DmaArbIn, DmaArbOut> for ArbStim {
    fn next(&mut self) -> DmaArbIn {
        self.cycle += 1;
        let slow_host = (self.cycle / 500) % 2 == 0;
        let r = &mut self.rng;
        let mut i = DmaArbIn {
            reset: r.gen_bool(0.001),
            host_rd: r.gen_bool(0.5),
            eng_rd: r.gen_bool(0.5),
            rd_ready: r.gen_bool(0.6),
            host_wr: r.gen_bool(0.6),
            eng_wr: r.gen_bool(0.6),
            wr_last: r.gen_bool(0.3),
            ..DmaArbIn::default()
        };
        let o = self.shadow.outputs(&i);
        i.rd_done = o.rd_owned && r.gen_bool(if slow_host { 0.05 } else { 0.5 });
        let shown = (o.wr_host && i.host_wr) || (o.wr_eng && i.eng_wr);
        i.wr_take = shown && r.gen_bool(0.6);
        if !i.reset {
            let full = self.shadow.reads_outstanding() == RD_OUTSTANDING;
            self.full_and_asked += u64::from(full && (i.host_rd || i.eng_rd));
            let rd_shown = o.rd_host || o.rd_eng;
            self.held += u64::from((rd_shown && !i.rd_ready) || (shown && !i.wr_take));
        }
        CycleModel::clock(&mut self.shadow, &i);
        i
    }

    fn observe(&mut self, _i: &DmaArbIn, _o: &DmaArbOut) {}
}

/// The arbiter alone against its model, every grant every cycle: 200,000 random cycles
/// (the NIC test reaches few of its corners: the owner queue full, a grant held while the
/// other master asks, a burst locked while its master pauses).
#[test]
fn dma_arb_matches_model_in_rust_hdl_simulator() {
    let stim = ArbStim {
        rng: ChaCha8Rng::seed_from_u64(11),
        shadow: DmaArb::default(),
        cycle: 0,
        full_and_asked: 0,
        held: 0,
    };
    let s = rhsim::lockstep(sanswitch_hdl::nic::DmaArb::new(), DmaArb::default(), stim, 200_000)
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("queue full with a request waiting: {} cycles; held: {}", s.full_and_asked, s.held);
    assert!(s.full_and_asked > 1_000 && s.held > 10_000, "corners not reached");
}
