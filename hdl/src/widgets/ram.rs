//! A RAM whose depth is a run-time parameter (so a block's RAMs need no const generic per
//! size): asynchronous read (distributed RAM) or synchronous read (block RAM), one
//! synchronous write port. The address port is 16 bits; only the low `log2(depth)` are used
//! (`depth` a power of two).

use std::collections::BTreeMap;

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Ram<D: Synth> {
    pub read_address: Signal<In, Bits<16>>,
    pub read_data: Signal<Out, D>,
    pub write_clock: Signal<In, Clock>,
    pub write_address: Signal<In, Bits<16>>,
    pub write_data: Signal<In, D>,
    pub write_enable: Signal<In, Bit>,
    _sim: BTreeMap<Bits<16>, D>,
    _depth: usize,
    _sync: bool,
}

impl<D: Synth> Ram<D> {
    /// A RAM of `depth` words (a power of two, at most 65536); `sync`: the read data comes
    /// the cycle after the address (block RAM), else in the same cycle (LUT RAM).
    pub fn new(depth: usize, sync: bool) -> Self {
        assert!(depth.is_power_of_two() && depth <= 1 << 16);
        Ram { _depth: depth, _sync: sync, ..Default::default() }
    }
}

impl<D: Synth> Logic for Ram<D> {
    fn update(&mut self) {
        let mask = Bits::<16>::from(self._depth as u64 - 1);
        if self.write_clock.pos_edge() {
            if self._sync {
                self.read_data.next =
                    *self._sim.get(&(self.read_address.val() & mask)).unwrap_or(&D::default());
            }
            if self.write_enable.val() {
                self._sim.insert(self.write_address.val() & mask, self.write_data.val());
            }
        }
        if !self._sync {
            self.read_data.next =
                *self._sim.get(&(self.read_address.val() & mask)).unwrap_or(&D::default());
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let ab = self._depth.trailing_zeros().max(1);
        let read = if self._sync {
            format!(
                "always @(posedge write_clock) begin\n   read_data <= mem[read_address[{}:0]];\nend\n",
                ab - 1
            )
        } else {
            format!("always @(*) begin\n   read_data = mem[read_address[{}:0]];\nend\n", ab - 1)
        };
        Verilog::Custom(format!(
            "\
reg [{msb}:0] mem [0:{last}];

{read}
always @(posedge write_clock) begin
   if (write_enable) begin
      mem[write_address[{amsb}:0]] <= write_data;
   end
end
",
            msb = D::BITS - 1,
            last = self._depth.max(2) - 1,
            amsb = ab - 1,
        ))
    }
}
