//! The Verilated pool manager against its cycle model, cycle by cycle.

use sanswitch_model::blocks::pool::{PoolModel, status};
use sanswitch_model::blocks::pool_stimulus::PoolDriver;
use sanswitch_model::params::PoolParams;
use sanswitch_sim::{LockstepOptions, VPool, lockstep};

fn run(seed: u64, cycles: u64, valid: f64, ready: f64, bad: f64) -> PoolModel {
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
    model
}

/// The CI run: a million cycles, random backpressure, random interleaving of connections, a
/// share of illegal requests of every kind.
#[test]
fn pool_lockstep_one_million_cycles() {
    let m = run(2026, 1_000_000, 0.85, 0.7, 0.1);
    for (k, name) in status::NAMES.iter().enumerate() {
        let c = m.counters.get(k);
        assert!(c > 20, "status {name} seen only {c} times: {:?}", m.counters);
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
