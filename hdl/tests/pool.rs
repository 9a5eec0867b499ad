//! The pool manager in rust-hdl's own simulator, against its cycle model; and its Verilog.

use sanswitch_hdl::pool::PoolManager;
use sanswitch_hdl::{BlockName, EngineParams, rhsim, verilog, yosys_validate_block};
use sanswitch_model::blocks::pool::PoolModel;
use sanswitch_model::blocks::pool_stimulus::PoolDriver;
use sanswitch_model::params::PoolParams;

/// 16 connections: the state RAM has 4 address bits.
fn lockstep(p: PoolParams, seed: u64, cycles: u64) {
    assert_eq!(p.addr_bits(), 4);
    let drv = PoolDriver::new(seed, p, 0.15);
    rhsim::lockstep_with_resets(PoolManager::<4>::new(&p), PoolModel::new(p), drv, cycles, 500)
        .unwrap();
}

#[test]
fn pool_matches_model_in_rust_hdl_simulator() {
    lockstep(PoolParams::default(), 21, 3000);
}

#[test]
fn pool_small_pools_match_model_in_rust_hdl_simulator() {
    let p = PoolParams { connections: 12, send_bufs: 2, recv_bufs: 4 };
    lockstep(p, 22, 2000);
}

#[test]
fn pool_verilog_passes_yosys_validate() {
    for connections in [16, 64, 256] {
        let p = EngineParams {
            pool: PoolParams { connections, ..PoolParams::default() },
            ..EngineParams::default()
        };
        let v = verilog(BlockName::Pool, &p);
        assert!(v.contains("module pool("));
        yosys_validate_block(BlockName::Pool, &v).unwrap();
    }
}
