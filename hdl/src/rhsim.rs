//! Driving a block in rust-hdl's own simulator through its model's port structs, so the same
//! lockstep check runs there as in Verilator (short runs: rust-hdl simulates a few thousand
//! cycles per second).
//!
//! One generic driver, [`lockstep`] (over [`RhChecked`], which also stands as a
//! [`CycleModel`] inside a larger closed loop), serves every block: outputs are read by name from the
//! port table with rust-hdl's probe visitor, inputs are written by [`RhDut::set_inputs`],
//! which [`rh_dut!`] writes from the list of input names (the one thing Rust cannot look up
//! by name at run time).

use rust_hdl::prelude::*;
use sanswitch_model::ports::{CycleModel, PortInfo, Ports, Stimulus, reset_inputs, reset_port};

/// A rust-hdl block whose top-level signals are its model's ports.
pub trait RhDut: Block + Send + 'static {
    type In: Ports;
    type Out: Ports;
    /// The input signals [`set_inputs`](Self::set_inputs) drives, by name: checked against
    /// the input port table, so a port left out of [`rh_dut!`] is an error, not a silent 0.
    const INPUTS: &'static [&'static str];
    /// Drive every input signal from a port struct.
    fn set_inputs(&mut self, i: &Self::In);
    /// The clock input.
    fn clock_in(&mut self) -> &mut Signal<In, Clock>;
}

/// A port value as a rust-hdl signal value.
pub trait FromPortBits {
    fn from_port_bits(v: u64) -> Self;
}

impl FromPortBits for bool {
    fn from_port_bits(v: u64) -> Self {
        v & 1 != 0
    }
}

impl<const N: usize> FromPortBits for Bits<N> {
    fn from_port_bits(v: u64) -> Self {
        Bits::<N>::from(v & sanswitch_model::ports::mask(N as u32))
    }
}

/// Implement [`RhDut`] for a block from the names of its inputs (each a field of both the
/// block and the input port struct). An element of an array port is written
/// `field[k] port_field`: `s_axis_tx_tvalid[1] s_axis_tx_tvalid_1` drives the block's
/// `s_axis_tx_tvalid[1]` from the port struct's `s_axis_tx_tvalid_1`.
#[macro_export]
macro_rules! rh_dut {
    (impl<$(const $g:ident: usize),*> $blk:ty, $in:ty, $out:ty;
     $($f:ident $([$k:literal] $pf:ident)?),* $(,)?) => {
        impl<$(const $g: usize),*> $crate::rhsim::RhDut for $blk {
            type In = $in;
            type Out = $out;
            const INPUTS: &'static [&'static str] = &[$($crate::rh_dut!(@name $f $([$k] $pf)?)),*];
            fn set_inputs(&mut self, i: &$in) {
                $($crate::rh_dut!(@set self, i, $f $([$k] $pf)?);)*
            }
            fn clock_in(&mut self) -> &mut rust_hdl::prelude::Signal<
                rust_hdl::prelude::In,
                rust_hdl::prelude::Clock,
            > {
                &mut self.clock
            }
        }
    };
    (@name $f:ident) => { stringify!($f) };
    (@name $f:ident [$k:literal] $pf:ident) => { stringify!($pf) };
    (@set $s:ident, $i:ident, $f:ident) => {
        $s.$f.next = $crate::rhsim::FromPortBits::from_port_bits(
            sanswitch_model::ports::PortValue::to_bits($i.$f),
        )
    };
    (@set $s:ident, $i:ident, $f:ident [$k:literal] $pf:ident) => {
        $s.$f[$k].next = $crate::rhsim::FromPortBits::from_port_bits(
            sanswitch_model::ports::PortValue::to_bits($i.$pf),
        )
    };
    ($blk:ty, $in:ty, $out:ty; $($f:ident $([$k:literal] $pf:ident)?),* $(,)?) => {
        $crate::rh_dut!(impl<> $blk, $in, $out; $($f $([$k] $pf)?),*);
    };
}

