//! The card library over FAT16 and FAT32 images made by `mkfs.fat`, through
//! the same port and worker as on the box: scan, read frames, upload,
//! replace, cut uploads, delete, bad files, a card pulled out and put back;
//! files written by mtools as a laptop writes them (long names, litter,
//! read-only files); a thousand takes. Every test ends with `fsck.fat -n`
//! finding the volume clean.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

mod common;

use common::{assert_clean, card, fat32, frames, image_file, mtools, names, sbin, START};
use llv_card::image::{on_image, ImageFile};
use llv_card::names::DIR;
use llv_card::{Card, CardError, CardFault, CardPort, Mode, Scanned};
use llv_core::packet::{FaceFrame, MAX_LEN};
use llv_core::take::{image_len, ImageWriter, TakeImage, UploadError};
use llv_core::time::{FrameRate, FrameTime};

/// A take image named `name` of `frames` frames at 60 fps, each frame's values `seed + n`.
fn take(name: &str, frames: u32, seed: i32) -> Vec<u8> {
    let packets: Vec<Vec<u8>> = (0..frames as i32)
        .map(|n| {
            let frame = FaceFrame {
                version: 6,
                device_id: "dev",
                subject: "face",
                time: FrameTime {
                    frame_number: n,
                    subframe: 0.0,
                    rate: FrameRate::FPS_60,
                },
                blendshapes: [(seed + n) as f32; 61],
            };
            let mut buf = [0u8; MAX_LEN];
            let len = frame.encode(&mut buf).unwrap();
            buf[..len].to_vec()
        })
        .collect();
    let mut buf = vec![0u8; image_len(frames, packets.iter().map(Vec::len).sum())];
    let mut w = ImageWriter::new(&mut buf, name, frames).unwrap();
    for (i, p) in packets.iter().enumerate() {
        w.push(i as u32 * 16_667, p).unwrap();
    }
    let len = w.finish(frames * 16_667).unwrap();
    buf.truncate(len);
    buf
}

/// Uploads `image` as the box does, in 1 KiB chunks; `cut_at` stops after that many bytes.
async fn upload(
    card: &mut Card<impl llv_card::CardDriver>,
    image: &[u8],
    cut_at: Option<usize>,
) -> Result<(), CardError> {
    let header = llv_core::take::TakeHeader::parse(image).unwrap();
    let id = card
        .begin_upload(&header.name, header.total_len, header.crc32)
        .await?;
    for (i, chunk) in image.chunks(1024).enumerate() {
        if cut_at.is_some_and(|cut| i * 1024 >= cut) {
            card.abort_upload(id);
            return Ok(());
        }
        card.write_chunk(id, (i * 1024) as u32, chunk).await?;
    }
    card.commit_upload(id).await.map(drop)
}

fn expected(image: &[u8]) -> Vec<Vec<u8>> {
    TakeImage::parse(image)
        .unwrap()
        .frames()
        .map(|(_, p)| p.to_vec())
        .collect()
}

#[test]
fn uploads_list_after_their_check_and_read_back_frame_for_frame() {
    let (_dir, path) = fat32();
    let alpha = take("alpha", 700, 0);
    let beta = take("beta / two", 50, 1000);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            assert!(card.takes().is_empty());
            upload(card, &alpha, None).await.unwrap();
            upload(card, &beta, None).await.unwrap();
            assert_eq!(names(card).await, ["alpha", "beta / two"]);
            assert_eq!(frames(card, "alpha").await.unwrap(), expected(&alpha));
            // Out of order (a seek), then on in order.
            let mut reader = card.reader("alpha").await.unwrap();
            let mut buf = [0u8; MAX_LEN];
            let entry = card.packet(&mut reader, 600, &mut buf).await.unwrap();
            assert_eq!(&buf[..usize::from(entry.len)], &expected(&alpha)[600][..]);
        },
    );
    // Mounted again: both files are read whole and checked before they list.
    let mut checked = Vec::new();
    on_image(
        image_file(&path),
        Mode::Write,
        |s| {
            if let Scanned::Checked { file, verdict } = s {
                checked.push((
                    file.to_string(),
                    verdict.as_ref().map(|h| h.name.to_string()).ok(),
                ));
            }
        },
        async |card| {
            assert_eq!(names(card).await, ["alpha", "beta / two"]);
            assert_eq!(frames(card, "beta / two").await.unwrap(), expected(&beta));
        },
    );
    assert_eq!(
        checked,
        [
            ("ALPHA.TAK".to_string(), Some("alpha".to_string())),
            ("BETA___T.TAK".to_string(), Some("beta / two".to_string()))
        ]
    );
    assert_clean(&path);
}

