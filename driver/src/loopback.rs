//! The loopback run: two nodes (node 0 connects, node 1 listens) move seeded random
//! streams both ways on several connections through the socket API, every byte checked
//! where it arrives. Each node has one endpoint, or one per queue pair
//! ([`run_queue_pairs`]: connection `c` on endpoint `c mod n`). What `sanswitch loopback` runs for a user and the driver's end-to-end
//! tests run on every simulation transport.
//!
//! One thread drives both hosts with non-blocking calls, so a run is deterministic: each
//! round every direction of every connection writes what it can and reads what is there;
//! a round where nothing moved lets the device run. Writes are random sizes (0 to
//! `max_write`, log-uniform); urgent bytes go now and then on a stream of their own; each
//! direction ends with a shutdown that the reader must see as end of stream; connections
//! chosen for it are aborted mid-stream by node 0 instead, and then only a prefix of each
//! stream may have arrived. Finally every connection is closed (or aborted) on both nodes.

use std::io::{self, Read, Write};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::{Connection, Endpoint, EndpointStats, Error, Transport};

/// What to move.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopbackOptions {
    pub connections: u16,
    /// Bytes per direction per connection.
    pub bytes: u64,
    /// Largest single write.
    pub max_write: usize,
    /// Probability per write of an urgent send (1 to 8 bytes) beside it.
    pub urgent: f64,
    /// Connections (the first ones) node 0 aborts when half their bytes are written.
    pub aborts: u16,
    pub seed: u64,
    /// The run fails ([`LoopbackError::Stalled`]) after this many waits in a row in which
    /// nothing moved (a device that stopped answering, or lost completions).
    pub stall_waits: u64,
}

impl Default for LoopbackOptions {
    fn default() -> Self {
        LoopbackOptions {
            connections: 4,
            bytes: 1 << 20,
            max_write: 1 << 20,
            urgent: 0.02,
            aborts: 0,
            seed: 1,
            stall_waits: 100_000,
        }
    }
}

/// What went wrong in a run.
#[derive(Debug, Error)]
pub enum LoopbackError {
    #[error("driver: {0}")]
    Driver(#[from] Error),
    #[error("conn {conn} node {node}: {what}: {err}")]
    Io { conn: u16, node: usize, what: &'static str, err: io::Error },
    #[error("conn {conn} toward node {node}: byte {at} is {got:#04x}, expected {want:#04x}")]
    Corrupt { conn: u16, node: usize, at: u64, got: u8, want: u8 },
    #[error("conn {conn} toward node {node}: {what}")]
    Check { conn: u16, node: usize, what: String },
    #[error("nothing moved for {waits} waits with {left} stream bytes still to come")]
    Stalled { waits: u64, left: u64 },
}

/// What a run moved and what it cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopbackReport {
    /// Stream bytes delivered and checked (both directions, every connection), urgent bytes.
    pub bytes: u64,
    pub urgent_bytes: u64,
    /// Device clock cycles from the first OPEN to the last close, where the transport
    /// tells them.
    pub cycles: Option<u64>,
    /// Each node's endpoints' figures, summed.
    pub endpoints: [EndpointStats; 2],
    pub aborted: u16,
}

impl LoopbackReport {
    /// Commands per doorbell and completions per poll that found any, both nodes.
    pub fn commands_per_doorbell(&self) -> f64 {
        let (c, d) =
            self.endpoints.iter().fold((0, 0), |a, s| (a.0 + s.commands, a.1 + s.doorbells));
        c as f64 / d.max(1) as f64
    }

    pub fn completions_per_poll(&self) -> f64 {
        let (c, r) =
            self.endpoints.iter().fold((0, 0), |a, s| (a.0 + s.completions, a.1 + s.reaps));
        c as f64 / r.max(1) as f64
    }