/// Reads a block's top-level signals into raw port values by name.
struct OutputProbe {
    ports: &'static [PortInfo],
    values: Vec<Option<u64>>,
    depth: usize,
}

impl Probe for OutputProbe {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        if let Some(k) = self.ports.iter().position(|p| p.hdl_name() == name) {
            self.values[k] = Some(vcd_to_u64(&signal.vcd()));
        }
    }
}

fn vcd_to_u64(v: &VCDValue) -> u64 {
    let bit = |b: &vcd::Value| u64::from(matches!(b, vcd::Value::V1));
    match v {
        VCDValue::Single(b) => bit(b),
        VCDValue::Vector(bits) => bits.iter().fold(0, |acc, b| acc << 1 | bit(b)),
        _ => 0,
    }
}

/// A block's outputs as its model's output struct, read by the port table's names.
pub fn outputs<B: RhDut>(x: &B) -> B::Out {
    let ports = <B::Out as Ports>::PORTS;
    let mut probe = OutputProbe { ports, values: vec![None; ports.len()], depth: 0 };
    x.accept("uut", &mut probe);
    let raw: Vec<u64> = probe
        .values
        .iter()
        .zip(ports)
        .map(|(v, p)| v.unwrap_or_else(|| panic!("the block has no output `{}`", p.name)))
        .collect();
    <B::Out as Ports>::from_raw(&raw)
}

/// Run `uut` (stepped as rust-hdl's simulator steps it, through [`RhChecked`]) beside
/// `model` for `cycles` cycles of `stim`, from a reset cycle, comparing every output every
/// cycle. Returns the stimulus (for its statistics) or the first mismatch: its cycle and
/// each differing port with both values.
pub fn lockstep<B, M, S>(uut: B, model: M, stim: S, cycles: u64) -> Result<S, String>
where
    B: RhDut,
    M: CycleModel<In = B::In, Out = B::Out>,
    S: Stimulus<B::In, B::Out>,
{
    lockstep_with_resets(uut, model, stim, cycles, 0)
}

/// [`lockstep`] with resets mid-run: about one cycle in `one_in` (0: none), chosen by a
/// fixed pseudo-random sequence, has its `reset` input forced high (the stimulus' other
/// inputs kept), as the Verilator harness does; the stimulus is told after that cycle
/// (`Stimulus::reset`).
pub fn lockstep_with_resets<B, M, S>(
    uut: B,
    model: M,
    mut stim: S,
    cycles: u64,
    one_in: u64,
) -> Result<S, String>
where
    B: RhDut,
    M: CycleModel<In = B::In, Out = B::Out>,
    S: Stimulus<B::In, B::Out>,
{
    let reset_port = reset_port::<B::In>();
    let mut checked = RhChecked::new(model, uut);
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..cycles {
        let mut i = stim.next();
        // xorshift64: the same resets every run.
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let forced = one_in > 0 && rng % one_in == 0 && reset_port.is_some();
        if let (true, Some(k)) = (forced, reset_port) {
            i.set(k, 1);
        }
        let sw = checked.try_outputs(&i)?;
        checked.clock(&i);
        stim.observe(&i, &sw);
        if forced {
            stim.reset();
        }
    }
    Ok(stim)
}

/// Panics unless the block drives exactly its input port table's ports (besides the clock).
pub fn check_inputs<B: RhDut>() {
    let table: Vec<&str> = <B::In as Ports>::PORTS.iter().map(|p| p.name).collect();
    assert_eq!(B::INPUTS, table.as_slice(), "rh_dut!'s input list against the port table");
}

/// Settle a block's combinational logic the way rust-hdl's simulator does after each event.
fn settle<B: Block>(x: &mut B) {
    assert!(simulate(x, 1000), "the block's logic did not settle (a combinational loop?)");
}