#[test]
fn a_cut_upload_leaves_nothing_listed_and_a_replacement_is_whole_or_absent() {
    let (_dir, path) = fat32();
    let first = take("show", 300, 0);
    let second = take("show", 320, 5000);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            upload(card, &first, None).await.unwrap();
            upload(card, &take("other", 40, 9), Some(10 * 1024))
                .await
                .unwrap();
            upload(card, &second, Some(20 * 1024)).await.unwrap();
            assert_eq!(names(card).await, ["show"]);
            assert_eq!(frames(card, "show").await.unwrap(), expected(&first));
        },
    );
    // What the cuts left never lists; the old take is intact.
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            assert_eq!(names(card).await, ["show"]);
            assert_eq!(frames(card, "show").await.unwrap(), expected(&first));
            upload(card, &second, None).await.unwrap();
            assert_eq!(frames(card, "show").await.unwrap(), expected(&second));
            card.delete("show").await.unwrap();
            assert!(card.takes().is_empty());
            assert_eq!(card.delete("show").await, Err(CardError::NotFound));
        },
    );
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| assert!(card.takes().is_empty()),
    );
    assert_clean(&path);
}

#[test]
fn bad_uploads_are_refused_and_bad_files_not_listed() {
    let (_dir, path) = fat32();
    let good = take("good", 30, 0);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            let mut bad = good.clone();
            let last = bad.len() - 1;
            bad[last] ^= 1;
            let err = upload(card, &bad, None).await.unwrap_err();
            assert!(
                matches!(
                    err,
                    CardError::Upload(UploadError::Image(llv_core::take::TakeError::Crc { .. }))
                ),
                "{err:?}"
            );
            let id = card.begin_upload("good", 1000, 0).await.unwrap();
            assert_eq!(
                card.write_chunk(id, 8, &[0; 8]).await,
                Err(CardError::Upload(UploadError::Order { expected: 0 }))
            );
            card.abort_upload(id);
            upload(card, &good, None).await.unwrap();
            assert_eq!(names(card).await, ["good"]);
        },
    );
    // Damage the stored file's last byte behind the library's back.
    let mut raw = std::fs::read(&path).unwrap();
    let at = raw
        .windows(good.len())
        .position(|w| w == &good[..])
        .unwrap()
        + good.len()
        - 1;
    raw[at] ^= 0xFF;
    std::fs::File::create(&path)
        .unwrap()
        .write_all(&raw)
        .unwrap();
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            assert!(card.takes().is_empty());
            let fault = card.fault().unwrap().to_string();
            assert!(
                fault.contains(&format!("{DIR}/GOOD.TAK")) && fault.contains("CRC"),
                "{fault}"
            );
        },
    );
    assert_clean(&path);
}

#[test]
fn a_card_pulled_out_stops_its_reads_and_comes_back_when_put_in() {
    let (_dir, path) = fat32();
    let show = take("show", 200, 0);
    let (slot, mut card) = in_slot(&path, &show);
    let test = async {
        while !matches!(card.step().await, Scanned::Done) {}
        let mut reader = card.reader("show").await.unwrap();
        let mut buf = [0u8; MAX_LEN];
        card.packet(&mut reader, 0, &mut buf).await.unwrap();
        slot.store(false, Ordering::Relaxed);
        // The next block read finds the card gone.
        let mut err = Ok(());
        for i in 1..200 {
            if let Err(e) = card.packet(&mut reader, i, &mut buf).await {
                err = Err(e);
                break;
            }
        }
        assert_eq!(err, Err(CardError::Removed));
        assert!(card.takes().is_empty());
        assert_eq!(
            card.fault(),
            Some(&CardFault::Removed {
                playing: Some("show".try_into().unwrap())
            })
        );
        assert_eq!(
            card.packet(&mut reader, 5, &mut buf).await,
            Err(CardError::Removed)
        );
        // Nothing comes back while the slot is empty.
        embassy_time::MockDriver::get().advance(llv_card::card::LOOK_EVERY);
        assert_eq!(card.step().await, Scanned::Idle);
        assert!(!card.mounted());
        slot.store(true, Ordering::Relaxed);
        // The slot is looked at again after LOOK_EVERY.
        embassy_time::MockDriver::get().advance(llv_card::card::LOOK_EVERY);
        while !matches!(card.step().await, Scanned::Done) {}
        assert_eq!(card.fault(), None);
        assert_eq!(frames(&mut card, "show").await.unwrap(), expected(&show));
    };
    embassy_futures::block_on(test);
    assert_clean(&path);
}