    pub fn bytes_per_cycle(&self) -> Option<f64> {
        self.cycles.map(|c| self.bytes as f64 / c.max(1) as f64)
    }
}

/// The byte at position `at` of the stream of (`seed`, connection, direction, urgent).
fn stream_byte(key: u64, at: u64) -> u8 {
    let x = (key ^ at.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (x ^ (x >> 29)).wrapping_mul(0x94D0_49BB_1331_11EB).to_le_bytes()[7]
}

/// One direction of one connection.
struct Dir {
    key: u64,
    ukey: u64,
    written: u64,
    read: u64,
    urgent_written: u64,
    urgent_read: u64,
    shut: bool,
    eof: bool,
    /// The write in progress (what is left of it).
    chunk: usize,
}

struct Pair<T: Transport> {
    id: u16,
    /// Node 0's and node 1's ends.
    ends: [Connection<T>; 2],
    /// Direction `d` is written by node `d`, read by node `1 - d`.
    dirs: [Dir; 2],
    abort: bool,
    aborted: bool,
}

/// Runs the loopback with one endpoint per node; `progress(done, total)` is called with the
/// stream bytes delivered.
pub fn run<T: Transport>(
    eps: &[Endpoint<T>; 2],
    o: &LoopbackOptions,
    progress: impl FnMut(u64, u64),
) -> Result<LoopbackReport, LoopbackError> {
    run_queue_pairs([std::slice::from_ref(&eps[0]), std::slice::from_ref(&eps[1])], o, progress)
}

/// Runs `f` with the doorbells of every endpoint in `eps` held: one doorbell each at its end.
fn batch_all<T: Transport, R>(eps: &[Endpoint<T>], f: &mut dyn FnMut() -> R) -> Result<R, Error> {
    match eps.split_first() {
        None => Ok(f()),
        Some((e, rest)) => e.batch(|| batch_all(rest, f))?,
    }
}

/// Runs the loopback with several endpoints per node (each on its own queue pair; at least
/// one per node): connection `c` uses endpoint `c mod n` of each node.
pub fn run_queue_pairs<T: Transport>(
    nodes: [&[Endpoint<T>]; 2],
    o: &LoopbackOptions,
    mut progress: impl FnMut(u64, u64),
) -> Result<LoopbackReport, LoopbackError> {
    let ep = |n: usize, c: u16| &nodes[n][usize::from(c) % nodes[n].len()];
    let mut rng = ChaCha8Rng::seed_from_u64(o.seed);
    let start = nodes[0][0].now_cycles();
    let io = |conn, node, what| move |err| LoopbackError::Io { conn, node, what, err };
    let total = o.bytes * 2 * o.connections as u64;
    // Node 1 listens; node 0 connects once the listener's OPEN is done.
    let mut listeners = Vec::new();
    for c in 0..o.connections {
        listeners.push(ep(1, c).listen(c, c)?);
    }
    for l in &listeners {
        let mut waits = 0;
        while !l.is_open().map_err(io(l.id(), 1, "open"))? {
            waits += 1;
            if waits > o.stall_waits {
                return Err(LoopbackError::Stalled { waits: o.stall_waits, left: total });
            }
            ep(1, l.id()).wait();
        }
    }
    let mut pairs = Vec::new();
    for l in listeners {
        let c = l.id();
        let mut ends = [ep(0, c).connect(c, (1 << 16) | c as u64)?, l];
        for (n, e) in ends.iter_mut().enumerate() {
            e.wait_connected().map_err(io(c, n, "connect"))?;
            e.set_nonblocking(true);
        }
        let dir = |d: u64| Dir {
            key: o.seed ^ (c as u64) << 32 ^ d << 48,
            ukey: !(o.seed ^ (c as u64) << 32 ^ d << 48),
            written: 0,
            read: 0,
            urgent_written: 0,
            urgent_read: 0,
            shut: false,
            eof: false,
            chunk: 0,
        };
        pairs.push(Pair {
            id: c,
            ends,
            dirs: [dir(0), dir(1)],
            abort: c < o.aborts,
            aborted: false,
        });
    }
    let mut done = 0u64;
    let mut still = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    let mut wbuf = Vec::new();
    loop {
        let mut moved = false;
        let mut open = false;
        let mut round = |pairs: &mut Vec<Pair<T>>| -> Result<(bool, bool, u64), LoopbackError> {
            let (mut moved, mut open, mut got) = (false, false, 0);
            for p in pairs.iter_mut() {
                if p.aborted {
                    continue;
                }
                for d in 0..2 {
                    open |= !p.dirs[d].eof;
                    moved |= write_side(p, d, o, &mut rng, &mut wbuf)?;
                    let (m, n) = read_side(p, d, &mut buf)?;
                    moved |= m;
                    got += n;
                }
                if p.abort && p.dirs[0].written >= o.bytes / 2 {
                    // Node 0 aborts; node 1 must see its end reset.
                    p.aborted = true;
                    moved = true;
                }
            }
            Ok((moved, open, got))
        };
        // Each round's commands go with one doorbell per node.
        let (m, op, got) =
            batch_all(nodes[0], &mut || batch_all(nodes[1], &mut || round(&mut pairs)))???;
        moved |= m;
        open |= op;
        done += got;
        progress(done, total);
        if !open {
            break;
        }
        if moved {
            still = 0;
        } else {
            still += 1;
            if still > o.stall_waits {
                return Err(LoopbackError::Stalled {
                    waits: still - 1,
                    left: total.saturating_sub(done),
                });
            }
            nodes[0][0].wait();
        }
        if pairs.iter().all(|p| p.aborted || (p.dirs[0].eof && p.dirs[1].eof)) {
            break;
        }
    }
    let mut report = LoopbackReport::default();
    for p in pairs {
        let Pair { id, ends: [a, b], dirs, aborted, .. } = p;
        for d in &dirs {
            report.bytes += d.read;
            report.urgent_bytes += d.urgent_read;
        }
        if aborted {
            report.aborted += 1;
            a.abort().map_err(io(id, 0, "abort"))?;
            let mut b = b;
            b.set_nonblocking(false);
            // The peer's end went down: a read says so, after what had arrived (checked).
            let dir = &dirs[0];
            let mut at = dir.read;
            loop {
                match b.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        for x in &buf[..n] {
                            let want = stream_byte(dir.key, at);
                            if *x != want {
                                let (got, node) = (*x, 1);
                                return Err(LoopbackError::Corrupt {
                                    conn: id,
                                    node,
                                    at,
                                    got,
                                    want,
                                });
                            }
                            at += 1;
                        }
                        report.bytes += n as u64;
                    }
                    Err(e)
                        if matches!(
                            e.kind(),
                            io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted
                        ) =>
                    {
                        break;
                    }
                    Err(e) => return Err(io(id, 1, "read after the peer's abort")(e)),
                }
            }
            b.abort().map_err(io(id, 1, "abort"))?;
            continue;
        }
        for (d, dir) in dirs.iter().enumerate() {
            if dir.urgent_read != dir.urgent_written {
                let what = format!(
                    "{} urgent bytes arrived of {} sent",
                    dir.urgent_read, dir.urgent_written
                );
                return Err(LoopbackError::Check { conn: id, node: 1 - d, what });
            }
        }
        for (n, end) in [a, b].into_iter().enumerate() {
            let mut end = end;
            end.set_nonblocking(false);
            end.flush().map_err(io(id, n, "flush"))?;
            end.close().map_err(io(id, n, "close"))?;
        }
    }
    report.cycles = start.zip(nodes[0][0].now_cycles()).map(|(a, b)| b - a);
    report.endpoints = nodes.map(|eps| {
        eps.iter().map(|e| e.stats()).fold(EndpointStats::default(), |a, s| EndpointStats {
            commands: a.commands + s.commands,
            doorbells: a.doorbells + s.doorbells,
            completions: a.completions + s.completions,
            reaps: a.reaps + s.reaps,
            bytes_sent: a.bytes_sent + s.bytes_sent,
            bytes_received: a.bytes_received + s.bytes_received,
        })
    });
    Ok(report)
}

