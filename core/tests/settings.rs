//! The settings: the one rule (`Settings::check`) for what the box and `llv
//! serve` accept, store and use, what of older settings stays usable, and
//! the one text grammar (`Setting::parse`) that `llv box config` and the
//! box's command line share.

use heapless::{String, Vec};
use llv_core::control::bounded;
use llv_core::settings::*;

fn name<const N: usize>(s: &str) -> String<N> {
    bounded(s)
}

fn target(ip: [u8; 4], port: u16) -> Target {
    Target { ip, port }
}

fn address(ip: [u8; 4], prefix_len: u8, gateway: Option<[u8; 4]>) -> StaticAddress {
    StaticAddress {
        ip,
        prefix_len,
        gateway,
    }
}

fn ok_settings() -> Settings {
    Settings {
        targets: [target([10, 0, 2, 2], 11111)].into_iter().collect(),
        address: Some(address([10, 0, 2, 15], 24, Some([10, 0, 2, 2]))),
        token: Some(name("s3cret")),
        ..Settings::default()
    }
}

#[test]
fn static_addresses_that_would_strand_the_box_are_refused() {
    assert_eq!(ok_settings().check(Sender::Box), Ok(()));
    let refused = [
        (address([10, 0, 2, 15], 33, None), AddressError::Prefix),
        (address([10, 0, 2, 15], 0, None), AddressError::Prefix),
        // What the review stored: each left the box unreachable after a reboot.
        (address([0, 0, 0, 1], 8, None), AddressError::NotUnicast),
        (address([240, 0, 0, 1], 24, None), AddressError::NotUnicast),
        (
            address([169, 254, 1, 1], 16, None),
            AddressError::NotUnicast,
        ),
        (address([0, 0, 0, 0], 24, None), AddressError::NotUnicast),
        (address([127, 0, 0, 1], 8, None), AddressError::NotUnicast),
        (address([224, 0, 0, 1], 24, None), AddressError::NotUnicast),
        (
            address([255, 255, 255, 255], 24, None),
            AddressError::NotUnicast,
        ),
        (
            address([10, 0, 2, 0], 24, None),
            AddressError::NetworkOrBroadcast,
        ),
        (
            address([10, 0, 2, 255], 24, None),
            AddressError::NetworkOrBroadcast,
        ),
        (
            address([10, 0, 2, 15], 24, Some([10, 0, 3, 1])),
            AddressError::Gateway,
        ),
        (
            address([10, 0, 2, 15], 24, Some([10, 0, 2, 15])),
            AddressError::Gateway,
        ),
        (
            address([10, 0, 2, 15], 24, Some([10, 0, 2, 255])),
            AddressError::Gateway,
        ),
        (
            address([10, 0, 2, 15], 24, Some([10, 0, 2, 0])),
            AddressError::Gateway,
        ),
    ];
    for (a, why) in refused {
        let s = Settings {
            address: Some(a),
            ..ok_settings()
        };
        for sender in [Sender::Box, Sender::Laptop] {
            assert_eq!(s.check(sender), Err(SettingError::Address(a, why)), "{a:?}");
        }
    }
    // Point-to-point and host routes have no network or broadcast address.
    for prefix in [31, 32] {
        assert_eq!(address([10, 0, 2, 0], prefix, None).check(), Ok(()));
    }
    // Private, public and shared (100.64/10) addresses are fine.
    for ip in [
        [192, 168, 1, 50],
        [100, 64, 0, 2],
        [8, 8, 4, 4],
        [172, 16, 0, 9],
    ] {
        assert_eq!(address(ip, 24, None).check(), Ok(()), "{ip:?}");
    }
    let texts = [
        (
            address([10, 0, 2, 15], 33, None),
            AddressError::Prefix,
            "address 10.0.2.15/33: the prefix is 1 to 32",
        ),
        (
            address([169, 254, 1, 1], 16, None),
            AddressError::NotUnicast,
            "address 169.254.1.1/16: not a host address (0.x, 127.x, 169.254.x, 224.x and up)",
        ),
        (
            address([10, 0, 2, 15], 24, Some([10, 0, 3, 1])),
            AddressError::Gateway,
            "address 10.0.2.15/24,10.0.3.1: the gateway is not another host of its subnet",
        ),
    ];
    for (a, why, text) in texts {
        assert_eq!(SettingError::Address(a, why).to_string(), text);
    }
}

