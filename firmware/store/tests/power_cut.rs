//! Power cuts at every byte and every erase, in both tear modes (a cut leaves
//! partial bytes, or units that read back as errors like the STM32H7's ECC
//! words): committed takes stay intact, a cut upload is never listed, and the
//! store takes a fresh upload afterwards.

mod common;

use common::*;
use embassy_futures::block_on;
use llv_box_store::mock::Tear;
use llv_core::settings::{Settings, Target};

const TEARS: [Tear; 2] = [Tear::Prefix, Tear::Unreadable];

/// A flash holding takes `a` and `b`, with dirty free blocks left by a deleted
/// take, whose cuts leave `tear`.
fn base(tear: Tear, a: &[u8], b: &[u8]) -> Flash {
    let mut flash = Flash::new(REGION.end as usize);
    flash.set_tear(tear);
    let mut store = mount(flash);
    upload(&mut store, a, 512).unwrap();
    let gone = image("gone", 6, 5);
    upload(&mut store, &gone, 512).unwrap();
    upload(&mut store, b, 512).unwrap();
    block_on(store.delete("gone")).unwrap();
    store.into_flash()
}

/// Runs `op` on a store mounted on `flash`; returns bytes and erases it did.
fn cost(flash: &Flash, op: impl Fn(&mut llv_box_store::Store<Flash>)) -> (usize, usize) {
    let mut store = mount(flash.clone());
    let (bytes, erases) = (flash.bytes_written, flash.erases);
    op(&mut store);
    let after = store.into_flash();
    (after.bytes_written - bytes, after.erases - erases)
}

/// Mounts after a cut: returns the remounted store.
fn after_cut(
    flash: &Flash,
    cut: impl Fn(&mut Flash),
    op: impl Fn(&mut llv_box_store::Store<Flash>),
) -> llv_box_store::Store<Flash> {
    let mut flash = flash.clone();
    cut(&mut flash);
    let mut store = mount(flash);
    op(&mut store);
    let flash = store.into_flash();
    assert!(flash.is_dead(), "the cut must happen during the operation");
    mount(flash.power_on())
}

/// Where power is cut: after this many bytes, or during this erase.
#[derive(Clone, Copy, Debug)]
enum Cut {
    Bytes(usize),
    Erase(usize),
}

impl Cut {
    fn arm(self, flash: &mut Flash) {
        match self {
            Cut::Bytes(n) => flash.cut_after_bytes(n),
            Cut::Erase(n) => flash.cut_after_erases(n),
        }
    }
}

/// A cut at every byte and every erase of an operation that writes `bytes` and erases `erases` times.
fn every_cut(bytes: usize, erases: usize) -> impl Iterator<Item = Cut> {
    (0..bytes)
        .map(Cut::Bytes)
        .chain((0..erases).map(Cut::Erase))
}

fn upload_c(store: &mut llv_box_store::Store<Flash>) {
    let _ = upload(store, &image("charlie", 4, 3), 333);
}

#[test]
fn a_cut_at_any_byte_of_an_upload_loses_only_that_upload() {
    let (a, b, c) = (
        image("alpha", 3, 1),
        image("beta", 2, 2),
        image("charlie", 4, 3),
    );
    for tear in TEARS {
        let flash = base(tear, &a, &b);
        let (bytes, erases) = cost(&flash, upload_c);
        assert!(
            bytes > c.len() && erases >= 1,
            "{bytes} bytes, {erases} erases"
        );
        // The commit record ends in 16 bytes of 0xFF padding: once its first 16
        // bytes are written the take is committed, unless the cut left a unit
        // of the record unreadable.
        let committed_at = match tear {
            Tear::Prefix => bytes - 16,
            Tear::Unreadable => bytes,
        };
        for n in 0..bytes {
            let mut store = after_cut(&flash, |f| f.cut_after_bytes(n), upload_c);
            if n < committed_at {
                assert_eq!(names(&store), ["alpha", "beta"], "{tear:?} cut after {n}");
            } else {
                assert_eq!(names(&store), ["alpha", "beta", "charlie"], "cut after {n}");
                assert_intact(&mut store, &c);
            }
            assert_intact(&mut store, &a);
            assert_intact(&mut store, &b);
            upload(&mut store, &c, 1024).unwrap_or_else(|e| panic!("{tear:?} cut {n}: {e}"));
            assert_intact(&mut store, &c);
            let mut store = mount(store.into_flash());
            assert_eq!(names(&store), ["alpha", "beta", "charlie"]);
            assert_intact(&mut store, &c);
        }
    }
}

