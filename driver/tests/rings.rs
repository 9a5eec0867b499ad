//! The driver against the host interface's cycle model (`HostIfBench`: registers over
//! AXI4-Lite, rings in a memory model, a stand-in engine that completes every command it
//! takes after a random delay): device discovery, refusals, batches with one doorbell each, reaping by
//! phase across many ring laps, a full ring, a stopped ring.

use std::collections::HashMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sanswitch_driver::{Device, DmaBuf, Error, Transport};
use sanswitch_model::blocks::hostif_bench::HostIfBench;
use sanswitch_model::host::{Command, Completion, Opcode};
use sanswitch_model::params::EngineParams;
use sanswitch_model::regs::{self, HostParams, RegError};

/// The host interface's model bench (host memory, a stand-in engine that completes every
/// command, backpressure) as a transport; `forge` makes chosen registers read wrong.
struct ModelLoop {
    b: HostIfBench,
    next_dma: u64,
    forge: HashMap<u32, u32>,
}

impl ModelLoop {
    fn new(seed: u64, stall: f64) -> Self {
        let mut b = HostIfBench::new(seed, stall);
        b.max_delay = 40;
        ModelLoop { b, next_dma: 0x4_0000_0000, forge: HashMap::new() }
    }
}

impl Transport for ModelLoop {
    fn read32(&mut self, offset: u32) -> Result<u32, Error> {
        if let Some(v) = self.forge.get(&offset) {
            return Ok(*v);
        }
        match self.b.try_read(offset) {
            Some((v, 0)) => Ok(v),
            Some((_, r)) => Err(Error::Register { offset, what: format!("read answered {r}") }),
            None => Err(Error::Register { offset, what: "no answer".into() }),
        }
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), Error> {
        match self.b.try_write(offset, value) {
            Some(0) => Ok(()),
            Some(r) => Err(Error::Register { offset, what: format!("write answered {r}") }),
            None => Err(Error::Register { offset, what: "no answer".into() }),
        }
    }

    fn dma_alloc(&mut self, len: usize, align: usize) -> Result<DmaBuf, Error> {
        let a = align as u64;
        let bus = self.next_dma.div_ceil(a) * a;
        self.next_dma = bus + len as u64;
        Ok(DmaBuf { bus, len })
    }

    fn dma_free(&mut self, _buf: &DmaBuf) -> Result<(), Error> {
        Ok(())
    }

    fn dma_write(&mut self, buf: &DmaBuf, offset: usize, data: &[u8]) -> Result<(), Error> {
        assert!(offset + data.len() <= buf.len, "a write inside the buffer");
        for (k, b) in data.iter().enumerate() {
            self.b.mem.insert(buf.bus + (offset + k) as u64, *b);
        }
        Ok(())
    }

    fn dma_read(&mut self, buf: &DmaBuf, offset: usize, out: &mut [u8]) -> Result<(), Error> {
        assert!(offset + out.len() <= buf.len, "a read inside the buffer");
        for (k, b) in out.iter_mut().enumerate() {
            *b = self.b.mem.get(&(buf.bus + (offset + k) as u64)).copied().unwrap_or(0);
        }
        Ok(())
    }

    fn barrier(&mut self) {}

    fn wait(&mut self) {
        self.b.idle(1);
    }
}

fn cmd(k: u32) -> Command {
    Command {
        opcode: Opcode::Send.code(),
        flags: 0,
        conn: (k % 16) as u16,
        tag: k,
        addr: 0x1000 * u64::from(k),
        len: k % 1000,
        aux: 0,
    }
}

#[test]
fn open_reads_the_id_block() {
    let d = Device::open(ModelLoop::new(1, 0.2)).unwrap();
    let p = EngineParams::default();
    assert_eq!(d.info.connections, u32::from(p.connections));
    assert_eq!(d.info.buf_size, p.buf_size);
    let h = HostParams::default();
    assert_eq!((d.info.queue_pairs, d.info.max_log2_size), (u32::from(h.queue_pairs), 12));
    assert_eq!(d.info.rdma_read, p.rdma_read);
    assert_eq!(d.blocks().len(), 2 + usize::from(h.queue_pairs));
}