/// A card holding only `image` (uploaded to the image at `path`), in a slot
/// the test empties and fills through the flag returned.
fn in_slot(path: &Path, image: &[u8]) -> (&'static AtomicBool, Card<SlotBlocks>) {
    on_image(
        image_file(path),
        Mode::Write,
        |_| {},
        async |card| upload(card, image, None).await.unwrap(),
    );
    let slot: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(true)));
    let port = SlotBlocks::port(path, slot, Box::leak(Box::default()));
    (slot, Card::new(port))
}

/// The image behind a slot the test empties and fills, counting block reads.
struct SlotBlocks {
    image: ImageFile,
    slot: &'static AtomicBool,
    reads: &'static AtomicU32,
}

impl SlotBlocks {
    /// A card port over the image at `path`, in while `slot` is set.
    fn port(
        path: &Path,
        slot: &'static AtomicBool,
        reads: &'static AtomicU32,
    ) -> &'static CardPort<SlotBlocks> {
        Box::leak(Box::new(CardPort::new(SlotBlocks {
            image: image_file(path),
            slot,
            reads,
        })))
    }
}

impl llv_card::Blocks for SlotBlocks {
    async fn present(&mut self) -> Option<u64> {
        self.image.inserted = self.slot.load(Ordering::Relaxed);
        self.image.present().await
    }
    async fn read(
        &mut self,
        block: u64,
        buf: &mut llv_card::BlockBuf,
    ) -> Result<(), llv_card::BlockError> {
        self.image.inserted = self.slot.load(Ordering::Relaxed);
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.image.read(block, buf).await
    }
    async fn write(
        &mut self,
        block: u64,
        buf: &llv_card::BlockBuf,
    ) -> Result<(), llv_card::BlockError> {
        self.image.inserted = self.slot.load(Ordering::Relaxed);
        self.image.write(block, buf).await
    }
}

#[test]
fn a_look_made_before_a_step_is_the_answer_the_step_takes() {
    let (_dir, path) = fat32();
    let show = take("show", 20, 0);
    let (slot, mut card) = in_slot(&path, &show);
    embassy_futures::block_on(async {
        // None mounted: the step would ask the slot. A look made first (as
        // the box makes it, without the library's lock) found it empty; the
        // card going in after it is not seen by the step.
        slot.store(false, Ordering::Relaxed);
        let port = card.slot_to_look_at().expect("a look is due");
        port.look().await;
        slot.store(true, Ordering::Relaxed);
        assert_eq!(card.step().await, Scanned::Idle);
        assert!(!card.mounted());
        assert!(card.slot_to_look_at().is_none(), "looked at just now");
        // Unused past LOOK_STANDS, a look's answer is asked again.
        port.look().await;
        embassy_time::MockDriver::get().advance(llv_card::port::LOOK_STANDS);
        let mut steps = 0;
        while !matches!(card.step().await, Scanned::Done) {
            steps += 1;
            assert!(steps < 1000, "no scan");
        }
        assert_eq!(names(&mut card).await, ["show"]);
        // Mounted: reads find the card gone, no look is asked for.
        assert!(card.slot_to_look_at().is_none());
    });
    assert_clean(&path);
}

#[test]
fn a_fat16_card_and_a_long_take_read_from_the_start_and_near_the_end() {
    // 32 MiB is FAT16 with 2 KiB clusters; a take of 20 000 frames spans
    // hundreds of clusters and several FAT blocks.
    let (_dir, path) = card(32, 16);
    let long = take("long", 20_000, 7);
    let want = expected(&long);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| upload(card, &long, None).await.unwrap(),
    );
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            assert_eq!(names(card).await, ["long"]);
            assert_eq!(frames(card, "long").await.unwrap(), want);
            // A seek near the end, then on in order to the last frame.
            let mut reader = card.reader("long").await.unwrap();
            let mut buf = [0u8; MAX_LEN];
            for i in 19_000..20_000 {
                let entry = card.packet(&mut reader, i, &mut buf).await.unwrap();
                assert_eq!(&buf[..usize::from(entry.len)], &want[i as usize][..]);
            }
            // Back to the start: the chains start over.
            let entry = card.packet(&mut reader, 3, &mut buf).await.unwrap();
            assert_eq!(&buf[..usize::from(entry.len)], &want[3][..]);
        },
    );
    assert_clean(&path);
}