/// A rust-hdl block as a [`CycleModel`], stepped directly (no simulator threads, so it can
/// stand wherever a cycle model stands: an [`EnginePair`](sanswitch_model::engine_pair)'s
/// engine, beside its model in [`RhChecked`]). Inputs are applied and the logic settled
/// before the outputs are read, then the clock rises and falls, as in rust-hdl's simulator.
pub struct RhCycle<B: RhDut> {
    uut: std::cell::RefCell<B>,
}

impl<B: RhDut> RhCycle<B> {
    pub fn new(mut uut: B) -> Self {
        check_inputs::<B>();
        uut.connect_all();
        check_all(&uut).expect("the block passes rust-hdl's connection checks");
        RhCycle { uut: std::cell::RefCell::new(uut) }
    }
}

impl<B: RhDut> CycleModel for RhCycle<B> {
    type In = B::In;
    type Out = B::Out;
    fn outputs(&self, i: &B::In) -> B::Out {
        let mut x = self.uut.borrow_mut();
        x.set_inputs(i);
        settle(&mut *x);
        outputs(&*x)
    }
    fn clock(&mut self, i: &B::In) {
        let x = self.uut.get_mut();
        x.set_inputs(i);
        settle(x);
        for level in [true, false] {
            x.clock_in().next = Clock::from(level);
            settle(x);
        }
    }
}

/// A model and its rust-hdl block in lockstep, as one [`CycleModel`] (the model's outputs
/// are the ones returned): every cycle's outputs compared, the first difference a panic that
/// names the cycle and each port that differs. Both are reset for one cycle at the start.
pub struct RhChecked<M: CycleModel, B: RhDut<In = M::In, Out = M::Out>> {
    pub model: M,
    pub uut: RhCycle<B>,
    /// Cycles compared.
    pub cycles: std::cell::Cell<u64>,
    /// What to say about the model's state in a mismatch's report.
    pub describe: Option<fn(&M) -> String>,
}

impl<M: CycleModel, B: RhDut<In = M::In, Out = M::Out>> RhChecked<M, B> {
    pub fn new(mut model: M, uut: B) -> Self {
        let mut uut = RhCycle::new(uut);
        let reset = reset_inputs::<M::In>();
        uut.clock(&reset);
        model.clock(&reset);
        RhChecked { model, uut, cycles: std::cell::Cell::new(0), describe: None }
    }

    /// The model's outputs for this cycle's inputs, or the mismatch: the cycle and each port
    /// that differs, with both values (and the model's state, when `describe` says it).
    pub fn try_outputs(&self, i: &M::In) -> Result<M::Out, String> {
        let sw = self.model.outputs(i);
        let hw = self.uut.outputs(i);
        if hw == sw {
            return Ok(sw);
        }
        let ports = <M::Out as Ports>::PORTS;
        let diff: Vec<String> = (0..ports.len())
            .filter(|&k| hw.get(k) != sw.get(k))
            .map(|k| {
                format!("{}: rust-hdl {:#x}, model {:#x}", ports[k].name, hw.get(k), sw.get(k))
            })
            .collect();
        let state = self.describe.map(|d| d(&self.model)).unwrap_or_default();
        Err(format!("cycle {}: {}\ninputs {i:?}{state}", self.cycles.get(), diff.join("\n  ")))
    }
}

impl<M: CycleModel, B: RhDut<In = M::In, Out = M::Out>> CycleModel for RhChecked<M, B> {
    type In = M::In;
    type Out = M::Out;
    fn outputs(&self, i: &M::In) -> M::Out {
        self.try_outputs(i).unwrap_or_else(|e| panic!("{e}"))
    }
    fn clock(&mut self, i: &M::In) {
        self.model.clock(i);
        self.uut.clock(i);
        self.cycles.set(self.cycles.get() + 1);
    }
}

rh_dut!(
    crate::parser::ControlParser,
    sanswitch_model::blocks::parser::ParserIn,
    sanswitch_model::blocks::parser::ParserOut;
    reset, s_axis_rx_tvalid, s_axis_rx_tdata, s_axis_rx_tkeep, s_axis_rx_tlast, s_axis_rx_tuser,
    m_axis_hdr_tready, m_axis_pay_tready, cnt_rd_index
);

