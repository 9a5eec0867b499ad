//! `sanswitch bench --json`: one flat object with every figure, the parser at one beat per
//! cycle with a short header latency (the command itself fails if the Verilated parser and
//! its model disagree on a figure).

use std::process::Command;

use sanswitch_hdl::tools::require_yosys;
use serde_json::Value;

const KEYS: [&str; 11] = [
    "parser.beats_per_cycle",
    "parser.latency_cycles",
    "parser.data_latency_cycles",
    "parser.luts",
    "parser.ffs",
    "parser.lut_levels",
    "parser.logic_levels",
    "sim.verilator_cycles_per_s",
    "sim.model_cycles_per_s",
    "sim.rust_hdl_cycles_per_s",
    "sim.verilator_over_rust_hdl",
];

#[test]
fn bench_json_has_every_figure() {
    // The area figures come from Yosys: without it they would be null and unchecked.
    require_yosys();
    let out = Command::new(env!("CARGO_BIN_EXE_sanswitch"))
        .args(["bench", "--json", "--cycles", "200000"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run the sanswitch binary");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}\nstderr:\n{stderr}", out.status.code());
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON object");
    let obj = v.as_object().expect("a JSON object");
    for (k, x) in obj {
        assert!(!x.is_object() && !x.is_array(), "not flat: {k} = {x}");
    }
    for k in KEYS {
        assert!(obj.contains_key(k), "missing {k}: {v:#}");
    }

    assert_eq!(v["parser.beats_per_cycle"].as_f64(), Some(1.0), "{v:#}");
    let lat = v["parser.latency_cycles"].as_u64().expect("latency is an integer");
    assert!((1..=8).contains(&lat), "latency {lat}: {v:#}");
    assert!(v["parser.data_latency_cycles"].as_u64().is_some_and(|d| d >= 1), "{v:#}");

    for k in ["parser.luts", "parser.ffs", "parser.lut_levels", "parser.logic_levels"] {
        assert!(v[k].as_u64().is_some_and(|n| n > 0), "{k}: {v:#}");
    }
    for k in KEYS.iter().filter(|k| k.starts_with("sim.")) {
        assert!(v[*k].as_f64().is_some_and(|s| s.is_finite() && s > 0.0), "{k}: {v:#}");
    }

    // The three blocks together, below the 4,155 LUTs they took while their counters were
    // still ports (LUT-RAM cells are counted apart, and reported).
    let luts = |b: &str| v[format!("{b}.luts")].as_u64().expect("a LUT count");
    let total = v["blocks.luts"].as_u64().expect("blocks.luts");
    assert_eq!(total, luts("parser") + luts("pool") + luts("sequencer"), "{v:#}");
    assert!(total < 4_155, "the three blocks take {total} LUTs: {v:#}");
    assert!(v["blocks.lutram"].as_u64().is_some_and(|n| n > 0), "{v:#}");
    assert!(v["blocks.ffs"].as_u64().is_some_and(|n| n > 0), "{v:#}");

    // The pool manager: one request per cycle across connections; one per two cycles on a
    // single connection (the read-after-write stall).
    assert_eq!(v["pool.ops_per_cycle"].as_f64(), Some(1.0), "{v:#}");
    assert_eq!(v["pool.same_connection_ops_per_cycle"].as_f64(), Some(0.5), "{v:#}");
    // The sequencer's budgets.
    for k in ["sequencer.read_beats_per_cycle", "sequencer.write_beats_per_cycle"] {
        assert!(v[k].as_f64().is_some_and(|b| b >= 0.95), "{k}: {v:#}");
    }
    // From the advertisement's arrival (REGISTER of the landing region offered) to the first
    // RDMA read: the architecture's budget of 8 cycles.
    assert!(v["sequencer.adv_to_read_cycles"].as_u64().is_some_and(|c| c <= 8), "{v:#}");
    assert!(v["sequencer.start_to_read_cycles"].as_u64().is_some_and(|c| c <= 8), "{v:#}");
    // The sequencer's own issue rate (at most one request every two cycles) and the SAN
    // model's pace (one beat per cycle), reported apart.
    let issue = v["sequencer.issue_requests_per_cycle"].as_f64();
    assert!(issue.is_some_and(|r| r > 0.0 && r <= 0.5), "{v:#}");
    assert!(v["san_model.beats_per_cycle"].as_f64().is_some_and(|r| r > 0.99 && r <= 1.0), "{v:#}");
    assert!(v["sequencer.done_to_complete_cycles"].as_u64().is_some_and(|c| c <= 8), "{v:#}");
    engine_figures(&v);
    for k in ["pool", "sequencer"] {
        for f in ["luts", "ffs", "lut_levels", "bram"] {
            let key = format!("{k}.{f}");
            assert!(obj.contains_key(&key), "missing {key}");
            if f == "lut_levels" {
                assert!(v[&key].as_u64().is_some_and(|n| (1..=8).contains(&n)), "{key}: {v:#}");
            }
        }
    }
}

/// The engine's figures: present, consistent with each other, and within what the link and
/// the SAN model allow. (The goals of the engine issue, within 10% of the beat bound for
/// small sends and 0.95 of the link for the copy path, are not met yet: the controller takes
/// one event at a time; the figures here are what it does today.)
fn engine_figures(v: &Value) {
    let f = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k}: {v:#}"));
    assert_eq!(v["engine.model_agrees"], true, "{v:#}");
    // A 64-byte send is one 80-byte Data message: 10 beats, at most 0.1 sends per cycle.
    assert_eq!(v["engine.small_send_beats"], 10, "{v:#}");
    assert_eq!(f("engine.small_send_beat_bound"), 0.1);
    for k in ["engine.small_sends_per_cycle", "engine.small_sends_16_per_cycle"] {
        assert!(f(k) > 0.0 && f(k) <= 0.1, "{k}: {v:#}");
    }
    // Sixteen connections keep the engine busier than one (one connection waits on its
    // four credits).
    assert!(f("engine.small_sends_16_per_cycle") > f("engine.small_sends_per_cycle"), "{v:#}");
    let share = f("engine.small_sends_16_per_cycle") / 0.1;
    assert!((share - f("engine.small_sends_16_share_of_bound")).abs() < 1e-9, "{v:#}");
    // The events per send by kind add up to the events per send, each side.
    for node in ["sender", "receiver"] {
        let kinds = ["overrun", "header", "sent", "delivered", "command", "pump", "down", "xfer"];
        let sum: f64 = kinds
            .iter()
            .map(|k| f(&format!("engine.small_sends_16_{node}_{k}_events_per_send")))
            .sum();
        let all = f(&format!("engine.small_sends_16_{node}_events_per_send"));
        assert!((sum - all).abs() < 1e-9 && all >= 2.0, "{node}: {v:#}");
    }
    // The copy path: a full 1,024-byte buffer carries 1,008 bytes in 128 beats.
    assert_eq!(f("engine.copy_bytes_per_cycle_bound"), 7.875);
    let copy = f("engine.copy_bytes_per_cycle");
    assert!(copy > 0.0 && copy <= 7.875, "{v:#}");
    let cycles = v["engine.copy_cycles"].as_u64().expect("copy cycles");
    assert!((copy - (1u64 << 20) as f64 / cycles as f64).abs() < 1e-9, "{v:#}");
    assert!(f("engine.copy_bytes_per_cycle_latency_32") <= copy, "{v:#}");
    // Zero-copy, 1 MiB in each mode (the cycle model and the Verilog agree): the link's
    // pace, at least the issue's 0.95, registrations and completion messages counted.
    assert_eq!(v["engine.zero_copy_measured_on"], "model and verilog", "{v:#}");
    for (k, c) in [
        ("engine.read_beats_per_cycle", "engine.read_cycles"),
        ("engine.write_beats_per_cycle", "engine.write_cycles"),
    ] {
        let cycles = v[c].as_u64().expect("cycles");
        assert!((f(k) - (1u64 << 17) as f64 / cycles as f64).abs() < 1e-9, "{k}: {v:#}");
        assert!(f(k) >= 0.95 && f(k) <= 1.0, "{k}: {v:#}");
    }
    // The controller's steps between the advertisement and the first read, and between the
    // last response and the completion message (budgets 8 each, not met yet: they are
    // several events of several cycles; docs/HARDWARE.md): no slower than measured.
    for (k, most) in [("engine.adv_to_read_cycles", 14), ("engine.done_to_complete_cycles", 9)] {
        assert!(v[k].as_u64().is_some_and(|n| n > 0 && n <= most), "{k}: {v:#}");
    }
    for k in [
        "engine.lockstep_cycles_per_s",
        "engine.model_cycles_per_s",
        "engine.verilator_cycles_per_s",
    ] {
        assert!(f(k).is_finite() && f(k) > 0.0, "{k}: {v:#}");
    }
    for k in ["engine.luts", "engine.ffs", "engine.lut_levels"] {
        assert!(v[k].as_u64().is_some_and(|n| n > 0), "{k}: {v:#}");
    }
    assert!(v["engine.bram"].as_f64().is_some(), "{v:#}");

    // The host interface (Verilog and model agreeing) and the driver's batches.
    assert_eq!(v["host.model_agrees"], true, "{v:#}");
    let rate = f("host.fetch_cmds_per_cycle");
    assert!(rate > 0.15 && rate <= 0.25, "4 beats a command: {rate}");
    for k in ["host.doorbell_to_fetch_cycles", "host.cpl_to_memory_cycles"] {
        assert!(v[k].as_u64().is_some_and(|n| (1..=8).contains(&n)), "{k}: {v:#}");
    }
    for k in ["host.commands_per_doorbell", "host.completions_per_poll"] {
        assert!(f(k) >= 1.0, "{k}: {v:#}");
    }
}
