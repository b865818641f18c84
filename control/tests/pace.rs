//! Settings saves paced to spare the flash (`llv_control::pace`), on
//! embassy-time's mock clock over a library in memory: identical saves are
//! not written, a burst is written once now and once when the pace allows
//! (the last value winning), and `Status` counts it all.

mod common;

use common::{clock, on_mock_clock};
use embassy_futures::block_on;
use embassy_time::{Duration, Instant, MockDriver};
use llv_control::mock::{MemoryLibrary, RecordingPlayback};
use llv_control::pace::SETTINGS_EVERY;
use llv_control::{Paced, Session, TakeLibrary};
use llv_core::control::{Request, Response, Wear, PROTOCOL_VERSION};
use llv_core::settings::{Setting, Settings};

fn named(name: &str) -> Settings {
    Settings {
        name: Some(name.try_into().unwrap()),
        ..Settings::default()
    }
}

fn save(library: &mut Paced<MemoryLibrary>, settings: &Settings) {
    on_mock_clock(library.save_settings(settings), Duration::from_secs(1))
        .0
        .unwrap();
}

#[test]
fn saves_that_change_nothing_are_not_written() {
    let _clock = clock();
    let mut library = Paced::new(MemoryLibrary::new());
    // What the review sent: 4,000 identical saves.
    for _ in 0..4000 {
        save(&mut library, &Settings::default());
    }
    save(&mut library, &named("stage-left"));
    for _ in 0..4000 {
        save(&mut library, &named("stage-left"));
    }
    assert_eq!(library.inner.saves, 1);
    assert_eq!(
        library.wear(),
        Wear {
            settings_writes: 1,
            settings_unchanged: 8000,
            ..Wear::default()
        }
    );
}

#[test]
fn a_burst_is_written_once_now_and_once_when_the_pace_allows() {
    let _clock = clock();
    let mut library = Paced::new(MemoryLibrary::new());
    let start = Instant::now();
    // A burst of 100 different saves over a second: the first is written at once.
    for i in 0..100 {
        save(&mut library, &named(&format!("box-{i}")));
        MockDriver::get().advance(Duration::from_millis(10));
    }
    assert_eq!(library.inner.saves, 1);
    assert_eq!(library.inner.settings(), &named("box-0"));
    // The box uses the last at once, and says it waits.
    assert_eq!(library.settings(), &named("box-99"));
    let wear = library.wear();
    assert_eq!((wear.settings_writes, wear.settings_coalesced), (1, 98));
    assert!(wear.settings_pending);
    assert_eq!(library.due(), Some(start + SETTINGS_EVERY));
    // Not due yet: nothing written.
    on_mock_clock(library.flush(), Duration::from_secs(1))
        .0
        .unwrap();
    assert_eq!(library.inner.saves, 1);
    // Due: the last value is written, once.
    MockDriver::get().advance(start + SETTINGS_EVERY - Instant::now());
    on_mock_clock(library.flush(), Duration::from_secs(1))
        .0
        .unwrap();
    on_mock_clock(library.flush(), Duration::from_secs(1))
        .0
        .unwrap();
    assert_eq!(library.inner.saves, 2);
    assert_eq!(library.inner.settings(), &named("box-99"));
    assert_eq!(library.due(), None);
    assert!(!library.wear().settings_pending);
    // A save that returns to what is written cancels the held one.
    save(&mut library, &named("other"));
    save(&mut library, &named("box-99"));
    assert_eq!(library.due(), None);
    // After a quiet SETTINGS_EVERY a save is written at once again.
    MockDriver::get().advance(SETTINGS_EVERY);
    save(&mut library, &named("later"));
    assert_eq!(library.inner.saves, 3);
    assert_eq!(library.inner.settings(), &named("later"));
}

#[test]
fn a_sustained_flood_writes_at_most_once_per_pace() {
    let _clock = clock();
    let mut library = Paced::new(MemoryLibrary::new());
    let minutes = 10;
    // A save every 5 ms for ten minutes, each different, flushed as the box does.
    for i in 0..(minutes * 60 * 200) {
        save(&mut library, &named(&format!("b{}", i % 1000)));
        if library.due().is_some_and(|due| Instant::now() >= due) {
            on_mock_clock(library.flush(), Duration::from_secs(1))
                .0
                .unwrap();
        }
        MockDriver::get().advance(Duration::from_millis(5));
    }
    let writes = library.inner.saves;
    let most = minutes * 60 / SETTINGS_EVERY.as_secs() as u32 + 1;
    assert!(writes <= most, "{writes} writes in {minutes} min");
    assert!(writes >= most - 1, "{writes} writes in {minutes} min");
}

#[test]
fn status_reports_the_wear_and_a_locked_library_refuses_as_before() {
    let _clock = clock();
    let mut library = Paced::new(MemoryLibrary::new());
    let mut device = RecordingPlayback::default();
    let mut session = Session::new("test 1");
    let mut ask = |library: &mut Paced<MemoryLibrary>, request| {
        on_mock_clock(
            session.handle(request, library, &mut device),
            Duration::from_secs(1),
        )
        .0
    };
    ask(
        &mut library,
        Request::Hello {
            protocol: PROTOCOL_VERSION,
            token: None,
        },
    );
    for name in ["a", "b", "b"] {
        let change = Setting::Name(Some(name.try_into().unwrap()));
        let r = ask(
            &mut library,
            Request::SetSettings {
                changes: [change].into_iter().collect(),
            },
        );
        assert_eq!(r, Response::Ok);
    }
    let Response::Status(status) = ask(&mut library, Request::Status) else {
        panic!()
    };
    assert_eq!(
        status.wear,
        Wear {
            settings_writes: 1,
            settings_unchanged: 1,
            settings_pending: true,
            ..Wear::default()
        }
    );
    let Response::Settings { settings, .. } = ask(&mut library, Request::GetSettings) else {
        panic!()
    };
    assert_eq!(settings.name.as_deref(), Some("b"));
    let mut locked = Paced::new(MemoryLibrary::new());
    locked.inner.locked = true;
    let refused = block_on(locked.save_settings(&named("x")));
    assert!(refused.is_err());
    assert_eq!(locked.due(), None);
}

#[test]
fn an_upload_left_without_a_word_gives_way_after_its_idle_time() {
    let _clock = clock();
    let mut library = Paced::new(MemoryLibrary::new());
    let image = llv_control::mock::synthetic_image("left", 4, 2);
    let header = llv_core::take::TakeHeader::parse(&image).unwrap();
    let place = llv_core::control::Place::Internal;
    let first =
        block_on(library.begin_upload("left", header.total_len, header.crc32, place)).unwrap();
    block_on(library.write_chunk(first, 0, &image[..100])).unwrap();
    // Its connection goes away without closing its session. Another upload
    // is refused while the first could still be in use...
    MockDriver::get().advance(llv_control::pace::UPLOAD_IDLE - Duration::from_secs(1));
    let refused = block_on(library.begin_upload("next", header.total_len, header.crc32, place));
    assert!(refused.is_err(), "{refused:?}");
    assert!(library.uploading(first));
    // ...and taken once the first saw nothing for the idle time.
    MockDriver::get().advance(Duration::from_secs(1));
    let next =
        block_on(library.begin_upload("next", header.total_len, header.crc32, place)).unwrap();
    assert!(!library.uploading(first));
    assert!(library.uploading(next));
}
