//! The control session over the box's own library (the flash store on the
//! mock flash, and a slot without a card): the store's refusals in the
//! protocol's terms, a settings record this firmware cannot read, and what
//! survives a power cycle. The session's own rules are tested over a library
//! in memory in the control crate (control/tests/session.rs).

use embassy_futures::block_on;
use llv_box::library::BoxLibrary;
use llv_box_store::mock::{synthetic_image as image, MockFlash};
use llv_box_store::Store;
use llv_card::{Card, CardPort, NoCard};
use llv_control::mock::RecordingPlayback;
use llv_control::{Session, TakeLibrary};
use llv_core::control::{ErrorCode, FaultCode, Place, Request, Response, Start, PROTOCOL_VERSION};
use llv_core::settings::{Setting, Target};
use llv_core::take::TakeHeader;

/// Write unit 4 bytes, erase blocks of 1 KiB.
type Flash = MockFlash<4, 1024>;
/// 2 settings blocks and 16 take blocks.
const REGION: core::ops::Range<u32> = 0..18 * 1024;

static NO_CARD: CardPort<NoCard> = CardPort::new(NoCard);

/// The box's library on `flash`, as a power-up mounts it.
fn mount(flash: Flash) -> BoxLibrary<Flash, NoCard> {
    BoxLibrary {
        store: block_on(Store::mount(flash, REGION)),
        card: Card::new(&NO_CARD),
    }
}

fn send(
    library: &mut BoxLibrary<Flash, NoCard>,
    device: &mut RecordingPlayback,
    session: &mut Session,
    request: Request<'_>,
) -> Response {
    block_on(session.handle(request, library, device))
}

fn hello(token: Option<&str>) -> Request<'_> {
    Request::Hello {
        protocol: PROTOCOL_VERSION,
        token,
    }
}

fn code(r: &Response) -> Option<ErrorCode> {
    match r {
        Response::Error { code, .. } => Some(*code),
        _ => None,
    }
}

/// Uploads `image` in chunks of 1000 bytes; the commit's response.
fn upload(
    library: &mut BoxLibrary<Flash, NoCard>,
    device: &mut RecordingPlayback,
    s: &mut Session,
    image: &[u8],
) -> Response {
    let h = TakeHeader::parse(image).unwrap();
    let begin = Request::UploadBegin {
        name: &h.name,
        total_len: h.total_len,
        crc32: h.crc32,
        place: Place::Internal,
    };
    assert_eq!(send(library, device, s, begin), Response::Ok);
    for (i, part) in image.chunks(1000).enumerate() {
        let chunk = Request::UploadChunk {
            offset: (i * 1000) as u32,
            data: part,
        };
        assert_eq!(send(library, device, s, chunk), Response::Ok);
    }
    send(library, device, s, Request::UploadCommit)
}

#[test]
fn takes_and_settings_stored_through_requests_survive_a_power_cycle() {
    let mut library = mount(Flash::new(REGION.end as usize));
    let mut device = RecordingPlayback::default();
    let mut s = Session::new("0.1.0");
    send(&mut library, &mut device, &mut s, hello(None));
    let dao = image("dao", 4, 1);
    assert_eq!(
        upload(&mut library, &mut device, &mut s, &dao),
        Response::Ok
    );
    let target = Target {
        ip: [10, 0, 2, 2],
        port: 11111,
    };
    let changes = [
        Setting::Targets([target].into_iter().collect()),
        Setting::Token(Some("s3cret".try_into().unwrap())),
    ];
    let set = Request::SetSettings {
        changes: changes.into_iter().collect(),
    };
    assert_eq!(send(&mut library, &mut device, &mut s, set), Response::Ok);
    let play = Request::Play {
        name: "dao",
        targets: heapless::Vec::new(),
        loop_count: 1,
        start: Start::Now,
    };
    assert_eq!(send(&mut library, &mut device, &mut s, play), Response::Ok);
    assert_eq!(device.playing.as_ref().unwrap().1, [target]);

    let mut library = mount(library.store.into_flash());
    assert_eq!(library.settings().token.as_deref(), Some("s3cret"));
    let mut s = Session::new("0.1.0");
    assert!(matches!(
        send(&mut library, &mut device, &mut s, hello(Some("s3cret"))),
        Response::Hello { .. }
    ));
    let Response::List { takes } = send(&mut library, &mut device, &mut s, Request::List) else {
        panic!("no list")
    };
    assert_eq!(takes.len(), 1);
    assert_eq!(takes[0].name, "dao");
    assert_eq!(takes[0].place, Place::Internal);
    let delete = Request::Delete { name: "dao" };
    assert_eq!(
        send(&mut library, &mut device, &mut s, delete),
        Response::Ok
    );
    let again = Request::Delete { name: "dao" };
    let r = send(&mut library, &mut device, &mut s, again);
    assert_eq!(
        r,
        Response::error(ErrorCode::NotFound, "no take named \"dao\"")
    );
}

