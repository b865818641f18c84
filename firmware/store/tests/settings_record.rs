//! The settings record, byte for byte: a record of every schema this firmware
//! reads (golden bytes, as older firmware wrote them), the one it writes, and
//! what it does with a record it cannot read.

mod common;

use common::*;
use embassy_futures::block_on;
use embedded_storage_async::nor_flash::NorFlash;
use llv_box_store::{StoreError, StoreFault, Unreadable, SCHEMA};
use llv_core::settings::{Autoplay, Settings, StaticAddress, Target};

/// What the golden records hold.
fn expected() -> Settings {
    Settings {
        targets: [Target {
            ip: [10, 0, 2, 2],
            port: 11111,
        }]
        .into_iter()
        .collect(),
        autoplay: Some(Autoplay {
            take: "dao".try_into().unwrap(),
            loop_count: 0,
        }),
        subject: Some("Renamed".try_into().unwrap()),
        address: Some(StaticAddress {
            ip: [10, 0, 2, 15],
            prefix_len: 24,
            gateway: Some([10, 0, 2, 2]),
        }),
        token: Some("s3cret".try_into().unwrap()),
    }
}

/// The postcard payload of [`expected`] (41 bytes), the same in schemas 1 and 2.
const PAYLOAD: [u8; 41] = [
    0x01, 10, 0, 2, 2, 0xe7, 0x56, // targets: 10.0.2.2:11111
    0x01, 0x03, b'd', b'a', b'o', 0x00, // autoplay: "dao", forever
    0x01, 0x07, b'R', b'e', b'n', b'a', b'm', b'e', b'd', // subject
    0x01, 10, 0, 2, 15, 24, 0x01, 10, 0, 2, 2, // address 10.0.2.15/24 via 10.0.2.2
    0x01, 0x06, b's', b'3', b'c', b'r', b'e', b't', // token
];

/// A record: magic, sequence 1, length 41, `version`, `crc`, payload, 0xFF to 64 bytes.
fn record(version: [u8; 2], crc: [u8; 4], payload: &[u8]) -> Vec<u8> {
    let mut r = b"LLVS".to_vec();
    r.extend([1, 0, 0, 0]);
    r.extend((payload.len() as u16).to_le_bytes());
    r.extend(version);
    r.extend(crc);
    r.extend(payload);
    r.resize(r.len().next_multiple_of(32), 0xFF);
    r
}

/// Schema 1, as firmware before schema versions wrote it: version field never
/// written, CRC-32 over sequence, length and payload.
fn schema_1() -> Vec<u8> {
    record([0xFF, 0xFF], [0x17, 0x1c, 0xff, 0x16], &PAYLOAD)
}

/// Schema 2: the version in the head and in the CRC.
fn schema_2() -> Vec<u8> {
    record([0x02, 0x00], [0xad, 0xf8, 0x00, 0x98], &PAYLOAD)
}

/// A blank flash with `bytes` at the start of the settings log.
fn flash_with(bytes: &[u8]) -> Flash {
    let mut flash = Flash::new(REGION.end as usize);
    block_on(flash.write(REGION.start, bytes)).unwrap();
    flash
}

#[test]
fn records_of_every_schema_are_read() {
    assert_eq!(SCHEMA, 2);
    for (schema, bytes) in [(1, schema_1()), (2, schema_2())] {
        let store = mount(flash_with(&bytes));
        assert_eq!(store.fault(), None, "schema {schema}");
        assert_eq!(store.settings(), &expected(), "schema {schema}");
    }
}

#[test]
fn the_record_written_is_schema_2_byte_for_byte() {
    let mut store = mount(Flash::new(REGION.end as usize));
    block_on(store.save_settings(expected())).unwrap();
    let mut flash = store.into_flash();
    let mut written = vec![0u8; 64];
    block_on(embedded_storage_async::nor_flash::ReadNorFlash::read(
        &mut flash,
        REGION.start,
        &mut written,
    ))
    .unwrap();
    assert_eq!(written, schema_2());
    // A schema 1 box keeps its settings through a save by this firmware.
    let mut store = mount(flash_with(&schema_1()));
    let mut changed = store.settings().clone();
    changed.subject = Some("Other".try_into().unwrap());
    block_on(store.save_settings(changed.clone())).unwrap();
    let store = mount(store.into_flash());
    assert_eq!(store.settings(), &changed);
}

#[test]
fn an_unreadable_newest_record_locks_the_settings_until_a_reset() {
    // Schema 3 (a newer firmware), CRC right; and schema 2 whose payload does not decode.
    let mut newer = record([0x03, 0x00], [0; 4], &PAYLOAD);
    let mut damaged = record([0x02, 0x00], [0; 4], &[0xFF, 0xFF, 0xFF]);
    for r in [&mut newer, &mut damaged] {
        let len = usize::from(u16::from_le_bytes([r[8], r[9]]));
        let crc = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC)
            .checksum(&[&r[4..12], &r[16..16 + len]].concat());
        r[12..16].copy_from_slice(&crc.to_le_bytes());
    }
    for (bytes, why) in [
        (newer, Unreadable::Newer(3)),
        (damaged, Unreadable::Damaged(2)),
    ] {
        let mut store = mount(flash_with(&bytes));
        assert_eq!(store.fault(), Some(StoreFault::Settings(why)));
        assert_eq!(store.settings(), &Settings::default());
        assert_eq!(
            block_on(store.save_settings(expected())),
            Err(StoreError::SettingsLocked)
        );
        // Nothing silently replaced the record: it is still there after a remount.
        let mut store = mount(store.into_flash());
        assert_eq!(store.fault(), Some(StoreFault::Settings(why)));
        block_on(store.reset_settings()).unwrap();
        assert_eq!(store.fault(), None);
        block_on(store.save_settings(expected())).unwrap();
        let store = mount(store.into_flash());
        assert_eq!((store.fault(), store.settings()), (None, &expected()));
    }
}
