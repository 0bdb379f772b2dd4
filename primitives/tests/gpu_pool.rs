//! GPU test of the device memory pool ([`Gpu::reserve_pool`], [`Gpu::pool_memory`]). The pool
//! is the device's, shared by every `Gpu` of the process: this test has a binary of its own, so
//! that no other test's buffers come and go in it meanwhile. Run on a CUDA machine with
//! `scripts/gpu-check`.

mod common;

use common::gpu;
use sortlab_primitives::{DeviceBuffer, Error};

#[test]
#[ignore = "needs a CUDA device"]
fn reserve_pool_makes_room_and_keeps_it() {
    let g = gpu();
    let want = 256 << 20;
    let room = g.reserve_pool(want).unwrap();
    let (held, used) = g.pool_memory().unwrap();
    if held == 0 && room == 0 {
        // No stream-ordered pool on this device or driver: nothing to reserve.
        eprintln!("no memory pool: reserve_pool does nothing");
        return;
    }
    assert!(room >= want, "room {room} < {want}");
    assert_eq!(room, held - used);
    // A buffer that fits the room is served from it: the pool does not grow.
    let b = DeviceBuffer::<u8>::alloc(&g, want / 2).unwrap();
    let (held2, used2) = g.pool_memory().unwrap();
    assert_eq!(held2, held, "the pool grew for a buffer that fit its room");
    assert!(used2 >= used + want / 2);
    drop(b);
    g.synchronize().unwrap();
    // Asking for no more than the room changes nothing.
    assert_eq!(g.reserve_pool(1).unwrap(), room);
    // More than the device holds is an error, and the pool keeps what it had.
    assert!(matches!(
        g.reserve_pool(1 << 50),
        Err(Error::OutOfMemory { .. })
    ));
    assert_eq!(g.pool_memory().unwrap().0, held);
}
