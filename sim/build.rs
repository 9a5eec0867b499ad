//! Builds the Verilated blocks for the co-simulation:
//! 1. asks `sanswitch-hdl` for each block's Verilog (never a copied file) and checks its top
//!    ports against the block's port tables in `sanswitch-model`;
//! 2. verilates it with Debian's Verilator 5 (waivers: `hdl/verilator.vlt`), with VCD tracing
//!    compiled in (switched on only to dump a window after a mismatch);
//! 3. builds Verilator's runtime objects with Verilator's own makefile and archives them
//!    (5.006's `--build` makes no `libverilated.a`);
//! 4. generates and compiles an `extern "C"` shim per block from the port tables, so the
//!    C++ side and the Rust port structs come from the same definition.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

use sanswitch_hdl::{BlockName, EngineParams, VERILATOR_WAIVERS, top_ports, verilog};
use sanswitch_model::blocks::{BLOCKS, BlockPorts};

fn main() {
    println!("cargo:rerun-if-env-changed=VERILATOR");
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let verilator = env::var("VERILATOR").unwrap_or_else(|_| "verilator".into());
    let root = verilator_root(&verilator);
    let jobs = env::var("NUM_JOBS").unwrap_or_else(|_| "2".into());
    let vlt = out.join("verilator.vlt");
    fs::write(&vlt, VERILATOR_WAIVERS).expect("write waivers");

    let params = EngineParams::default();
    let mut shim = String::from(SHIM_HEAD);
    let mut first = true;
    for block in BlockName::ALL {
        let name = block.name();
        let ports = BLOCKS.iter().find(|b| b.name == name).expect("port tables for every block");
        let v = verilog(block, &params);
        check_ports(&v, ports);
        let vfile = out.join(format!("{name}.v"));
        fs::write(&vfile, &v).expect("write verilog");
        let mdir = out.join(format!("vl_{name}"));
        let prefix = format!("V{name}");
        let st = Command::new(&verilator)
            .args(["--cc", "--build", "-j", &jobs, "--prefix", &prefix, "--top-module", name])
            .args(["--trace", "-O3", "--x-assign", "fast", "--x-initial", "fast", "--noassert"])
            .args([
                "-CFLAGS",
                "-fPIC -O2",
                "-MAKEFLAGS",
                "OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2",
            ])
            .arg("-Mdir")
            .arg(&mdir)
            .arg(&vlt)
            .arg(&vfile)
            .status()
            .expect("run verilator (apt-get install verilator)");
        assert!(st.success(), "verilator failed on {name}.v");
        fs::copy(mdir.join(format!("{prefix}__ALL.a")), mdir.join(format!("lib{prefix}__ALL.a")))
            .expect("copy archive");
        println!("cargo:rustc-link-search=native={}", mdir.display());
        println!("cargo:rustc-link-lib=static={prefix}__ALL");
        if first {
            build_runtime(&mdir, &prefix, &jobs);
            first = false;
        }
        write_shim(&mut shim, name, ports);
    }
    let shim_file = out.join("shim.cpp");
    fs::write(&shim_file, &shim).expect("write shim");
    let mut cc = cc::Build::new();
    cc.cpp(true)
        .std("c++17")
        .opt_level(2)
        .include(format!("{root}/include"))
        .include(format!("{root}/include/vltstd"))
        .define("VM_TRACE", "1")
        .file(&shim_file)
        .warnings(false);
    for block in BlockName::ALL {
        cc.include(out.join(format!("vl_{}", block.name())));
    }
    cc.compile("sanswitch_vshim");
    // The runtime after the models and the shim: static libraries resolve left to right.
    println!("cargo:rustc-link-lib=static=verilated_rt");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    println!("cargo:rustc-link-lib=dylib=pthread");
    println!("cargo:rustc-link-lib=dylib=atomic");
}

fn verilator_root(verilator: &str) -> String {
    let o = Command::new(verilator)
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
        .expect("`verilator` not found: apt-get install verilator");
    String::from_utf8(o.stdout).expect("utf-8").trim().to_string()
}

/// The generated Verilog's top ports must be `clock`, then the input table, then the output
/// table, with the same widths.
fn check_ports(v: &str, p: &BlockPorts) {
    let got = top_ports(v);
    let mut want = vec![("input".to_string(), "clock".to_string(), 1)];
    want.extend(p.inputs.iter().map(|i| ("input".into(), i.name.into(), i.width)));
    want.extend(p.outputs.iter().map(|i| ("output".into(), i.name.into(), i.width)));
    assert_eq!(got, want, "{}: Verilog ports differ from the model's port tables", p.name);
}

