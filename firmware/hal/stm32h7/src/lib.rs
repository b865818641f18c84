//! STM32H743 drivers for the llv box: the take store's flash on bank 2, the
//! microSD slot on SDMMC1, the independent watchdog, the clock source probe
//! and the reset cause.
//!
//! | module | what it holds | runs on |
//! |---|---|---|
//! | [`Bank2Flash`] (`flash`) | the `embedded_storage_async` NOR flash over whole bank-2 sectors | chip |
//! | `operation` | one program or erase: register sequence, interrupt-driven wait, [`InterruptHandler`] | chip |
//! | `ecc_read` | the fault-ignoring read of one flash word | chip |
//! | [`hse`] | how long to wait for the 8 MHz HSE after which reset, and its bounded probe in bypass (chip) | host and chip |
//! | [`SdSlot`] (`sd`) | the microSD slot on SDMMC1 as the card library's `Blocks`: 4-bit, one line only where four failed and one works, a card that stays busy reported | chip |
//! | [`lines`] | the SD slot's rule for four data lines or one | host and chip |
//! | [`reset`] | the cause of the last reset, from RCC_RSR | host and chip |
//! | [`watchdog`] | IWDG1: its prescaler and reload for a timeout; started before embassy's init, fed through a shared handle | host and chip |
//! | `fmt` | logging to defmt when the `defmt` feature is on | chip |
//! | [`geometry`] | bank 2's address, sectors, flash words; [`geometry::Region`] and its bounds checks | host and chip |
//! | `status` | FLASH_CR2 / FLASH_CCR2 words, what FLASH_SR2 says | host and chip |
//! | [`pll`] | PLL1 plans for 400 MHz from HSE or HSI, and their range checks | host and chip |
//! | [`FlashError`], [`SetupError`] (`error`) | what can fail | host and chip |
//!
//! # Why not embassy-stm32's `Flash`
//!
//! embassy-stm32 0.6 has an async flash for H7 (`Flash<'_, Async>`, `flash/asynch.rs`
//! and `flash/h7.rs`): it starts an erase and awaits the FLASH interrupt (EOP,
//! OPERR), and it does reach bank 2. It is not used, for four reasons found in
//! its sources:
//! - `clear_all_err` (`h7.rs:211-220`) does `bank.sr().modify(|_| {})`, a write
//!   to FLASH_SRx, whose bits are read-only; flags clear only through
//!   FLASH_CCRx (RM0433 FLASH_SRx / FLASH_CCRx register descriptions; ST's HAL
//!   `__HAL_FLASH_CLEAR_FLAG_BANK2` writes CCR2). Its `get_result`
//!   (`h7.rs:249-276`) fails an operation on *any* flag, read-side ones
//!   included (SNECCERR, DBECCERR, RDPERR, RDSERR): one corrected or torn
//!   read, or a speculative fetch, fails every later write and erase until
//!   reset. (A wrapper could clear CCR2 first; the other three remain.)
//! - Its reads (`common.rs:75-88`) are a plain `copy_from_slice`: a torn word
//!   is a HardFault.
//! - Its wait (`h7.rs:222-237`) is the interrupt only, with only EOPIE and
//!   OPERRIE enabled: an operation ending on WRPERR, PGSERR, STRBERR or INCERR,
//!   or a lost interrupt, leaves the future pending for ever. Its write reads
//!   FLASH_SRx right after the eighth store with no DSB between (`h7.rs:87-100`).
//! - After a write it leaves PSIZE = 0 in FLASH_CRx (`h7.rs:106-110` writes
//!   the whole register), so a later erase (`h7.rs:159`, a `modify`) runs with
//!   8-bit parallelism, the slowest erase the datasheet lists.
//!
//! So this crate drives FLASH_CR2/SR2/CCR2 through the PAC itself and binds its
//! own [`InterruptHandler`] to the FLASH vector. Each program or erase: wait
//! for bank 2 to be idle, clear every flag through CCR2, unlock, start, then
//! await the interrupt (EOP or any program/erase error, which masks the enables
//! and wakes the task) raced against a timer poll: 10 ms apart and at most 4 s
//! for an erase (2.2 s max), 1 ms apart and at most 100 ms for a flash word. A
//! timeout is [`FlashError::Timeout`] with the operation left running; the next
//! operation, or read, waits for it first. The executor keeps running
//! throughout: the program executes from bank 1, which an erase of bank 2 does
//! not stall.
//!
//! # Checked on paper
//!
//! ## The flash
//!
//! Without the datasheet and RM0433 PDFs here, the register facts were checked
//! against ST's SVD (the `stm32-metapac` 21 register types this crate uses;
//! offsets and bit fields) and ST's STM32H7 HAL (`stm32h7xx_hal_flash.c`,
//! `_flash_ex.c`, `_flash.h`, which encode RM0433's sequences), and compared
//! with zephyr's `flash_stm32h7x.c` and embassy-stm32 0.6's `flash/h7.rs`:
//! - Registers (FLASH at 0x5200_2000): KEYR2 0x104, CR2 0x10C, SR2 0x110, CCR2
//!   0x114, ECC_FA2R 0x160, OPTSR_CUR 0x01C (PAC: bank(n) at 0x04 + 0x100·n).
//! - FLASH_CR2: LOCK 0, PG 1, SER 2, PSIZE 5:4 (0b10 = x32), START 7, SNB 10:8,
//!   EOPIE 16, WRPERRIE 17, PGSERRIE 18, STRBERRIE 19, INCERRIE 21, OPERRIE 22
//!   (interrupt enables 16..=28 but 20). FLASH_SR2: BSY 0, WBNE 1, QW 2, EOP 16,
//!   WRPERR 17, PGSERR 18, STRBERR 19, INCERR 21, OPERR 22, RDPERR 23, RDSERR
//!   24, SNECCERR 25, DBECCERR 26, CRCRDERR 28; FLASH_CCR2: CLR_x at the same
//!   positions. The host tests pin these positions (module `status`).
//! - ECC_FA2R.FAIL_ECC_ADDR2 (14:0) is the index of the failing 256-bit word in
//!   the bank (2^15 × 32 B = 1 MiB), latched only while no ECC flag is set and
//!   cleared with the flags: the ECC flags are cleared right before each read.
//! - OPTSR_CUR.SWAP_BANK_OPT (31): with the banks swapped, bank 2's registers
//!   would not drive 0x0810_0000; [`Bank2Flash::new`] refuses.
//! - Unlock: KEY1 0x4567_0123 then KEY2 0xCDEF_89AB into KEYR2.
//! - Program: PG (+PSIZE) set before the data, eight 32-bit stores to one
//!   32-byte aligned word, QW set when the 256-bit write buffer is full, wait
//!   for QW to clear, check the errors, clear PG. A flash word is programmed
//!   once per erase (a second program corrupts its ECC): every write first
//!   reads the word (ECC-safe) and refuses a non-blank one.
//! - Sector erase: SER + SNB (+PSIZE), then START, wait for QW, clear SER.
//! - Reads: FAULTMASK and SCB.CCR.BFHFNMIGN (bit 8) around volatile byte loads,
//!   with DSB/ISB after setting CCR and DSB before restoring it, one flash word
//!   at a time (bounded interrupt latency); then SR2.DBECCERR with FA2R's word
//!   decides torn or not, SNECCERR is a corrected (good) read. zephyr does the
//!   same since PR 34374 (FAULTMASK, BFHFNMIGN, barriers, check SR2 after).
//! - The FLASH interrupt is vector 4 (PAC), shared by both banks.
//! - The release build's disassembly (NUCLEO board image): the read runs CCR2
//!   clear, DSB, `cpsid f`, CCR |= 0x100, DSB, ISB, the byte loads, DSB, CCR
//!   restored, DSB, ISB, `cpsie f` (skipped if FAULTMASK was already set), then
//!   SR2 and FA2R (0x5200_2110, 0x5200_2160); a flash word is CR2 = 0x006F_0022
//!   (PG, PSIZE x32, end interrupts), DSB, ISB, eight `str`, DSB; an erase is
//!   CR2 = 0x006F_0024 | SNB << 8, then the same with START.
//!
//! ## The microSD slot and the reset cause
//!
//! Against embassy-stm32 0.6.0 as published (`sdmmc/sd.rs`, `sdmmc/mod.rs`)
//! and stm32-metapac 21 (`rcc_h7rm0433.rs`):
//! - Blocks are copied through the driver's `DataBlock` (`sd.rs:46-73`:
//!   `repr(align(4))` over `[u32; 128]`, `Deref`/`DerefMut` to `[u8; 512]`)
//!   instead of casting the library's buffer: no `unsafe`, one 512-byte copy
//!   per block. The `DataBlock` is a field of the slot, which the board keeps
//!   in a static: in AXI SRAM (`memory.x`: RAM at 0x2400_0000), which the
//!   SDMMC1 IDMA reaches (DTCM it does not).
//! - One line or four: both drivers are built once (`Sdmmc::new_4bit`,
//!   `new_1bit`) and never dropped, and the slot swaps the `&mut Sdmmc` its
//!   `StorageDevice` holds (a public field, `sd.rs:122-126`). That is sound
//!   as far as the 0.6 source shows: each initialisation starts with
//!   `reacquire` → `on_drop` (IRQ masks, flags, IDMA off, `mod.rs:1068-1099`)
//!   and `init_idle`, which rewrites CLKCR's divider and WIDBUS (1 bit for
//!   identification, `mod.rs:901-940`), then `acquire` picks the width from
//!   the driver's own pins (`bus_width`, `mod.rs:755-761`: D3 present = 4)
//!   and the card's SCR, and sets it with ACMD6 and CLKCR (`sd.rs:215-225`).
//!   The other per-driver state (kernel clock, data timeout) is the same in
//!   both. Building the 1-bit driver resets SDMMC1 (`new_inner`,
//!   `mod.rs:675`) once, before any card is touched, and gives CK, CMD and D0
//!   the alternate function they already had; D1-D3 stay in theirs.
//! - Initialisation (embassy-stm32 0.6.0 `sdmmc/sd.rs:157-249`,
//!   `mod.rs:1001-1066`): `acquire` is async, but every command is the
//!   private, synchronous `Sdmmc::cmd`, which busy-waits on SDMMC_STA for
//!   CMDREND, CCRCFAIL or CTIMEOUT (the command path's fixed response
//!   timeout, 64 SDMMC_CK periods as ST's SDMMC descriptions give it, not
//!   checked in RM0433 here: each command ends in well under a millisecond
//!   at 400 kHz), and the
//!   ACMD41 loop (`sd.rs:181-198`) has no bound and no await: a busy card
//!   spins there with the executor stopped. Unchanged on embassy's main
//!   branch (66f5f6e8, `sd.rs:202-223`). The command layer is not public (no
//!   `pub` on `cmd`, `init_idle`, `get_cid` ...), and `StorageDevice`'s card
//!   data (capacity, RCA) is private and set only by its own `acquire`, so
//!   an own initialisation could not hand the card to embassy's reads and
//!   writes; a `with_timeout` around `reacquire` could not help either (the
//!   loop never returns to the executor). Hence the minimal patch of the
//!   vendored copy (`firmware/vendor/README.md`): a 1 s deadline from the
//!   first ACMD41 (the SD specification's initialisation timeout; SanDisk's
//!   SD product manual 1.9 §3.4.1 "the maximum period of power up procedure
//!   of single card shall not exceed 1 second") returning `SoftwareTimeout`,
//!   and `Timer::after_millis(1).await` between tries (the same manual asks
//!   for polling at intervals under 50 ms, figure 4-9). ST's HAL bounds the
//!   loop by a count instead (`SDMMC_MAX_VOLT_TRIAL`, 0xFFFF tries), the
//!   patch's fallback without embassy-time.
//! - What still busy-waits, on paper at 400 kHz: `init_idle`'s 74 clocks
//!   (185 µs, `block_for_us`) and CMD0, CMD8 (or its timeout with no card:
//!   about 0.5 ms together); each CMD55 + ACMD41 pair (about 0.8 ms between
//!   two awaits); after the loop CMD2, CMD3, CMD9, CMD7, CMD16 and CMD55 in a
//!   row (about 2.5 ms, the longest stretch) before the SCR read awaits its
//!   data. The slot yields between its 4-bit and 1-bit attempts, so an empty
//!   slot costs about 0.5 ms in one piece per look (every 250 ms).
//! - `SoftwareTimeout` comes out of `acquire` only from the patched loop (the
//!   write-busy poll is in `write_block`), so the slot reads it as "in, but
//!   stays busy", does not try one line for it, and says so through
//!   `Blocks::unusable`; the card library reports it (`CardUnusable`) and
//!   the app's card keeper backs off, 0.5 s doubling to 8 s between looks
//!   (host tests `app/tests/card_keeper.rs`, `app/src/card.rs`). The
//!   watchdog stays fed throughout: the executor runs.
//! - An empty slot: CMD8 gets no answer (`sd.rs:171`, `Error::Timeout`) on
//!   four lines and on one, so the slot stays on four and logs nothing. The
//!   rule (four lines, one only where four failed and one works on the same
//!   card, strikes, a busy card, a card gone) is [`lines::Lines`], run by the
//!   host tests against scripted cards.
//!   Data errors: `complete_datapath_transfer` reports DCRCFAIL as `Crc`,
//!   DTIMEOUT as `Timeout` (`mod.rs:1104-1150`); a single-block read or
//!   write that failed its CRC leaves the card in the transfer state, so the
//!   one retry re-sends CMD16 and CMD17/CMD24 as usual.
//! - RCC_RSR (0x5802_44D0): PORRSTF 23, PINRSTF 22, BORRSTF 21, IWDG1RSTF 26,
//!   RMVF 16 (PAC field positions; the host tests of `reset` pin them).
//!
//! ## The watchdog
//!
//! Against stm32-metapac 21 (`iwdg_v2.rs`: IWDG1 at 0x5800_4800; KR keys
//! 0x5555, 0xAAAA, 0xCCCC; PR 3 bits; RLR 12 bits; SR.PVU bit 0, RVU bit 1),
//! ST's H7 HAL (`stm32h7xx_hal_iwdg.c`, `HAL_IWDG_Init`: start, which forces
//! the LSI on, then unlock, PR, RLR, wait for SR to clear, at most
//! `HAL_IWDG_DEFAULT_TIMEOUT`, six prescaled LSI periods at /256 plus the
//! LSI's start, about 49 ms; then reload) and embassy-stm32 0.6
//! (`wdg/mod.rs:33-64`, the same prescaler choice: /32, reload 3999 for 4 s
//! at its `LSI_FREQ` of 32 kHz, `rcc/bd.rs:14`):
//! - [`watchdog::Iwdg1::start`] runs ST's order and waits for SR at most
//!   about 100 ms at the reset clock; if the new values did not land, the
//!   reset values (/4, 0xFFF: 512 ms) run, still twice the 250 ms feed.
//! - It runs in the first line of `main`, at HSI 64 MHz, before
//!   `embassy_stm32::init`. That init does not touch IWDG1; its default
//!   low-speed set-up turns the LSI on and waits for LSIRDY (`rcc/bd.rs:191-215`),
//!   which a running IWDG1 already forces on.
//! - Until the executor's timers run, the code between the first line and
//!   the feeder task is bounded (the HSE probe, the PLL locks in
//!   `embassy_stm32::init`); the feeder then feeds every 250 ms for at most
//!   30 s, until the box's keeper feeds (app host tests `health.rs`).
//!
//! ## The clock probe
//!
//! - The 8 MHz is the ST-LINK's MCO on PH0, in bypass (zephyr's
//!   `nucleo_h743zi.dts`: `hse-bypass`, 8 MHz "STLink 8MHz clock").
//! - The ST-LINK starts it about 2 s after an external supply comes up: "This
//!   clock signal is generated about 2 seconds after the board is powered ...
//!   By default HSE Startup Timeout Value is 100ms, so it timeouts before the
//!   clock is available" (ST community, "STM32F767ZI on external power supply
//!   is stuck until reset button is pressed", the same Nucleo-144 ST-LINK);
//!   RIOT issue 19778 saw externally powered nucleo-f767zi boards hang for
//!   seconds waiting for it; CubeMX's default wait is 100 ms. So
//!   [`hse::wait_ms`] gives 3 s after a power-on or brown-out (RCC_RSR's
//!   PORRSTF or BORRSTF, read by [`reset::take`] before the probe) and 10 ms
//!   after any other reset, when the ST-LINK kept running.
//! - The watchdog cannot trip during the 3 s: the board starts IWDG1 (4 s)
//!   and feeds it right before the probe, and the probe feeds it at every
//!   look, each millisecond of `asm::delay` at HSI 64 MHz (one cycle per
//!   iteration on the M7 with its I-cache on, cortex-m 0.7.10's `delay`
//!   docs; at three cycles the wait would stretch to 9 s, still fed).
//! - RCC_CR: HSEBYP (18) is written only while HSEON (16) is clear;
//!   HSERDY (17) (PAC; the host tests of `hse` pin them). HSE is left on for
//!   `embassy_stm32::init`, whose own wait for HSERDY has no bound
//!   (embassy-stm32 0.6 `rcc/h.rs:472`), or turned off for HSI.
//! - The clock in use is logged in words at power-up with the reset's cause
//!   and how long HSE took, and HSI stays the `ClockFallback` fault.
//!
//! ## The instruction cache, and the player's work per frame
//!
//! The board enables the Cortex-M7 I-cache (16 KiB) right after starting the
//! watchdog: cortex-m 0.7.10 `SCB::enable_icache` invalidates it (ICIALLU),
//! sets CCR.IC and ends with DSB/ISB (the release image's `main` does
//! exactly that, seen in its disassembly). embassy-stm32 0.6 enables no
//! cache. The image never changes at run time (bank 2 is data), so no
//! invalidation is ever needed. The D-cache stays off.
//!
//! The player's worst work per frame, on paper: 774-byte frames at 60 fps
//! to four targets, the subject renamed, the take in flash, the ring full.
//! Loop costs are counted in the NUCLEO release image's disassembly:
//! smoltcp's checksum 6 instructions per 2 bytes; compiler-builtins' memcpy
//! about 0.6 instructions per byte when source and destination share their
//! alignment, about 3 when they do not (the ring's records are not
//! word-aligned); the ECC-safe flash read 4 per byte plus about 45 per
//! 32-byte flash word. The rest is estimated from the code read:
//!
//! | step | instructions | uncached loads |
//! |---|---|---|
//! | the frame's timer: alarm interrupt, timer queue, executor, the box task polled down its `select` tree (about 15 futures) to the player | 4 k | 0.5 k |
//! | `FrameRing::pop`, 780 bytes | 2.3 k | 0.2 k |
//! | top-up (`stored.rs`): shelf lock, `with_timeout`, one frame from flash: its 8-byte entry and 774-byte packet, ECC-safe (26 flash words) | 5.5 k | 0.8 k (flash, byte loads) |
//! | `FrameRing::push`, 780 bytes | 2.3 k | 0.2 k |
//! | the rename: `FaceFrame::decode` and `encode` (61 big-endian floats, two strings); without one a 774-byte copy | 4 k | 0.4 k |
//! | `player::send`: 4 × `UdpSocket::poll_send_to` (`RefCell`, capacity check, smoltcp `send_slice` copying 774 bytes into the socket's ring, waking the runner) | 11 k | 0.8 k |
//! | the network runner: smoltcp `Interface::poll` (13 sockets, two passes), 4 × (route and neighbour lookup, headers, IPv4 checksum, the payload copied into the Ethernet DMA buffer, UDP checksum over 782 bytes in software: embassy-stm32 0.6's `Ethernet` announces no checksum offload, `eth/mod.rs:106-111`) | 25 k | 2.4 k |
//! | Ethernet interrupts, a second runner poll, `progress` twice | 5 k | 0.2 k |
//! | **per frame** | **about 60 k** | **about 5.5 k** |
//!
//! In cycles at 400 MHz, with assumed (not measured) latencies: the
//! instructions at about 1 cycle each from the I-cache (60 k), the per-frame
//! code (smoltcp, embassy-net, the app, the HAL) larger than 16 KiB so
//! refetched in part, at most the whole path's 30 KiB in 32-byte lines at
//! about 30 cycles each (30 k), the loads from uncached AXI SRAM at about 10
//! cycles (47 k) and the flash byte loads at about 16 (13 k, 2 wait states
//! at the 200 MHz AXI clock): about **150 k cycles, 0.4 ms, 2.3 % of the
//! 16.7 ms frame period**. Without the I-cache each instruction waits for
//! its fetch from flash (about 3 cycles each on the same assumptions): about
//! 240 k cycles. A card take costs about as much: per frame 1.5 blocks on
//! average, each CMD16 and CMD17 busy-waited at 25 MHz (about 5 k cycles
//! together; embassy-stm32 0.6 `sdmmc/sd.rs:480-487`), the block moved by
//! the IDMA and copied once (512 bytes).
//!
//! ## The read-ahead and the image
//!
//! - The player's ring (`llv_box::read_ahead::READ_AHEAD`) holds 140 frames of
//!   the largest packet (774 bytes, 780 with its record head): 2.33 s at
//!   60 fps, past the worst sector erase of 2.2 s (ST employee, ST community
//!   thread "STM32H743 Flash EraseSector Reset Problem": 1.1 s typical at
//!   x32). Host tests: a full ring holds exactly those 140 (`app/tests/ring.rs`),
//!   and 400 such frames stay within 1 ms of their deadlines while the store
//!   is held for 2.2 s (`app/tests/device.rs`; 1.18 s late with the old
//!   46 KiB ring). A start fills the ring 24 frames at a time, letting the
//!   rest of the box in between: on paper about 1 ms of ECC-safe reads per
//!   batch of the largest frames (the per-frame figures above), instead of
//!   about 6 ms for a whole ring in one piece.
//! - The release image (`tools/elf_size.py`): 194.0 KiB of flash, 197.1 KiB
//!   of static RAM (from 190.8 and 127.7), inside the 384/256 KiB budget.
//!   `memory.x` gives RAM = AXI SRAM (0x2400_0000, 512 KiB), so every static
//!   is there (`nm`: the box task's 130 KiB at 0x2401_0900, the card slot at
//!   0x2401_0400, the Ethernet rings), reachable by the Ethernet DMA and the
//!   SDMMC1 IDMA; the stack has the other 315 KiB below 0x2408_0000.
//!
//! # Not proven without hardware
//!
//! ## The flash
//!
//! - That a load from a torn word is really ignored (not a HardFault) under
//!   FAULTMASK + BFHFNMIGN on this chip, and that DBECCERR/FA2R then name it.
//! - That DBECCERR set by a *speculative* access (FA2R naming another word)
//!   happens, and that one re-read is enough; the read then trusts the data.
//! - That EOP or an error interrupt ends every program and erase (the timer
//!   poll covers a missing one), and that QW is already set when SR2 is read
//!   after the eighth store and a DSB (ST's HAL relies on the same).
//! - That reading bank 2 during its own erase stalls rather than faults (the
//!   driver never does it: reads wait for the bank to be idle).
//! - Erase and program timings, and x32 parallelism at the NUCLEO's 3.3 V.
//! - The D-cache is off (embassy-stm32 does not enable it; [`Bank2Flash::new`]
//!   refuses if it is on, since nothing here invalidates cached flash lines).
//!
//! ## The microSD slot and the reset cause
//!
//! - The initialisation's timing with real cards: how long usual cards stay
//!   busy, that 1 ms pauses between ACMD41s (the clock keeps running,
//!   CLKCR.PWRSAV clear) suit them, and the gap an insertion leaves in a
//!   playing take (on paper at most about 2.5 ms).
//! - The 1-bit fallback with a real card and broken D1-D3 lines (which error
//!   a 4-bit transfer over them gives: CRC or data timeout; the slot tries
//!   one line after either), and that the swapped drivers behave as the
//!   source reads.
//! - Which RCC_RSR flags a power-on, a brown-out and a watchdog reset set
//!   together on this chip (RM0433's reset-source table is not here); the
//!   order in [`reset::ResetCause::of`] makes a power-on win over everything.
//!
//! ## The watchdog
//!
//! - That SR.PVU/RVU clear within the bounded wait on this chip, and the
//!   LSI's real frequency (±10 % moves the 4 s to 3.6-4.4 s).
//! - That nothing in `embassy_stm32::init` takes anywhere near 4 s (PLL
//!   and voltage-scaling waits are microseconds to milliseconds on paper).
//!
//! ## The instruction cache and the work per frame
//!
//! - Every cycle figure above: the latencies of uncached AXI SRAM and flash
//!   loads, the I-cache's miss rate on the per-frame path, and the cost of the
//!   select tree were not measured. DWT.CYCCNT around one frame's work (timer
//!   wake to the runner's last packet) on a board would settle them.
//!
//! ## The clock probe
//!
//! - When this board's ST-LINK (MB1364) starts its MCO after a cold start
//!   from E5V or a USB charger: the 2 s comes from other Nucleo-144 boards.
//!   Whether it also pulses NRST once the MCO runs (then the box boots twice,
//!   the second time as a pin reset with the clock there) is unknown.
#![cfg_attr(not(test), no_std)]
#![warn(missing_docs)]
// On the host only the tests call the chip-side helpers of `geometry` and `status`.
#![cfg_attr(not(target_os = "none"), allow(dead_code))]

#[cfg(target_os = "none")]
mod ecc_read;
mod error;
#[cfg(target_os = "none")]
mod flash;
#[cfg(target_os = "none")]
mod fmt;
pub mod geometry;
pub mod hse;
pub mod lines;
#[cfg(target_os = "none")]
mod operation;
pub mod pll;
pub mod reset;
#[cfg(target_os = "none")]
mod sd;
mod status;
pub mod watchdog;

pub use error::{FlashError, SetupError};
#[cfg(target_os = "none")]
pub use flash::Bank2Flash;
#[cfg(target_os = "none")]
pub use operation::InterruptHandler;
#[cfg(target_os = "none")]
pub use sd::{SdPins, SdSlot};
