//! Store behaviour with power on: uploads, reads, deletes, limits, settings.

mod common;

use common::*;
use embassy_futures::block_on;
use llv_box_store::{StoreError, StoreFault};
use llv_core::control::MAX_TAKES;
use llv_core::packet::MAX_LEN;
use llv_core::settings::{Settings, Target};
use llv_core::take::{TakeError, UploadError, MAX_CHUNK};

#[test]
fn uploads_survive_remount_and_read_back_frame_by_frame() {
    let mut store = mount(Flash::new(REGION.end as usize));
    let a = image("alpha", 5, 1);
    let b = image("beta", 3, 2);
    // Odd chunk sizes exercise the partial write units.
    upload(&mut store, &a, 1023).unwrap();
    upload(&mut store, &b, 7).unwrap();
    assert_intact(&mut store, &a);
    assert_intact(&mut store, &b);
    assert_eq!(store.used_bytes(), 4 * 1024);
    assert_eq!(store.free_bytes(), 12 * 1024);

    let mut store = mount(store.into_flash());
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
    let mut store = mount(store.into_flash());
    assert_eq!(names(&store), ["beta"]);
    assert_intact(&mut store, &b);
}

#[test]
fn replacing_a_take_keeps_one_of_that_name() {
    let mut store = mount(Flash::new(REGION.end as usize));
    let old = image("alpha", 4, 1);
    let new = image("alpha", 6, 9);
    upload(&mut store, &old, 512).unwrap();
    upload(&mut store, &new, 512).unwrap();
    assert_eq!(names(&store), ["alpha"]);
    assert_intact(&mut store, &new);
    let mut store = mount(store.into_flash());
    assert_eq!(names(&store), ["alpha"]);
    assert_intact(&mut store, &new);
}

#[test]
fn bad_uploads_are_refused_and_never_listed() {
    let mut store = mount(Flash::new(REGION.end as usize));
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
            Err(StoreError::Upload(UploadError::Order { expected: 0 }))
        );
        store.write_chunk(id, 0, &a[..100]).await.unwrap();
        assert_eq!(
            store.commit_upload(id).await.unwrap_err(),
            StoreError::Upload(UploadError::Incomplete {
                received: 100,
                total: h.total_len
            })
        );
        let mut bad = a.clone();
        bad.push(0);
        assert_eq!(
            store.write_chunk(id, 100, &bad[100..]).await,
            Err(StoreError::Upload(UploadError::TooLong {
                total: h.total_len
            }))
        );
        // One flipped bit in a packet: the CRC catches it at commit.
        let mut flipped = a.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        for (i, chunk) in flipped[100..].chunks(MAX_CHUNK).enumerate() {
            let at = 100 + (i * MAX_CHUNK) as u32;
            store.write_chunk(id, at, chunk).await.unwrap();
        }
        assert!(matches!(
            store.commit_upload(id).await,
            Err(StoreError::Upload(UploadError::Image(
                TakeError::Crc { .. }
            )))
        ));
        assert_eq!(
            store.commit_upload(id).await.unwrap_err(),
            StoreError::NoUpload
        );

        let id = store
            .begin_upload("other", h.total_len, h.crc32)
            .await
            .unwrap();
        assert_eq!(
            store.write_chunk(id, 0, &a[..MAX_CHUNK.min(a.len())]).await,
            Err(StoreError::Upload(UploadError::NameMismatch))
        );
        assert_eq!(
            store.begin_upload("", 1000, 0).await.unwrap_err(),
            StoreError::Upload(UploadError::BadName)
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
    let mut store = mount(store.into_flash());
    assert!(store.list().is_empty());
    upload(&mut store, &a, 300).unwrap();
    assert_intact(&mut store, &a);
}

#[test]
fn the_take_count_is_bounded() {
    // 32 take blocks of 1 KiB: room for more than MAX_TAKES one-block takes.
    let region = 0..34 * 1024;
    let mut store = block_on(llv_box_store::Store::mount(Flash::new(34 * 1024), region));
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
    let store = mount(Flash::new(REGION.end as usize));
    assert_eq!(store.settings(), &Settings::default());
    let mut flash = store.into_flash();
    for i in 0..40u16 {
        let mut store = mount(flash);
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
        block_on(store.save_settings(&s)).unwrap();
        assert_eq!(store.settings(), &s);
        flash = store.into_flash();
    }
}

