//! The card library over a FAT32 image file, through the same port and
//! worker as on the box: scan, read frames, upload, replace, cut uploads,
//! delete, bad files, a card pulled out and put back.

use std::fs::OpenOptions;
use std::io::Write;

use hadris_fat::{FatKind, FatOptions};
use hadris_storage::host::FileDevice;
use llv_box_card::image::{on_image, ImageFile};
use llv_box_card::names::DIR;
use llv_box_card::{CardError, CardFault, Scanned};
use llv_core::packet::{FaceFrame, MAX_LEN};
use llv_core::take::{image_len, ImageWriter, TakeImage};
use llv_core::time::{FrameRate, FrameTime};

/// A FAT32 image of 40 MiB in a temporary file.
fn fat32() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("card.img");
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    file.set_len(40 << 20).unwrap();
    let mut dev = FileDevice::new(file).unwrap();
    let options = FatOptions::new()
        .with_kind(FatKind::Fat32)
        .with_size(40 << 20);
    hadris_fat::sync::format(&mut dev, &options).unwrap();
    (dir, path)
}

fn image_file(path: &std::path::Path) -> ImageFile {
    ImageFile::new(
        OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .unwrap(),
    )
    .unwrap()
}

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
    card: &mut llv_box_card::Card<llv_box_card::Port<'_>>,
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

/// Every frame of the card take `name`, read as the player does.
async fn frames(
    card: &mut llv_box_card::Card<llv_box_card::Port<'_>>,
    name: &str,
) -> Result<Vec<Vec<u8>>, CardError> {
    let mut reader = card.reader(name).ok_or(CardError::NotFound)?;
    let mut out = Vec::new();
    let mut buf = [0u8; MAX_LEN];
    for i in 0..reader.header().frame_count {
        let entry = card.packet(&mut reader, i, &mut buf).await?;
        out.push(buf[..usize::from(entry.len)].to_vec());
    }
    Ok(out)
}

fn expected(image: &[u8]) -> Vec<Vec<u8>> {
    TakeImage::parse(image)
        .unwrap()
        .frames()
        .map(|(_, p)| p.to_vec())
        .collect()
}

fn names(card: &llv_box_card::Card<llv_box_card::Port<'_>>) -> Vec<String> {
    card.takes()
        .iter()
        .map(|t| t.header.name.to_string())
        .collect()
}