rh_dut!(
    impl<const A: usize> crate::pool::PoolManager<A>,
    sanswitch_model::blocks::pool::PoolIn,
    sanswitch_model::blocks::pool::PoolOut;
    reset, s_axis_req_tvalid, s_axis_req_op, s_axis_req_conn, s_axis_req_class,
    s_axis_req_buf, s_axis_req_a, s_axis_req_b, s_axis_req_c, s_axis_req_bufs,
    m_axis_resp_tready, cnt_rd_index
);

rh_dut!(
    crate::sequencer::Sequencer,
    sanswitch_model::blocks::sequencer::SequencerIn,
    sanswitch_model::blocks::sequencer::SequencerOut;
    reset, s_axis_cmd_tvalid, s_axis_cmd_op, s_axis_cmd_conn, s_axis_cmd_access,
    s_axis_cmd_nomem, s_axis_cmd_xfer, s_axis_cmd_addr, s_axis_cmd_key, s_axis_cmd_len,
    s_axis_cmd_lkey, m_axis_rsp_tready, m_axis_cpl_tready, m_axis_rq_tready, s_axis_rs_tvalid,
    s_axis_rs_tag, s_axis_rs_status, s_axis_ac_tvalid, s_axis_ac_conn, s_axis_ac_key,
    s_axis_ac_write, s_axis_ac_addr, s_axis_ac_len, m_axis_ck_tready, cnt_rd_index
);

rh_dut!(
    crate::nic::DmaArb,
    sanswitch_model::blocks::dma_arb::DmaArbIn,
    sanswitch_model::blocks::dma_arb::DmaArbOut;
    reset, host_rd, eng_rd, rd_ready, rd_done, host_wr, eng_wr, wr_take, wr_last
);

rh_dut!(
    crate::widgets::SkidBuffer<Bits<16>>,
    sanswitch_model::blocks::widgets::skid::SkidIn,
    sanswitch_model::blocks::widgets::skid::SkidOut;
    reset, push, push_data, out_ready
);

rh_dut!(
    crate::widgets::Fifo<Bits<16>>,
    sanswitch_model::blocks::widgets::fifo::FifoIn,
    sanswitch_model::blocks::widgets::fifo::FifoOut;
    reset, push, push_data, pop
);

rh_dut!(
    crate::widgets::LutFifo<Bits<16>>,
    sanswitch_model::blocks::widgets::fifo::FifoIn,
    sanswitch_model::blocks::widgets::fifo::FifoOut;
    reset, push, push_data, pop
);

rh_dut!(
    crate::widgets::CounterBank,
    sanswitch_model::blocks::widgets::counter_bank::CounterBankIn,
    sanswitch_model::blocks::widgets::counter_bank::CounterBankOut;
    reset, inc, inc_index, rd_index
);

rh_dut!(
    impl<const A: usize> crate::engine::Engine<A>,
    sanswitch_model::blocks::engine::EngineIn,
    sanswitch_model::blocks::engine::EngineOut;
    reset, s_axis_cmd_tvalid, s_axis_cmd_opcode, s_axis_cmd_conn, s_axis_cmd_tag,
    s_axis_cmd_addr, s_axis_cmd_len, s_axis_cmd_aux, m_axis_cpl_tready, m_axis_dmard_tready,
    s_axis_dmard_tvalid, s_axis_dmard_tdata, s_axis_dmard_tkeep, s_axis_dmard_tlast,
    m_axis_dmawr_tready, m_axis_tx_tready, s_axis_rx_tvalid, s_axis_rx_tdata, s_axis_rx_tkeep,
    s_axis_rx_tlast, s_axis_rx_tuser, s_axis_down_tvalid, s_axis_down_conn, m_axis_down_tready,
    m_axis_rq_tready, s_axis_rs_tvalid, s_axis_rs_tag, s_axis_rs_status, s_axis_ac_tvalid,
    s_axis_ac_conn, s_axis_ac_key, s_axis_ac_write, s_axis_ac_addr, s_axis_ac_len,
    m_axis_ck_tready, cnt_rd_index, fault_nomem
);