#[test]
fn open_refuses_a_foreign_device_and_a_new_version() {
    let mut t = ModelLoop::new(2, 0.0);
    t.forge.insert(regs::HDR_TYPE, 0x10EE_9038);
    assert!(matches!(Device::open(t), Err(Error::Device(RegError::NotSanswitch(0x10EE_9038)))));
    let mut t = ModelLoop::new(2, 0.0);
    t.forge.insert(regs::ID_BLOCK.bytes + regs::HDR_VERSION, 2);
    assert!(matches!(Device::open(t), Err(Error::Device(RegError::Version { found: 2, .. }))));
    let mut t = ModelLoop::new(2, 0.0);
    t.forge.insert(regs::id::DESIGN_VERSION, (regs::design_version() >> 16 | 0x80) << 16);
    assert!(matches!(Device::open(t), Err(Error::DesignVersion { .. })));
}

#[test]
fn batches_go_with_one_doorbell_and_completions_come_back_by_phase() {
    for (seed, sq_log2, cq_log2, stall) in [(3, 2, 2, 0.0), (4, 4, 1, 0.3), (5, 3, 5, 0.5)] {
        let d = Device::open(ModelLoop::new(seed, stall)).unwrap();
        let mut q = d.queue_pair(0, sq_log2, cq_log2).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = 500u32;
        let (mut next, mut got, mut batches) = (0u32, Vec::new(), 0u64);
        let mut guard = 0;
        while got.len() < n as usize {
            guard += 1;
            assert!(guard < 200_000, "stuck at {} of {n}", got.len());
            let want = rng.gen_range(1..=1u32 << sq_log2).min(n - next);
            if want > 0 && q.free(want).unwrap() >= want {
                let batch: Vec<Command> = (next..next + want).map(cmd).collect();
                q.submit(&batch).unwrap();
                next += want;
                batches += 1;
            }
            let c = q.poll(64).unwrap();
            if c.is_empty() {
                q.device().transport().wait();
            }
            got.extend(c);
        }
        let want: Vec<Completion> =
            (0..n).map(|k| Completion::of(&cmd(k), Ok(cmd(k).len))).collect();
        assert_eq!(got, want, "seed {seed}: every completion once, in order");
        assert_eq!(q.doorbells, batches, "one doorbell per batch");
        assert!(q.reaps < u64::from(n), "completions reaped in batches: {} polls", q.reaps);
        // The device's own counters agree.
        let dev = q.device();
        assert_eq!(dev.counter(3, 0).unwrap(), n, "commands fetched");
        assert_eq!(dev.counter(3, 1).unwrap(), n, "completions written");
        assert_eq!(dev.counter(3, 2).unwrap() as u64, batches, "doorbells");
    }
}

#[test]
fn a_full_ring_is_refused_not_overwritten() {
    let d = Device::open(ModelLoop::new(6, 0.0)).unwrap();
    let mut q = d.queue_pair(0, 2, 4).unwrap();
    // The stand-in engine never gets a cycle between these: the ring fills.
    let four: Vec<Command> = (0..4).map(cmd).collect();
    q.submit(&four).unwrap();
    match q.submit(&[cmd(4)]) {
        Err(Error::Full { asked: 1, free }) => assert!(free < 1),
        Ok(()) => {} // the device fetched meanwhile (register reads take cycles): fine
        Err(e) => panic!("{e}"),
    }
    assert!(matches!(
        q.submit(&(0..5).map(cmd).collect::<Vec<_>>()),
        Err(Error::Full { asked: 5, .. })
    ));
}

#[test]
fn ring_sizes_outside_the_device_are_refused() {
    for (sq, cq) in [(0, 3), (13, 3), (3, 0), (3, 13)] {
        let d = Device::open(ModelLoop::new(7, 0.0)).unwrap();
        assert!(matches!(d.queue_pair(0, sq, cq), Err(Error::Param(_))), "{sq} {cq}");
    }
    // The last queue pair exists, one past it does not.
    let last = usize::from(HostParams::default().queue_pairs) - 1;
    let d = Device::open(ModelLoop::new(7, 0.0)).unwrap();
    assert!(d.queue_pair(last, 3, 3).is_ok(), "queue pair {last}");
    let d = Device::open(ModelLoop::new(7, 0.0)).unwrap();
    assert!(matches!(d.queue_pair(last + 1, 3, 3), Err(Error::Param(_))), "one past the last");
    let d = Device::open(ModelLoop::new(7, 0.0)).unwrap();
    assert!(d.queue_pair(0, 12, 1).is_ok(), "the largest ring");
}