#[test]
fn targets_are_destinations_and_127_is_a_laptops_only() {
    let with = |t: Target| Settings {
        targets: [t].into_iter().collect(),
        ..Settings::default()
    };
    for t in [
        target([10, 0, 2, 2], 0),
        target([0, 0, 0, 0], 11111),
        target([0, 1, 2, 3], 11111),
        target([240, 0, 0, 1], 11111),
        target([255, 255, 255, 254], 11111),
    ] {
        for sender in [Sender::Box, Sender::Laptop] {
            assert_eq!(with(t).check(sender), Err(SettingError::Target(t)), "{t}");
        }
    }
    let loopback = target([127, 0, 0, 1], 11111);
    assert_eq!(
        with(loopback).check(Sender::Box),
        Err(SettingError::LoopbackTarget(loopback))
    );
    assert_eq!(with(loopback).check(Sender::Laptop), Ok(()));
    assert_eq!(
        SettingError::LoopbackTarget(loopback).to_string(),
        "target 127.0.0.1:11111: 127.x is the box itself; give the laptop's address"
    );
    for t in [
        target([255; 4], 11111),
        target([239, 1, 2, 3], 11111),
        target([169, 254, 7, 7], 11111),
        target([10, 0, 2, 255], 11111),
    ] {
        assert_eq!(t.check(Sender::Box), Ok(()), "{t}");
    }
}

#[test]
fn ports_other_services_use_are_refused_for_osc_and_replies() {
    for port in [0, 67, 68, 5353, 6454, 11111, 11113] {
        let osc = Settings {
            osc_port: Some(port),
            ..Settings::default()
        };
        assert_eq!(
            osc.check(Sender::Box),
            Err(SettingError::OscPort(port)),
            "{port}"
        );
        let reply = Settings {
            reply_port: Some(port),
            ..Settings::default()
        };
        assert_eq!(
            reply.check(Sender::Laptop),
            Err(SettingError::ReplyPort(port)),
            "{port}"
        );
    }
    assert_eq!(
        SettingError::OscPort(6454).to_string(),
        "osc-port 6454 is Art-Net's: not 0, 67, 68, 5353, 6454, 11111 or 11113"
    );
    assert_eq!(reserved_port(68), Some("DHCP"));
    let s = Settings {
        osc_port: Some(53000),
        reply_port: Some(53001),
        ..Settings::default()
    };
    assert_eq!((s.check(Sender::Box), s.osc_port()), (Ok(()), 53000));
    assert_eq!(Settings::default().osc_port(), OSC_PORT);
}

