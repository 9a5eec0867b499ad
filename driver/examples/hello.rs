//! The driver API in a page: two NICs (their cycle models, over the simulated SAN) stand in
//! for two hosts' cards; node 1 listens, node 0 connects, sends a message and urgent byte,
//! shuts down; node 1 reads it all, then both close. On a card, `model_pair` becomes the
//! PCIe transport and each node runs on its own host.
//!
//! Run: `cargo run -p sanswitch-driver --example hello`

use std::io::{Read, Write};

use sanswitch_driver::pair::model_pair;
use sanswitch_driver::{Device, Endpoint, SocketConfig};
use sanswitch_model::engine_pair::PairConfig;
use sanswitch_model::regs::HostParams;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let [t0, t1] = model_pair(PairConfig::default(), &HostParams::default());
    // Open each device (refuses an unknown ID or version) and set up its rings.
    let (d0, d1) = (Device::open(t0)?, Device::open(t1)?);
    println!("device: {:?}", d0.info);
    let (a, b) =
        (Endpoint::new(d0, SocketConfig::default())?, Endpoint::new(d1, SocketConfig::default())?);

    // Connection 0: node 1 listens on port 80, node 0 connects once it is open.
    let server = b.listen(0, 80)?;
    while !server.is_open()? {
        b.wait();
    }
    let mut client = a.connect(0, (1 << 16) | 80)?;
    client.wait_connected()?;
    server.wait_connected()?;
    let mut server = server;

    client.write_all(b"hello over the session protocol")?;
    client.send_urgent(b"!")?;
    client.shutdown()?;
    client.flush()?; // every send completed

    let mut got = Vec::new();
    server.read_to_end(&mut got)?; // until the peer's shutdown
    let mut urgent = [0u8; 1];
    let n = server.recv_urgent(&mut urgent)?;
    println!("received {:?} and urgent {:?}", String::from_utf8_lossy(&got), &urgent[..n]);

    client.close()?;
    server.close()?;
    println!("{:?}", a.stats());
    Ok(())
}
