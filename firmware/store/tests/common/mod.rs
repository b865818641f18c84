//! Shared helpers: synthetic take images, uploads and checks over the mock flash.
#![allow(
    dead_code,
    unused_imports,
    reason = "each test binary uses a part of these helpers"
)]

use embassy_futures::block_on;
use llv_box_store::mock::MockFlash;
use llv_box_store::{Store, StoreError};
use llv_core::packet::MAX_LEN;
use llv_core::take::TakeImage;

/// Write unit 4 bytes, erase blocks of 1 KiB.
pub type Flash = MockFlash<4, 1024>;
/// 2 settings blocks and 16 take blocks.
pub const REGION: core::ops::Range<u32> = 0..18 * 1024;

pub use llv_box_store::mock::synthetic_image as image;

/// Mounts the store on `flash`.
pub fn mount(flash: Flash) -> Store<Flash> {
    block_on(Store::mount(flash, REGION))
}

/// Uploads `image` in chunks of `chunk` bytes and commits it.
pub fn upload(
    store: &mut Store<Flash>,
    image: &[u8],
    chunk: usize,
) -> Result<(), StoreError<llv_box_store::mock::MockError>> {
    let parsed = TakeImage::parse(image).unwrap();
    let h = parsed.header();
    block_on(async {
        let id = store.begin_upload(&h.name, h.total_len, h.crc32).await?;
        for (i, part) in image.chunks(chunk).enumerate() {
            store.write_chunk(id, (i * chunk) as u32, part).await?;
        }
        store.commit_upload(id).await.map(|_| ())
    })
}

/// Asserts that the store lists `image`'s take with its CRC and reads back every frame.
pub fn assert_intact(store: &mut Store<Flash>, image: &[u8]) {
    let parsed = TakeImage::parse(image).unwrap();
    let name = parsed.header().name.as_str();
    let listed = store.list();
    let info = listed
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("{name} not listed"));
    assert_eq!(info.crc32, parsed.header().crc32, "{name}: CRC");
    assert_eq!(info.total_len as usize, image.len());
    let mut reader = store.reader(name).unwrap();
    assert_eq!(reader.header(), parsed.header());
    let mut buf = [0u8; MAX_LEN];
    for (i, (entry, packet)) in parsed.frames().enumerate() {
        let (e, p) = block_on(reader.packet(store, i as u32, &mut buf)).unwrap();
        assert_eq!(e, entry, "{name}: entry {i}");
        assert_eq!(p, packet, "{name}: packet {i}");
    }
}

/// The names listed, sorted.
pub fn names(store: &Store<Flash>) -> Vec<String> {
    let mut v: Vec<String> = store.list().iter().map(|t| t.name.to_string()).collect();
    v.sort();
    v
}
