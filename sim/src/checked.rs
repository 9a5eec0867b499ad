//! A block's cycle model and its Verilated Verilog run as one [`CycleModel`] that checks
//! them against each other every cycle: how a closed-loop environment (two engines over the
//! cycle-level SAN, `sanswitch_model::engine_pair`) becomes a lockstep test. The environment
//! sees the model's outputs; the Verilog gets the same inputs; the first cycle whose outputs
//! differ panics with the [`Mismatch`] (cycle, port, values, and a VCD of the cycles before
//! it, replayed from the recorded inputs).

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

use sanswitch_model::ports::{CycleModel, Ports, reset_inputs};

use crate::{Dut, Mismatch, first_difference, replay_vcd};

/// Renders the model's state for a mismatch report.
pub type Describe<M> = Box<dyn Fn(&M) -> String>;

/// Model `M` and Verilog `D` in lockstep, from a reset cycle.
pub struct Checked<M: CycleModel, D: Dut<In = M::In, Out = M::Out>> {
    pub model: M,
    dut: RefCell<D>,
    make_dut: Rc<dyn Fn() -> D>,
    /// Inputs since the reset (for the VCD replay).
    log: RefCell<Vec<M::In>>,
    /// Cycles checked.
    pub cycles: u64,
    pub vcd_dir: Option<PathBuf>,
    pub vcd_window: u64,
    /// What to say about the model's state in a mismatch's report.
    pub describe: Option<Describe<M>>,
}

impl<M, D> Checked<M, D>
where
    M: CycleModel,
    D: Dut<In = M::In, Out = M::Out>,
    M::In: Copy,
{
    /// Both reset for one cycle, then compared every cycle.
    pub fn new(mut model: M, make_dut: Rc<dyn Fn() -> D>) -> Self {
        let mut dut = make_dut();
        let reset = reset_inputs::<M::In>();
        dut.set(&reset);
        dut.tick();
        model.clock(&reset);
        Checked {
            model,
            dut: RefCell::new(dut),
            make_dut,
            log: RefCell::new(Vec::new()),
            cycles: 0,
            vcd_dir: Some(std::env::temp_dir().join("sanswitch-lockstep")),
            vcd_window: 200,
            describe: None,
        }
    }
}

impl<M, D> CycleModel for Checked<M, D>
where
    M: CycleModel,
    D: Dut<In = M::In, Out = M::Out>,
    M::In: Copy,
{
    type In = M::In;
    type Out = M::Out;

    fn outputs(&self, i: &M::In) -> M::Out {
        let sw = self.model.outputs(i);
        let mut dut = self.dut.borrow_mut();
        dut.set(i);
        let hw = dut.get();
        if let Some((k, others)) = first_difference(&hw, &sw) {
            let mut log = self.log.borrow().clone();
            log.push(*i);
            let start = dut.start_values();
            let make = self.make_dut.clone();
            let vcd = self.vcd_dir.as_ref().and_then(|dir| {
                replay_vcd(&|| make(), start, &reset_inputs::<M::In>(), &log, self.vcd_window, dir)
                    .ok()
            });
            let m = Mismatch {
                cycle: self.cycles,
                port: M::Out::PORTS[k].name,
                verilog: hw.get(k),
                model: sw.get(k),
                others,
                resets: Vec::new(),
                start,
                vcd,
            };
            let about = self.describe.as_ref().map(|d| d(&self.model)).unwrap_or_default();
            panic!("{m}{about}");
        }
        sw
    }

    fn clock(&mut self, i: &M::In) {
        self.model.clock(i);
        self.dut.get_mut().tick();
        self.log.get_mut().push(*i);
        self.cycles += 1;
    }
}