/// Verilator's runtime objects (verilated.o, verilated_vcd_c.o, ...), built with its makefile.
fn build_runtime(mdir: &Path, prefix: &str, jobs: &str) {
    let classes =
        fs::read_to_string(mdir.join(format!("{prefix}_classes.mk"))).expect("classes.mk");
    let globals: Vec<String> = mk_list(&classes, "VM_GLOBAL_FAST")
        .into_iter()
        .chain(mk_list(&classes, "VM_GLOBAL_SLOW"))
        .map(|g| format!("{g}.o"))
        .collect();
    let st = Command::new("make")
        .arg("-C")
        .arg(mdir)
        .args(["-f", &format!("{prefix}.mk"), "-j", jobs, "OPT_GLOBAL=-O2"])
        .args(&globals)
        .status()
        .expect("run make");
    assert!(st.success(), "make of the Verilator runtime failed");
    let lib = mdir.join("libverilated_rt.a");
    let _ = fs::remove_file(&lib);
    let st = Command::new("ar")
        .arg("rcs")
        .arg(&lib)
        .args(globals.iter().map(|o| mdir.join(o)))
        .status()
        .expect("run ar");
    assert!(st.success());
    println!("cargo:rustc-link-search=native={}", mdir.display());
}

/// Entries of a `NAME += \ a \ b` block in a Verilator makefile.
fn mk_list(mk: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut on = false;
    for line in mk.lines() {
        if line.starts_with(name) && line.contains("+=") {
            on = true;
            continue;
        }
        if on {
            let t = line.trim().trim_end_matches('\\').trim();
            if t.is_empty() || !line.starts_with('\t') {
                on = false;
                continue;
            }
            out.push(t.to_string());
        }
    }
    out
}

const SHIM_HEAD: &str = r#"// Generated by sim/build.rs from the port tables in sanswitch-model. Do not edit.
#include <cstdint>
#include <memory>
#include "verilated.h"
#include "verilated_vcd_c.h"
"#;

/// One block's `extern "C"` functions: new, free, set inputs, read outputs, tick, trace.
fn write_shim(s: &mut String, name: &str, p: &BlockPorts) {
    let cls = format!("V{name}");
    let _ = writeln!(s, "#include \"{cls}.h\"");
    let _ = writeln!(
        s,
        "struct {name}_sim {{ VerilatedContext* ctx; {cls}* top; VerilatedVcdC* vcd; uint64_t t; }};"
    );
    let _ = writeln!(s, "extern \"C\" {{");
    let _ = writeln!(
        s,
        "void* {name}_new() {{ auto* s = new {name}_sim; s->ctx = new VerilatedContext; \
         s->ctx->traceEverOn(true); s->top = new {cls}{{s->ctx, \"{name}\"}}; s->vcd = nullptr; \
         s->t = 0; s->top->clock = 0; s->top->eval(); return s; }}"
    );
    let _ = writeln!(
        s,
        "void {name}_free(void* p) {{ auto* s = static_cast<{name}_sim*>(p); if (s->vcd) {{ \
         s->vcd->close(); delete s->vcd; }} s->top->final(); delete s->top; delete s->ctx; delete s; }}"
    );
    let _ = writeln!(s, "void {name}_set(void* p, const uint64_t* v) {{");
    let _ = writeln!(s, "  auto* t = static_cast<{name}_sim*>(p)->top;");
    for (i, port) in p.inputs.iter().enumerate() {
        let _ = writeln!(s, "  t->{} = v[{i}];", port.name);
    }
    let _ = writeln!(s, "  t->eval();\n}}");
    let _ = writeln!(s, "void {name}_get(void* p, uint64_t* v) {{");
    let _ = writeln!(s, "  auto* t = static_cast<{name}_sim*>(p)->top;");
    for (i, port) in p.outputs.iter().enumerate() {
        let _ = writeln!(s, "  v[{i}] = (uint64_t)t->{};", port.name);
    }
    let _ = writeln!(s, "}}");
    let _ = writeln!(
        s,
        "void {name}_tick(void* p) {{ auto* s = static_cast<{name}_sim*>(p); \
         s->top->clock = 1; s->top->eval(); if (s->vcd) s->vcd->dump(s->t * 10 + 5); \
         s->top->clock = 0; s->top->eval(); if (s->vcd) s->vcd->dump(s->t * 10 + 10); s->t++; }}"
    );
    let _ = writeln!(
        s,
        "int {name}_trace_open(void* p, const char* path) {{ auto* s = static_cast<{name}_sim*>(p); \
         if (s->vcd) return 0; s->vcd = new VerilatedVcdC; s->top->trace(s->vcd, 99); \
         s->vcd->open(path); if (!s->vcd->isOpen()) return -1; s->vcd->dump(s->t * 10); return 0; }}"
    );
    let _ = writeln!(
        s,
        "void {name}_trace_close(void* p) {{ auto* s = static_cast<{name}_sim*>(p); \
         if (s->vcd) {{ s->vcd->close(); delete s->vcd; s->vcd = nullptr; }} }}"
    );
    let _ = writeln!(s, "}}");
}