#[test]
fn the_http_port_is_no_other_services_nor_the_osc_port() {
    assert_eq!(Settings::default().http_port(), HTTP_PORT);
    assert_eq!(Settings::default().check(Sender::Box), Ok(()));
    for port in [0, 67, 68, 5353, 6454, 11111, 11113, OSC_PORT] {
        let s = Settings {
            http_port: Some(port),
            ..Settings::default()
        };
        assert_eq!(
            s.check(Sender::Box),
            Err(SettingError::HttpPort(port)),
            "{port}"
        );
    }
    // The OSC port may not take the HTTP port either, the default 80 included.
    let s = Settings {
        osc_port: Some(80),
        ..Settings::default()
    };
    assert_eq!(s.check(Sender::Box), Err(SettingError::HttpPort(80)));
    let s = Settings {
        osc_port: Some(80),
        http_port: Some(8080),
        ..Settings::default()
    };
    assert_eq!(s.check(Sender::Box), Ok(()));
    assert_eq!(
        SettingError::HttpPort(11113).to_string(),
        "http-port 11113 is the control port's: not 0, 67, 68, 5353, 6454, 11111, 11113 or the OSC port"
    );
    // Stored: a bad HTTP port goes back to 80; an OSC port on it goes back to 11114.
    let stored = Settings {
        http_port: Some(5353),
        osc_port: Some(80),
        ..Settings::default()
    };
    let (usable, first) = stored.usable(Sender::Box);
    assert_eq!((usable.http_port, usable.osc_port), (None, None));
    assert_eq!(first, Some(SettingError::HttpPort(5353)));
    let stored = Settings {
        http_port: Some(8080),
        osc_port: Some(8080),
        ..Settings::default()
    };
    let (usable, _) = stored.usable(Sender::Box);
    assert_eq!((usable.http_port, usable.osc_port), (Some(8080), None));
    assert_eq!(usable.check(Sender::Box), Ok(()));
}

#[test]
fn names_tokens_subjects_and_autoplay_follow_their_rules() {
    for token in ["", "two words", "tab\there", "é"] {
        let s = Settings {
            token: Some(name(token)),
            ..ok_settings()
        };
        assert_eq!(s.check(Sender::Box), Err(SettingError::Token), "{token:?}");
    }
    let s = Settings {
        subject: Some(name("")),
        ..ok_settings()
    };
    assert_eq!(s.check(Sender::Box), Err(SettingError::Subject));
    let s = Settings {
        autoplay: Some(Autoplay {
            take: name(""),
            loop_count: 0,
        }),
        ..ok_settings()
    };
    assert_eq!(s.check(Sender::Box), Err(SettingError::AutoplayName));
    for bad in [
        "",
        "-stage",
        "stage-",
        "stage left",
        "bühne",
        &"n".repeat(BOX_NAME_LEN + 1),
    ] {
        assert_eq!(check_box_name(bad), Err(SettingError::Name), "{bad:?}");
    }
    for good in ["a", "stage-left", "Box-2", &"n".repeat(BOX_NAME_LEN)] {
        assert_eq!(check_box_name(good), Ok(()), "{good:?}");
    }
}

#[test]
fn of_stored_settings_only_the_bad_ones_are_dropped_and_the_first_is_named() {
    let stored = Settings {
        targets: [
            target([10, 0, 2, 2], 11111),
            target([127, 0, 0, 1], 9000),
            target([0, 0, 0, 0], 1),
        ]
        .into_iter()
        .collect(),
        address: Some(address([169, 254, 1, 1], 16, None)),
        osc_port: Some(6454),
        reply_port: Some(53001),
        name: Some(name("stage-left")),
        token: Some(name("two words")),
        ..Settings::default()
    };
    let (usable, first) = stored.usable(Sender::Box);
    assert_eq!(
        first,
        Some(SettingError::LoopbackTarget(target([127, 0, 0, 1], 9000)))
    );
    assert_eq!(usable.targets.as_slice(), &[target([10, 0, 2, 2], 11111)]);
    assert_eq!(usable.address, None);
    assert_eq!(usable.osc_port, None);
    assert_eq!(usable.reply_port, Some(53001));
    assert_eq!(usable.name.as_deref(), Some("stage-left"));
    // The token stays: dropping it would open the box.
    assert_eq!(usable.token.as_deref(), Some("two words"));
    assert_eq!(usable.check(Sender::Box), Err(SettingError::Token));
    // A laptop keeps its loopback target.
    let (usable, _) = stored.usable(Sender::Laptop);
    assert_eq!(usable.targets.len(), 2);
    assert_eq!(ok_settings().usable(Sender::Box), (ok_settings(), None));
}

