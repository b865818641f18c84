//! The same take name on the box's flash and on its card (a card written on
//! a laptop, put in a box whose flash has a take of that name): the list
//! shows both, an unqualified delete is refused naming both places,
//! `card:NAME` and `flash:NAME` act on that copy, and `llv` says which.

use std::time::Duration;

use llv_tests::card::{blank_card, boot_on_card, card_write, list, wait_scanned};
use llv_tests::example;
use llv_tests::flash_box::{firmware, QemuBox};
use predicates::str::contains;

/// The places of the takes named `name`, as `list --json` gives them (`Internal`: the flash).
fn places(b: &QemuBox, name: &str) -> Vec<String> {
    list(b)
        .iter()
        .filter(|t| t["name"] == name)
        .map(|t| t["place"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_name_on_the_flash_and_on_the_card_is_named_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let dao = example("dao.gesichter");
    let dao = dao.to_str().unwrap();
    // The flash gets dao with no card in the box.
    let flash = dir.path().join("flash.bin");
    let first = QemuBox::boot_with(firmware(), &flash, "");
    first.llv(&["flash", dao, "--box", "{box}"]).success();
    drop(first);
    // A card written on a laptop with its own dao goes in.
    let card = dir.path().join("card.img");
    blank_card(&card);
    card_write(&card, &[std::path::Path::new(dao)]);
    let b = boot_on_card(dir.path(), &card, "");
    wait_scanned(&b, Duration::from_secs(60));
    assert_eq!(places(&b, "dao"), ["Internal", "Card"]);

    b.llv(&["box", "{box}", "delete", "dao"])
        .failure()
        .stderr(contains(
            "\"dao\" is on the flash and on the card: name one, flash:dao or card:dao",
        ));
    assert_eq!(places(&b, "dao"), ["Internal", "Card"], "nothing deleted");

    b.llv(&["box", "{box}", "play", "card:dao", "--to", "10.0.2.2:9"])
        .success()
        .stdout(contains("playing dao from the card"));
    b.llv(&["box", "{box}", "stop"]).success();
    b.llv(&["box", "{box}", "play", "dao", "--to", "10.0.2.2:9"])
        .success()
        .stdout(contains("playing dao from the flash"));
    b.llv(&["box", "{box}", "stop"]).success();

    b.llv(&["box", "{box}", "delete", "card:dao"])
        .success()
        .stdout(contains("deleted dao from the card"));
    assert_eq!(places(&b, "dao"), ["Internal"]);
    b.llv(&["box", "{box}", "delete", "card:dao"])
        .failure()
        .stderr(contains("no take named \"card:dao\""));
    let out = b.json(&["box", "{box}", "delete", "dao", "--json"]);
    assert_eq!(out["place"], "flash");
    assert!(places(&b, "dao").is_empty());
}
