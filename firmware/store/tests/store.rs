//! Store behaviour with power on: uploads, reads, deletes, limits, settings.

mod common;

use common::*;
use embassy_futures::block_on;
use llv_box_store::StoreError;
use llv_core::control::{Settings, Target, MAX_TAKES};
use llv_core::packet::MAX_LEN;
use llv_core::take::TakeError;

#[test]
fn uploads_survive_remount_and_read_back_frame_by_frame() {
    let mut store = mount(Flash::new(REGION.end as usize)).unwrap();
    let a = image("alpha", 5, 1);
    let b = image("beta", 3, 2);
    // Odd chunk sizes exercise the partial write units.
    upload(&mut store, &a, 1023).unwrap();
    upload(&mut store, &b, 7).unwrap();
    assert_intact(&mut store, &a);
    assert_intact(&mut store, &b);
    assert_eq!(store.used_bytes(), 4 * 1024);
    assert_eq!(store.free_bytes(), 12 * 1024);

    let mut store = mount(store.into_flash()).unwrap();
    assert_eq!(names(&store), ["alpha", "beta"]);
    assert_intact(&mut store, &a);
    assert_intact(&mut store, &b);

    // Out-of-order reads and loops restarting at frame 0.
    let mut reader = store.reader("alpha").unwrap();
    let mut buf = [0u8; MAX_LEN];
    let third = block_on(reader.packet(&mut store, 3, &mut buf))
        .unwrap()
        .1
        .to_vec();
    let first = block_on(reader.packet(&mut store, 0, &mut buf))
        .unwrap()
        .1
        .to_vec();
    let parsed = llv_core::take::TakeImage::parse(&a).unwrap();
    let frames: Vec<_> = parsed.frames().collect();
    assert_eq!(third, frames[3].1);
    assert_eq!(first, frames[0].1);

    block_on(store.delete("alpha")).unwrap();
    assert!(matches!(
        block_on(reader.packet(&mut store, 1, &mut buf)),
        Err(StoreError::NotFound)
    ));
    assert_eq!(block_on(store.delete("alpha")), Err(StoreError::NotFound));
    let mut store = mount(store.into_flash()).unwrap();
    assert_eq!(names(&store), ["beta"]);
    assert_intact(&mut store, &b);
}

#[test]
fn replacing_a_take_keeps_one_of_that_name() {
    let mut store = mount(Flash::new(REGION.end as usize)).unwrap();
    let old = image("alpha", 4, 1);
    let new = image("alpha", 6, 9);
    upload(&mut store, &old, 512).unwrap();
    upload(&mut store, &new, 512).unwrap();
    assert_eq!(names(&store), ["alpha"]);
    assert_intact(&mut store, &new);
    let mut store = mount(store.into_flash()).unwrap();
    assert_eq!(names(&store), ["alpha"]);
    assert_intact(&mut store, &new);
}

#[test]
fn bad_uploads_are_refused_and_never_listed() {
    let mut store = mount(Flash::new(REGION.end as usize)).unwrap();
    let a = image("alpha", 3, 1);
    let h = llv_core::take::TakeImage::parse(&a)
        .unwrap()
        .header()
        .clone();
    block_on(async {
        let id = store
            .begin_upload("alpha", h.total_len, h.crc32)
            .await
            .unwrap();
        assert_eq!(
            store.write_chunk(id, 5, &a[..10]).await,
            Err(StoreError::Order { expected: 0 })
        );
        store.write_chunk(id, 0, &a[..100]).await.unwrap();
        assert_eq!(
            store.commit_upload(id).await.unwrap_err(),
            StoreError::Incomplete {
                received: 100,
                total: h.total_len
            }
        );
        let mut bad = a.clone();
        bad.push(0);
        assert_eq!(
            store.write_chunk(id, 100, &bad[100..]).await,
            Err(StoreError::TooLong)
        );
        // One flipped bit in a packet: the CRC catches it at commit.
        let mut flipped = a.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        store.write_chunk(id, 100, &flipped[100..]).await.unwrap();
        assert!(matches!(
            store.commit_upload(id).await,
            Err(StoreError::Image(TakeError::Crc { .. }))
        ));
        assert_eq!(
            store.commit_upload(id).await.unwrap_err(),
            StoreError::NoUpload
        );

        let id = store
            .begin_upload("other", h.total_len, h.crc32)
            .await
            .unwrap();
        store.write_chunk(id, 0, &a).await.unwrap();
        assert_eq!(
            store.commit_upload(id).await.unwrap_err(),
            StoreError::NameMismatch
        );
        assert_eq!(
            store.begin_upload("", 1000, 0).await.unwrap_err(),
            StoreError::BadName
        );
        assert_eq!(
            store.begin_upload("huge", 16 * 1024, 0).await.unwrap_err(),
            StoreError::NoSpace {
                needed: 16 * 1024 + 64,
                largest: 16 * 1024
            }
        );
    });
    assert!(store.list().is_empty());
    let mut store = mount(store.into_flash()).unwrap();
    assert!(store.list().is_empty());
    upload(&mut store, &a, 300).unwrap();
    assert_intact(&mut store, &a);
}

