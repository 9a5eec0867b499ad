//! The host interface and the board's blocks (FrontPanel bridge, node memory, on-chip SAN
//! loopback) in rust-hdl's own simulator, each against its cycle model, every port every
//! cycle, with the same stimuli as their Verilator locksteps (`sanswitch-sim`), random
//! backpressure and resets mid-run.
//!
//! Short runs (the Verilator locksteps are the long ones); they are here so that `cargo
//! mutants`, which runs this crate's tests, sees every change to these blocks.

use sanswitch_hdl::{board, hostif, rhsim};
use sanswitch_model::blocks::bridge::BridgeModel;
use sanswitch_model::blocks::bridge_stimulus::BridgeDriver;
use sanswitch_model::blocks::hostif::HostIf;
use sanswitch_model::blocks::hostif_stimulus::HostIfDriver;
use sanswitch_model::blocks::node_mem::NodeMemModel;
use sanswitch_model::blocks::node_mem_stimulus::NodeMemDriver;
use sanswitch_model::blocks::san_loop::SanLoopModel;
use sanswitch_model::blocks::san_loop_stimulus::SanLoopDriver;
use sanswitch_model::bridge::NODE_MEM_BYTES;
use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::HostParams;

const WORDS: usize = (NODE_MEM_BYTES / 8) as usize;

#[test]
fn hostif_matches_model_in_rust_hdl_simulator() {
    let (p, h) = (EngineParams::default(), HostParams::default());
    for (seed, rate) in [(1, 0.7), (2, 0.2)] {
        let mut stim = HostIfDriver::new(seed, &h);
        stim.rate = rate;
        let uut = hostif::HostIf::<{ hostif::QUEUE_PAIRS }>::new(&p, &h);
        let s = rhsim::lockstep_with_resets(uut, HostIf::new(&p, &h), stim, 20_000, 3_000).unwrap();
        // Doorbells at the ring's end as the fetch moves the consumer pointer: without them
        // the check's choice of pointer (`QpRegs`'s `took`) goes unseen.
        assert!(s.edge_doorbells > 0, "seed {seed}: no doorbell at a moving ring end");
    }
}

#[test]
fn bridge_matches_model_in_rust_hdl_simulator() {
    for (seed, rate) in [(1, 0.7), (2, 0.2)] {
        let mut stim = BridgeDriver::new(seed, NODE_MEM_BYTES);
        stim.rate = rate;
        let uut = board::Bridge::new(NODE_MEM_BYTES);
        let s =
            rhsim::lockstep_with_resets(uut, BridgeModel::new(NODE_MEM_BYTES), stim, 20_000, 3_000)
                .unwrap();
        assert!(s.counts.checked_words > 0, "{:?}", s.counts);
    }
}

#[test]
fn node_mem_matches_model_in_rust_hdl_simulator() {
    for (seed, rate, huge) in [(1, 0.7, false), (2, 0.2, false), (3, 0.7, true)] {
        let mut stim = NodeMemDriver::new(seed, WORDS);
        stim.rate = rate;
        stim.huge = huge;
        let uut = board::NodeMem::new(WORDS);
        let s = rhsim::lockstep_with_resets(uut, NodeMemModel::new(WORDS), stim, 20_000, 3_000)
            .unwrap();
        assert!(s.beats_read > 0 && s.beats_written > 0, "seed {seed}");
    }
}

#[test]
fn san_loop_matches_model_in_rust_hdl_simulator() {
    for (seed, rate) in [(1, 0.7), (2, 0.2)] {
        let mut stim = SanLoopDriver::new(seed, WORDS as u32);
        stim.rate = rate;
        let uut = board::SanLoop::new(WORDS);
        rhsim::lockstep_with_resets(uut, SanLoopModel::new(WORDS as u32), stim, 20_000, 3_000)
            .unwrap();
    }
}