/// Node `d` writes on direction `d` what it can; returns whether anything moved.
fn write_side<T: Transport>(
    p: &mut Pair<T>,
    d: usize,
    o: &LoopbackOptions,
    rng: &mut ChaCha8Rng,
    wbuf: &mut Vec<u8>,
) -> Result<bool, LoopbackError> {
    let (id, conn) = (p.id, &mut p.ends[d]);
    let dir = &mut p.dirs[d];
    let io = |what| move |err| LoopbackError::Io { conn: id, node: d, what, err };
    if dir.shut {
        return Ok(false);
    }
    if dir.written == o.bytes {
        conn.shutdown().map_err(io("shutdown"))?;
        dir.shut = true;
        return Ok(true);
    }
    if dir.chunk == 0 {
        let bits = rng.gen_range(0..=o.max_write.max(1).ilog2());
        dir.chunk = (rng.gen_range(0..=(1usize << bits)).min(o.max_write) as u64)
            .min(o.bytes - dir.written)
            .max(1) as usize;
        if o.urgent > 0.0 && rng.gen_bool(o.urgent) {
            let n = rng.gen_range(1..=8);
            let u: Vec<u8> =
                (0..n).map(|k| stream_byte(dir.ukey, dir.urgent_written + k)).collect();
            match conn.send_urgent(&u) {
                Ok(k) => dir.urgent_written += k as u64,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(io("urgent send")(e)),
            }
        }
    }
    wbuf.clear();
    wbuf.extend((0..dir.chunk as u64).map(|k| stream_byte(dir.key, dir.written + k)));
    match conn.write(wbuf) {
        Ok(n) => {
            dir.written += n as u64;
            dir.chunk -= n;
            Ok(n > 0)
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
        Err(e) => Err(io("write")(e)),
    }
}

/// Node `1 - d` reads direction `d`; returns whether anything moved and the bytes read.
fn read_side<T: Transport>(
    p: &mut Pair<T>,
    d: usize,
    buf: &mut [u8],
) -> Result<(bool, u64), LoopbackError> {
    let r = 1 - d;
    let (id, conn) = (p.id, &mut p.ends[r]);
    let dir = &mut p.dirs[d];
    let io = |what| move |err| LoopbackError::Io { conn: id, node: r, what, err };
    if dir.eof {
        return Ok((false, 0));
    }
    let mut moved = false;
    let mut ub = [0u8; 64];
    match conn.recv_urgent(&mut ub) {
        Ok(n) => {
            for (k, b) in ub[..n].iter().enumerate() {
                let at = dir.urgent_read + k as u64;
                let want = stream_byte(dir.ukey, at);
                if *b != want {
                    let what = format!("urgent byte {at} is {b:#04x}, expected {want:#04x}");
                    return Err(LoopbackError::Check { conn: id, node: r, what });
                }
            }
            dir.urgent_read += n as u64;
            moved |= n > 0;
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
        Err(e) => return Err(io("urgent receive")(e)),
    }
    match conn.read(buf) {
        Ok(0) => {
            if dir.read != dir.written || !dir.shut {
                let what = format!("end of stream after {} of {} bytes", dir.read, dir.written);
                return Err(LoopbackError::Check { conn: id, node: r, what });
            }
            dir.eof = true;
            Ok((true, 0))
        }
        Ok(n) => {
            for (k, b) in buf[..n].iter().enumerate() {
                let at = dir.read + k as u64;
                let want = stream_byte(dir.key, at);
                if *b != want {
                    return Err(LoopbackError::Corrupt { conn: id, node: r, at, got: *b, want });
                }
            }
            dir.read += n as u64;
            if dir.read > dir.written {
                let what = format!("{} bytes read, {} written", dir.read, dir.written);
                return Err(LoopbackError::Check { conn: id, node: r, what });
            }
            Ok((true, n as u64))
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok((moved, 0)),
        Err(e) => Err(io("read")(e)),
    }
}
