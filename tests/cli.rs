//! The `sanswitch` binary, run as a user would: scenarios, JSON, and refused input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn sanswitch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sanswitch"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run the sanswitch binary")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn scenarios() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("scenarios/ exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    v
}

/// A scratch file for this test binary (one name per test, so tests can run in parallel).
fn scratch(name: &str, contents: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&p, contents).expect("write scratch file");
    p
}

#[test]
fn every_scenario_runs_intact() {
    let files = scenarios();
    let names: Vec<String> =
        files.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().into()).collect();
    for want in ["default.toml", "write-mode.toml", "faults.toml", "abort.toml"] {
        assert!(names.iter().any(|n| n == want), "scenarios/{want} missing: {names:?}");
    }
    for f in &files {
        let path = f.to_str().expect("utf-8 path");
        let out = sanswitch(&["simulate", "--scenario", path, "--sends", "12", "--quiet"]);
        let stdout = text(&out.stdout);
        assert!(
            out.status.success(),
            "{path}: exit {:?}\nstdout:\n{stdout}\nstderr:\n{}",
            out.status.code(),
            text(&out.stderr)
        );
        assert_eq!(stdout.lines().last(), Some("intact: yes"), "{path}:\n{stdout}");
        assert!(stdout.contains("paths: copy"), "{path}: no per-direction lines:\n{stdout}");
        assert!(stdout.contains("Gbit/s"), "{path}: no throughput:\n{stdout}");
    }
}

