//! A connection: `std::io::Read` and `std::io::Write` over the engine's session, plus urgent
//! data, shutdown, abort and close. Blocking by default (the call waits for the device);
//! [`Connection::set_nonblocking`] makes a call that cannot go on return `WouldBlock`.

use std::cell::RefCell;
use std::io;
use std::rc::Rc;

use sanswitch_model::host::Opcode;

use crate::socket::{Inner, Phase, wsa_io};
use crate::{Error, Transport};

/// One connection of an [`Endpoint`](crate::Endpoint).
pub struct Connection<T: Transport> {
    pub(crate) ep: Rc<RefCell<Inner<T>>>,
    pub(crate) id: u16,
    pub(crate) nonblocking: bool,
}

fn io_err(e: Error) -> io::Error {
    match e {
        Error::TimedOut(_) => io::Error::new(io::ErrorKind::TimedOut, e),
        e => io::Error::other(e),
    }
}

/// What a step of a call found.
enum Step<R> {
    Done(R),
    /// Nothing can happen until the device does something.
    Again,
}

impl<T: Transport> Connection<T> {
    /// The engine's connection number.
    pub fn id(&self) -> u16 {
        self.id
    }

    pub fn set_nonblocking(&mut self, on: bool) {
        self.nonblocking = on;
    }

    /// Runs `f` until it is done: between tries the endpoint makes progress and, when
    /// blocking, waits for the device.
    fn drive<R>(&self, mut f: impl FnMut(&mut Inner<T>) -> io::Result<Step<R>>) -> io::Result<R> {
        let mut g = self.ep.borrow_mut();
        loop {
            g.progress().map_err(io_err)?;
            if let Step::Done(r) = f(&mut g)? {
                g.doorbell().map_err(io_err)?;
                return Ok(r);
            }
            if self.nonblocking {
                return Err(io::ErrorKind::WouldBlock.into());
            }
            g.wait_once().map_err(io_err)?;
        }
    }

    /// Whether the OPEN completed (a peer may now connect to it).
    pub fn is_open(&self) -> io::Result<bool> {
        let mut g = self.ep.borrow_mut();
        g.progress().map_err(io_err)?;
        let st = &g.conns[&self.id];
        if let Some(e) = st.error {
            return Err(wsa_io(e));
        }
        Ok(st.phase != Phase::Opening)
    }

    /// Waits (or, non-blocking, checks) until the session is negotiated.
    pub fn wait_connected(&self) -> io::Result<()> {
        let id = self.id;
        self.drive(|g| {
            let st = &g.conns[&id];
            match (st.error, st.phase) {
                (Some(e), _) => Err(wsa_io(e)),
                (None, Phase::Connected) => Ok(Step::Done(())),
                _ => Ok(Step::Again),
            }
        })
    }

    fn check(g: &Inner<T>, id: u16) -> io::Result<()> {
        let st = &g.conns[&id];
        if let Some(e) = st.error {
            return Err(wsa_io(e));
        }
        if st.phase != Phase::Connected {
            return Err(io::ErrorKind::NotConnected.into());
        }
        Ok(())
    }

