//! Seeded random workloads: every byte exactly once and in order, every request completed
//! exactly once with the right status.

use sanswitch_model::workload::{Workload, run};

fn assert_intact(w: &Workload) {
    let s = run(w, &mut |_, _| {});
    assert!(s.intact, "seed {}: {:#?}", w.seed, s.problems);
}

#[test]
fn random_workload_mixed_capabilities() {
    for seed in 1..=4 {
        assert_intact(&Workload { seed, sends: 60, ..Workload::default() });
    }
}
