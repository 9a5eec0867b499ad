//! Area and depth of a block, from Yosys's `synth_xilinx` for the 7 series.
//!
//! There is no open place-and-route for Artix-7 here, so the timing proxy is the depth of the
//! mapped netlist: the most LUTs on any path between registers (or ports). Carry chains and
//! the slice multiplexers are not LUTs: they are counted separately in `logic_levels`, which
//! counts every LUT, CARRY4 and MUXF7/8 on the path, as Vivado's "logic levels" does.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use serde::Serialize;
use serde_json::Value;

/// What `synth_xilinx -family xc7` made of a block.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SynthStats {
    pub luts: u64,
    pub ffs: u64,
    pub carry4: u64,
    pub muxf: u64,
    /// Distributed-RAM cells (RAM32M, RAM64M, RAM32X1D, ...).
    pub lutram: u64,
    /// LUT sites: `luts`, the inverters Yosys leaves as `INV` cells (a LUT1 each on the
    /// part), and the LUTs the distributed-RAM cells occupy (a RAM32M or RAM64M is four LUTs
    /// of a SLICEM, a RAM32X1D two): what Vivado's "Slice LUTs" counts, logic and memory
    /// together, and what a part's LUT count is compared with.
    pub lut_sites: u64,
    /// Block RAMs in RAMB36 units (a RAMB18 counts one half).
    pub bram: f64,
    pub dsp: u64,
    /// Most LUTs on a register-to-register (or port) path.
    pub lut_levels: u32,
    /// Most LUTs, CARRY4s and MUXF7/8s on a path.
    pub logic_levels: u32,
    pub cells: BTreeMapU64,
    /// The cells of the deepest LUT path, from its start, as `type name`.
    pub deepest_path: Vec<String>,
    /// LUTs (and LUT-RAM read ports) by their LUT level, index 0 the first level: how many
    /// cells a path as deep as each level reaches, so how much logic a cut at a level
    /// would have to move (the deepest path is one of `luts_by_level[lut_levels - 1]`).
    pub luts_by_level: Vec<u32>,
}

/// Cell counts by type.
pub type BTreeMapU64 = std::collections::BTreeMap<String, u64>;

/// Whether `yosys` is on the PATH.
pub fn yosys_available() -> bool {
    Command::new("yosys").arg("-V").output().is_ok_and(|o| o.status.success())
}

/// Synthesize `verilog` (top module `top`) for the 7 series in `workdir` and measure it.
pub fn synth_xilinx(workdir: &Path, top: &str, verilog: &str) -> Result<SynthStats, String> {
    let json = run_yosys(workdir, top, "synth", verilog, "")?;
    analyse(&json, top)
}

/// Remove the inputs [`synth_xilinx`] leaves in `workdir` for block `top` (its copy of the
/// Verilog and its script), keeping the log: for a caller that keeps only what Yosys said.
pub fn remove_synth_inputs(workdir: &Path, top: &str) {
    for f in [format!("{top}.v"), format!("{top}.synth.ys")] {
        let _ = std::fs::remove_file(workdir.join(f));
    }
}