#[test]
fn uploads_list_after_their_check_and_read_back_frame_for_frame() {
    let (_dir, path) = fat32();
    let alpha = take("alpha", 700, 0);
    let beta = take("beta / two", 50, 1000);
    let mut img = image_file(&path);
    on_image(
        &mut img,
        |_| {},
        async |card| {
            assert!(card.takes().is_empty());
            upload(card, &alpha, None).await.unwrap();
            upload(card, &beta, None).await.unwrap();
            assert_eq!(names(card), ["alpha", "beta / two"]);
            assert_eq!(frames(card, "alpha").await.unwrap(), expected(&alpha));
            // Out of order (a seek), then on in order.
            let mut reader = card.reader("alpha").unwrap();
            let mut buf = [0u8; MAX_LEN];
            let entry = card.packet(&mut reader, 600, &mut buf).await.unwrap();
            assert_eq!(&buf[..usize::from(entry.len)], &expected(&alpha)[600][..]);
        },
    );
    // Mounted again: both files are read whole and checked before they list.
    let mut checked = Vec::new();
    on_image(
        &mut img,
        |s| {
            if let Scanned::Checked { file, verdict } = s {
                checked.push((
                    file.to_string(),
                    verdict.as_ref().map(|h| h.name.to_string()).ok(),
                ));
            }
        },
        async |card| {
            assert_eq!(names(card), ["alpha", "beta / two"]);
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
}

#[test]
fn a_cut_upload_leaves_nothing_listed_and_a_replacement_is_whole_or_absent() {
    let (_dir, path) = fat32();
    let first = take("show", 300, 0);
    let second = take("show", 320, 5000);
    let mut img = image_file(&path);
    on_image(
        &mut img,
        |_| {},
        async |card| {
            upload(card, &first, None).await.unwrap();
            upload(card, &take("other", 40, 9), Some(10 * 1024))
                .await
                .unwrap();
            upload(card, &second, Some(20 * 1024)).await.unwrap();
            assert_eq!(names(card), ["show"]);
            assert_eq!(frames(card, "show").await.unwrap(), expected(&first));
        },
    );
    // What the cut left (UPLOAD.TMP) never lists; the old take is intact.
    on_image(
        &mut img,
        |_| {},
        async |card| {
            assert_eq!(names(card), ["show"]);
            assert_eq!(frames(card, "show").await.unwrap(), expected(&first));
            upload(card, &second, None).await.unwrap();
            assert_eq!(frames(card, "show").await.unwrap(), expected(&second));
            card.delete("show").await.unwrap();
            assert!(card.takes().is_empty());
            assert_eq!(card.delete("show").await, Err(CardError::NotFound));
        },
    );
    on_image(
        &mut img,
        |_| {},
        async |card| assert!(card.takes().is_empty()),
    );
}

#[test]
fn bad_uploads_are_refused_and_bad_files_not_listed() {
    let (_dir, path) = fat32();
    let good = take("good", 30, 0);
    let mut img = image_file(&path);
    on_image(
        &mut img,
        |_| {},
        async |card| {
            let mut bad = good.clone();
            let last = bad.len() - 1;
            bad[last] ^= 1;
            let err = upload(card, &bad, None).await.unwrap_err();
            assert!(
                matches!(err, CardError::Image(llv_core::take::TakeError::Crc { .. })),
                "{err:?}"
            );
            let id = card.begin_upload("good", 100, 0).await.unwrap();
            assert_eq!(
                card.write_chunk(id, 8, &[0; 8]).await,
                Err(CardError::Order { expected: 0 })
            );
            card.abort_upload(id);
            upload(card, &good, None).await.unwrap();
            assert_eq!(names(card), ["good"]);
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
    let mut img = image_file(&path);
    on_image(
        &mut img,
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
}

#[test]
fn a_card_pulled_out_stops_its_reads_and_comes_back_when_put_in() {
    let (_dir, path) = fat32();
    let show = take("show", 200, 0);
    let mut img = image_file(&path);
    on_image(
        &mut img,
        |_| {},
        async |card| upload(card, &show, None).await.unwrap(),
    );
    let link = llv_box_card::Link::new();
    let tokens = Box::leak(Box::new([
        llv_box_card::MountToken::new(),
        llv_box_card::MountToken::new(),
    ]));
    let slot = std::cell::Cell::new(true);
    let mut card = llv_box_card::Card::new(llv_box_card::Port::new(&link), tokens.iter_mut());
    let mut img = image_file(&path);
    let test = async {
        while !matches!(card.step(true).await, Scanned::Done) {}
        let mut reader = card.reader("show").unwrap();
        let mut buf = [0u8; MAX_LEN];
        card.packet(&mut reader, 0, &mut buf).await.unwrap();
        slot.set(false);
        // The worker finds the card gone at its next block.
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
        slot.set(true);
        // The worker looks again after PRESENCE_EVERY without requests.
        embassy_time::MockDriver::get().advance(llv_box_card::port::PRESENCE_EVERY);
        let mut present = false;
        for _ in 0..100 {
            embassy_futures::yield_now().await;
            present = link.blocks() > 0;
            if present {
                break;
            }
        }
        assert!(present);
        while !matches!(card.step(true).await, Scanned::Done) {}
        assert_eq!(card.fault(), None);
        assert_eq!(frames(&mut card, "show").await.unwrap(), expected(&show));
    };
    let worker = async {
        // The image answers "removed" while the slot is empty.
        let mut blocks = SlotBlocks {
            image: &mut img,
            slot: &slot,
        };
        llv_box_card::serve(&link, &mut blocks).await
    };
    embassy_futures::block_on(embassy_futures::select::select(worker, test));
}

/// The image behind a slot the test empties and fills.
struct SlotBlocks<'a> {
    image: &'a mut ImageFile,
    slot: &'a std::cell::Cell<bool>,
}

impl llv_box_card::Blocks for SlotBlocks<'_> {
    async fn present(&mut self) -> Option<u64> {
        self.image.inserted = self.slot.get();
        self.image.present().await
    }
    async fn read(
        &mut self,
        block: u64,
        buf: &mut [u8; 512],
    ) -> Result<(), llv_box_card::BlockError> {
        self.image.inserted = self.slot.get();
        self.image.read(block, buf).await
    }
    async fn write(&mut self, block: u64, buf: &[u8; 512]) -> Result<(), llv_box_card::BlockError> {
        self.image.inserted = self.slot.get();
        self.image.write(block, buf).await
    }
}
