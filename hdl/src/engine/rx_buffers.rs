//! The receive buffers: the block RAM holding every connection's posted receive buffers
//! (the model's `Engine::rxbuf`), written by the parser's payload beats, read by delivery.
//!
//! A word's address is `{conn, buf, word}` (each field a power of two wide, so the address
//! is the fields side by side). A beat past its buffer's last word, or for a connection or
//! buffer out of range, is dropped: no incoming message, however malformed or oversized,
//! writes outside the buffer it landed in.
//!
//! # Ports
//! - `s_axis_pay_*` (in, AXI4-Stream, always ready): the parser's payload beats; `tuser`
//!   is the parser's (connection in bits 0..8, buffer in 8..16).
//! - `rd_addr` (in) / `rd_data` (out): delivery's read port, one cycle from address to data
//!   (block RAM).
//! - `reset` (in): synchronous; the write pointer returns to a buffer's first word.

use rust_hdl::prelude::*;
use sanswitch_model::params::EngineParams;

use crate::widgets::{Param, Ram, param};

#[derive(LogicBlock, Default)]
pub struct RxBuffers {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_pay_tvalid: Signal<In, Bit>,
    pub s_axis_pay_tdata: Signal<In, Bits<64>>,
    pub s_axis_pay_tlast: Signal<In, Bit>,
    pub s_axis_pay_tuser: Signal<In, Bits<17>>,
    pub rd_addr: Signal<In, Bits<16>>,
    pub rd_data: Signal<Out, Bits<64>>,
    ram: Ram<Bits<64>>,
    /// The next word of the message being written.
    wptr: DFF<Bits<16>>,
    k_conns: Param<Bits<8>>,
    k_recv_bufs: Param<Bits<8>>,
    k_buf_words: Param<Bits<16>>,
    k_conn_shift: Param<Bits<16>>,
    k_buf_shift: Param<Bits<16>>,
    user: Signal<Local, Bits<32>>,
    conn: Signal<Local, Bits<8>>,
    slot: Signal<Local, Bits<8>>,
}

impl RxBuffers {
    pub fn new(p: &EngineParams) -> Self {
        let buf_shift = p.buf_words().trailing_zeros() as u64;
        let conn_shift = buf_shift + p.recv_slots().trailing_zeros() as u64;
        RxBuffers {
            ram: Ram::new(p.rx_words().next_power_of_two(), true),
            k_conns: param(p.connections.min(255) as u64),
            k_recv_bufs: param(p.recv_bufs as u64),
            k_buf_words: param(p.buf_words() as u64),
            k_conn_shift: param(conn_shift),
            k_buf_shift: param(buf_shift),
            ..Default::default()
        }
    }
}

impl Logic for RxBuffers {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wptr);
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.rd_addr.val();
        self.rd_data.next = self.ram.read_data.val();
        self.user.next = bit_cast::<32, 17>(self.s_axis_pay_tuser.val());
        self.conn.next = self.user.val().get_bits::<8>(0);
        self.slot.next = self.user.val().get_bits::<8>(8);
        self.ram.write_enable.next = false;
        self.ram.write_address.next = (bit_cast::<16, 8>(self.conn.val())
            << self.k_conn_shift.val())
            | (bit_cast::<16, 8>(self.slot.val()) << self.k_buf_shift.val())
            | self.wptr.q.val();
        self.ram.write_data.next = self.s_axis_pay_tdata.val();
        if self.s_axis_pay_tvalid.val() {
            self.ram.write_enable.next = (self.conn.val() < self.k_conns.val())
                & (self.slot.val() < self.k_recv_bufs.val())
                & (self.wptr.q.val() < self.k_buf_words.val());
            self.wptr.d.next = self.wptr.q.val() + 1;
            if self.s_axis_pay_tlast.val() {
                self.wptr.d.next = 0.into();
            }
        }
        if self.reset.val() {
            self.wptr.d.next = 0.into();
        }
    }
}