/// Applies `pairs` to the defaults through the grammar, as `llv box config` does.
fn parse_all(pairs: &[(&str, &str)]) -> Result<Settings, std::string::String> {
    let mut s = Settings::default();
    for (key, value) in pairs {
        let change = Setting::parse(key, value, &s).map_err(|e| e.to_string())?;
        s.apply(&change);
    }
    Ok(s)
}

#[test]
fn every_key_parses_to_its_setting() {
    let s = parse_all(&[
        ("targets", "10.0.2.2,10.0.2.3:9000"),
        ("autoplay", "dao"),
        ("autoplay-loops", "2"),
        ("subject", "Stage"),
        ("address", "10.0.0.2/24,10.0.0.1"),
        ("token", "s3cret"),
        ("name", "stage-left"),
        ("osc-port", "53000"),
        ("reply-port", "53001"),
        ("chase", "01:00:00:12"),
        ("chase-stream", "2"),
        ("chase-freewheel", "2.5"),
        ("chase-hold", "on"),
        ("live", "on"),
        ("live-port", "11112"),
        ("live-subject", "alex"),
        ("live-from", "10.0.0.7"),
        ("live-buffer", "3"),
        ("live-timeout", "0.5"),
        ("live-fade", "0.125"),
        ("live-return", "5"),
        ("live-idle", "idle"),
        ("live-pass-other", "on"),
        ("live-record", "on"),
        ("http-port", "8080"),
    ])
    .unwrap();
    assert_eq!(
        s.live,
        LiveSpec {
            enabled: true,
            port: 11112,
            subject: Some(name("alex")),
            from: Some([10, 0, 0, 7]),
            buffer: 3,
            timeout_ms: 500,
            fade_ms: 125,
            return_frames: 5,
            idle: Some(name("idle")),
            pass_other: true,
            record: true,
        }
    );
    assert_eq!(
        s.targets.as_slice(),
        &[target([10, 0, 2, 2], 11111), target([10, 0, 2, 3], 9000)]
    );
    assert_eq!(
        s.autoplay,
        Some(Autoplay {
            take: name("dao"),
            loop_count: 2
        })
    );
    assert_eq!(s.subject.as_deref(), Some("Stage"));
    assert_eq!(
        s.address,
        Some(address([10, 0, 0, 2], 24, Some([10, 0, 0, 1])))
    );
    assert_eq!(s.token.as_deref(), Some("s3cret"));
    assert_eq!(s.name.as_deref(), Some("stage-left"));
    assert_eq!((s.osc_port, s.reply_port), (Some(53000), Some(53001)));
    assert_eq!((s.http_port, s.http_port()), (Some(8080), 8080));
    assert_eq!(
        s.chase,
        Some(ChaseSpec {
            offset: llv_core::artnet::TimecodeLabel::parse("01:00:00:12"),
            stream: 2,
            freewheel_ms: 2500,
            hold: true,
        })
    );
    assert_eq!(s.check(Sender::Box), Ok(()));
    // Every documented key parses.
    let keys: Vec<&str, 25> = [
        "targets",
        "autoplay",
        "autoplay-loops",
        "subject",
        "address",
        "token",
        "name",
        "osc-port",
        "reply-port",
        "chase",
        "chase-stream",
        "chase-freewheel",
        "chase-hold",
        "live",
        "live-port",
        "live-subject",
        "live-from",
        "live-buffer",
        "live-timeout",
        "live-fade",
        "live-return",
        "live-idle",
        "live-pass-other",
        "live-record",
        "http-port",
    ]
    .into_iter()
    .collect();
    assert_eq!(keys.as_slice(), KEYS.as_slice());
}

