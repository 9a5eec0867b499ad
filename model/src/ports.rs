//! Port contracts: each hardware block's inputs and outputs as one pair of plain structs.
//!
//! The same structs drive the cycle-accurate model, the Verilated Verilog and rust-hdl's own
//! simulator, so a lockstep check compares whole structs every cycle. Each struct also carries
//! a table of its ports (Verilog name and width): the co-simulation build generates its C++
//! shim from that table, and a test checks it against the ports of the generated Verilog.

use std::fmt::Debug;

/// One port: its name (the port struct's field) and width in bits (at most 64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortInfo {
    pub name: &'static str,
    pub width: u32,
}

impl PortInfo {
    /// The port's name in the generated Verilog: the table's name, except that a name ending
    /// in `_<digit>` is that element of an array port (`s_axis_tx_tvalid_1` is
    /// `s_axis_tx_tvalid$1`, rust-hdl's name for `s_axis_tx_tvalid[1]`).
    pub fn hdl_name(&self) -> String {
        match self.name.rsplit_once('_') {
            Some((base, k)) if k.len() == 1 && k.as_bytes()[0].is_ascii_digit() => {
                format!("{base}${k}")
            }
            _ => self.name.to_string(),
        }
    }

    /// The port's name in Verilator's C++ model of the Verilog (which spells `$` `__024`).
    pub fn verilator_name(&self) -> String {
        self.hdl_name().replace('$', "__024")
    }
}

/// A port struct: fields readable and writable by index, as raw bits.
pub trait Ports: Clone + Default + Debug + PartialEq {
    /// The ports, in field order.
    const PORTS: &'static [PortInfo];
    /// Port `i` as raw bits.
    fn get(&self, i: usize) -> u64;
    /// Set port `i` from raw bits (masked to its width).
    fn set(&mut self, i: usize, v: u64);
    /// All ports as raw bits.
    fn to_raw(&self) -> Vec<u64> {
        (0..Self::PORTS.len()).map(|i| self.get(i)).collect()
    }
    /// Build from raw bits.
    fn from_raw(raw: &[u64]) -> Self {
        let mut s = Self::default();
        for (i, v) in raw.iter().enumerate() {
            s.set(i, *v);
        }
        s
    }
}

/// The inputs of a reset cycle: `reset` high (when `I` has such a port), every other input
/// zero. Every lockstep harness starts a run with one.
pub fn reset_inputs<I: Ports>() -> I {
    let mut i = I::default();
    if let Some(k) = reset_port::<I>() {
        i.set(k, 1);
    }
    i
}

/// Index of the `reset` port in the port table of `I`, if it has one.
pub fn reset_port<I: Ports>() -> Option<usize> {
    I::PORTS.iter().position(|p| p.name == "reset")
}

/// A cycle-accurate model of a block.
///
/// Cycle `t` is the time between clock edges `t` and `t + 1`. During it the block sees inputs
/// `i` and shows `outputs(i)`; at edge `t + 1` it takes `clock(i)`.
pub trait CycleModel {
    type In: Ports;
    type Out: Ports;
    /// The outputs during the current cycle, given this cycle's inputs.
    fn outputs(&self, i: &Self::In) -> Self::Out;
    /// The rising clock edge that ends the cycle.
    fn clock(&mut self, i: &Self::In);
}

/// Converts a field to and from raw port bits.
pub trait PortValue: Copy {
    fn to_bits(self) -> u64;
    fn from_bits(v: u64) -> Self;
}

impl PortValue for bool {
    fn to_bits(self) -> u64 {
        self as u64
    }
    fn from_bits(v: u64) -> Self {
        v & 1 != 0
    }
}

macro_rules! port_value_int {
    ($($t:ty),*) => {$(
        impl PortValue for $t {
            fn to_bits(self) -> u64 {
                self as u64
            }
            fn from_bits(v: u64) -> Self {
                v as $t
            }
        }
    )*};
}
port_value_int!(u8, u16, u32, u64);

/// Mask of the low `width` bits.
pub const fn mask(width: u32) -> u64 {
    if width >= 64 { u64::MAX } else { (1u64 << width) - 1 }
}

/// Define a port struct: `name: type = width` per port, in order.
#[macro_export]
macro_rules! ports {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* $field:ident : $ty:ty = $w:expr),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name { $($(#[$fm])* pub $field: $ty),* }

        impl $crate::ports::Ports for $name {
            const PORTS: &'static [$crate::ports::PortInfo] =
                &[$($crate::ports::PortInfo { name: stringify!($field), width: $w }),*];
            fn get(&self, i: usize) -> u64 {
                let mut k = 0;
                $(
                    if i == k {
                        return $crate::ports::PortValue::to_bits(self.$field) & $crate::ports::mask($w);
                    }
                    k += 1;
                )*
                let _ = k;
                panic!("port index {i} out of range")
            }
            fn set(&mut self, i: usize, v: u64) {
                let mut k = 0;
                $(
                    if i == k {
                        self.$field = $crate::ports::PortValue::from_bits(v & $crate::ports::mask($w));
                        return;
                    }
                    k += 1;
                )*
                let _ = k;
                panic!("port index {i} out of range")
            }
        }
    };
}

/// Something that produces a block's inputs cycle by cycle and watches its outputs: the
/// stimulus of every lockstep run (rust-hdl's simulator or Verilator).
pub trait Stimulus<I, O> {
    /// Inputs for the coming cycle.
    fn next(&mut self) -> I;
    /// What the block showed during that cycle (for handshakes), after the edge.
    fn observe(&mut self, i: &I, o: &O);
    /// The harness reset the block during the cycle just observed: it applied the inputs
    /// from [`next`](Self::next) with the `reset` port high (as `observe` saw them, just
    /// before this call). Whatever was in flight is gone: forget it here. The default does
    /// nothing, which is right only for a stimulus that keeps no state about the block, or
    /// that handles `reset` in `observe`.
    fn reset(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::PortInfo;

    #[test]
    fn array_port_elements_take_rust_hdls_names() {
        let p = |name| PortInfo { name, width: 1 };
        assert_eq!(p("s_axis_tx_tvalid_1").hdl_name(), "s_axis_tx_tvalid$1");
        assert_eq!(p("s_axis_tx_tvalid_1").verilator_name(), "s_axis_tx_tvalid__0241");
        assert_eq!(p("m_axil_awaddr_0").hdl_name(), "m_axil_awaddr$0");
        // Only one trailing digit after an underscore marks an element.
        for plain in ["reset", "cnt_rd_index", "s_axis_cmd_tvalid", "x_10", "tx0", "a_b1"] {
            assert_eq!(p(plain).hdl_name(), plain);
            assert_eq!(p(plain).verilator_name(), plain);
        }
    }
}