#[test]
fn json_summary_parses_and_is_intact() {
    let out = sanswitch(&["simulate", "--sends", "8", "--connections", "3", "--json"]);
    assert!(out.status.success(), "stderr:\n{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["intact"], serde_json::Value::Bool(true), "{v:#}");
    assert_eq!(v["directions"].as_array().map(Vec::len), Some(6), "3 connections x 2");
    assert!(v["problems"].as_array().is_some_and(Vec::is_empty));
    assert!(v["fabric"]["messages"].is_array());
}

#[test]
fn flags_override_the_scenario_file() {
    let out = sanswitch(&[
        "simulate",
        "--scenario",
        "scenarios/write-mode.toml",
        "--seed",
        "77",
        "--sends",
        "6",
        "--connections",
        "1",
        "--json",
    ]);
    assert!(out.status.success(), "stderr:\n{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["seed"], 77);
    let dirs = v["directions"].as_array().expect("directions");
    assert_eq!(dirs.len(), 2);
    for d in dirs {
        assert_eq!(d["sends"], 6);
        // The file's rdma_read = [false, false] still holds: nothing goes by RDMA read.
        assert_eq!(d["sender"]["sends_read"], 0, "{d:#}");
    }
}

#[test]
fn bad_toml_is_refused_with_exit_2() {
    let p = scratch("bad-syntax.toml", "seed = 1\nsends = [oops\n");
    let out = sanswitch(&["simulate", "--scenario", p.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.contains("bad scenario file"), "{stderr}");
    assert!(stderr.contains("bad-syntax.toml"), "{stderr}");
    assert!(out.stdout.is_empty());

    let p = scratch("unknown-key.toml", "seed = 1\nsendz = 5\n");
    let out = sanswitch(&["simulate", "--scenario", p.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.contains("unknown field `sendz`"), "{stderr}");

    let p = scratch("wrong-type.toml", "[endpoint]\nrecv_bufs = \"many\"\n");
    let out = sanswitch(&["simulate", "--scenario", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{}", text(&out.stderr));

    let out = sanswitch(&["simulate", "--scenario", "scenarios/no-such-file.toml"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.contains("cannot read scenario file"), "{stderr}");
}

#[test]
fn impossible_config_is_refused() {
    let out = sanswitch(&["simulate", "--recv-bufs", "2"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.contains("endpoint.recv_bufs (--recv-bufs) must be at least 4"), "{stderr}");
    assert!(out.stdout.is_empty());

    for args in [
        &["--urgent-share", "1.5"][..],
        &["--link-gbps", "0"],
        &["--connections", "0"],
        &["--buf-size", "8192", "--rdma-threshold", "4096"],
        &["--abort", "5:0:10"],
        &["--max-size", "18446744073709551615"],
    ] {
        let mut all = vec!["simulate"];
        all.extend_from_slice(args);
        let out = sanswitch(&all);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: stderr:\n{stderr}");
        assert!(stderr.contains("impossible workload"), "{args:?}: {stderr}");
    }

    // Malformed flag values are refused by the argument parser, also with exit 2.
    for args in [&["--abort", "0:2:10"][..], &["--read0", "maybe"], &["--sends", "-3"]] {
        let mut all = vec!["simulate"];
        all.extend_from_slice(args);
        let out = sanswitch(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}: stderr:\n{}", text(&out.stderr));
    }
}

#[test]
fn a_run_that_is_not_intact_exits_1() {
    // A time limit of 1 ns stops the run at its first event with requests still open.
    let p = scratch("too-short.toml", "sends = 4\ntime_limit_ns = 1\n");
    let out = sanswitch(&["simulate", "--scenario", p.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "stdout:\n{stdout}\nstderr:\n{}", text(&out.stderr));
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("intact: NO"), "{stdout}");
    assert!(stdout.contains("time limit"), "{stdout}");
}

#[test]
fn abort_scenario_aborts_and_stays_intact() {
    let out = sanswitch(&["simulate", "--scenario", "scenarios/abort.toml", "--json"]);
    assert!(out.status.success(), "stderr:\n{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["intact"], true, "{v:#}");
    let c = &v["completions"];
    assert!(c["WSA_OPERATION_ABORTED"].as_u64().is_some_and(|n| n > 0), "no abort: {c}");
    assert!(c["WSAECONNRESET"].as_u64().is_some_and(|n| n > 0), "no reset at the peer: {c}");
    // Connection 1 is untouched: everything offered arrived.
    for d in v["directions"].as_array().expect("directions") {
        if d["conn"] == 1 {
            assert_eq!(d["bytes_offered"], d["bytes_received"], "{d:#}");
        }
    }
}

/// `simulate` with `args`: refused with exit 2, nothing on stdout, and every one of `names`
/// (keys and flags) in the message.
fn assert_refused(args: &[&str], names: &[&str]) -> String {
    let mut all = vec!["simulate", "--quiet"];
    all.extend_from_slice(args);
    let out = sanswitch(&all);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: stderr:\n{stderr}");
    assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
    for n in names {
        assert!(stderr.contains(n), "{args:?}: `{n}` not named:\n{stderr}");
    }
    stderr
}

/// `simulate --json` with `args`: accepted (not exit 2); returns the exit status and summary.
fn run_json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut all = vec!["simulate", "--quiet", "--json"];
    all.extend_from_slice(args);
    let out = sanswitch(&all);
    assert_ne!(out.status.code(), Some(2), "{args:?}: refused:\n{}", text(&out.stderr));
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e}):\n{}", text(&out.stdout)));
    (out.status.code(), v)
}

fn assert_intact(args: &[&str]) -> serde_json::Value {
    let (code, v) = run_json(args);
    assert_eq!(code, Some(0), "{args:?}: {v:#}");
    assert_eq!(v["intact"], true, "{args:?}: {v:#}");
    v
}

#[test]
fn buffer_ids_limit_send_plus_receive_buffers_to_65536() {
    // A buffer id is 16 bits and numbers send and receive buffers together.
    assert_intact(&[
        "--send-bufs",
        "2",
        "--recv-bufs",
        "65534",
        "--sends",
        "4",
        "--connections",
        "1",
    ]);
    assert_refused(
        &["--send-bufs", "3", "--recv-bufs", "65534"],
        &["endpoint.send_bufs (--send-bufs)", "endpoint.recv_bufs (--recv-bufs)", "65536"],
    );
    let p = scratch("bufs.toml", "[endpoint]\nsend_bufs = 65533\nrecv_bufs = 4\n");
    assert_refused(&["--scenario", p.to_str().unwrap()], &["endpoint.send_bufs", "65536"]);
    let p = scratch(
        "bufs-ok.toml",
        "sends = 4\nconnections = 1\n[endpoint]\nsend_bufs = 65532\nrecv_bufs = 4\n",
    );
    assert_intact(&["--scenario", p.to_str().unwrap()]);
}

#[test]
fn latency_beyond_the_clock_is_refused() {
    // 2^61 ns is accepted and runs without wrapping: the first message lands after 2^61 ns,
    // past the time limit (exit 1, not 2).
    let (code, v) = run_json(&["--latency-ns", "2305843009213693952", "--sends", "2"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert!(v["sim_time_ns"].as_u64().is_some_and(|t| t >= 1 << 61), "{v:#}");
    assert!(v["problems"].to_string().contains("time limit"), "{v:#}");
    assert_refused(
        &["--latency-ns", "2305843009213693953"],
        &["fabric.latency_ns (--latency-ns)", "2305843009213693952"],
    );
    assert_refused(&["--latency-ns", "18446744073709551615"], &["--latency-ns"]);
}

#[test]
fn link_rates_beyond_the_clock_are_refused() {
    // With 64 KiB RDMA segments the slowest link takes 2^62 ns for one: 2^-43 Gbit/s.
    let slowest = 2f64.powi(-43);
    let (code, v) = run_json(&["--link-gbps", &slowest.to_string(), "--sends", "2"]);
    assert_eq!(code, Some(1), "{v:#}");
    assert!(v["problems"].to_string().contains("time limit"), "{v:#}");
    let slower = f64::from_bits(slowest.to_bits() - 1);
    assert_refused(
        &["--link-gbps", &slower.to_string()],
        &["fabric.link_gbps (--link-gbps)", "1.1368683772161603e-13", "endpoint.rdma_segment"],
    );
    for bad in ["0", "-1", "inf", "NaN"] {
        assert_refused(&["--link-gbps", bad], &["fabric.link_gbps (--link-gbps)"]);
    }
}

#[test]
fn time_limit_beyond_the_clock_is_refused() {
    let p = scratch("limit-ok.toml", "sends = 4\ntime_limit_ns = 4611686018427387904\n");
    assert_intact(&["--scenario", p.to_str().unwrap()]);
    let p = scratch("limit-past.toml", "sends = 4\ntime_limit_ns = 4611686018427387905\n");
    assert_refused(&["--scenario", p.to_str().unwrap()], &["time_limit_ns", "4611686018427387904"]);
}

#[test]
fn bytes_in_flight_are_bounded() {
    // connections x 2 x sends_outstanding x max_size = 1 x 2 x 2^21 x 1024 = 2^32.
    let p = scratch(
        "in-flight.toml",
        "connections = 1\nsends = 4\nsends_outstanding = 2097152\nmax_size = 1024\n",
    );
    let p = p.to_str().unwrap();
    assert_intact(&["--scenario", p]);
    assert_refused(
        &["--scenario", p, "--max-size", "1025"],
        &[
            "connections (--connections)",
            "sends_outstanding",
            "max_size (--max-size)",
            "4294967296",
        ],
    );
    assert_refused(&["--scenario", p, "--connections", "2"], &["connections (--connections)"]);
}

#[test]
fn largest_send_is_bounded() {
    // 1 GiB is accepted (no sends, so nothing is made); one byte more is refused.
    let p = scratch("largest.toml", "connections = 1\nsends_outstanding = 1\nsends = 0\n");
    let p = p.to_str().unwrap();
    assert_intact(&["--scenario", p, "--max-size", "1073741824"]);
    assert_refused(
        &["--scenario", p, "--max-size", "1073741825"],
        &["max_size (--max-size) must be at most 1073741824"],
    );
}

#[test]
fn rdma_read_takes_exactly_two_entries() {
    let p = scratch("read-two.toml", "sends = 4\nrdma_read = [true, false]\n");
    assert_intact(&["--scenario", p.to_str().unwrap()]);
    for (name, list) in [("read-three.toml", "[true, false, true]"), ("read-one.toml", "[true]")] {
        let p = scratch(name, &format!("rdma_read = {list}\n"));
        assert_refused(&["--scenario", p.to_str().unwrap()], &["rdma_read must have exactly 2"]);
    }
}

#[test]
fn endpoint_keys_the_workload_sets_are_refused() {
    for (key, instead) in [("rdma_read = false", "rdma_read"), ("initial_seq = 7", "seq_near_wrap")]
    {
        let p = scratch("ep-keys.toml", &format!("[endpoint]\n{key}\n"));
        let name = key.split(' ').next().unwrap();
        assert_refused(
            &["--scenario", p.to_str().unwrap()],
            &[&format!("endpoint.{name} does nothing"), instead],
        );
    }
}

#[test]
fn fault_seed_draws_other_faults() {
    let run = |extra: &[&str]| {
        let mut args = vec!["--scenario", "scenarios/faults.toml", "--sends", "30"];
        args.extend_from_slice(extra);
        assert_intact(&args)
    };
    let base = run(&[]);
    let zero = run(&["--fault-seed", "0"]);
    assert_eq!(zero, base, "fault seed 0 is the default");
    let other = run(&["--fault-seed", "5"]);
    assert_ne!(other["fabric"], base["fabric"], "--fault-seed changed nothing");
    assert_eq!(other["directions"][0]["bytes_offered"], base["directions"][0]["bytes_offered"]);
    // The scenario key does the same as the flag.
    let text = std::fs::read_to_string("scenarios/faults.toml").expect("faults.toml");
    let p =
        scratch("fault-seed.toml", &text.replace("[fabric.faults]", "[fabric.faults]\nseed = 5"));
    let keyed = assert_intact(&["--scenario", p.to_str().unwrap(), "--sends", "30"]);
    assert_eq!(keyed, other);
}

#[test]
fn negative_numbers_name_their_flag() {
    for flag in [
        "--seed",
        "--connections",
        "--sends",
        "--max-size",
        "--recv-bufs",
        "--send-bufs",
        "--buf-size",
        "--rdma-threshold",
        "--latency-ns",
        "--reg-capacity",
        "--fault-seed",
    ] {
        let stderr = assert_refused(&[flag, "-3"], &[&format!("'{flag} <")]);
        assert!(stderr.contains("not a negative one"), "{flag}: {stderr}");
        // 0 is where the numbers start: not refused as a number (it may make an impossible
        // workload, which is then named by its key).
        let out = sanswitch(&["simulate", "--quiet", "--sends", "0", flag, "0"]);
        assert!(!text(&out.stderr).contains("whole number"), "{flag} 0: {}", text(&out.stderr));
    }
    for flag in ["--urgent-share", "--link-gbps", "--reg-fail-rate", "--nomem-rate"] {
        assert_refused(&[flag, "-0.5"], &[&format!("({flag})")]);
    }
    assert_refused(&["--rdma-error-rate", "-0.5"], &["(--rdma-error-rate)"]);
    assert_refused(&["--abort", "-1:0:3"], &["--abort", "CONN `-1`"]);
    // The other commands' numbers too.
    for args in
        [&["generate", "--out", "unused", "--connections", "-3"][..], &["bench", "--cycles", "-3"]]
    {
        let out = sanswitch(args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&format!("'{} <", args[args.len() - 2])), "{args:?}: {stderr}");
    }
}

/// The cycle model and the Verilated engines take exactly the same number of cycles for the
/// same workload (the rtl backend runs the HDL alone, the model backend the cycle model alone),
/// and both deliver everything: the copy path, and sends above the default threshold by RDMA
/// read into node 0 (which reads) and by RDMA write into node 1 (which does not).
#[test]
fn engine_backends_agree_to_the_cycle() {
    let scenario = scratch("mixed-read.toml", "rdma_read = [true, false]\n");
    let args = [
        "--scenario",
        scenario.to_str().unwrap(),
        "--sends",
        "10",
        "--connections",
        "2",
        "--max-size",
        "60000",
        "--seed",
        "5",
    ];
    let mut m = vec!["--backend", "model"];
    m.extend_from_slice(&args);
    let mut r = vec!["--backend", "rtl"];
    r.extend_from_slice(&args);
    let vm = assert_intact(&m);
    let vr = assert_intact(&r);
    let cm = vm["engine"]["cycles"].as_u64().expect("engine.cycles");
    assert!(cm > 0, "{vm:#}");
    assert_eq!(Some(cm), vr["engine"]["cycles"].as_u64(), "model {vm:#}\nrtl {vr:#}");
    assert_eq!(vm["engine"]["san_beats"], vr["engine"]["san_beats"]);
    assert_eq!(vm["engine"]["received_bytes"], vr["engine"]["received_bytes"]);
    assert_eq!(vm["engine"]["rdma_bytes"], vr["engine"]["rdma_bytes"]);
    for n in 0..2 {
        let b = vr["engine"]["rdma_bytes"][n].as_u64().expect("rdma_bytes");
        assert!(b > 0, "node {n}: nothing moved by RDMA: {vr:#}");
    }
    assert_eq!(vm["engine"]["backend"], "model");
    assert_eq!(vr["engine"]["backend"], "rtl");
    // Throughput is what was received over the cycles counted, at the clock given.
    let bpc = vm["engine"]["bytes_per_cycle"].as_f64().expect("bytes_per_cycle");
    let got = vm["engine"]["received_bytes"].as_u64().expect("received_bytes") as f64;
    assert!((bpc - got / cm as f64).abs() < 1e-9, "{vm:#}");
    let gbps = vm["engine"]["gbps"].as_f64().expect("gbps");
    assert!((gbps - bpc * 8.0 * 125e6 / 1e9).abs() < 1e-9, "{vm:#}");
}

/// Lockstep: model and HDL checked cycle by cycle under port backpressure, with an abort
/// mid-traffic; the other connections still deliver everything.
#[test]
fn engine_lockstep_with_stalls_and_an_abort_stays_intact() {
    let v = assert_intact(&[
        "--backend",
        "lockstep",
        "--sends",
        "8",
        "--connections",
        "2",
        "--max-size",
        "5000",
        "--stall",
        "0.3",
        "--abort",
        "0:1:3",
    ]);
    assert!(v["engine"]["cycles"].as_u64().is_some_and(|c| c > 0), "{v:#}");
}

/// The clock turns the SAN's latency in ns into cycles; with that fixed, a clock twice as
/// fast gives the same cycles and twice the Gbit/s.
#[test]
fn engine_clock_scales_the_latency_and_the_rate() {
    let run = |mhz, ns| {
        assert_intact(&[
            "--backend",
            "model",
            "--sends",
            "6",
            "--clock-mhz",
            mhz,
            "--latency-ns",
            ns,
        ])
    };
    let (a, b) = (run("100", "2000"), run("200", "2000"));
    assert_eq!(a["engine"]["san_latency_cycles"], 200);
    assert_eq!(b["engine"]["san_latency_cycles"], 400);
    let (a, b) = (run("100", "0"), run("200", "0"));
    assert_eq!(a["engine"]["san_latency_cycles"], 1, "at least one cycle");
    assert_eq!(a["engine"]["cycles"], b["engine"]["cycles"]);
    let (ga, gb) = (a["engine"]["gbps"].as_f64().unwrap(), b["engine"]["gbps"].as_f64().unwrap());
    assert!((gb - 2.0 * ga).abs() < 1e-9 * gb.max(1.0), "{ga} {gb}");
}

#[test]
fn engine_limits_are_refused_at_the_boundary() {
    // 16 connections fit; 17 do not.
    assert_intact(&["--backend", "model", "--sends", "1", "--connections", "16"]);
    assert_refused(
        &["--backend", "model", "--sends", "1", "--connections", "17"],
        &["connections"],
    );
    // The Verilated engine is built at its defaults; the model takes other buffer sizes.
    assert_refused(&["--backend", "rtl", "--buf-size", "2048"], &["--buf-size"]);
    assert_intact(&["--backend", "model", "--sends", "4", "--buf-size", "2048"]);
    // Clock and stall ranges, at and past the edge.
    assert_intact(&["--backend", "model", "--sends", "1", "--clock-mhz", "1000"]);
    assert_refused(&["--backend", "model", "--clock-mhz", "1000.5"], &["--clock-mhz"]);
    assert_refused(&["--backend", "model", "--clock-mhz", "0"], &["--clock-mhz"]);
    assert_intact(&["--backend", "model", "--sends", "2", "--stall", "0.95"]);
    assert_refused(&["--backend", "model", "--stall", "0.96"], &["--stall"]);
}

#[test]
fn loopback_checks_every_byte_on_both_transports() {
    for t in ["model", "sim"] {
        let out = sanswitch(&[
            "loopback",
            "--transport",
            t,
            "--bytes",
            "60000",
            "--connections",
            "2",
            "--quiet",
        ]);
        let s = text(&out.stdout);
        assert!(out.status.success(), "{t}: {}{}", s, text(&out.stderr));
        assert!(s.contains("240000 B checked both ways"), "{t}: {s}");
        assert!(s.contains("B/cycle") && s.contains("commands per doorbell"), "{t}: {s}");
    }
    // Every queue pair of the NIC, one endpoint each.
    let qps = sanswitch_model::regs::QUEUE_PAIRS.to_string();
    let out = sanswitch(&[
        "loopback",
        "--queue-pairs",
        &qps,
        "--connections",
        "6",
        "--bytes",
        "30000",
        "--quiet",
    ]);
    let s = text(&out.stdout);
    assert!(out.status.success(), "{}{}", s, text(&out.stderr));
    assert!(s.contains(&format!("6 connections on {qps} queue pair(s)")), "{s}");
    assert!(s.contains("360000 B checked both ways"), "{s}");
}

#[test]
fn loopback_refuses_bad_flags_with_exit_2() {
    let past_last_qp = (sanswitch_model::regs::QUEUE_PAIRS + 1).to_string();
    for args in [
        &["loopback", "--connections", "0"][..],
        &["loopback", "--connections", "17"],
        &["loopback", "--max-write", "0"],
        &["loopback", "--aborts", "5", "--connections", "4"],
        &["loopback", "--stall", "0.95"],
        &["loopback", "--clock-mhz", "0"],
        &["loopback", "--queue-pairs", "0"],
        &["loopback", "--queue-pairs", &past_last_qp],
    ] {
        let out = sanswitch(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
    }
}

/// `board --emulate`: the driver's loopback through the bridge protocol with no board, every
/// byte checked; the figures printed.
#[test]
fn board_emulated_runs_the_loopback_through_the_bridge_protocol() {
    let out =
        sanswitch(&["board", "--emulate", "--quiet", "--bytes", "30000", "--connections", "3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("3 connections, 180000 B checked both ways"), "{s}");
    assert!(s.contains("bridge transactions"), "{s}");
}

/// Without a bitstream, a library or a board, `board` says which is missing and how to get
/// it: exit 2 for what the user gave, 1 for what the machine lacks.
#[test]
fn board_says_what_is_missing() {
    let out = sanswitch(&["board"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--bitfile"));
    let out = sanswitch(&["board", "--bitfile", "/nonexistent/top.bit"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("fpga/xem7010/build.tcl"), "{}", text(&out.stderr));
    for args in [
        &["board", "--emulate", "--connections", "0"][..],
        // One past the board NICs' 4 connections; 4 itself needs more memory than a node's.
        &["board", "--emulate", "--connections", "5"],
        &["board", "--emulate", "--connections", "4"],
    ] {
        let out = sanswitch(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains("--connections"), "{}", text(&out.stderr));
    }
    let bit = std::env::temp_dir().join(format!("sanswitch-board-{}.bit", std::process::id()));
    std::fs::write(&bit, b"not a bitstream").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sanswitch"))
        .args(["board", "--bitfile"])
        .arg(&bit)
        .env("SANSWITCH_FRONTPANEL_LIB", "/nonexistent/libokFrontPanel.so")
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&bit);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let e = text(&out.stderr);
    assert!(e.contains("FrontPanel library") && e.contains("Install the FrontPanel SDK"), "{e}");
}

/// Hardware in the loop: the loopback on a real XEM7010. Ignored in CI (no board); run it with
/// `SANSWITCH_BOARD_SERIAL=<serial> SANSWITCH_BOARD_BITFILE=<top.bit> cargo test --release
/// --test cli -- --ignored board_on_hardware`, FrontPanel's library on the loader's path.
#[test]
#[ignore = "needs an XEM7010 named by SANSWITCH_BOARD_SERIAL and SANSWITCH_BOARD_BITFILE"]
fn board_on_hardware() {
    let var =
        |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("set {k}: this test needs a board"));
    let (serial, bitfile) = (var("SANSWITCH_BOARD_SERIAL"), var("SANSWITCH_BOARD_BITFILE"));
    let out = sanswitch(&["board", "--bitfile", &bitfile, "--serial", &serial, "--quiet"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("B checked both ways"), "{}", text(&out.stdout));
}
