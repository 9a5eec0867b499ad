//! A RAM with an asynchronous read port and a synchronous write port: the 7 series'
//! distributed (LUT) RAM. rust-hdl's own `RAM` reads synchronously (block RAM); the pool
//! manager wants a read in the same cycle as the request, so a write at one edge is seen by
//! the very next request with nothing to forward.

use std::collections::BTreeMap;

use rust_hdl::prelude::*;

/// `2^N` words of `D`.
#[derive(LogicBlock, Default)]
pub struct LutRam<D: Synth, const N: usize> {
    pub read_address: Signal<In, Bits<N>>,
    pub read_data: Signal<Out, D>,
    pub write_clock: Signal<In, Clock>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, D>,
    pub write_enable: Signal<In, Bit>,
    _sim: BTreeMap<Bits<N>, D>,
}

impl<D: Synth, const N: usize> Logic for LutRam<D, N> {
    fn update(&mut self) {
        if self.write_clock.pos_edge() && self.write_enable.val() {
            self._sim.insert(self.write_address.val(), self.write_data.val());
        }
        self.read_data.next = *self._sim.get(&self.read_address.val()).unwrap_or(&D::default());
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [{msb}:0] mem [0:{last}];

always @(*) begin
   read_data = mem[read_address];
end

always @(posedge write_clock) begin
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end
",
            msb = D::BITS - 1,
            last = (1usize << N) - 1,
        ))
    }
}
