//! Power cuts at every byte and every erase: committed takes stay intact, a cut
//! upload is never listed, and the store takes a fresh upload afterwards.

mod common;

use common::*;
use embassy_futures::block_on;
use llv_core::control::{Settings, Target};

/// A flash holding takes `a` and `b`, with dirty free blocks left by a deleted take.
fn base(a: &[u8], b: &[u8]) -> Flash {
    let mut store = mount(Flash::new(REGION.end as usize)).unwrap();
    upload(&mut store, a, 512).unwrap();
    let gone = image("gone", 6, 5);
    upload(&mut store, &gone, 512).unwrap();
    upload(&mut store, b, 512).unwrap();
    block_on(store.delete("gone")).unwrap();
    store.into_flash()
}

/// Runs `op` on a store mounted on `flash`; returns bytes and erases it did.
fn cost(flash: &Flash, op: impl Fn(&mut llv_box_store::Store<Flash>)) -> (usize, usize) {
    let mut store = mount(flash.clone()).unwrap();
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
    let mut store = mount(flash).unwrap();
    op(&mut store);
    let flash = store.into_flash();
    assert!(flash.is_dead(), "the cut must happen during the operation");
    mount(flash.power_on()).unwrap()
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
    let flash = base(&a, &b);
    let (bytes, erases) = cost(&flash, upload_c);
    assert!(
        bytes > c.len() && erases >= 1,
        "{bytes} bytes, {erases} erases"
    );
    // The commit record ends in 16 bytes of 0xFF padding: once its first 16 bytes
    // are written the take is committed.
    let committed_at = bytes - 16;
    for n in 0..bytes {
        let mut store = after_cut(&flash, |f| f.cut_after_bytes(n), upload_c);
        if n < committed_at {
            assert_eq!(names(&store), ["alpha", "beta"], "cut after {n} bytes");
        } else {
            assert_eq!(names(&store), ["alpha", "beta", "charlie"], "cut after {n}");
            assert_intact(&mut store, &c);
        }
        assert_intact(&mut store, &a);
        assert_intact(&mut store, &b);
        upload(&mut store, &c, 1024).unwrap_or_else(|e| panic!("cut after {n}: {e}"));
        assert_intact(&mut store, &c);
        let mut store = mount(store.into_flash()).unwrap();
        assert_eq!(names(&store), ["alpha", "beta", "charlie"]);
        assert_intact(&mut store, &c);
    }
}

#[test]
fn a_cut_at_any_erase_of_an_upload_loses_only_that_upload() {
    let (a, b, c) = (
        image("alpha", 3, 1),
        image("beta", 2, 2),
        image("charlie", 4, 3),
    );
    let flash = base(&a, &b);
    let (_, erases) = cost(&flash, upload_c);
    assert!(erases >= 2, "the upload must erase dirty blocks ({erases})");
    for n in 0..erases {
        let mut store = after_cut(&flash, |f| f.cut_after_erases(n), upload_c);
        assert_eq!(names(&store), ["alpha", "beta"], "cut at erase {n}");
        assert_intact(&mut store, &a);
        assert_intact(&mut store, &b);
        upload(&mut store, &c, 1024).unwrap();
        assert_intact(&mut store, &c);
    }
}

#[test]
fn a_cut_while_replacing_keeps_the_old_or_the_new_take() {
    let (a, b) = (image("alpha", 3, 1), image("beta", 2, 2));
    let new_a = image("alpha", 5, 7);
    let flash = base(&a, &b);
    let replace = |s: &mut llv_box_store::Store<Flash>| {
        let _ = upload(s, &new_a, 400);
    };
    let (bytes, _) = cost(&flash, replace);
    let mut saw = (false, false);
    for n in 0..bytes {
        let mut store = after_cut(&flash, |f| f.cut_after_bytes(n), replace);
        assert_eq!(names(&store), ["alpha", "beta"], "cut after {n} bytes");
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
        let mut store = mount(store.into_flash()).unwrap();
        assert_intact(&mut store, expected);
    }
    assert_eq!(
        saw,
        (true, true),
        "cuts must land before and after the commit"
    );
}

#[test]
fn a_cut_while_deleting_leaves_the_take_whole_or_gone() {
    let (a, b) = (image("alpha", 3, 1), image("beta", 2, 2));
    let flash = base(&a, &b);
    let delete = |s: &mut llv_box_store::Store<Flash>| {
        let _ = block_on(s.delete("alpha"));
    };
    assert_eq!(cost(&flash, delete), (0, 1), "a delete is one erase");
    let mut store = after_cut(&flash, |f| f.cut_after_erases(0), delete);
    // The mock erases the first half of the block, records first: the take is gone.
    assert_eq!(names(&store), ["beta"]);
    assert_intact(&mut store, &b);
    upload(&mut store, &a, 512).unwrap();
    assert_intact(&mut store, &a);
}

#[test]
fn a_cut_while_saving_settings_keeps_the_old_or_the_new_ones() {
    let flash = Flash::new(REGION.end as usize);
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
    let mut flash = flash;
    // Fill the first block so later saves also cross to the other block.
    for port in 0..12 {
        let mut store = mount(flash).unwrap();
        block_on(store.save_settings(settings(port))).unwrap();
        flash = store.into_flash();
        for n in 0..120 {
            let mut cut = flash.clone();
            cut.cut_after_bytes(n);
            let mut store = mount(cut).unwrap();
            let _ = block_on(store.save_settings(settings(1000 + port)));
            let cut = store.into_flash();
            let mut store = mount(cut.power_on()).unwrap();
            let port_now = store.settings().targets[0].port;
            assert!(
                port_now == port || port_now == 1000 + port,
                "save {port}, cut {n}: {port_now}"
            );
            // Saving again after the cut works and sticks.
            block_on(store.save_settings(settings(2000))).unwrap();
            let store = mount(store.into_flash()).unwrap();
            assert_eq!(store.settings().targets[0].port, 2000);
        }
        for n in 0..2 {
            let mut cut = flash.clone();
            cut.cut_after_erases(n);
            let mut store = mount(cut).unwrap();
            let _ = block_on(store.save_settings(settings(1000 + port)));
            let store = mount(store.into_flash().power_on()).unwrap();
            let port_now = store.settings().targets[0].port;
            assert!(
                port_now == port || port_now == 1000 + port,
                "save {port}, erase cut {n}"
            );
        }
    }
}
