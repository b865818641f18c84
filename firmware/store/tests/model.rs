//! Random sequences of uploads, replacements, deletes, power cuts and remounts
//! against a model: the store always lists exactly the model's takes, intact.

mod common;

use std::collections::BTreeMap;

use common::*;
use embassy_futures::block_on;
use llv_box_store::StoreError;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Upload { name: u8, frames: u32, seed: u8 },
    Delete { name: u8 },
    CutUpload { name: u8, frames: u32, after: usize },
    Remount,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..5u8, 1..12u32, any::<u8>()).prop_map(|(name, frames, seed)| Op::Upload { name, frames, seed }),
        2 => (0..5u8).prop_map(|name| Op::Delete { name }),
        2 => (0..5u8, 1..12u32, 0..6000usize).prop_map(|(name, frames, after)| Op::CutUpload { name, frames, after }),
        1 => Just(Op::Remount),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_store_follows_the_model(ops in proptest::collection::vec(op(), 1..24)) {
        let mut store = mount(Flash::new(REGION.end as usize));
        let mut model: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Upload { name, frames, seed } => {
                    let name = format!("take{name}");
                    let img = image(&name, frames, seed);
                    match upload(&mut store, &img, 700) {
                        Ok(()) => {
                            model.insert(name, img);
                        }
                        // Only a full flash may refuse, and then nothing changes.
                        Err(StoreError::NoSpace { .. }) => {}
                        Err(e) => panic!("upload {name}: {e}"),
                    }
                }
                Op::Delete { name } => {
                    let name = format!("take{name}");
                    let r = block_on(store.delete(&name));
                    prop_assert_eq!(r.is_ok(), model.remove(&name).is_some());
                }
                Op::CutUpload { name, frames, after } => {
                    let name = format!("take{name}");
                    let img = image(&name, frames, 77);
                    let mut flash = store.into_flash();
                    flash.cut_after_bytes(after);
                    let mut cut = mount(flash);
                    let done = upload(&mut cut, &img, 700).is_ok();
                    store = mount(cut.into_flash().power_on());
                    let listed = store.list().iter().find(|t| t.name == name.as_str()).map(|t| t.crc32);
                    let new_crc = llv_core::take::TakeHeader::parse(&img).unwrap().crc32;
                    if done || listed == Some(new_crc) {
                        model.insert(name, img);
                    }
                }
                Op::Remount => store = mount(store.into_flash()),
            }
            let names: Vec<String> = model.keys().cloned().collect();
            prop_assert_eq!(common::names(&store), names);
            for img in model.values() {
                assert_intact(&mut store, img);
            }
            let used: u32 = store.used_bytes();
            prop_assert_eq!(used + store.free_bytes(), 16 * 1024);
        }
    }
}
