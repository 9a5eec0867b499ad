//! Builds the Verilated blocks for the co-simulation, one module per entry of
//! `sanswitch_hdl::cosim::cosim_blocks` (every block at its default parameters and at a
//! second, small set; the pool also at 64 connections; a deliberately broken parser):
//! 1. asks `sanswitch-hdl` for each module's Verilog (never a copied file), in its simulation
//!    view (no power-up values), and checks its top ports against the block's port tables in
//!    `sanswitch-model`;
//! 2. verilates it with Debian's Verilator 5 (waivers: `hdl/verilator.vlt`), with VCD tracing
//!    compiled in (switched on only to dump a window after a mismatch), and with
//!    `--x-initial unique --x-assign unique`, so registers start from the random values the
//!    shim seeds per instance;
//! 3. builds Verilator's runtime objects with Verilator's own makefile and archives them
//!    (5.006's `--build` makes no `libverilated.a`);
//! 4. generates and compiles one `extern "C"` shim for every module from the port tables, so
//!    the C++ side and the Rust port structs come from the same definition.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

use sanswitch_hdl::cosim::{CosimBlock, cosim_blocks, cosim_verilog};
use sanswitch_hdl::{VERILATOR_WAIVERS, top_ports};
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

    let modules = cosim_blocks();
    let mut shim = String::from(SHIM_HEAD);
    let mut dispatch = String::new();
    for (k, m) in modules.iter().enumerate() {
        let block = m.block.name();
        let ports = BLOCKS.iter().find(|b| b.name == block).expect("port tables for every block");
        let v = cosim_verilog(m);
        check_ports(&v, ports);
        // One directory per module; the file keeps the block's name, which the waivers'
        // file patterns and the top module carry.
        let mdir = out.join(format!("vl_{}", m.name));
        fs::create_dir_all(&mdir).expect("create the module's directory");
        let vfile = mdir.join(format!("{block}.v"));
        fs::write(&vfile, &v).expect("write verilog");
        let prefix = format!("V{}", m.name);
        let st = Command::new(&verilator)
            .args(["--cc", "--build", "-j", &jobs, "--prefix", &prefix, "--top-module", block])
            .args(["--trace", "-O3", "--x-assign", "unique", "--x-initial", "unique"])
            .arg("--noassert")
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
            .unwrap_or_else(|e| panic!("{}", tool_missing("verilator", &e)));
        assert!(st.success(), "verilator failed on {} ({})", m.name, vfile.display());
        fs::copy(mdir.join(format!("{prefix}__ALL.a")), mdir.join(format!("lib{prefix}__ALL.a")))
            .expect("copy archive");
        println!("cargo:rustc-link-search=native={}", mdir.display());
        println!("cargo:rustc-link-lib=static={prefix}__ALL");
        if k == 0 {
            build_runtime(&mdir, &prefix, &jobs);
        }
        write_shim(&mut shim, m, ports);
        let _ = writeln!(
            dispatch,
            "  if (!std::strcmp(name, \"{0}\")) return new {0}_sim(ctx);",
            m.name
        );
    }
    write_dispatch(&mut shim, &modules, &dispatch);
    let names: Vec<&str> = modules.iter().map(|m| m.name).collect();
    println!("cargo:rustc-env=SANSWITCH_COSIM_MODULES={}", names.join(","));
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
    for m in &modules {
        cc.include(out.join(format!("vl_{}", m.name)));
    }
    cc.compile("sanswitch_vshim");
    // The runtime after the models and the shim: static libraries resolve left to right.
    println!("cargo:rustc-link-lib=static=verilated_rt");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    println!("cargo:rustc-link-lib=dylib=pthread");
    println!("cargo:rustc-link-lib=dylib=atomic");
}

/// What to say when a tool cannot be run.
fn tool_missing(tool: &str, e: &std::io::Error) -> String {
    format!(
        "cannot run `{tool}` ({e}): {tool} not found on PATH: install it (apt-get install \
         {tool}); the co-simulation needs it (or set VERILATOR to its path)"
    )
}

fn verilator_root(verilator: &str) -> String {
    let o = Command::new(verilator)
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
        .unwrap_or_else(|e| panic!("{}", tool_missing(verilator, &e)));
    String::from_utf8(o.stdout).expect("utf-8").trim().to_string()
}

