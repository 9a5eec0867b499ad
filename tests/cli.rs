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
