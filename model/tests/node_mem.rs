//! The node memory's cycle model against a byte array: random DMA write bursts and word
//! writes at odd addresses and lengths (some past the end), then random DMA reads and word
//! reads under random backpressure, every byte compared; what lies outside is counted.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sanswitch_model::blocks::node_mem::{NodeMemIn, NodeMemModel, NodeMemOut};
use sanswitch_model::ports::CycleModel;

const WORDS: usize = 512;
const BYTES: u64 = 8 * WORDS as u64;

struct Harness {
    m: NodeMemModel,
    rng: ChaCha8Rng,
    cycles: u64,
}

impl Harness {
    fn step(&mut self, f: impl FnOnce(&mut NodeMemIn)) -> (NodeMemIn, NodeMemOut) {
        let mut i = NodeMemIn::default();
        f(&mut i);
        let o = self.m.outputs(&i);
        self.m.clock(&i);
        self.cycles += 1;
        (i, o)
    }

    /// A DMA write burst of `data` at `addr`, beats offered with random gaps.
    fn dma_write(&mut self, addr: u64, data: &[u8]) {
        let beats: Vec<&[u8]> = data.chunks(8).collect();
        let mut k = 0;
        while k < beats.len() {
            let offer = self.rng.gen_bool(0.8);
            let b = beats[k];
            let d = b.iter().enumerate().fold(0u64, |a, (j, x)| a | u64::from(*x) << (8 * j));
            let keep = ((1u16 << b.len()) - 1) as u8;
            let last = k + 1 == beats.len();
            let (_, o) = self.step(|i| {
                i.s_axis_wr_tvalid = offer;
                i.s_axis_wr_addr = addr;
                i.s_axis_wr_tdata = d;
                i.s_axis_wr_tkeep = keep;
                i.s_axis_wr_tlast = last;
            });
            if offer && o.s_axis_wr_tready {
                k += 1;
            }
        }
    }

    /// A DMA read of `len` bytes at `addr`; its beats' bytes.
    fn dma_read(&mut self, addr: u64, len: u32) -> Vec<u8> {
        let mut asked = false;
        let mut got = Vec::new();
        for _ in 0..100_000 {
            let ready = self.rng.gen_bool(0.7);
            let (i, o) = self.step(|i| {
                i.s_axis_rdreq_tvalid = !asked;
                i.s_axis_rdreq_addr = addr;
                i.s_axis_rdreq_len = len;
                i.m_axis_rddata_tready = ready;
            });
            if !asked && o.s_axis_rdreq_tready {
                asked = true;
            }
            if o.m_axis_rddata_tvalid && i.m_axis_rddata_tready {
                let nb = o.m_axis_rddata_tkeep.count_ones() as usize;
                assert_eq!(o.m_axis_rddata_tkeep, ((1u16 << nb) - 1) as u8, "keep not low bytes");
                got.extend_from_slice(&o.m_axis_rddata_tdata.to_le_bytes()[..nb]);
                if o.m_axis_rddata_tlast {
                    return got;
                }
            }
        }
        panic!("read of {len} at {addr:#x} never ended");
    }

    fn word(&mut self, write: bool, index: u16, v: u64, mask: u8) -> Option<u64> {
        loop {
            let (_, o) = self.step(|i| {
                i.s_mem_valid = true;
                i.s_mem_write = write;
                i.s_mem_index = index;
                i.s_mem_wdata = v;
                i.s_mem_wmask = mask;
            });
            if o.s_mem_ready {
                break;
            }
        }
        if write {
            return None;
        }
        let (_, o) = self.step(|_| {});
        assert!(o.m_mem_rvalid);
        Some(o.m_mem_rdata)
    }
}

#[test]
fn dma_and_word_accesses_match_a_byte_array() {
    let mut h =
        Harness { m: NodeMemModel::new(WORDS), rng: ChaCha8Rng::seed_from_u64(5), cycles: 0 };
    let mut r = vec![0u8; BYTES as usize];
    let mut oob = 0u16;
    for _ in 0..400 {
        let len = h.rng.gen_range(1..=100u64);
        let addr = if h.rng.gen_bool(0.05) {
            BYTES - len + h.rng.gen_range(1..8)
        } else {
            h.rng.gen_range(0..=BYTES - len)
        };
        let data: Vec<u8> = (0..len).map(|_| h.rng.r#gen()).collect();
        if h.rng.gen_bool(0.8) {
            h.dma_write(addr, &data);
            // Beats wholly inside land; a beat reaching past the end is dropped.
            for (k, c) in data.chunks(8).enumerate() {
                let s = addr + 8 * k as u64;
                if s + c.len() as u64 <= BYTES {
                    r[s as usize..s as usize + c.len()].copy_from_slice(c);
                } else {
                    oob += 1;
                }
            }
        } else {
            let idx = h.rng.gen_range(0..WORDS as u16);
            let v: u64 = h.rng.r#gen();
            let mask: u8 = h.rng.r#gen();
            h.word(true, idx, v, mask);
            for b in 0..8 {
                if mask >> b & 1 != 0 {
                    r[8 * idx as usize + b] = v.to_le_bytes()[b];
                }
            }
        }
    }
    // Let a last carry land.
    h.step(|_| {});
    let words: Vec<u8> = h.m.words().iter().flat_map(|w| w.to_le_bytes()).collect();
    let bad = words.iter().zip(&r).position(|(a, b)| a != b);
    assert_eq!(bad, None, "memory after the writes differs from byte {bad:?} on");
    for _ in 0..400 {
        let len = h.rng.gen_range(1..=100u32);
        let addr = h.rng.gen_range(0..=BYTES - u64::from(len));
        let got = h.dma_read(addr, len);
        assert_eq!(got, r[addr as usize..addr as usize + len as usize], "read {len} at {addr}");
        let idx = h.rng.gen_range(0..WORDS as u16);
        let w = h.word(false, idx, 0, 0).unwrap();
        assert_eq!(w.to_le_bytes(), r[8 * idx as usize..8 * idx as usize + 8]);
    }
    // Reads past the end: zero beats of the asked shape, counted.
    let got = h.dma_read(BYTES - 4, 12);
    assert_eq!(got, vec![0; 12]);
    oob += 1;
    let c = h.m.outputs(&NodeMemIn::default()).cnt_oob;
    assert_eq!(c, oob);
    println!("{} cycles, {oob} out of range", h.cycles);
}