#[test]
fn a_card_without_a_fat_partition_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blank.img");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(4 << 20)
        .unwrap();
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            assert!(!card.mounted());
            let fault = card.fault().unwrap().to_string();
            assert!(fault.contains("no FAT16/FAT32 volume"), "{fault}");
        },
    );
}

#[test]
fn an_upload_cut_by_a_power_loss_is_deleted_at_the_next_mount() {
    let (_dir, path) = fat32();
    let keep = take("keep", 100, 1);
    let cut = take("cut", 3000, 2);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| upload(card, &keep, None).await.unwrap(),
    );
    // The box dies halfway through: nothing is closed or unmounted.
    let port = Box::leak(Box::new(CardPort::new(image_file(&path))));
    let mut card = Card::new(port);
    embassy_futures::block_on(async {
        while !matches!(card.step().await, Scanned::Done) {}
        let header = llv_core::take::TakeHeader::parse(&cut).unwrap();
        let id = card
            .begin_upload("cut", header.total_len, header.crc32)
            .await
            .unwrap();
        for (i, chunk) in cut.chunks(1024).take(cut.len() / 2048).enumerate() {
            card.write_chunk(id, (i * 1024) as u32, chunk)
                .await
                .unwrap();
        }
    });
    drop(card);
    let mut seen = Vec::new();
    on_image(
        image_file(&path),
        Mode::Write,
        |s| seen.push(s.clone()),
        async |card| {
            assert_eq!(names(card).await, ["keep"]);
            assert_eq!(card.fault(), None);
            assert_eq!(frames(card, "keep").await.unwrap(), expected(&keep));
        },
    );
    // The cut file was never checked as a take: it was deleted.
    assert!(
        !seen
            .iter()
            .any(|s| matches!(s, Scanned::Checked { file, .. } if file.as_str() == "CUT.TAK")),
        "{seen:?}"
    );
    // And it stays gone.
    on_image(
        image_file(&path),
        Mode::Write,
        |s| {
            assert!(
                !matches!(
                    s,
                    Scanned::Checked {
                        verdict: Err(_),
                        ..
                    }
                ),
                "{s:?}"
            )
        },
        async |card| assert_eq!(names(card).await, ["keep"]),
    );
    assert_clean(&path);
}

#[test]
fn a_card_pulled_out_while_nothing_reads_it_is_found_gone_by_the_keeper() {
    let (_dir, path) = fat32();
    let show = take("show", 50, 3);
    let (slot, mut card) = in_slot(&path, &show);
    embassy_futures::block_on(async {
        while !matches!(card.step().await, Scanned::Done) {}
        let mut reader = card.reader("show").await.unwrap();
        slot.store(false, Ordering::Relaxed);
        // The keeper's next look reads the card, finds it gone, unlists it.
        embassy_time::MockDriver::get().advance(llv_card::card::LOOK_EVERY);
        assert_eq!(card.step().await, Scanned::Idle);
        assert!(!card.mounted());
        assert!(card.takes().is_empty());
        assert_eq!(card.fault(), Some(&CardFault::Removed { playing: None }));
        // A player still holding a reader stops, and the fault names its take.
        let mut buf = [0u8; MAX_LEN];
        assert_eq!(
            card.packet(&mut reader, 1, &mut buf).await,
            Err(CardError::Removed)
        );
        assert_eq!(
            card.fault(),
            Some(&CardFault::Removed {
                playing: Some("show".try_into().unwrap())
            })
        );
    });
    assert_clean(&path);
}

#[test]
fn a_file_whose_clusters_end_before_its_size_is_not_listed_and_the_scan_goes_on() {
    let (_dir, path) = fat32();
    let good = take("good", 40, 1);
    let short = take("short", 40, 2);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            upload(card, &short, None).await.unwrap();
            upload(card, &good, None).await.unwrap();
        },
    );
    // SHORT.TAK's chain ends after its first cluster (the FAT says so, the
    // rest is free), while its directory entry still gives its whole size.
    let mut raw = std::fs::read(&path).unwrap();
    let fat = RawFat32::of(&raw, b"SHORT   TAK");
    let mut rest = Vec::new();
    let mut c = fat.first;
    while let Some(next) = fat.next(&raw, c) {
        rest.push(next);
        c = next;
    }
    for &c in &rest {
        fat.set(&mut raw, c, 0);
    }
    fat.set(&mut raw, fat.first, 0x0FFF_FFFF);
    fat.add_free(&mut raw, rest.len() as u32);
    std::fs::write(&path, &raw).unwrap();
    let mut done = false;
    on_image(
        image_file(&path),
        Mode::Write,
        |s| done |= *s == Scanned::Done,
        async |card| {
            assert_eq!(names(card).await, ["good"]);
            // Read past its chain's end: what the reader calls inconsistent.
            let fault = card.fault().unwrap().to_string();
            assert!(
                fault.contains(&format!("{DIR}/SHORT.TAK")) && fault.contains("do not fit"),
                "{fault}"
            );
        },
    );
    assert!(done, "the scan went through");
    // The damage is this test's own: a laptop's tool deletes the file, and
    // the rest of the card is clean.
    mtools(&path, "mdel", &["::LLV/SHORT.TAK"]);
    assert_clean(&path);
}

