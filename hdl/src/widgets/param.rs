//! A parameter-valued constant that has a default (zero), so blocks made of many constants
//! can `#[derive(Default)]` and set only their parameters in `new()`, instead of spelling
//! out every field. Written into the Verilog as rust-hdl writes a `Constant`: a `localparam`.

use rust_hdl::prelude::*;

#[derive(Clone, Copy, Debug)]
pub struct Param<T: Synth>(Constant<T>);

impl<T: Synth> Param<T> {
    pub fn new(v: T) -> Self {
        Param(Constant::new(v))
    }
    /// The value (usable in HDL kernels).
    pub fn val(&self) -> T {
        self.0.val()
    }
}

impl<T: Synth> Default for Param<T> {
    fn default() -> Self {
        Param::new(T::default())
    }
}

/// A parameter of `N` bits from an integer.
pub fn param<const N: usize>(v: u64) -> Param<Bits<N>> {
    Param::new(Bits::<N>::from(v))
}

impl<T: Synth> Logic for Param<T> {
    fn update(&mut self) {}
    fn connect(&mut self) {}
}

impl<T: Synth> Block for Param<T> {
    fn connect_all(&mut self) {}
    fn update_all(&mut self) {}
    fn has_changed(&self) -> bool {
        false
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        self.0.accept(name, probe);
    }
}

/// A Winsock status as the 16-bit parameter the engine's completion and error fields take
/// (`sanswitch_model::status::WsaError`'s code: the one definition of each status).
pub fn wsa(e: sanswitch_model::status::WsaError) -> Param<Bits<16>> {
    let c = e.code();
    assert!(c <= 0xFFFF, "{} does not fit 16 bits", e.name());
    param(c.into())
}
