//! The ports of the board's logic below the FrontPanel pipes (`hdl/src/board/board_core.rs`:
//! the bridge, two NICs with their memories, the SAN loopback). There is no cycle model of
//! the whole: its parts each have theirs and are checked against them; the whole is run in
//! Verilator under the driver's board transport (`sim/tests/loopback_board_rtl.rs`), which
//! checks what it carries end to end.

crate::ports! {
    /// Board core inputs: the request words from the pipe-in FIFO, the response stream's ready.
    pub struct BoardCoreIn {
        reset: bool = 1,
        s_axis_req_tvalid: bool = 1,
        s_axis_req_tdata: u16 = 16,
        m_axis_rsp_tready: bool = 1,
    }
}

crate::ports! {
    /// Board core outputs.
    pub struct BoardCoreOut {
        s_axis_req_tready: bool = 1,
        m_axis_rsp_tvalid: bool = 1,
        m_axis_rsp_tdata: u16 = 16,
        busy: bool = 1,
        errors: u16 = 16,
        oob: bool = 1,
    }
}