#[test]
fn an_unusable_region_gives_an_empty_store_that_refuses_writes() {
    for region in [0..2 * 1024, 100..18 * 1024, 0..18 * 1024 + 10, 0..40 * 1024] {
        let mut store = block_on(llv_box_store::Store::mount(
            Flash::new(18 * 1024),
            region.clone(),
        ));
        assert_eq!(store.fault(), Some(StoreFault::Layout), "{region:?}");
        assert!(store.list().is_empty());
        assert_eq!(store.free_bytes(), 0);
        assert_eq!(store.settings(), &Settings::default());
        let image = image("alpha", 3, 1);
        assert_eq!(upload(&mut store, &image, 512), Err(StoreError::Unusable));
        assert_eq!(
            block_on(store.save_settings(&Settings::default())),
            Err(StoreError::Unusable)
        );
        assert_eq!(block_on(store.reset_settings()), Err(StoreError::Unusable));
        // Nothing was written to the flash.
        assert_eq!(store.into_flash().bytes_written, 0, "{region:?}");
    }
}

#[test]
fn a_damaged_take_is_dropped_at_mount_and_its_space_reused() {
    let mut store = mount(Flash::new(REGION.end as usize));
    let (a, b) = (image("alpha", 3, 1), image("beta", 3, 2));
    upload(&mut store, &a, 512).unwrap();
    upload(&mut store, &b, 512).unwrap();
    let mut flash = store.into_flash();
    // The last byte of alpha's image: its first block is 2 (after the settings).
    flash.flip_bit(2 * 1024 + 64 + a.len() - 1, 0);
    let mut store = mount(flash);
    assert_eq!(names(&store), ["beta"]);
    assert_intact(&mut store, &b);
    upload(&mut store, &a, 512).unwrap();
    assert_intact(&mut store, &a);
}

#[test]
fn an_upload_begin_erases_nothing_until_its_first_bytes() {
    let mut store = mount(Flash::new(REGION.end as usize));
    let a = image("alpha", 3, 1);
    upload(&mut store, &a, 512).unwrap();
    block_on(store.delete("alpha")).unwrap();
    let flash = store.into_flash();
    let (erases, written) = (flash.erases, flash.bytes_written);
    let mut store = mount(flash);
    let h = llv_core::take::TakeHeader::parse(&a).unwrap();
    // A storm of begins that never send data (each connection then drops): no
    // erase, no write.
    for _ in 0..1000 {
        let id = block_on(store.begin_upload("alpha", h.total_len, h.crc32)).unwrap();
        store.abort_upload(id);
    }
    // While one upload is open, another is refused by name.
    let id = block_on(store.begin_upload("alpha", h.total_len, h.crc32)).unwrap();
    let busy = block_on(store.begin_upload("beta", h.total_len, h.crc32));
    assert_eq!(
        busy,
        Err(StoreError::Busy {
            name: "alpha".try_into().unwrap()
        })
    );
    store.abort_upload(id);
    let flash = store.into_flash();
    assert_eq!((flash.erases, flash.bytes_written), (erases, written));
}

#[test]
fn repeated_uploads_spread_their_erases_over_the_free_blocks() {
    let mut store = mount(Flash::new(REGION.end as usize));
    let a = image("alpha", 2, 1);
    // Upload and delete the same one-block take 32 times over 16 blocks.
    for _ in 0..32 {
        upload(&mut store, &a, 512).unwrap();
        block_on(store.delete("alpha")).unwrap();
    }
    let flash = store.into_flash();
    // Each cycle erases its block at the upload and at the delete: 64 erases.
    assert_eq!(flash.erases, 64);
    let per_block = flash.erases_per_block();
    let take_blocks = &per_block[2..]; // after the two settings blocks
    assert_eq!(take_blocks.len(), 16);
    assert!(take_blocks.iter().all(|&n| n == 4), "{take_blocks:?}");
}

#[test]
fn an_image_holding_a_take_record_at_a_block_boundary_is_refused() {
    let mut store = mount(Flash::new(REGION.end as usize));
    // Frames of 400 bytes: the image crosses 1 KiB blocks inside packet bytes.
    let mut img = image("forger", 8, 9);
    // The image starts 64 bytes into its first block: byte 960 is block 1's start.
    let at = 1024 - 64;
    let forged = llv_box_store::mock::begin_record(7, 100, 0x1234);
    img[at..at + forged.len()].copy_from_slice(&forged);
    // Keep the image's own CRC right, as a forger would.
    let total = img.len();
    let mut crc = llv_core::take::ImageCrc::default();
    let mut header = llv_core::take::TakeHeader::parse(&img).unwrap();
    header.crc32 = 0;
    header.emit(&mut img).unwrap();
    crc.update(&img[..total]);
    header.crc32 = crc.finalize();
    header.emit(&mut img).unwrap();
    assert_eq!(
        upload(&mut store, &img, 512),
        Err(StoreError::InnerRecord { offset: at as u32 })
    );
    assert!(store.list().is_empty());
}