#[test]
fn a_fragmented_take_reads_right_and_a_seek_forward_reads_only_what_it_skips() {
    let (_dir, path) = fat32();
    let long = take("long", 6_000, 3);
    let want = expected(&long);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| upload(card, &long, None).await.unwrap(),
    );
    // The upload's clusters follow one another (a fresh card); move the
    // middle one elsewhere, so the file is in two runs with a hop between.
    let mut raw = std::fs::read(&path).unwrap();
    let fat = RawFat32::of(&raw, b"LONG    TAK");
    let mut chain = vec![fat.first];
    while let Some(next) = fat.next(&raw, *chain.last().unwrap()) {
        chain.push(next);
    }
    assert!(chain.len() > 100, "{} clusters", chain.len());
    assert!(
        chain
            .iter()
            .enumerate()
            .all(|(i, &c)| c == fat.first + i as u32),
        "the upload is contiguous"
    );
    let k = chain.len() / 2;
    let moved = chain.last().unwrap() + 1000;
    let (from, to) = (fat.data(chain[k]), fat.data(moved));
    raw.copy_within(from.clone(), to.start);
    // What was there is garbage now: a reader that did not follow the hop
    // would read it.
    raw[from].fill(0xEE);
    fat.set(&mut raw, chain[k - 1], moved);
    fat.set(&mut raw, moved, chain[k + 1]);
    fat.set(&mut raw, chain[k], 0);
    std::fs::write(&path, &raw).unwrap();

    let reads: &'static AtomicU32 = Box::leak(Box::default());
    let port = SlotBlocks::port(&path, Box::leak(Box::new(AtomicBool::new(true))), reads);
    let mut card = Card::new(port);
    let test = async {
        while !matches!(card.step().await, Scanned::Done) {}
        assert_eq!(names(&mut card).await, ["long"], "{:?}", card.fault());
        assert_eq!(frames(&mut card, "long").await.unwrap(), want);
        let mut reader = card.reader("long").await.unwrap();
        let mut buf = [0u8; MAX_LEN];
        // Jumps across the hop, back before it, and on again.
        for i in [5_990, 3, 4, 2_990, 3_010, 5_999, 0, 4_500] {
            let entry = card.packet(&mut reader, i, &mut buf).await.unwrap();
            let got = &buf[..usize::from(entry.len)];
            assert_eq!(got, &want[i as usize][..], "frame {i}");
        }
        // A jump forward sums the entries it skips, not those from the
        // start: 600 entries of 8 bytes are about 10 blocks; from the start,
        // 5 600 entries would be about 90.
        let mut reader = card.reader("long").await.unwrap();
        card.packet(&mut reader, 5_000, &mut buf).await.unwrap();
        let before = reads.load(Ordering::Relaxed);
        let entry = card.packet(&mut reader, 5_600, &mut buf).await.unwrap();
        let read = reads.load(Ordering::Relaxed) - before;
        assert_eq!(&buf[..usize::from(entry.len)], &want[5_600][..]);
        assert!(read <= 20, "{read} blocks read for a jump of 600 frames");
    };
    embassy_futures::block_on(test);
    assert_clean(&path);
}

/// Where things are in the raw bytes of a card image that [`card`] made
/// FAT32, and a file of its take folder.
struct RawFat32 {
    /// The file's first cluster.
    first: u32,
    /// Byte offset of each FAT copy.
    fats: Vec<usize>,
    /// Byte offset of cluster 2.
    data: usize,
    cluster_bytes: usize,
}

