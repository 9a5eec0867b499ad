//! The Verilated FrontPanel bridge core against its cycle model, cycle by cycle: random
//! requests (good, refused and unknown), two register slaves and two memories with random
//! ready and latency, random backpressure and resets. Every response word is also checked
//! against the protocol's reference behaviour (`BridgeExec`) by the stimulus.

use sanswitch_model::blocks::bridge::{BridgeIn, BridgeModel, BridgeOut};
use sanswitch_model::blocks::bridge_stimulus::BridgeDriver;
use sanswitch_model::bridge::NODE_MEM_BYTES;
use sanswitch_model::ports::CycleModel;
use sanswitch_sim::{LockstepOptions, VBridge, lockstep};

fn model() -> BridgeModel {
    BridgeModel::new(NODE_MEM_BYTES)
}

fn run(seed: u64, cycles: u64, rate: f64, reset_rate: f64) -> BridgeDriver {
    let mut m = model();
    let mut stim = BridgeDriver::new(seed, NODE_MEM_BYTES);
    stim.rate = rate;
    let opts = LockstepOptions::with_resets(cycles, reset_rate, seed);
    if let Err(e) = lockstep(&mut m, &VBridge::new, &mut stim, &opts) {
        panic!("{e}");
    }
    stim
}

/// The CI run: a million cycles; every kind of request, many times, and every response
/// word the reference's.
#[test]
fn bridge_lockstep_one_million_cycles() {
    let s = run(2026, 1_000_000, 0.8, 0.0);
    let c = s.counts;
    eprintln!("{c:?}");
    assert!(c.requests.iter().all(|n| *n > 500), "{c:?}");
    assert!(c.checked_words > 200_000, "{c:?}");
    assert!(c.mem_writes > 5_000 && c.mem_reads > 5_000, "{c:?}");
    assert!(c.reg_writes > 1_000 && c.reg_reads > 1_000, "{c:?}");
}

#[test]
fn bridge_lockstep_full_speed_with_resets() {
    let s = run(7, 200_000, 1.0, 2e-4);
    assert!(s.counts.checked_words > 20_000, "{:?}", s.counts);
}

#[test]
fn bridge_lockstep_heavy_backpressure_with_resets() {
    let s = run(8, 200_000, 0.2, 2e-4);
    assert!(s.counts.checked_words > 2_000, "{:?}", s.counts);
}

/// A model with one deliberate bug: a memory write's first word written whole, not from
/// the request's first byte.
struct WholeFirstWord(BridgeModel);

impl CycleModel for WholeFirstWord {
    type In = BridgeIn;
    type Out = BridgeOut;
    fn outputs(&self, i: &BridgeIn) -> BridgeOut {
        let mut o = self.0.outputs(i);
        if o.m_mem_valid && o.m_mem_write && o.m_mem_wmask.leading_zeros() == 0 {
            o.m_mem_wmask = 0xFF;
        }
        o
    }
    fn clock(&mut self, i: &BridgeIn) {
        self.0.clock(i)
    }
}

#[test]
fn lockstep_catches_a_wrong_byte_mask() {
    let dir = std::env::temp_dir().join(format!("sanswitch-bridge-bug-{}", std::process::id()));
    let opts = LockstepOptions {
        vcd_window: 100,
        vcd_dir: Some(dir.clone()),
        ..LockstepOptions::with_resets(100_000, 0.0, 3)
    };
    let m = sanswitch_sim::assert_lockstep_catches(
        &|| WholeFirstWord(model()),
        std::rc::Rc::new(model),
        &VBridge::new,
        &|| BridgeDriver::new(3, NODE_MEM_BYTES),
        &opts,
    );
    assert_eq!(m.port, "m_mem_wmask");
    assert_eq!(m.model, 0xFF);
    let _ = std::fs::remove_dir_all(dir);
}