#[test]
fn the_store_counts_its_erases_as_the_flash_sees_them() {
    use embedded_storage_async::nor_flash::ReadNorFlash;
    let mut store = mount(Flash::new(REGION.end as usize));
    assert_eq!(store.erases(), llv_box_store::Erases::default());
    upload(&mut store, &image("alpha", 5, 1), 1000).unwrap();
    upload(&mut store, &image("alpha", 4, 2), 1000).unwrap();
    block_on(store.delete("alpha")).unwrap();
    // The largest settings a box can hold, saved again and again: each save
    // appends a record; a full block makes the next save erase the other.
    let full = Settings {
        targets: (0..4)
            .map(|i| Target {
                ip: [10, 0, 2, 2 + i],
                port: 65535,
            })
            .collect(),
        autoplay: Some(llv_core::settings::Autoplay {
            take: "n".repeat(32).as_str().try_into().unwrap(),
            loop_count: u32::MAX,
        }),
        subject: Some("s".repeat(64).as_str().try_into().unwrap()),
        address: Some(llv_core::settings::StaticAddress {
            ip: [192, 168, 100, 200],
            prefix_len: 24,
            gateway: Some([192, 168, 100, 254]),
        }),
        token: Some("t".repeat(32).as_str().try_into().unwrap()),
        name: Some("b".repeat(32).as_str().try_into().unwrap()),
        osc_port: Some(65535),
        reply_port: Some(65534),
        chase: Some(llv_core::settings::ChaseSpec {
            offset: llv_core::artnet::TimecodeLabel::parse("23:59:59:29"),
            stream: 255,
            freewheel_ms: llv_core::settings::MAX_FREEWHEEL_MS,
            hold: true,
        }),
        live: llv_core::settings::LiveSpec {
            enabled: true,
            port: 65535,
            subject: Some("l".repeat(64).as_str().try_into().unwrap()),
            from: Some([192, 168, 100, 201]),
            buffer: llv_core::relay::MAX_BUFFER,
            timeout_ms: llv_core::settings::MAX_LIVE_MS,
            fade_ms: llv_core::settings::MAX_LIVE_MS,
            return_frames: u8::MAX,
            idle: Some("i".repeat(32).as_str().try_into().unwrap()),
            pass_other: true,
            record: true,
        },
        http_port: Some(65533),
    };
    assert_eq!(full.check(llv_core::settings::Sender::Box), Ok(()));
    let mut s = full.clone();
    for i in 0..20u32 {
        s.autoplay.as_mut().unwrap().loop_count = u32::MAX - i;
        block_on(store.save_settings(&s)).unwrap();
    }
    let counted = store.erases();
    // The record's length, from its head (`LLVS`, sequence, payload length).
    let mut flash = store.into_flash();
    let mut head = [0u8; 16];
    let active = [0u32, 1024]
        .into_iter()
        .find(|at| {
            block_on(flash.read(*at, &mut head)).unwrap();
            &head[..4] == b"LLVS"
        })
        .unwrap();
    block_on(flash.read(active, &mut head)).unwrap();
    let record = (16 + usize::from(u16::from_le_bytes([head[8], head[9]]))).next_multiple_of(32);
    eprintln!("the largest settings record: {record} bytes");
    assert!(record <= 512, "{record}");
    let per_block = 1024 / record;
    // First save after mount: an erase; then one per block filled.
    let expected = 1 + (20 - 1) / per_block as u32;
    let per_block_erases = flash.erases_per_block();
    let settings_erases: usize = per_block_erases[..2].iter().sum();
    let take_erases: usize = per_block_erases[2..].iter().sum();
    assert_eq!(settings_erases as u32, expected);
    assert!(take_erases >= 3, "{take_erases}");
    assert_eq!(
        counted,
        llv_box_store::Erases {
            settings: settings_erases as u32,
            takes: take_erases as u32,
        }
    );
    assert_eq!(
        mount(flash).erases(),
        llv_box_store::Erases::default(),
        "since mount"
    );
}