/// The generated Verilog's top ports must be `clock`, then the input table, then the output
/// table, with the same widths.
fn check_ports(v: &str, p: &BlockPorts) {
    let got = top_ports(v);
    let mut want = vec![("input".to_string(), "clock".to_string(), 1)];
    want.extend(p.inputs.iter().map(|i| ("input".into(), i.hdl_name(), i.width)));
    want.extend(p.outputs.iter().map(|i| ("output".into(), i.hdl_name(), i.width)));
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
#include <cstring>
#include <memory>
#include <mutex>
#include "verilated.h"
#include "verilated_vcd_c.h"

// One Verilated module, whatever its ports.
struct sim_base {
  VerilatedContext* ctx = nullptr;
  VerilatedVcdC* vcd = nullptr;
  uint64_t t = 0;
  virtual ~sim_base() {}
  virtual void set(const uint64_t* v) = 0;
  virtual void get(uint64_t* v) = 0;
  virtual void clock(int c) = 0;
  virtual void trace(VerilatedVcdC* vcd) = 0;
  virtual void final_() = 0;
};

// Verilator's generator is per thread, reseeded from the thread's context when any context
// is reseeded: seeding and construction under one lock make an instance's start values a
// function of its seed alone.
static std::mutex construct_lock;
"#;

/// One module's class: set inputs, read outputs, clock, trace; and its port names.
fn write_shim(s: &mut String, m: &CosimBlock, p: &BlockPorts) {
    let (name, cls) = (m.name, format!("V{}", m.name));
    let _ = writeln!(s, "#include \"{cls}.h\"");
    let _ = writeln!(s, "struct {name}_sim final : sim_base {{");
    let _ = writeln!(s, "  {cls}* top;");
    let _ = writeln!(
        s,
        "  explicit {name}_sim(VerilatedContext* c) {{ ctx = c; top = new {cls}{{c, \"{name}\"}}; }}"
    );
    let _ = writeln!(s, "  ~{name}_sim() override {{ delete top; }}");
    let _ = writeln!(s, "  void set(const uint64_t* v) override {{");
    for (i, port) in p.inputs.iter().enumerate() {
        let _ = writeln!(s, "    top->{} = v[{i}];", port.verilator_name());
    }
    let _ = writeln!(s, "    top->eval();\n  }}");
    let _ = writeln!(s, "  void get(uint64_t* v) override {{");
    for (i, port) in p.outputs.iter().enumerate() {
        let _ = writeln!(s, "    v[{i}] = (uint64_t)top->{};", port.verilator_name());
    }
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "  void clock(int c) override {{ top->clock = c; top->eval(); }}");
    let _ = writeln!(s, "  void trace(VerilatedVcdC* d) override {{ top->trace(d, 99); }}");
    let _ = writeln!(s, "  void final_() override {{ top->final(); }}");
    let _ = writeln!(s, "}};");
    let list = |ports: &[sanswitch_model::ports::PortInfo]| {
        ports.iter().map(|p| format!("\"{}\", ", p.name)).collect::<String>()
    };
    let _ = writeln!(s, "static const char* {name}_inputs[] = {{{}nullptr}};", list(p.inputs));
    let _ = writeln!(s, "static const char* {name}_outputs[] = {{{}nullptr}};", list(p.outputs));
}

/// The `extern "C"` functions, dispatching on the module's name.
fn write_dispatch(s: &mut String, modules: &[CosimBlock], news: &str) {
    let _ = writeln!(
        s,
        "static sim_base* make_sim(const char* name, VerilatedContext* ctx) {{\n{news}  return nullptr;\n}}"
    );
    s.push_str(
        r#"extern "C" {
// A fresh instance of module `name` (null if there is none). rand_reset: 0 = registers start
// at zero, 2 = random from `seed` (Verilator's +verilator+rand+reset+2 and +seed).
void* sanswitch_vl_new(const char* name, int rand_reset, uint32_t seed) {
  std::lock_guard<std::mutex> lock(construct_lock);
  auto* ctx = new VerilatedContext;
  Verilated::threadContextp(ctx);
  ctx->traceEverOn(true);
  ctx->randReset(rand_reset);
  ctx->randSeed(static_cast<int>(seed));
  sim_base* s = make_sim(name, ctx);
  if (!s) { delete ctx; return nullptr; }
  s->clock(0);
  return s;
}
void sanswitch_vl_free(void* p) {
  auto* s = static_cast<sim_base*>(p);
  if (s->vcd) { s->vcd->close(); delete s->vcd; }
  s->final_();
  VerilatedContext* ctx = s->ctx;
  delete s;
  delete ctx;
}
void sanswitch_vl_set(void* p, const uint64_t* v) { static_cast<sim_base*>(p)->set(v); }
void sanswitch_vl_get(void* p, uint64_t* v) { static_cast<sim_base*>(p)->get(v); }
void sanswitch_vl_tick(void* p) {
  auto* s = static_cast<sim_base*>(p);
  s->clock(1); if (s->vcd) s->vcd->dump(s->t * 10 + 5);
  s->clock(0); if (s->vcd) s->vcd->dump(s->t * 10 + 10);
  s->t++;
}
int sanswitch_vl_trace_open(void* p, const char* path) {
  auto* s = static_cast<sim_base*>(p);
  if (s->vcd) return 0;
  s->vcd = new VerilatedVcdC;
  s->trace(s->vcd);
  s->vcd->open(path);
  if (!s->vcd->isOpen()) return -1;
  s->vcd->dump(s->t * 10);
  return 0;
}
void sanswitch_vl_trace_close(void* p) {
  auto* s = static_cast<sim_base*>(p);
  if (s->vcd) { s->vcd->close(); delete s->vcd; s->vcd = nullptr; }
}
"#,
    );
    let _ = writeln!(
        s,
        "// The name of input (output = 0) or output (1) `index` of module `name`, or null past \
         the last.\nconst char* sanswitch_vl_port(const char* name, int output, int index) {{"
    );
    for m in modules {
        let _ = writeln!(
            s,
            "  if (!std::strcmp(name, \"{0}\")) {{ const char** l = output ? {0}_outputs : \
             {0}_inputs; for (int k = 0; k < index; k++) if (!l[k]) return nullptr; return \
             l[index]; }}",
            m.name
        );
    }
    let _ = writeln!(s, "  return nullptr;\n}}\n}}");
}