rh_dut!(
    impl<const Q: usize> crate::hostif::HostIf<Q>,
    sanswitch_model::blocks::hostif::HostIfIn,
    sanswitch_model::blocks::hostif::HostIfOut;
    reset, s_axil_awvalid, s_axil_awaddr, s_axil_wvalid, s_axil_wdata, s_axil_bready,
    s_axil_arvalid, s_axil_araddr, s_axil_rready, m_axis_fetch_tready, s_axis_fetch_tvalid,
    s_axis_fetch_tdata, s_axis_fetch_tlast, m_axis_cqwr_tready, m_axis_cmd_tready,
    s_axis_cpl_tvalid, s_axis_cpl_tag, s_axis_cpl_bytes, s_axis_cpl_conn, s_axis_cpl_status,
    s_axis_cpl_opcode, s_axis_cpl_urgent, s_axis_cpl_eof, cnt_rd_data
);

rh_dut!(
    crate::board::Bridge,
    sanswitch_model::blocks::bridge::BridgeIn,
    sanswitch_model::blocks::bridge::BridgeOut;
    reset, s_axis_req_tvalid, s_axis_req_tdata, m_axis_rsp_tready,
    m_axil_awready[0] m_axil_awready_0,
    m_axil_awready[1] m_axil_awready_1,
    m_axil_wready[0] m_axil_wready_0,
    m_axil_wready[1] m_axil_wready_1,
    m_axil_bvalid[0] m_axil_bvalid_0,
    m_axil_bvalid[1] m_axil_bvalid_1,
    m_axil_bresp[0] m_axil_bresp_0,
    m_axil_bresp[1] m_axil_bresp_1,
    m_axil_arready[0] m_axil_arready_0,
    m_axil_arready[1] m_axil_arready_1,
    m_axil_rvalid[0] m_axil_rvalid_0,
    m_axil_rvalid[1] m_axil_rvalid_1,
    m_axil_rdata[0] m_axil_rdata_0,
    m_axil_rdata[1] m_axil_rdata_1,
    m_axil_rresp[0] m_axil_rresp_0,
    m_axil_rresp[1] m_axil_rresp_1,
    m_mem_ready, s_mem_rvalid, s_mem_rdata
);

rh_dut!(
    crate::board::NodeMem,
    sanswitch_model::blocks::node_mem::NodeMemIn,
    sanswitch_model::blocks::node_mem::NodeMemOut;
    reset, s_axis_rdreq_tvalid, s_axis_rdreq_addr, s_axis_rdreq_len, m_axis_rddata_tready,
    s_axis_wr_tvalid, s_axis_wr_addr, s_axis_wr_tdata, s_axis_wr_tkeep, s_axis_wr_tlast,
    s_mem_valid, s_mem_write, s_mem_index, s_mem_wdata, s_mem_wmask
);