#[test]
fn a_cut_at_any_erase_of_an_upload_loses_only_that_upload() {
    let (a, b, c) = (
        image("alpha", 3, 1),
        image("beta", 2, 2),
        image("charlie", 4, 3),
    );
    for tear in TEARS {
        let flash = base(tear, &a, &b);
        let (_, erases) = cost(&flash, upload_c);
        assert!(erases >= 2, "the upload must erase dirty blocks ({erases})");
        for n in 0..erases {
            let mut store = after_cut(&flash, |f| f.cut_after_erases(n), upload_c);
            assert_eq!(
                names(&store),
                ["alpha", "beta"],
                "{tear:?} cut at erase {n}"
            );
            assert_intact(&mut store, &a);
            assert_intact(&mut store, &b);
            upload(&mut store, &c, 1024).unwrap();
            assert_intact(&mut store, &c);
        }
    }
}

#[test]
fn a_cut_while_replacing_keeps_the_old_or_the_new_take() {
    let (a, b) = (image("alpha", 3, 1), image("beta", 2, 2));
    let new_a = image("alpha", 5, 7);
    let replace = |s: &mut llv_box_store::Store<Flash>| {
        let _ = upload(s, &new_a, 400);
    };
    for tear in TEARS {
        let flash = base(tear, &a, &b);
        let (bytes, erases) = cost(&flash, replace);
        let mut saw = (false, false);
        for cut in every_cut(bytes, erases) {
            let mut store = after_cut(&flash, |f| cut.arm(f), replace);
            assert_eq!(names(&store), ["alpha", "beta"], "{tear:?} {cut:?}");
            let crc = store
                .list()
                .iter()
                .find(|t| t.name == "alpha")
                .unwrap()
                .crc32;
            let expected = if crc == llv_core::take::TakeImage::parse(&a).unwrap().header().crc32 {
                saw.0 = true;
                &a
            } else {
                saw.1 = true;
                &new_a
            };
            assert_intact(&mut store, expected);
            assert_intact(&mut store, &b);
            // A remount after the duplicate was resolved is stable.
            let mut store = mount(store.into_flash());
            assert_intact(&mut store, expected);
        }
        assert_eq!(
            saw,
            (true, true),
            "{tear:?}: cuts must land before and after the commit"
        );
    }
}

#[test]
fn a_cut_while_deleting_leaves_the_take_whole_or_gone() {
    let (a, b) = (image("alpha", 3, 1), image("beta", 2, 2));
    let delete = |s: &mut llv_box_store::Store<Flash>| {
        let _ = block_on(s.delete("alpha"));
    };
    for tear in TEARS {
        let flash = base(tear, &a, &b);
        assert_eq!(cost(&flash, delete), (0, 1), "a delete is one erase");
        let mut store = after_cut(&flash, |f| f.cut_after_erases(0), delete);
        // The cut erase left the records erased or unreadable: the take is gone.
        assert_eq!(names(&store), ["beta"], "{tear:?}");
        assert_intact(&mut store, &b);
        upload(&mut store, &a, 512).unwrap();
        assert_intact(&mut store, &a);
    }
}

#[test]
fn a_cut_at_any_byte_or_erase_of_a_settings_save_keeps_the_old_or_the_new_ones() {
    let settings = |port: u16| {
        let mut s = Settings::default();
        s.targets
            .push(Target {
                ip: [127, 0, 0, 1],
                port,
            })
            .unwrap();
        s
    };
    let save = |port: u16| {
        move |s: &mut llv_box_store::Store<Flash>| {
            let _ = block_on(s.save_settings(&settings(port)));
        }
    };
    for tear in TEARS {
        let mut flash = Flash::new(REGION.end as usize);
        flash.set_tear(tear);
        // Twelve saves fill the first block, so later ones cross to the other.
        for port in 0..12 {
            let mut store = mount(flash);
            block_on(store.save_settings(&settings(port))).unwrap();
            flash = store.into_flash();
            let (bytes, erases) = cost(&flash, save(1000 + port));
            assert!(bytes >= 32 && erases == 1, "{bytes} bytes, {erases} erases");
            for cut in every_cut(bytes, erases) {
                let mut store = after_cut(&flash, |f| cut.arm(f), save(1000 + port));
                let now = store.settings().targets[0].port;
                assert!(
                    now == port || now == 1000 + port,
                    "{tear:?} save {port}, {cut:?}: {now}"
                );
                // Saving again after the cut works and sticks.
                block_on(store.save_settings(&settings(2000))).unwrap();
                let store = mount(store.into_flash());
                assert_eq!(store.settings().targets[0].port, 2000);
            }
        }
    }
}
