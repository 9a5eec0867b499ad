//! The ports of the board's logic below FrontPanel's endpoints (`hdl/src/board/board_pipes.rs`:
//! the pipe FIFOs before the board core of [`super::board_core`]). `clock` is the engine
//! clock; `ti_clk`, FrontPanel's, is an input like any other here, toggled by whoever drives
//! it (`sanswitch_driver::pipe_sim`). No cycle model: what it carries is checked end to end
//! by the driver's board transport (`sim/tests/loopback_board_pipes.rs`).

crate::ports! {
    /// Inputs: the reset (engine clock), FrontPanel's clock, the two pipe endpoints' strobes.
    pub struct BoardPipesIn {
        reset: bool = 1,
        ti_clk: bool = 1,
        pi_write: bool = 1,
        pi_data: u16 = 16,
        po_read: bool = 1,
    }
}

crate::ports! {
    /// Outputs: the pipe endpoints' ready flags and read data, the board core's status, the
    /// pipe FIFOs' sticky `lost` (a word into a full FIFO or out of an empty one).
    pub struct BoardPipesOut {
        pi_ready: bool = 1,
        po_data: u16 = 16,
        po_ready: bool = 1,
        busy: bool = 1,
        errors: u16 = 16,
        oob: bool = 1,
        lost: bool = 1,
    }
}
