//! The settings record, byte for byte: a record of every schema this firmware
//! reads (golden bytes, as older firmware wrote them), the one it writes, and
//! what it does with a record it cannot read.

mod common;

use common::*;
use embassy_futures::block_on;
use embedded_storage_async::nor_flash::NorFlash;
use llv_box_store::{StoreError, StoreFault, Unreadable, SCHEMA};
use llv_core::artnet::TimecodeLabel;
use llv_core::settings::{Autoplay, ChaseSpec, LiveSpec, Settings, StaticAddress, Target};

/// What the golden records of schemas 1 and 2 hold (migrated: no name, default ports).
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
        ..Settings::default()
    }
}

/// What the golden record of schema 3 holds.
fn expected_3() -> Settings {
    Settings {
        name: Some("stage-left".try_into().unwrap()),
        osc_port: Some(53000),
        reply_port: Some(53001),
        ..expected()
    }
}

/// What the golden record of schema 4 holds.
fn expected_4() -> Settings {
    Settings {
        chase: Some(ChaseSpec {
            offset: Some(TimecodeLabel {
                hours: 1,
                minutes: 0,
                seconds: 0,
                frames: 12,
            }),
            stream: 2,
            freewheel_ms: 4000,
            hold: true,
        }),
        ..expected_3()
    }
}