    fn send(&mut self, data: &[u8], urgent: bool) -> io::Result<usize> {
        let id = self.id;
        self.drive(|g| {
            Self::check(g, id)?;
            let st = g.conns.get_mut(&id).expect("open");
            if let Some(e) = st.send_error.take() {
                return Err(wsa_io(e));
            }
            if st.shut {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            if data.is_empty() {
                return Ok(Step::Done(0));
            }
            match g.stage_send(id, data, urgent).map_err(io_err)? {
                0 => Ok(Step::Again),
                n => Ok(Step::Done(n)),
            }
        })
    }

    /// Sends `data` as urgent (out-of-band) data; the bytes taken (at most `max_send`).
    pub fn send_urgent(&mut self, data: &[u8]) -> io::Result<usize> {
        self.send(data, true)
    }

    /// Takes received urgent bytes into `out`.
    pub fn recv_urgent(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let id = self.id;
        self.drive(|g| {
            let st = g.conns.get_mut(&id).expect("open");
            if st.urgent.is_empty() {
                if let Some(e) = st.error {
                    return Err(wsa_io(e));
                }
                return Ok(if st.eof { Step::Done(0) } else { Step::Again });
            }
            let n = out.len().min(st.urgent.len());
            for (o, b) in out.iter_mut().zip(st.urgent.drain(..n)) {
                *o = b;
            }
            Ok(Step::Done(n))
        })
    }

    /// Shuts the send direction down once every send before it is sent.
    pub fn shutdown(&mut self) -> io::Result<()> {
        let id = self.id;
        self.drive(|g| {
            Self::check(g, id)?;
            let st = g.conns.get_mut(&id).expect("open");
            if !st.shut {
                st.shut = true;
                g.queue_cmd(id, Opcode::Shutdown, 0, 0);
            }
            Ok(Step::Done(()))
        })
    }

    /// Abortive close: everything outstanding completes at once; waits for the ABORT.
    pub fn abort(self) -> io::Result<()> {
        self.end(Opcode::Abort)
    }

    /// Graceful close: completes when both directions are shut and every request is done;
    /// the connection's memory is given back.
    pub fn close(self) -> io::Result<()> {
        self.end(Opcode::Close)
    }

    fn end(mut self, op: Opcode) -> io::Result<()> {
        let id = self.id;
        self.nonblocking = false;
        {
            let mut g = self.ep.borrow_mut();
            let st = g.conns.get_mut(&id).expect("open");
            st.closing = true;
            if st.phase == Phase::Closed {
                return Ok(());
            }
            // A graceful close shuts the send direction first, as closesocket does.
            let shut = op == Opcode::Close && !st.shut && st.error.is_none();
            if shut {
                st.shut = true;
                g.queue_cmd(id, Opcode::Shutdown, 0, 0);
            }
            g.queue_cmd(id, op, 0, 0);
        }
        self.drive(|g| {
            let st = &g.conns[&id];
            if st.phase == Phase::Closed && st.rx_posted == 0 && st.sends_out() == 0 {
                Ok(Step::Done(()))
            } else {
                Ok(Step::Again)
            }
        })?;
        let mut g = self.ep.borrow_mut();
        let st = g.conns.remove(&id).expect("open");
        g.free_memory(st).map_err(io_err)
    }

    /// Bytes written and not yet completed.
    pub fn unsent(&self) -> usize {
        self.ep.borrow().staged_bytes(self.id)
    }

    /// Whether the peer shut its send direction down and everything before it was read.
    pub fn at_eof(&self) -> bool {
        let g = self.ep.borrow();
        let st = &g.conns[&self.id];
        st.eof && st.rx_ready_empty()
    }
}

impl<T: Transport> io::Write for Connection<T> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.send(data, false)
    }

    /// Waits until every send completed; a send's failure is returned here.
    fn flush(&mut self) -> io::Result<()> {
        let id = self.id;
        self.drive(|g| {
            let st = g.conns.get_mut(&id).expect("open");
            if let Some(e) = st.send_error.take() {
                return Err(wsa_io(e));
            }
            if let Some(e) = st.error {
                return Err(wsa_io(e));
            }
            Ok(if st.sends_out() == 0 { Step::Done(()) } else { Step::Again })
        })
    }
}

impl<T: Transport> io::Read for Connection<T> {
    /// Received bytes in order; 0 once the peer shut down and everything was read.
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let id = self.id;
        self.drive(|g| {
            if out.is_empty() {
                return Ok(Step::Done(0));
            }
            let n = g.take_received(id, out).map_err(io_err)?;
            if n > 0 {
                return Ok(Step::Done(n));
            }
            let st = &g.conns[&id];
            if st.eof {
                return Ok(Step::Done(0));
            }
            if let Some(e) = st.error {
                return Err(wsa_io(e));
            }
            Ok(Step::Again)
        })
    }
}