#[test]
fn the_stores_refusals_reach_the_host_in_the_protocols_terms() {
    let mut library = mount(Flash::new(REGION.end as usize));
    let mut device = RecordingPlayback::default();
    let mut s = Session::new("0.1.0");
    send(&mut library, &mut device, &mut s, hello(None));
    let mut flipped = image("dao", 4, 1);
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    let r = upload(&mut library, &mut device, &mut s, &flipped);
    assert_eq!(code(&r), Some(ErrorCode::Crc), "{r:?}");
    let big = Request::UploadBegin {
        name: "big",
        total_len: 1 << 20,
        crc32: 0,
        place: Place::Internal,
    };
    assert_eq!(
        send(&mut library, &mut device, &mut s, big),
        Response::error(
            ErrorCode::NoSpace,
            "needs 1048640 bytes, largest free run 16384"
        )
    );
    let to_card = Request::UploadBegin {
        name: "dao",
        total_len: 1000,
        crc32: 0,
        place: Place::Card,
    };
    let r = send(&mut library, &mut device, &mut s, to_card);
    assert_eq!(code(&r), Some(ErrorCode::Flash), "{r:?}");
}

#[test]
fn a_settings_record_of_a_newer_schema_locks_the_box_until_a_reset() {
    // A settings record of schema 9, as a firmware downgrade leaves it.
    let mut flash = Flash::new(REGION.end as usize);
    let mut record = b"LLVS".to_vec();
    record.extend([1, 0, 0, 0, 0, 0, 9, 0]);
    let crc = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC).checksum(&record[4..12]);
    record.extend(crc.to_le_bytes());
    record.resize(32, 0xFF);
    block_on(embedded_storage_async::nor_flash::NorFlash::write(
        &mut flash, 0, &record,
    ))
    .unwrap();
    let mut library = mount(flash);
    let mut device = RecordingPlayback::default();
    let mut s = Session::new("0.1.0");
    // The token is unknown: any Hello is let in, but only to read.
    assert!(matches!(
        send(&mut library, &mut device, &mut s, hello(Some("any"))),
        Response::Hello { .. }
    ));
    let Response::Status(status) = send(&mut library, &mut device, &mut s, Request::Status) else {
        panic!("no status")
    };
    assert_eq!(status.faults.len(), 1);
    assert_eq!(status.faults[0].code, FaultCode::SettingsUnreadable);
    assert_eq!(
        status.faults[0].detail.as_str(),
        "settings schema 9 newer than firmware: locked; upgrade or factory reset"
    );
    let clear = Request::SetSettings {
        changes: [Setting::Token(None)].into_iter().collect(),
    };
    let r = send(&mut library, &mut device, &mut s, clear);
    assert_eq!(code(&r), Some(ErrorCode::Unauthorized), "{r:?}");
}