impl RawFat32 {
    /// The volume of `raw`, and the file whose 8.3 directory name is `name`.
    fn of(raw: &[u8], name: &[u8; 11]) -> Self {
        let at = raw
            .windows(11)
            .position(|w| w == name)
            .expect("the directory entry");
        let word = |i: usize| u32::from(u16::from_le_bytes([raw[i], raw[i + 1]]));
        let boot = START as usize * 512;
        let reserved = word(boot + 14) as usize;
        let size = u32::from_le_bytes(raw[boot + 36..boot + 40].try_into().unwrap()) as usize;
        let fats: Vec<usize> = (0..usize::from(raw[boot + 16]))
            .map(|copy| boot + (reserved + copy * size) * 512)
            .collect();
        RawFat32 {
            first: word(at + 20) << 16 | word(at + 26),
            data: boot + (reserved + fats.len() * size) * 512,
            fats,
            cluster_bytes: usize::from(raw[boot + 13]) * 512,
        }
    }

    /// The cluster after `c` in the (first) FAT, if the chain goes on.
    fn next(&self, raw: &[u8], c: u32) -> Option<u32> {
        let at = self.fats[0] + c as usize * 4;
        let next = u32::from_le_bytes(raw[at..at + 4].try_into().unwrap()) & 0x0FFF_FFFF;
        (next < 0x0FFF_FFF8).then_some(next)
    }

    /// Sets cluster `c`'s entry to `value` in every FAT copy.
    fn set(&self, raw: &mut [u8], c: u32, value: u32) {
        for fat in &self.fats {
            let at = fat + c as usize * 4;
            raw[at..at + 4].copy_from_slice(&value.to_le_bytes());
        }
    }

    /// Adds `n` to FSInfo's free-cluster count.
    fn add_free(&self, raw: &mut [u8], n: u32) {
        let boot = START as usize * 512;
        let info = boot + usize::from(u16::from_le_bytes([raw[boot + 48], raw[boot + 49]])) * 512;
        let at = info + 488;
        let free = u32::from_le_bytes(raw[at..at + 4].try_into().unwrap());
        raw[at..at + 4].copy_from_slice(&(free + n).to_le_bytes());
    }

    /// Cluster `c`'s bytes.
    fn data(&self, c: u32) -> std::ops::Range<usize> {
        let at = self.data + (c as usize - 2) * self.cluster_bytes;
        at..at + self.cluster_bytes
    }
}

/// Runs mtools' `tool` on the volume of the card image at `path` (1 MiB
/// in), as a laptop's file manager would change the card.
/// Writes `image` to a host file in `dir` named `name` (for mtools to copy).
fn host_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A file's verdict: the take's name, or why it is not one.
type Verdicts = Vec<(String, Result<String, String>)>;

/// Every take's name on the card at `path`, the verdicts of its files and
/// the bad ones, mounted for reading.
fn scan(path: &Path) -> (Vec<String>, Verdicts, llv_card::BadFiles) {
    let mut verdicts = Vec::new();
    let file = OpenOptions::new().read(true).open(path).unwrap();
    let (names, bad) = on_image(
        ImageFile::new(file).unwrap(),
        Mode::Read,
        |s| {
            if let Scanned::Checked { file, verdict } = s {
                verdicts.push((
                    file.to_string(),
                    verdict
                        .as_ref()
                        .map(|h| h.name.to_string())
                        .map_err(ToString::to_string),
                ));
            }
        },
        async |card| (names(card).await, card.bad_files().clone()),
    );
    (names, verdicts, bad)
}

#[test]
fn replacing_and_deleting_takes_frees_every_cluster_on_fat16_and_fat32() {
    for (mib, bits) in [(64, 16), (64, 32)] {
        let (_dir, path) = card(mib, bits);
        let dao = take("dao", 300, 1);
        let dao2 = take("dao", 310, 2);
        for image in [&dao, &dao2, &dao] {
            on_image(
                image_file(&path),
                Mode::Write,
                |_| {},
                async |card| upload(card, image, None).await.unwrap(),
            );
            assert_clean(&path);
        }
        on_image(
            image_file(&path),
            Mode::Write,
            |_| {},
            async |card| {
                assert_eq!(names(card).await, ["dao"]);
                assert_eq!(frames(card, "dao").await.unwrap(), expected(&dao));
                // A replacement dropped halfway, then a delete.
                upload(card, &dao2, Some(30 * 1024)).await.unwrap();
                card.delete("dao").await.unwrap();
            },
        );
        assert_clean(&path);
        assert!(scan(&path).0.is_empty());
    }
}

