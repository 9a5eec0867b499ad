//! On a real card: set `SANSWITCH_PCIE_ADDR` to its PCI address (as root, hugepages
//! reserved, memory and bus mastering enabled; `docs/DRIVER.md`) and run
//! `cargo test -p sanswitch-driver --test pcie_card -- --ignored`.

use sanswitch_driver::pcie::Pcie;
use sanswitch_driver::{Device, Endpoint, SocketConfig};

fn address() -> String {
    std::env::var("SANSWITCH_PCIE_ADDR")
        .expect("SANSWITCH_PCIE_ADDR=<PCI address of the card>, e.g. 0000:01:00.0")
}

#[test]
#[ignore = "needs a card: SANSWITCH_PCIE_ADDR=0000:01:00.0 cargo test -- --ignored"]
fn the_card_opens_and_its_rings_come_up() {
    let dev = Device::open(Pcie::open(&address()).expect("the card")).expect("a sanswitch NIC");
    println!("{:?}", dev.info);
    let ep = Endpoint::new(dev, SocketConfig::default()).expect("queue pair");
    // An OPEN goes through the submission ring and comes back through the completion ring.
    let c = ep.listen(0, 1).expect("OPEN and LISTEN submitted");
    let mut waits = 0;
    while !c.is_open().expect("no error") {
        ep.wait();
        waits += 1;
        assert!(waits < 10_000_000, "the OPEN never completed");
    }
    c.abort().expect("ABORT completes");
}
