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

/// A model with one deliberate bug: one credit too many reported after a RECV.
struct BuggyPool(PoolModel);

impl sanswitch_model::ports::CycleModel for BuggyPool {
    type In = sanswitch_model::blocks::pool::PoolIn;
    type Out = sanswitch_model::blocks::pool::PoolOut;
    fn outputs(&self, i: &Self::In) -> Self::Out {
        let mut o = self.0.outputs(i);
        if o.m_axis_resp_tvalid
            && o.m_axis_resp_op == sanswitch_model::blocks::pool::op::RECV
            && o.m_axis_resp_status == status::OK
        {
            o.m_axis_resp_credits += 1;
        }
        o
    }
    fn clock(&mut self, i: &Self::In) {
        self.0.clock(i)
    }
}

#[test]
fn lockstep_catches_a_broken_pool_model_at_the_right_cycle() {
    let p = PoolParams::default();
    let dir = std::env::temp_dir().join(format!("sanswitch-pool-bug-{}", std::process::id()));
    let opts = LockstepOptions {
        vcd_window: 100,
        vcd_dir: Some(dir.clone()),
        ..LockstepOptions::with_resets(200_000, 1e-3, 5)
    };
    let m = sanswitch_sim::assert_lockstep_catches(
        &|| BuggyPool(PoolModel::new(p)),
        std::rc::Rc::new(move || PoolModel::new(p)),
        &VPool::new,
        &|| PoolDriver::new(5, p, 0.1),
        &opts,
    );
    assert_eq!(m.port, "m_axis_resp_credits");
    assert_eq!(m.model, m.verilog + 1);
    let _ = std::fs::remove_dir_all(dir);
}