#[test]
fn takes_under_long_names_from_a_laptop_are_replaced_and_deleted_whole() {
    let (dir, path) = fat32();
    let dao = take("dao", 100, 1);
    let jaw = take("jaw", 100, 2);
    mtools(&path, "mmd", &["::LLV"]);
    let src = host_file(dir.path(), "dao.tak", &dao);
    mtools(
        &path,
        "mcopy",
        &[src.to_str().unwrap(), "::LLV/Dao, the long version.tak"],
    );
    let src = host_file(dir.path(), "jaw.tak", &jaw);
    mtools(
        &path,
        "mcopy",
        &[src.to_str().unwrap(), "::LLV/The jaw opening take.TAK"],
    );
    assert_eq!(scan(&path).0, ["dao", "jaw"]);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            upload(card, &take("dao", 120, 3), None).await.unwrap();
            card.delete("jaw").await.unwrap();
            assert_eq!(names(card).await, ["dao"]);
        },
    );
    // No long-name entry is left without its file.
    assert_clean(&path);
    assert_eq!(scan(&path).0, ["dao"]);
}

#[test]
fn litter_is_passed_over_and_bad_files_never_stop_the_scan() {
    let (dir, path) = fat32();
    mtools(
        &path,
        "mmd",
        &["::LLV", "::.Trashes", "::.Spotlight-V100", "::.fseventsd"],
    );
    mtools(&path, "mmd", &["::System Volume Information"]);
    // Six bad take files, in folder order before and between good ones, and
    // macOS's AppleDouble file beside every one.
    let apple = [0x00, 0x05, 0x16, 0x07, 0x00, 0x02, 0x00, 0x00];
    let mut order = Vec::new();
    for i in 0..8 {
        let (name, bytes) = match i {
            2 | 5 => (format!("GOOD{i}.TAK"), take(&format!("good {i}"), 40, i)),
            _ => (format!("BAD{i}.TAK"), vec![i as u8 + 1; 300]),
        };
        let src = host_file(dir.path(), &name, &bytes);
        mtools(
            &path,
            "mcopy",
            &[src.to_str().unwrap(), &format!("::LLV/{name}")],
        );
        let src = host_file(dir.path(), "apple", &apple);
        mtools(
            &path,
            "mcopy",
            &[src.to_str().unwrap(), &format!("::LLV/._{name}")],
        );
        order.push(name);
    }
    let src = host_file(dir.path(), "ds", b"Bud1");
    mtools(&path, "mcopy", &[src.to_str().unwrap(), "::LLV/.DS_Store"]);
    let (names, verdicts, bad) = scan(&path);
    assert_eq!(names, ["good 2", "good 5"]);
    // Every take file was read, litter none.
    let files: Vec<&str> = verdicts.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(files, order);
    assert_eq!(bad.count, 6);
    assert_eq!(bad.names, ["BAD0.TAK", "BAD1.TAK", "BAD3.TAK", "BAD4.TAK"]);
    assert!(verdicts[0].1.as_ref().unwrap_err().contains("LLV/BAD0.TAK"));
    assert_clean(&path);
}

#[test]
fn a_read_only_take_is_neither_replaced_nor_deleted_and_the_error_names_it() {
    let (_dir, path) = fat32();
    let dao = take("dao", 100, 1);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| upload(card, &dao, None).await.unwrap(),
    );
    mtools(&path, "mattrib", &["+r", "::LLV/DAO.TAK"]);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            let err = upload(card, &take("dao", 50, 2), None).await.unwrap_err();
            assert_eq!(
                err.to_string(),
                "LLV/DAO.TAK has the read-only attribute: clear it on a computer first"
            );
            let err = card.delete("dao").await.unwrap_err();
            assert!(matches!(err, CardError::ReadOnly { .. }), "{err}");
            assert_eq!(frames(card, "dao").await.unwrap(), expected(&dao));
        },
    );
    // One file for the take, and nothing else.
    let (names, verdicts, _) = scan(&path);
    assert_eq!(names, ["dao"]);
    assert_eq!(verdicts.len(), 1);
    assert_clean(&path);
}