rh_dut!(
    crate::board::SanLoop,
    sanswitch_model::blocks::san_loop::SanLoopIn,
    sanswitch_model::blocks::san_loop::SanLoopOut;
    reset,
    s_axis_tx_tvalid[0] s_axis_tx_tvalid_0,
    s_axis_tx_tvalid[1] s_axis_tx_tvalid_1,
    s_axis_tx_tdata[0] s_axis_tx_tdata_0,
    s_axis_tx_tdata[1] s_axis_tx_tdata_1,
    s_axis_tx_tkeep[0] s_axis_tx_tkeep_0,
    s_axis_tx_tkeep[1] s_axis_tx_tkeep_1,
    s_axis_tx_tlast[0] s_axis_tx_tlast_0,
    s_axis_tx_tlast[1] s_axis_tx_tlast_1,
    s_axis_tx_tuser[0] s_axis_tx_tuser_0,
    s_axis_tx_tuser[1] s_axis_tx_tuser_1,
    s_axis_down_tvalid[0] s_axis_down_tvalid_0,
    s_axis_down_tvalid[1] s_axis_down_tvalid_1,
    s_axis_down_conn[0] s_axis_down_conn_0,
    s_axis_down_conn[1] s_axis_down_conn_1,
    m_axis_rx_tready[0] m_axis_rx_tready_0,
    m_axis_rx_tready[1] m_axis_rx_tready_1,
    m_axis_down_tready[0] m_axis_down_tready_0,
    m_axis_down_tready[1] m_axis_down_tready_1,
    s_axis_rq_tvalid[0] s_axis_rq_tvalid_0,
    s_axis_rq_tvalid[1] s_axis_rq_tvalid_1,
    s_axis_rq_tag[0] s_axis_rq_tag_0,
    s_axis_rq_tag[1] s_axis_rq_tag_1,
    s_axis_rq_write[0] s_axis_rq_write_0,
    s_axis_rq_write[1] s_axis_rq_write_1,
    s_axis_rq_conn[0] s_axis_rq_conn_0,
    s_axis_rq_conn[1] s_axis_rq_conn_1,
    s_axis_rq_raddr[0] s_axis_rq_raddr_0,
    s_axis_rq_raddr[1] s_axis_rq_raddr_1,
    s_axis_rq_rkey[0] s_axis_rq_rkey_0,
    s_axis_rq_rkey[1] s_axis_rq_rkey_1,
    s_axis_rq_laddr[0] s_axis_rq_laddr_0,
    s_axis_rq_laddr[1] s_axis_rq_laddr_1,
    s_axis_rq_len[0] s_axis_rq_len_0,
    s_axis_rq_len[1] s_axis_rq_len_1,
    m_axis_rs_tready[0] m_axis_rs_tready_0,
    m_axis_rs_tready[1] m_axis_rs_tready_1,
    m_axis_ac_tready[0] m_axis_ac_tready_0,
    m_axis_ac_tready[1] m_axis_ac_tready_1,
    s_axis_ck_tvalid[0] s_axis_ck_tvalid_0,
    s_axis_ck_tvalid[1] s_axis_ck_tvalid_1,
    s_axis_ck_grant[0] s_axis_ck_grant_0,
    s_axis_ck_grant[1] s_axis_ck_grant_1,
    s_axis_ck_reason[0] s_axis_ck_reason_0,
    s_axis_ck_reason[1] s_axis_ck_reason_1,
    m_mem_ready[0] m_mem_ready_0,
    m_mem_ready[1] m_mem_ready_1,
    s_mem_rdata[0] s_mem_rdata_0,
    s_mem_rdata[1] s_mem_rdata_1
);

rh_dut!(
    impl<const A: usize, const Q: usize> crate::nic::Nic<A, Q>,
    sanswitch_model::blocks::nic::NicIn,
    sanswitch_model::blocks::nic::NicOut;
    reset, s_axil_awvalid, s_axil_awaddr, s_axil_wvalid, s_axil_wdata, s_axil_bready,
    s_axil_arvalid, s_axil_araddr, s_axil_rready, m_axis_dmard_tready, s_axis_dmard_tvalid,
    s_axis_dmard_tdata, s_axis_dmard_tkeep, s_axis_dmard_tlast, m_axis_dmawr_tready,
    m_axis_tx_tready, s_axis_rx_tvalid, s_axis_rx_tdata, s_axis_rx_tkeep, s_axis_rx_tlast,
    s_axis_rx_tuser, s_axis_down_tvalid, s_axis_down_conn, m_axis_down_tready, m_axis_rq_tready,
    s_axis_rs_tvalid, s_axis_rs_tag, s_axis_rs_status, s_axis_ac_tvalid, s_axis_ac_conn,
    s_axis_ac_key, s_axis_ac_write, s_axis_ac_addr, s_axis_ac_len, m_axis_ck_tready,
    fault_nomem
);