/// Run Yosys on `verilog` (top `top`) in `workdir`: read it, apply `before_synth` (Yosys
/// commands, one per line), `synth_xilinx -flatten` for the 7 series, and give back the
/// netlist as Yosys JSON. Leaves `TOP.v`, `TOP.TAG.ys` and the log `TOP.TAG.log` in `workdir`
/// for a reader who wants to rerun or read it; the JSON (megabytes) is removed once read.
fn run_yosys(
    workdir: &Path,
    top: &str,
    tag: &str,
    verilog: &str,
    before_synth: &str,
) -> Result<String, String> {
    std::fs::create_dir_all(workdir).map_err(|e| e.to_string())?;
    let v = workdir.join(format!("{top}.v"));
    let j = workdir.join(format!("{top}.{tag}.json"));
    std::fs::write(&v, verilog).map_err(|e| e.to_string())?;
    let script = format!(
        "read_verilog {}\n{before_synth}synth_xilinx -flatten -family xc7 -top {top}\nwrite_json {}\n",
        v.display(),
        j.display()
    );
    let ys = workdir.join(format!("{top}.{tag}.ys"));
    std::fs::write(&ys, script).map_err(|e| e.to_string())?;
    let out = Command::new("yosys")
        .args(["-q", "-l"])
        .arg(workdir.join(format!("{top}.{tag}.log")))
        .arg("-s")
        .arg(&ys)
        .output()
        .map_err(|e| format!("cannot run yosys: {e}"))?;
    if !out.status.success() {
        return Err(format!("yosys failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let json = std::fs::read_to_string(&j).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&j);
    Ok(json)
}

/// One module's share of a design synthesized with its blocks kept apart.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BlockArea {
    /// The module's Verilog name (rust-hdl's: the instance path joined by `$`).
    pub module: String,
    /// Its own cells: the logic of its `update` and its registers, not its sub-blocks'.
    pub luts: u64,
    pub ffs: u64,
    pub lutram: u64,
    pub bram: f64,
    /// With its sub-blocks' (kept) cells.
    pub luts_with_subblocks: u64,
}

/// Whether a rust-hdl module is a plain register (a `DFF`: ports `d`, `q`, `clock` and
/// nothing else): merged into the block that owns it, so its clock enable and reset fold
/// into the flip-flop as they do in the flattened design.
fn is_register_module(header: &str) -> bool {
    header.replace(' ', "").ends_with("(d,q,clock);")
}

/// Synthesize `verilog` (top `top`) as [`synth_xilinx`] does, but with every block kept as
/// its own module (Yosys `keep_hierarchy`; registers go into their block), and give each
/// block's own LUTs, flip-flops and RAMs, largest first.
///
/// What this measures: where the cells are *when no optimisation crosses a block boundary*.
/// A field a block passes through unchanged costs nothing flattened (Yosys sees the same
/// net on every input of the next multiplexer) but a multiplexer input here, so the sum is
/// larger than [`synth_xilinx`]'s total; the difference is the pass-through the flattening
/// removes. Use it to find the blocks worth redesigning, not as the design's area.
///
/// `max_depth` keeps only the blocks at most that many levels below the top (rust-hdl names
/// a sub-block `parent$field`, so a block's depth is its name's count of `$`) and flattens
/// every deeper one into its kept ancestor: with `Some(2)` the engine's controller,
/// sequencer, pool manager and parser are each synthesized flattened, so their sum is close
/// to the flattened total and each row is what that block costs once the pass-through
/// inside it is gone. `None` keeps every block.
pub fn synth_xilinx_by_block(
    workdir: &Path,
    top: &str,
    verilog: &str,
    max_depth: Option<usize>,
) -> Result<Vec<BlockArea>, String> {
    let mut keep = String::new();
    for line in verilog.lines().filter(|l| l.starts_with("module ")) {
        let name = line["module ".len()..].split('(').next().unwrap_or("").trim();
        let shallow = max_depth.is_none_or(|d| name.matches('$').count() <= d);
        if name != top && shallow && !is_register_module(line) {
            keep += &format!("setattr -mod -set keep_hierarchy 1 {name}\n");
        }
    }
    let json = run_yosys(workdir, top, "blocks", verilog, &keep)?;
    by_block(&json)
}

/// Each module's own cells in a Yosys JSON netlist, and its LUTs with its sub-modules'.
fn by_block(json: &str) -> Result<Vec<BlockArea>, String> {
    let v: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let mods = v["modules"].as_object().ok_or("no modules")?;
    let mut own: std::collections::BTreeMap<&str, (BlockArea, Vec<&str>)> = Default::default();
    for (name, m) in mods {
        let mut a = BlockArea { module: name.clone(), ..Default::default() };
        let mut subs = Vec::new();
        for c in m["cells"].as_object().into_iter().flat_map(|c| c.values()) {
            let t = cells_type(c);
            match t {
                _ if t.starts_with("LUT") => a.luts += 1,
                _ if t.starts_with("FD") => a.ffs += 1,
                _ if t.starts_with("RAMB36") => a.bram += 1.0,
                _ if t.starts_with("RAMB18") => a.bram += 0.5,
                _ if is_lutram(t) => a.lutram += 1,
                _ if mods.contains_key(t) => subs.push(t),
                _ => {}
            }
        }
        own.insert(name.as_str(), (a, subs));
    }
    fn total(
        n: &str,
        own: &std::collections::BTreeMap<&str, (BlockArea, Vec<&str>)>,
        depth: usize,
    ) -> u64 {
        let Some((a, subs)) = own.get(n) else { return 0 };
        // A module cannot contain itself; the bound only guards against a malformed netlist.
        if depth > 64 {
            return a.luts;
        }
        a.luts + subs.iter().map(|s| total(s, own, depth + 1)).sum::<u64>()
    }
    let mut out: Vec<BlockArea> = own
        .keys()
        .map(|n| BlockArea { luts_with_subblocks: total(n, &own, 0), ..own[n].0.clone() })
        .collect();
    out.sort_by(|a, b| b.luts.cmp(&a.luts).then(a.module.cmp(&b.module)));
    Ok(out)
}

fn is_seq(t: &str) -> bool {
    t.starts_with("FD") || t.starts_with("RAMB") || t.starts_with("DSP") || t.starts_with("SRL")
}

/// Whether input `port` of a LUT RAM cell addresses the asynchronous read behind output
/// `out`: `DOx` is read at `ADDRx` (RAM32M, RAM64M, RAM32M16), `DPO` at `DPRA*` (the
/// dual-port cells' second port), `SPO` and `O` at `A*` (the single port, whose address is
/// also the write address). An output of another name is taken to depend on every address.
fn lutram_read_address_of(out: &str, port: &str) -> bool {
    let a_digits =
        port.starts_with('A') && port.len() > 1 && port[1..].chars().all(|c| c.is_ascii_digit());
    match out {
        _ if out.starts_with("DO") && out.len() == 3 => port == format!("ADDR{}", &out[2..]),
        "DPO" => port.starts_with("DPRA"),
        "SPO" | "O" => a_digits,
        _ => port.starts_with("ADDR") || port.starts_with("DPRA") || a_digits,
    }
}

fn is_lutram(t: &str) -> bool {
    t.starts_with("RAM") && !t.starts_with("RAMB")
}

/// The LUT sites a distributed-RAM primitive of the 7 series occupies (UG474, "Distributed
/// RAM"): a 32- or 64-deep bit in one LUT, a dual-port one in two, a quad-port RAM32M or
/// RAM64M in four, the 128- and 256-deep ones in two to eight.
fn lutram_sites(t: &str) -> u64 {
    match t {
        "RAM32X1S" | "RAM64X1S" => 1,
        "RAM32X1D" | "RAM64X1D" | "RAM128X1S" => 2,
        "RAM32M" | "RAM64M" | "RAM128X1D" | "RAM256X1S" => 4,
        "RAM32M16" | "RAM64M8" | "RAM256X1D" => 8,
        // An unknown RAM primitive: counted as the largest, so a figure is never too small.
        _ => 8,
    }
}

/// Count cells and measure depth in a Yosys JSON netlist.
pub fn analyse(json: &str, top: &str) -> Result<SynthStats, String> {
    let v: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let m = v["modules"].get(top).ok_or_else(|| format!("module {top} not in netlist"))?;
    let cells = m["cells"].as_object().ok_or("no cells")?;
    let mut s = SynthStats::default();
    // bit -> (driving cell index)
    let mut driver: HashMap<u64, usize> = HashMap::new();
    let mut list: Vec<(&str, Vec<u64>)> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    // Each cell's output bits, to name the nets a path goes through.
    let mut outs: Vec<Vec<u64>> = Vec::new();
    for (_name, c) in cells {
        let t = c["type"].as_str().unwrap_or("");
        *s.cells.entry(t.to_string()).or_default() += 1;
        match t {
            _ if t.starts_with("LUT") => {
                s.luts += 1;
                s.lut_sites += 1;
            }
            _ if t.starts_with("FD") => s.ffs += 1,
            "CARRY4" => s.carry4 += 1,
            "MUXF7" | "MUXF8" => s.muxf += 1,
            // An inverter ABC could not fold into a LUT (it drives a flip-flop, a RAM or a
            // carry input): a LUT1 on the part.
            "INV" => s.lut_sites += 1,
            _ if t.starts_with("RAMB36") => s.bram += 1.0,
            _ if t.starts_with("RAMB18") => s.bram += 0.5,
            _ if t.starts_with("RAM") => {
                s.lutram += 1;
                s.lut_sites += lutram_sites(t);
            }
            _ if t.starts_with("DSP") => s.dsp += 1,
            _ => {}
        }
        let dirs = c["port_directions"].as_object().ok_or("no port directions")?;
        let conns = c["connections"].as_object().ok_or("no connections")?;
        let bits_of = |bits: &Value| -> Vec<u64> {
            bits.as_array().into_iter().flatten().filter_map(|b| b.as_u64()).collect()
        };
        let is_out = |port: &str| dirs.get(port).and_then(|d| d.as_str()) == Some("output");
        if is_lutram(t) {
            // One node per read port: an output depends on its own read address only (a
            // RAM32M's DOA on ADDRA, ...); the data and write inputs land at the clock edge.
            for (out, obits) in conns.iter().filter(|(p, _)| is_out(p)) {
                let idx = list.len();
                for b in bits_of(obits) {
                    driver.insert(b, idx);
                }
                let inputs = conns
                    .iter()
                    .filter(|(p, _)| !is_out(p) && lutram_read_address_of(out, p))
                    .flat_map(|(_, b)| bits_of(b))
                    .collect();
                names.push(format!("{_name}.{out}"));
                outs.push(bits_of(obits));
                list.push((cells_type(c), inputs));
            }
            continue;
        }
        let idx = list.len();
        let mut inputs = Vec::new();
        let mut obits = Vec::new();
        for (port, bits) in conns {
            if is_out(port) {
                for b in bits_of(bits) {
                    driver.insert(b, idx);
                    obits.push(b);
                }
            } else {
                inputs.extend(bits_of(bits));
            }
        }
        names.push(_name.clone());
        outs.push(obits);
        list.push((cells_type(c), inputs));
    }
    // A name for each net bit the design named (the shortest, ignoring Yosys's own).
    let mut net_name: HashMap<u64, String> = HashMap::new();
    if let Some(nets) = m["netnames"].as_object() {
        for (name, n) in nets {
            if n["hide_name"].as_u64() == Some(1) {
                continue;
            }
            for (k, b) in n["bits"].as_array().into_iter().flatten().enumerate() {
                if let Some(b) = b.as_u64() {
                    let named = format!("{name}[{k}]");
                    let e = net_name.entry(b).or_insert_with(|| named.clone());
                    if named.len() < e.len() {
                        *e = named;
                    }
                }
            }
        }
    }
    // Longest path into each cell's output, memoised; sequential cells start paths.
    let mut memo: Vec<Option<(u32, u32)>> = vec![None; list.len()];
    let mut on_stack = vec![false; list.len()];
    fn depth(
        i: usize,
        list: &[(&str, Vec<u64>)],
        driver: &HashMap<u64, usize>,
        memo: &mut Vec<Option<(u32, u32)>>,
        on_stack: &mut Vec<bool>,
    ) -> (u32, u32) {
        if let Some(d) = memo[i] {
            return d;
        }
        let t = list[i].0;
        if is_seq(t) || on_stack[i] {
            return (0, 0);
        }
        on_stack[i] = true;
        let mut best = (0, 0);
        for b in &list[i].1 {
            if let Some(&j) = driver.get(b) {
                let d = depth(j, list, driver, memo, on_stack);
                best = (best.0.max(d.0), best.1.max(d.1));
            }
        }
        on_stack[i] = false;
        let lut = (t.starts_with("LUT") || is_lutram(t)) as u32;
        let logic = (lut == 1 || t == "CARRY4" || t == "MUXF7" || t == "MUXF8") as u32;
        let d = (best.0 + lut, best.1 + logic);
        memo[i] = Some(d);
        d
    }
    // Paths end at sequential cells' inputs and at output ports: take every driver.
    let mut deepest = None;
    for i in 0..list.len() {
        let d = depth(i, &list, &driver, &mut memo, &mut on_stack);
        if d.0 > s.lut_levels || deepest.is_none() {
            deepest = Some(i);
        }
        s.lut_levels = s.lut_levels.max(d.0);
        s.logic_levels = s.logic_levels.max(d.1);
        if d.0 > 0 && (list[i].0.starts_with("LUT") || is_lutram(list[i].0)) {
            let l = d.0 as usize - 1;
            if s.luts_by_level.len() <= l {
                s.luts_by_level.resize(l + 1, 0);
            }
            s.luts_by_level[l] += 1;
        }
    }
    // Walk back from the deepest cell along the deepest input.
    let mut cur = deepest;
    let mut seen = std::collections::HashSet::new();
    while let Some(i) = cur {
        if !seen.insert(i) {
            break;
        }
        // ABC's cells have made-up names; the net they drive often keeps the design's.
        match outs[i].iter().find_map(|b| net_name.get(b)) {
            Some(net) => s.deepest_path.push(format!("{} {} -> {net}", list[i].0, names[i])),
            None => s.deepest_path.push(format!("{} {}", list[i].0, names[i])),
        }
        cur = None;
        if is_seq(list[i].0) {
            break;
        }
        let mut best = 0;
        for b in &list[i].1 {
            if let Some(&j) = driver.get(b) {
                let d = memo[j].map_or(0, |d| d.0);
                if cur.is_none() || d > best {
                    best = d;
                    cur = Some(j);
                }
            }
        }
    }
    s.deepest_path.reverse();
    Ok(s)
}

fn cells_type(c: &Value) -> &str {
    c["type"].as_str().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A RAM32M's port D (write address) does not reach port A's output: a path from deep
    /// logic into ADDRD ends there; one into ADDRA goes on through DOA.
    #[test]
    fn a_lut_ram_output_depends_on_its_own_read_address_only() {
        let lut = |i: u64, o: u64| {
            format!(
                r#"{{"type":"LUT1","port_directions":{{"I0":"input","O":"output"}},"connections":{{"I0":[{i}],"O":[{o}]}}}}"#
            )
        };
        let net = |addr_port: &str| {
            format!(
                r#"{{"modules":{{"t":{{"cells":{{
                "a":{},"b":{},"c":{},
                "ram":{{"type":"RAM32M","port_directions":{{"{addr_port}":"input","DOA":"output","DOD":"output"}},
                       "connections":{{"{addr_port}":[13],"DOA":[20],"DOD":[21]}}}},
                "d":{}
                }}}}}}}}"#,
                lut(10, 11),
                lut(11, 12),
                lut(12, 13),
                lut(20, 30)
            )
        };
        // Three LUTs into ADDRA, the RAM's read, one LUT after it.
        assert_eq!(analyse(&net("ADDRA"), "t").unwrap().lut_levels, 5);
        // By level: the first LUT and the unaddressed DOD port, then one each.
        assert_eq!(analyse(&net("ADDRA"), "t").unwrap().luts_by_level, [2, 1, 1, 1, 1]);
        // Three LUTs into ADDRD end at the RAM (DOD unread); DOA starts a path of two.
        assert_eq!(analyse(&net("ADDRD"), "t").unwrap().lut_levels, 4);
        assert!(lutram_read_address_of("DOB", "ADDRB"));
        assert!(!lutram_read_address_of("DOB", "ADDRD"));
        assert!(lutram_read_address_of("DPO", "DPRA3") && !lutram_read_address_of("DPO", "A3"));
        assert!(lutram_read_address_of("SPO", "A0") && !lutram_read_address_of("SPO", "ADDRA"));
        // Four LUTs and a RAM32M: 4 logic LUTs, 8 LUT sites.
        let s = analyse(&net("ADDRA"), "t").unwrap();
        assert_eq!((s.luts, s.lutram, s.lut_sites), (4, 1, 8));
    }

    #[test]
    fn lut_ram_primitives_occupy_their_lut_sites() {
        assert_eq!(lutram_sites("RAM32X1S"), 1);
        assert_eq!(lutram_sites("RAM64X1D"), 2);
        assert_eq!(lutram_sites("RAM32M"), 4);
        assert_eq!(lutram_sites("RAM64M"), 4);
        assert_eq!(lutram_sites("RAM32M16"), 8);
        assert_eq!(lutram_sites("RAM512X1S"), 8, "an unknown primitive counts as the largest");
    }
}