#[test]
fn reading_a_card_leaves_every_byte_of_it_as_it_was() {
    let (_dir, path) = fat32();
    let keep = take("keep", 100, 1);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| upload(card, &keep, None).await.unwrap(),
    );
    // An upload cut by a power cut, and a take file whose magic is zeros.
    let port = Box::leak(Box::new(CardPort::new(image_file(&path))));
    let mut card = Card::new(port);
    embassy_futures::block_on(async {
        while !matches!(card.step().await, Scanned::Done) {}
        let cut = take("cut", 2000, 2);
        let header = llv_core::take::TakeHeader::parse(&cut).unwrap();
        let id = card
            .begin_upload("cut", header.total_len, header.crc32)
            .await
            .unwrap();
        for (i, chunk) in cut.chunks(1024).take(40).enumerate() {
            card.write_chunk(id, (i * 1024) as u32, chunk)
                .await
                .unwrap();
        }
    });
    drop(card);
    let before = std::fs::read(&path).unwrap();
    let (names, verdicts, bad) = scan(&path);
    assert_eq!(names, ["keep"]);
    assert_eq!(bad.count, 1);
    assert!(
        verdicts[1].1.as_ref().unwrap_err().contains("cut short"),
        "{verdicts:?}"
    );
    assert!(std::fs::read(&path).unwrap() == before, "the image changed");
    // Mounted for writing (the box), the cut upload goes.
    on_image(image_file(&path), Mode::Write, |_| {}, async |_| ());
    assert_eq!(scan(&path).2.count, 0);
    assert_clean(&path);
}

#[test]
fn a_thousand_takes_list_play_and_delete() {
    let (_dir, path) = card(256, 32);
    let count = 1000;
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            for i in 0..count {
                let image = take(&format!("cue {i:04}"), 3, i);
                upload(card, &image, None).await.unwrap();
            }
        },
    );
    let started = std::time::Instant::now();
    let (names, _, bad) = scan(&path);
    eprintln!("scanned {count} takes in {:?}", started.elapsed());
    assert_eq!(bad.count, 0);
    let want: Vec<String> = (0..count).map(|i| format!("cue {i:04}")).collect();
    assert_eq!(names, want);
    on_image(
        image_file(&path),
        Mode::Write,
        |_| {},
        async |card| {
            let last = take("cue 0999", 3, 999);
            assert_eq!(frames(card, "cue 0999").await.unwrap(), expected(&last));
            card.delete("cue 0500").await.unwrap();
            assert_eq!(card.takes().len(), count as usize - 1);
        },
    );
    assert_clean(&path);
}

#[test]
fn an_exfat_card_is_refused_with_how_to_prepare_it() {
    let (_dir, path) = fat32();
    let mut raw = std::fs::read(&path).unwrap();
    let boot = START as usize * 512;
    raw[boot + 3..boot + 11].copy_from_slice(b"EXFAT   ");
    raw[446 + 4] = 0x07;
    std::fs::write(&path, &raw).unwrap();
    on_image(
        image_file(&path),
        Mode::Read,
        |_| {},
        async |card| {
            let fault = card.fault().unwrap().to_string();
            assert!(
                fault.contains("exFAT") && fault.contains("llv card format"),
                "{fault}"
            );
        },
    );
}

#[test]
fn a_card_formatted_here_is_clean_fat32_and_takes_takes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("card.img");
    // Old contents: an mkfs.fat FAT16 volume the format overwrites.
    let (_old, old) = card(256, 16);
    std::fs::copy(&old, &path).unwrap();
    let blocks = std::fs::metadata(&path).unwrap().len() / 512;
    let plan = llv_card::format::Plan::for_card(blocks).unwrap();
    let port = Box::leak(Box::new(CardPort::new(image_file(&path))));
    embassy_futures::block_on(llv_card::format::format(port, blocks, &plan)).unwrap();
    let raw = std::fs::read(&path).unwrap();
    let volume = dir.path().join("volume.img");
    std::fs::write(&volume, &raw[plan.start as usize * 512..]).unwrap();
    let out = std::process::Command::new(sbin("fsck.fat"))
        .args(["-n", "-v"])
        .arg(&volume)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}{:?}",
        String::from_utf8_lossy(&out.stderr),
        out.status
    );
    assert!(text.contains("2 FATs, 32 bit entries"), "{text}");
    let dao = take("dao", 200, 4);
    let port = Box::leak(Box::new(CardPort::new(image_file(&path))));
    let mut card = Card::new(port);
    embassy_futures::block_on(async {
        while !matches!(card.step().await, Scanned::Done | Scanned::Idle) || card.scanning() {}
        assert!(card.mounted(), "{:?}", card.fault());
        upload(&mut card, &dao, None).await.unwrap();
        assert_eq!(frames(&mut card, "dao").await.unwrap(), expected(&dao));
        card.close().await;
    });
    let raw = std::fs::read(&path).unwrap();
    std::fs::write(&volume, &raw[plan.start as usize * 512..]).unwrap();
    let out = std::process::Command::new(sbin("fsck.fat"))
        .arg("-n")
        .arg(&volume)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