#[test]
fn the_take_count_is_bounded() {
    // 32 take blocks of 1 KiB: room for more than MAX_TAKES one-block takes.
    let region = 0..34 * 1024;
    let mut store = block_on(llv_box_store::Store::mount(Flash::new(34 * 1024), region)).unwrap();
    let images: Vec<_> = (0..MAX_TAKES)
        .map(|i| image(&format!("t{i}"), 1, i as u8))
        .collect();
    for img in &images {
        upload(&mut store, img, 256).unwrap();
    }
    let extra = image("extra", 1, 99);
    assert_eq!(upload(&mut store, &extra, 256), Err(StoreError::Full));
    // Replacing a stored take is still allowed when full.
    upload(&mut store, &image("t0", 1, 42), 256).unwrap();
    assert_eq!(store.list().len(), MAX_TAKES);
}

#[test]
fn settings_persist_across_many_saves() {
    let store = mount(Flash::new(REGION.end as usize)).unwrap();
    assert_eq!(store.settings(), &Settings::default());
    let mut flash = store.into_flash();
    for i in 0..40u16 {
        let mut store = mount(flash).unwrap();
        let mut s = store.settings().clone();
        if i > 0 {
            assert_eq!(s.targets[0].port, i - 1, "save {i}");
        }
        s.targets.clear();
        s.targets
            .push(Target {
                ip: [127, 0, 0, 1],
                port: i,
            })
            .unwrap();
        s.subject = Some(heapless::String::try_from("x".repeat(usize::from(i)).as_str()).unwrap());
        block_on(store.save_settings(s.clone())).unwrap();
        assert_eq!(store.settings(), &s);
        flash = store.into_flash();
    }
}

#[test]
fn unusable_regions_are_refused() {
    for region in [0..2 * 1024, 100..18 * 1024, 0..18 * 1024 + 10, 0..40 * 1024] {
        let r = block_on(llv_box_store::Store::mount(
            Flash::new(18 * 1024),
            region.clone(),
        ));
        assert!(matches!(r, Err(StoreError::Layout)), "{region:?}");
    }
}

#[test]
fn a_damaged_take_is_dropped_at_mount_and_its_space_reused() {
    let mut store = mount(Flash::new(REGION.end as usize)).unwrap();
    let (a, b) = (image("alpha", 3, 1), image("beta", 3, 2));
    upload(&mut store, &a, 512).unwrap();
    upload(&mut store, &b, 512).unwrap();
    let mut flash = store.into_flash();
    // The last byte of alpha's image: its first block is 2 (after the settings).
    flash.flip_bit(2 * 1024 + 64 + a.len() - 1, 0);
    let mut store = mount(flash).unwrap();
    assert_eq!(names(&store), ["beta"]);
    assert_intact(&mut store, &b);
    upload(&mut store, &a, 512).unwrap();
    assert_intact(&mut store, &a);
}