/// What the golden record of schema 5 holds.
fn expected_5() -> Settings {
    Settings {
        live: LiveSpec {
            enabled: true,
            subject: Some("alex".try_into().unwrap()),
            buffer: 3,
            idle: Some("idle".try_into().unwrap()),
            record: true,
            ..LiveSpec::default()
        },
        http_port: Some(8080),
        ..expected_4()
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

/// The postcard payload of [`expected_3`] (61 bytes): schema 2's, then the
/// name, the OSC port and the reply port.
fn payload_3() -> Vec<u8> {
    let mut p = PAYLOAD.to_vec();
    p.extend([0x01, 0x0a]);
    p.extend(b"stage-left");
    p.extend([0x01, 0x88, 0x9e, 0x03]); // osc_port 53000
    p.extend([0x01, 0x89, 0x9e, 0x03]); // reply_port 53001
    p
}

/// The postcard payload of [`expected_4`]: schema 3's, then the chase.
fn payload_4() -> Vec<u8> {
    let mut p = payload_3();
    p.extend([0x01, 0x01, 1, 0, 0, 12]); // chase, offset 01:00:00:12
    p.extend([0x02, 0xa0, 0x1f, 0x01]); // stream 2, freewheel 4000 ms, hold
    p
}

/// The postcard payload of [`expected_5`]: schema 4's, then the live relay and the HTTP port.
fn payload_5() -> Vec<u8> {
    let mut p = payload_4();
    p.extend([0x01, 0xe7, 0x56]); // live on, port 11111
    p.extend([0x01, 0x04]);
    p.extend(b"alex"); // subject
    p.extend([0x00, 0x03, 0xfa, 0x01, 0xac, 0x02, 0x0a]); // any address, buffer 3, 250 ms, 300 ms, 10
    p.extend([0x01, 0x04]);
    p.extend(b"idle"); // idle take
    p.extend([0x00, 0x01]); // pass-other off, record on
    p.extend([0x01, 0x90, 0x3f]); // http_port 8080
    p
}

/// A record: magic, sequence 1, payload length, `version`, `crc`, payload, 0xFF to whole 32-byte units.
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

/// Schema 3: the box name and the OSC ports after schema 2's fields.
fn schema_3() -> Vec<u8> {
    record([0x03, 0x00], CRC_3, &payload_3())
}

/// The CRC of the schema 3 golden record (bytes 4..12 and the payload).
const CRC_3: [u8; 4] = [0x70, 0x25, 0x50, 0xe1];

/// Schema 4: the chase after schema 3's fields.
fn schema_4() -> Vec<u8> {
    record([0x04, 0x00], CRC_4, &payload_4())
}

/// The CRC of the schema 4 golden record (bytes 4..12 and the payload).
const CRC_4: [u8; 4] = [0x14, 0x95, 0x6a, 0x25];

/// Schema 5: the live relay and the HTTP port after schema 4's fields.
fn schema_5() -> Vec<u8> {
    record([0x05, 0x00], CRC_5, &payload_5())
}

/// The CRC of the schema 5 golden record (bytes 4..12 and the payload).
const CRC_5: [u8; 4] = [0x7f, 0xe7, 0xcb, 0xd2];

/// A blank flash with `bytes` at the start of the settings log.
fn flash_with(bytes: &[u8]) -> Flash {
    let mut flash = Flash::new(REGION.end as usize);
    block_on(flash.write(REGION.start, bytes)).unwrap();
    flash
}

#[test]
fn records_of_every_schema_are_read() {
    assert_eq!(SCHEMA, 5);
    for (schema, bytes, settings) in [
        (1, schema_1(), expected()),
        (2, schema_2(), expected()),
        (3, schema_3(), expected_3()),
        (4, schema_4(), expected_4()),
        (5, schema_5(), expected_5()),
    ] {
        let store = mount(flash_with(&bytes));
        assert_eq!(store.fault(), None, "schema {schema}");
        assert_eq!(store.settings(), &settings, "schema {schema}");
    }
}

#[test]
fn the_record_written_is_schema_5_byte_for_byte() {
    let mut store = mount(Flash::new(REGION.end as usize));
    block_on(store.save_settings(&expected_5())).unwrap();
    let mut flash = store.into_flash();
    let mut written = vec![0u8; 128];
    block_on(embedded_storage_async::nor_flash::ReadNorFlash::read(
        &mut flash,
        REGION.start,
        &mut written,
    ))
    .unwrap();
    assert_eq!(written, schema_5());
    // A schema 1, 2, 3 or 4 box keeps its settings through a save by this firmware.
    for old in [schema_1(), schema_2(), schema_3(), schema_4()] {
        let mut store = mount(flash_with(&old));
        let mut changed = store.settings().clone();
        changed.subject = Some("Other".try_into().unwrap());
        changed.name = Some("stage-right".try_into().unwrap());
        block_on(store.save_settings(&changed)).unwrap();
        let store = mount(store.into_flash());
        assert_eq!(store.settings(), &changed);
        assert_eq!(store.settings().targets, expected().targets);
    }
}

#[test]
fn an_unreadable_newest_record_locks_the_settings_until_a_reset() {
    // Schema 6 (a newer firmware), CRC right; schema 2 whose payload does
    // not decode; schema 3 with a stray byte after its payload.
    let mut newer = record([0x06, 0x00], [0; 4], &payload_5());
    let mut damaged = record([0x02, 0x00], [0; 4], &[0xFF, 0xFF, 0xFF]);
    let mut stray = record([0x03, 0x00], [0; 4], &[payload_3(), vec![0]].concat());
    for r in [&mut newer, &mut damaged, &mut stray] {
        let len = usize::from(u16::from_le_bytes([r[8], r[9]]));
        let crc = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC)
            .checksum(&[&r[4..12], &r[16..16 + len]].concat());
        r[12..16].copy_from_slice(&crc.to_le_bytes());
    }
    for (bytes, why) in [
        (newer, Unreadable::Newer(6)),
        (damaged, Unreadable::Damaged(2)),
        (stray, Unreadable::Damaged(3)),
    ] {
        let mut store = mount(flash_with(&bytes));
        assert_eq!(store.fault(), Some(StoreFault::Settings(why)));
        assert_eq!(store.settings(), &Settings::default());
        assert_eq!(
            block_on(store.save_settings(&expected())),
            Err(StoreError::SettingsLocked)
        );
        // Nothing silently replaced the record: it is still there after a remount.
        let mut store = mount(store.into_flash());
        assert_eq!(store.fault(), Some(StoreFault::Settings(why)));
        block_on(store.reset_settings()).unwrap();
        assert_eq!(store.fault(), None);
        block_on(store.save_settings(&expected_3())).unwrap();
        let store = mount(store.into_flash());
        assert_eq!((store.fault(), store.settings()), (None, &expected_3()));
    }
}
