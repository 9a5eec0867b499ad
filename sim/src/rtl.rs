//! A Verilated block alone, seen as a cycle model: what `sanswitch simulate --backend rtl`
//! puts into the engine pair in place of [`EngineModel`](sanswitch_model::blocks::engine::EngineModel).

use std::cell::RefCell;

use sanswitch_model::ports::CycleModel;

use crate::Dut;

/// The DUT `D` driven through [`CycleModel`]: `outputs` applies the inputs and reads the
/// settled outputs, `clock` ticks. One reset cycle is run when it is made, so its registers
/// start from the reset state whatever Verilator powered them up with.
pub struct Rtl<D: Dut> {
    dut: RefCell<D>,
    /// Cycles ticked since the reset cycle.
    pub cycles: u64,
}

impl<D: Dut> Rtl<D> {
    pub fn new(mut dut: D) -> Self {
        dut.reset_cycle();
        Rtl { dut: RefCell::new(dut), cycles: 0 }
    }
}

impl<D: Dut> CycleModel for Rtl<D> {
    type In = D::In;
    type Out = D::Out;

    fn outputs(&self, i: &D::In) -> D::Out {
        let mut dut = self.dut.borrow_mut();
        dut.set(i);
        dut.get()
    }

    fn clock(&mut self, i: &D::In) {
        // The pair asks for the outputs of exactly these inputs first; setting them again
        // keeps `clock` correct on its own.
        let dut = self.dut.get_mut();
        dut.set(i);
        dut.tick();
        self.cycles += 1;
    }
}