#[test]
fn keywords_clear_and_keep_what_the_other_keys_set() {
    let s = parse_all(&[
        ("autoplay", "dao"),
        ("autoplay-loops", "forever"),
        ("autoplay", "other"),
        ("chase", "own"),
        ("chase-freewheel", "0.125"),
        ("chase", "00:00:10:00"),
    ])
    .unwrap();
    // A new autoplay take keeps the loop count; a new chase offset the rest.
    assert_eq!(s.autoplay.as_ref().unwrap().loop_count, 0);
    assert_eq!(s.autoplay.as_ref().unwrap().take.as_str(), "other");
    assert_eq!(s.chase.unwrap().freewheel_ms, 125);
    let cleared = parse_all(&[
        ("targets", "none"),
        ("autoplay", "none"),
        ("subject", "none"),
        ("address", "dhcp"),
        ("token", "none"),
        ("name", "none"),
        ("osc-port", "default"),
        ("reply-port", "none"),
        ("chase", "off"),
        ("http-port", "default"),
    ])
    .unwrap();
    assert_eq!(cleared, Settings::default());
}

#[test]
fn a_bad_key_or_value_is_named_in_the_error() {
    let err = |pairs: &[(&str, &str)]| parse_all(pairs).unwrap_err();
    assert_eq!(
        err(&[("volume", "3")]),
        "unknown setting \"volume\": targets, autoplay, autoplay-loops, subject, address, \
         token, name, osc-port, reply-port, chase, chase-stream, chase-freewheel, chase-hold, \
         live, live-port, live-subject, live-from, live-buffer, live-timeout, live-fade, \
         live-return, live-idle, live-pass-other, live-record, http-port"
    );
    let cases: [(&str, &str, &str); 18] = [
        (
            "targets",
            "host:1",
            "targets: \"host:1\" is not IPv4[:PORT],...",
        ),
        ("targets", "10.0.2.2:0", "is not IPv4[:PORT]"),
        (
            "targets",
            "1.1.1.1,1.1.1.2,1.1.1.3,1.1.1.4,1.1.1.5",
            "at most 4 targets",
        ),
        ("targets", ",", "at least one target"),
        (
            "autoplay-loops",
            "2",
            "autoplay-loops: set autoplay NAME first",
        ),
        ("autoplay", &"n".repeat(33), "is over 32 bytes"),
        ("subject", &"s".repeat(65), "is over 64 bytes"),
        (
            "address",
            "10.0.0.2/33",
            "address: \"10.0.0.2/33\" is not IP/PREFIX[,GATEWAY] or dhcp",
        ),
        ("address", "10.0.0.2", "is not IP/PREFIX"),
        ("address", "10.0.0.2/24,gw", "is not IP/PREFIX"),
        ("token", "", "token: 1 to 32 bytes"),
        ("name", "stage left", "letters, digits"),
        ("osc-port", "0", "osc-port: \"0\" is not a port (1..=65535)"),
        ("reply-port", "70000", "not a port"),
        (
            "chase",
            "1:00",
            "chase: \"1:00\" is not own, off or HH:MM:SS:FF",
        ),
        (
            "chase-hold",
            "on",
            "chase-hold: set chase own or chase HH:MM:SS:FF first",
        ),
        ("chase-stream", "256", "set chase own"),
        ("chase-freewheel", "1", "set chase own"),
    ];
    for (key, value, text) in cases {
        let e = err(&[(key, value)]);
        assert!(e.contains(text), "{key} {value}: {e}");
    }
    let chasing = [("chase", "own")];
    for (key, value, text) in [
        (
            "chase-stream",
            "256",
            "chase-stream: \"256\" is not 0..=255",
        ),
        ("chase-freewheel", "4000", "is not seconds from 0 to 3600"),
        ("chase-freewheel", "1.2345", "is not seconds"),
        ("chase-freewheel", "-1", "is not seconds"),
        ("chase-freewheel", ".5", "is not seconds"),
        ("chase-hold", "yes", "chase-hold: on or off, not \"yes\""),
    ] {
        let e = err(&[chasing[0], (key, value)]);
        assert!(e.contains(text), "{key} {value}: {e}");
    }
    let e = err(&[("autoplay", "dao"), ("autoplay-loops", "-1")]);
    assert!(e.contains("is not a count"), "{e}");
}

