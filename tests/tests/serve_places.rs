//! `llv serve` takes place-qualified names as the box does: its folder is
//! its flash, `flash:NAME` is the folder's take, `card:NAME` is none (it has
//! no card), and `llv box` says where it acted.

use llv_tests::show::Serve;
use llv_tests::{example, llv};
use predicates::str::contains;

#[test]
fn serve_answers_flash_and_card_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(example("dao.gesichter"), dir.path().join("dao.gesichter")).unwrap();
    let serve = Serve::start(dir.path(), &["--bind", "127.0.0.1", "--no-discovery"]);
    let addr = serve.addr();
    llv()
        .args(["box", &addr, "list"])
        .assert()
        .success()
        .stdout(contains("dao                               flash"));
    llv()
        .args(["box", &addr, "play", "card:dao", "--to", "127.0.0.1:9"])
        .assert()
        .failure()
        .stderr(contains("no take named \"card:dao\""));
    llv()
        .args(["box", &addr, "play", "flash:dao", "--to", "127.0.0.1:9"])
        .assert()
        .success()
        .stdout(contains("playing dao from the flash"));
    llv()
        .args(["box", &addr, "delete", "card:dao"])
        .assert()
        .failure()
        .stderr(contains("no take named \"card:dao\""));
    assert!(dir.path().join("dao.gesichter").exists());
    llv()
        .args(["box", &addr, "delete", "flash:dao"])
        .assert()
        .success()
        .stdout(contains("deleted dao from the flash"));
    assert!(!dir.path().join("dao.gesichter").exists());
}
