//! The Verilated node memory against its cycle model, cycle by cycle: a NIC reading and
//! writing at odd addresses (some outside), a word port, random backpressure and resets.

use sanswitch_model::blocks::node_mem::{NodeMemIn, NodeMemModel, NodeMemOut};
use sanswitch_model::blocks::node_mem_stimulus::NodeMemDriver;
use sanswitch_model::bridge::NODE_MEM_BYTES;
use sanswitch_model::ports::CycleModel;
use sanswitch_sim::{LockstepOptions, VNodeMem, lockstep};

const WORDS: usize = (NODE_MEM_BYTES / 8) as usize;

fn run(seed: u64, cycles: u64, rate: f64, reset_rate: f64) -> (NodeMemDriver, NodeMemModel) {
    run_with(seed, cycles, rate, reset_rate, false)
}

fn run_with(
    seed: u64,
    cycles: u64,
    rate: f64,
    reset_rate: f64,
    huge: bool,
) -> (NodeMemDriver, NodeMemModel) {
    let mut m = NodeMemModel::new(WORDS);
    let mut stim = NodeMemDriver::new(seed, WORDS);
    stim.rate = rate;
    stim.huge = huge;
    let opts = LockstepOptions::with_resets(cycles, reset_rate, seed);
    if let Err(e) = lockstep(&mut m, &VNodeMem::new, &mut stim, &opts) {
        panic!("{e}");
    }
    (stim, m)
}

#[test]
fn node_mem_lockstep_one_million_cycles() {
    let (s, _) = run(2026, 1_000_000, 0.7, 0.0);
    eprintln!(
        "{} reads, {} beats read, {} beats written, {} word accesses",
        s.reads, s.beats_read, s.beats_written, s.words
    );
    assert!(s.reads > 20_000 && s.beats_read > 50_000, "reads {} beats {}", s.reads, s.beats_read);
    assert!(s.beats_written > 50_000 && s.words > 50_000);
}

#[test]
fn node_mem_lockstep_with_resets() {
    run(7, 200_000, 1.0, 2e-4);
    run(8, 200_000, 0.3, 2e-4);
}

/// A read of 2^21 + 5 bytes (262,145 zero beats, its end wrapping 21 bits) and a write
/// burst of 2^19 + 61 bytes (65,544 beats: inside for 8,192, then dropped, past the beat
/// counter's 16 bits).
#[test]
fn node_mem_lockstep_huge_requests() {
    // `cnt_oob` (16 bits, wrapping) is compared with the model's every cycle.
    let (s, _) = run_with(11, 400_000, 1.0, 0.0, true);
    assert!(
        s.beats_read > 262_145 && s.beats_written > 65_544,
        "{} {}",
        s.beats_read,
        s.beats_written
    );
}

/// A model with one deliberate bug: a request's last beat keeps all its bytes.
struct WholeLastBeat(NodeMemModel);

impl CycleModel for WholeLastBeat {
    type In = NodeMemIn;
    type Out = NodeMemOut;
    fn outputs(&self, i: &NodeMemIn) -> NodeMemOut {
        let mut o = self.0.outputs(i);
        if o.m_axis_rddata_tvalid && o.m_axis_rddata_tlast {
            o.m_axis_rddata_tkeep = 0xFF;
        }
        o
    }
    fn clock(&mut self, i: &NodeMemIn) {
        self.0.clock(i)
    }
}

#[test]
fn lockstep_catches_a_wrong_last_keep() {
    let dir = std::env::temp_dir().join(format!("sanswitch-node-mem-bug-{}", std::process::id()));
    let opts = LockstepOptions {
        vcd_window: 100,
        vcd_dir: Some(dir.clone()),
        ..LockstepOptions::with_resets(100_000, 0.0, 3)
    };
    let m = sanswitch_sim::assert_lockstep_catches(
        &|| WholeLastBeat(NodeMemModel::new(WORDS)),
        std::rc::Rc::new(|| NodeMemModel::new(WORDS)),
        &VNodeMem::new,
        &|| NodeMemDriver::new(3, WORDS),
        &opts,
    );
    assert_eq!(m.port, "m_axis_rddata_tkeep");
    assert_eq!(m.model, 0xFF);
    let _ = std::fs::remove_dir_all(dir);
}
