//! The Verilated pool manager against its cycle model, cycle by cycle.

use sanswitch_model::blocks::pool::{PoolIn, PoolModel, PoolOut, status};
use sanswitch_model::blocks::pool_stimulus::PoolDriver;
use sanswitch_model::params::PoolParams;
use sanswitch_model::ports::CycleModel;
use sanswitch_sim::{LockstepOptions, VPool, lockstep};

fn run(seed: u64, cycles: u64, valid: f64, ready: f64, bad: f64) -> PoolOut {
    let p = PoolParams::default();
    let mut model = PoolModel::new(p);
    let mut stim = PoolDriver::new(seed, p, bad);
    stim.valid_rate = valid;
    stim.ready_rate = ready;
    // Resets at random, but not in the million-cycle run: it counts with the block's
    // counters, which a reset clears.
    let reset_rate = if cycles < 1_000_000 { 1e-4 } else { 0.0 };
    let opts = LockstepOptions::with_resets(cycles, reset_rate, seed);
    if let Err(m) = lockstep(&mut model, &VPool::new, &mut stim, &opts) {
        panic!("{m}");
    }
    model.outputs(&PoolIn::default())
}

/// The CI run: a million cycles, random backpressure, random interleaving of connections, a
/// share of illegal requests of every kind.
#[test]
fn pool_lockstep_one_million_cycles() {
    let o = run(2026, 1_000_000, 0.85, 0.7, 0.1);
    for (k, c) in o.counters().iter().enumerate().skip(1) {
        assert!(*c > 20, "status {} seen only {c} times: {o:?}", status::NAMES[k]);
    }
}

#[test]
fn pool_lockstep_full_speed() {
    run(7, 200_000, 1.0, 1.0, 0.05);
}

#[test]
fn pool_lockstep_heavy_backpressure() {
    run(8, 200_000, 0.9, 0.2, 0.2);
}
