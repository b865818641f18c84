//! `llv card write|list|check|repair|format` on a mounted card's folder (a
//! plain folder here) and on image files: takes land in `LLV/` under 8.3
//! names, list as the box would read them, a take written again replaces
//! its file, a damaged file fails the check by name; a card `llv card
//! format` made is clean FAT32 that `fsck.fat -n` passes after every write,
//! reading it changes no byte, and an exFAT card is refused with how to
//! prepare it. The box's side is tested under QEMU
//! (`firmware/e2e/box_card.rs`) and in the card library's host tests.

use llv_tests::{example, llv};
use predicates::prelude::*;

#[test]
fn takes_written_to_a_card_folder_list_check_and_replace() {
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("SDCARD");
    std::fs::create_dir(&card).unwrap();
    let dao = example("dao.gesichter");
    let jaw = example("debug-jawopen.gesichter");
    llv()
        .args(["card", "write"])
        .arg(&card)
        .args([&dao, &jaw])
        .assert()
        .success()
        .stdout(predicate::str::contains("dao as LLV/DAO.TAK"))
        .stdout(predicate::str::contains(
            "debug-jawopen as LLV/DEBUG-JA.TAK",
        ));
    llv()
        .args(["card", "list"])
        .arg(&card)
        .assert()
        .success()
        .stdout(predicate::str::contains("dao").and(predicate::str::contains("LLV/DAO.TAK")))
        .stdout(predicate::str::contains("debug-jawopen"));
    llv().args(["card", "check"]).arg(&card).assert().success();

    // The same take again: its file is replaced, no second one.
    llv()
        .args(["card", "write"])
        .arg(&card)
        .arg(&dao)
        .assert()
        .success()
        .stdout(predicate::str::contains("dao as LLV/DAO.TAK"));
    let mut files: Vec<String> = std::fs::read_dir(card.join("LLV"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(files, ["DAO.TAK", "DEBUG-JA.TAK"]);

    // A damaged byte: the check names the file and fails; list leaves it out.
    let path = card.join("LLV").join("DAO.TAK");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xFF;
    std::fs::write(&path, bytes).unwrap();
    llv()
        .args(["card", "check"])
        .arg(&card)
        .assert()
        .failure()
        .stdout(predicate::str::contains("LLV/DAO.TAK:").and(predicate::str::contains("CRC")));
    llv()
        .args(["card", "list"])
        .arg(&card)
        .assert()
        .success()
        .stdout(predicate::str::contains("DAO.TAK").not());
}

#[test]
fn an_image_without_a_fat_volume_is_refused_with_how_to_make_one() {
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("card.img");
    std::fs::write(&image, vec![0u8; 1 << 20]).unwrap();
    for args in [
        vec![
            "card",
            "write",
            "card.img",
            example("dao.gesichter").to_str().unwrap(),
        ],
        vec!["card", "list", "card.img"],
    ] {
        llv()
            .current_dir(dir.path())
            .args(&args)
            .assert()
            .failure()
            .stderr(predicate::str::contains("card.img"))
            .stderr(predicate::str::contains("no FAT16"));
    }
    // Nothing was written into it.
    assert!(std::fs::read(&image).unwrap().iter().all(|&b| b == 0));
    llv()
        .args(["card", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("llv card format card.img"));
}

#[test]
fn a_card_formatted_by_llv_takes_takes_and_reading_it_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("card.img");
    std::fs::File::create(&card)
        .unwrap()
        .set_len(256 << 20)
        .unwrap();
    llv()
        .args(["card", "format"])
        .arg(&card)
        .assert()
        .success()
        .stdout(predicate::str::contains("FAT32"));
    assert_clean(&card);
    let dao = example("dao.gesichter");
    llv()
        .args(["card", "write"])
        .arg(&card)
        .arg(&dao)
        .assert()
        .success()
        .stdout(predicate::str::contains("dao as LLV/DAO.TAK"));
    // Written again: replaced, and every cluster of the old file freed.
    llv()
        .args(["card", "write"])
        .arg(&card)
        .arg(&dao)
        .assert()
        .success();
    assert_clean(&card);
    let before = std::fs::read(&card).unwrap();
    llv()
        .args(["card", "list"])
        .arg(&card)
        .assert()
        .success()
        .stdout(predicate::str::contains("LLV/DAO.TAK"));
    llv()
        .args(["card", "check"])
        .arg(&card)
        .assert()
        .success()
        .stdout(predicate::str::contains("1 takes, all check out"));
    assert!(
        std::fs::read(&card).unwrap() == before,
        "list or check wrote to the card"
    );
    llv()
        .args(["card", "repair"])
        .arg(&card)
        .assert()
        .success()
        .stdout(predicate::str::contains("0 cut uploads removed"));
    assert_clean(&card);
}

#[test]
fn an_exfat_card_is_refused_with_how_to_prepare_it() {
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("card.img");
    std::fs::File::create(&card)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    llv().args(["card", "format"]).arg(&card).assert().success();
    // What a card over 32 GB comes with: an exFAT boot sector in the partition.
    let mut raw = std::fs::read(&card).unwrap();
    let start = u32::from_le_bytes(raw[454..458].try_into().unwrap()) as usize * 512;
    raw[start + 3..start + 11].copy_from_slice(b"EXFAT   ");
    raw[446 + 4] = 0x07;
    std::fs::write(&card, &raw).unwrap();
    for action in ["list", "write"] {
        let mut cmd = llv();
        cmd.args(["card", action]).arg(&card);
        if action == "write" {
            cmd.arg(example("dao.gesichter"));
        }
        cmd.assert()
            .failure()
            .stderr(predicate::str::contains("exFAT"))
            .stderr(predicate::str::contains("llv card format"));
    }
}

/// Asserts that `fsck.fat -n` finds the card image's volume clean.
fn assert_clean(card: &std::path::Path) {
    llv_tests::card::assert_clean(card);
}

#[test]
fn repair_makes_a_live_recording_cut_by_a_power_cut_a_take() {
    use llv_card::journal::{record_block, Stamp};
    use llv_card::{Card, CardPort};
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("card.img");
    llv_tests::card::blank_card(&card);
    // The box records three seconds of the phone and loses its power.
    let packets = llv_tests::recording_packets(&example("dao.gesichter"));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&card)
        .unwrap();
    let image = llv_card::image::ImageFile::new(file).unwrap();
    let port: &'static CardPort<_> = Box::leak(Box::new(CardPort::new(image)));
    let mut c = Card::new(port);
    embassy_futures::block_on(async {
        for _ in 0..100 {
            c.step().await;
        }
        assert_eq!(c.begin_recording().await.unwrap(), "live-0001");
        let mut stamp = Stamp::default();
        for (i, p) in packets.iter().take(180).enumerate() {
            let head = stamp.stamp(i as u32 * 16_667, p).unwrap();
            assert!(c.record(|k, b| record_block(&head, p, k, b)).await.unwrap());
        }
        // What the size covers: the journal's size is written at its end.
        c.end_recording().await.unwrap();
    });
    drop(c);
    let before = std::fs::read(&card).unwrap();
    llv()
        .args(["card", "list"])
        .arg(&card)
        .assert()
        .success()
        .stdout(predicate::str::contains("live-0001").not());
    assert!(std::fs::read(&card).unwrap() == before, "list wrote");
    llv()
        .args(["card", "repair"])
        .arg(&card)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "LLV/LIVE0001.LLJ: a live recording, now the take live-0001",
        ));
    assert_clean(&card);
    llv()
        .args(["card", "check"])
        .arg(&card)
        .assert()
        .success()
        .stdout(predicate::str::contains("live-0001"))
        .stdout(predicate::str::contains("1 takes, all check out"));
}
