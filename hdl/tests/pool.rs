//! The pool manager in rust-hdl's own simulator, against its cycle model; and its Verilog.

use sanswitch_hdl::{BlockName, EngineParams, rhsim, verilog, yosys_validate_block};
use sanswitch_model::params::PoolParams;

#[test]
fn pool_matches_model_in_rust_hdl_simulator() {
    rhsim::pool_lockstep(&PoolParams::default(), 21, 3000).unwrap();
}

#[test]
fn pool_small_pools_match_model_in_rust_hdl_simulator() {
    let p = PoolParams { connections: 12, send_bufs: 2, recv_bufs: 4 };
    rhsim::pool_lockstep(&p, 22, 2000).unwrap();
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