#[test]
fn the_value_parsers_the_box_command_line_shares() {
    assert_eq!(parse_count("forever"), Some(0));
    assert_eq!(parse_count("7"), Some(7));
    assert_eq!(parse_count("-1"), None);
    assert_eq!(parse_on_off("off"), Some(false));
    assert_eq!(parse_ipv4("10.0.2.2"), Some([10, 0, 2, 2]));
    assert_eq!(parse_ipv4("10.0.2"), None);
    assert_eq!(
        parse_address("192.168.1.50/16"),
        Ok(address([192, 168, 1, 50], 16, None))
    );
    assert_eq!(parse_targets(""), Err(ParseErrorKind::NoTargets));
    assert_eq!(
        parse_targets("10.0.2.2:11112"),
        Ok([target([10, 0, 2, 2], 11112)].into_iter().collect())
    );
}
#[test]
fn a_chase_offset_is_a_label_and_freewheel_at_most_an_hour() {
    let label = |hours, frames| llv_core::artnet::TimecodeLabel {
        hours,
        minutes: 59,
        seconds: 59,
        frames,
    };
    let with = |offset, freewheel_ms| Settings {
        chase: Some(ChaseSpec {
            offset,
            freewheel_ms,
            ..ChaseSpec::DEFAULT
        }),
        ..Settings::default()
    };
    assert_eq!(with(None, 4000).check(Sender::Box), Ok(()));
    assert_eq!(
        with(Some(label(23, 29)), MAX_FREEWHEEL_MS).check(Sender::Box),
        Ok(())
    );
    assert_eq!(
        with(Some(label(24, 0)), 4000).check(Sender::Box),
        Err(SettingError::Chase)
    );
    assert_eq!(
        with(Some(label(0, 30)), 4000).check(Sender::Box),
        Err(SettingError::Chase)
    );
    assert_eq!(
        with(None, MAX_FREEWHEEL_MS + 1).check(Sender::Box),
        Err(SettingError::Chase)
    );
    let config = ChaseSpec {
        hold: true,
        freewheel_ms: 2500,
        ..ChaseSpec::DEFAULT
    }
    .config();
    assert_eq!(config.freewheel_us, 2_500_000);
    assert_eq!(
        config.after_freewheel,
        llv_core::chase::AfterFreewheel::Hold
    );
}

#[test]
fn live_settings_out_of_range_are_refused_and_named() {
    let refused = |pairs: &[(&str, &str)]| {
        let s = parse_all(pairs).unwrap();
        let e = s.check(Sender::Box).unwrap_err();
        assert_eq!(e, SettingError::Live);
        assert!(e.to_string().starts_with("live: "), "{e}");
        // What a box does with such a stored setting: the relay's defaults.
        assert_eq!(s.usable(Sender::Box).0.live, LiveSpec::default());
    };
    refused(&[("live-buffer", "7")]);
    refused(&[("live-timeout", "0.01")]);
    refused(&[("live-timeout", "11")]);
    refused(&[("live-fade", "10.001")]);
    refused(&[("live-return", "0")]);
    refused(&[("live-port", "5353")]);
    let ok = parse_all(&[
        ("live-buffer", "6"),
        ("live-fade", "0"),
        ("live-port", "11111"),
    ]);
    assert_eq!(ok.unwrap().check(Sender::Box), Ok(()));
    let err = |pairs: &[(&str, &str)]| parse_all(pairs).unwrap_err();
    assert_eq!(err(&[("live", "yes")]), "live: on or off, not \"yes\"");
    assert_eq!(
        err(&[("live-timeout", "soon")]),
        "live-timeout: \"soon\" is not seconds to the millisecond (0.25)"
    );
    assert_eq!(
        err(&[("live-buffer", "-1")]),
        "live-buffer: \"-1\" is not a whole number"
    );
    assert_eq!(
        err(&[("live-from", "phone")]),
        "live-from: \"phone\" is not an IPv4 address or none"
    );
}
