//! Which data lines the microSD slot uses: four, or one only where four
//! failed and one works on the same card. The rule on its own, so the host
//! tests can run it against scripted cards; [`crate::SdSlot`] runs it over
//! its two drivers.

/// Data lines for an initialisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// D0-D3.
    Four,
    /// D0 only.
    One,
}

/// How an initialisation went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The card is ready.
    Ready,
    /// A card answered but stayed busy past its power-up deadline.
    Busy,
    /// No card answered, or it failed on the way.
    Failed,
}

/// Transfers over four lines that fail their CRC twice (a strike each) in a
/// row before the next initialisation tries one line.
pub const CRC_STRIKES: u8 = 3;

/// The slot's choice of lines and what it has seen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lines {
    /// Four lines failed where one worked, on the card in the slot.
    one_bit: bool,
    /// Transfers over four lines that failed their CRC twice, in a row,
    /// since the last one that went through.
    crc_strikes: u8,
}

impl Lines {
    /// Four lines, nothing seen.
    pub const fn new() -> Self {
        Lines {
            one_bit: false,
            crc_strikes: 0,
        }
    }

    /// Whether the slot has fallen back to one line.
    pub fn one_bit(&self) -> bool {
        self.one_bit
    }

    /// A transfer went through.
    pub fn transferred(&mut self) {
        self.crc_strikes = 0;
    }

    /// A transfer failed its CRC twice; the card is initialised anew next.
    pub fn crc_failed(&mut self) {
        if !self.one_bit {
            self.crc_strikes = self.crc_strikes.saturating_add(1);
        }
    }

    /// One acquisition: initialises the card through `init` over four
    /// lines, or one where four failed (now, or in [`CRC_STRIKES`] transfers)
    /// and one works on this card; a card that stays busy gets no try on one
    /// line. Between two initialisations it lets the executor run. Returns
    /// how it went and whether it fell back to one line just now.
    pub async fn acquire(
        &mut self,
        mut init: impl AsyncFnMut(Width) -> Outcome,
    ) -> (Outcome, bool) {
        if self.one_bit {
            let outcome = init(Width::One).await;
            if outcome != Outcome::Ready {
                // Gone, or failing on one line too: the next card starts on four.
                self.one_bit = false;
            }
            return (outcome, false);
        }
        // Strikes last across initialisations until a transfer goes
        // through or one line has had its try.
        let struck = self.crc_strikes >= CRC_STRIKES;
        if !struck {
            match init(Width::Four).await {
                Outcome::Failed => {}
                // Ready, or in but not ready: one line would not change that.
                done => return (done, false),
            }
            // Two initialisations in one piece would hold the executor twice
            // as long (an empty slot's CMD8 timeout, at every look).
            embassy_futures::yield_now().await;
        }
        self.crc_strikes = 0;
        match init(Width::One).await {
            Outcome::Ready => {
                self.one_bit = true;
                (Outcome::Ready, true)
            }
            // One line failed too: an empty slot, or a card that fails either
            // way. After strikes, start over on four lines.
            one if struck => match init(Width::Four).await {
                Outcome::Failed => (one, false),
                four => (four, false),
            },
            one => (one, false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use embassy_futures::block_on;

    /// A scripted card: what each initialisation over each width gives.
    struct Script {
        four: Outcome,
        one: Outcome,
        tried: Vec<Width>,
    }

    impl Script {
        fn new(four: Outcome, one: Outcome) -> Self {
            Script {
                four,
                one,
                tried: Vec::new(),
            }
        }

        fn acquire(&mut self, lines: &mut Lines) -> (Outcome, bool) {
            block_on(lines.acquire(async |width| {
                self.tried.push(width);
                match width {
                    Width::Four => self.four,
                    Width::One => self.one,
                }
            }))
        }
    }

    use Outcome::{Busy, Failed, Ready};
    use Width::{Four, One};

    #[test]
    fn a_good_card_runs_on_four_lines() {
        let mut lines = Lines::new();
        let mut card = Script::new(Ready, Ready);
        assert_eq!(card.acquire(&mut lines), (Ready, false));
        assert_eq!(card.tried, [Four]);
        assert!(!lines.one_bit());
    }

    #[test]
    fn an_empty_slot_stays_on_four_lines_without_a_fallback() {
        let mut lines = Lines::new();
        let mut slot = Script::new(Failed, Failed);
        for _ in 0..10 {
            assert_eq!(slot.acquire(&mut lines), (Failed, false));
        }
        assert!(!lines.one_bit());
        // A card put in later starts on four lines.
        let mut card = Script::new(Ready, Ready);
        assert_eq!(card.acquire(&mut lines), (Ready, false));
        assert_eq!(card.tried, [Four]);
    }

    #[test]
    fn one_line_only_where_four_failed_and_one_works_on_the_same_card() {
        let mut lines = Lines::new();
        let mut card = Script::new(Failed, Ready);
        assert_eq!(card.acquire(&mut lines), (Ready, true));
        assert_eq!(card.tried, [Four, One]);
        assert!(lines.one_bit());
        // It stays on one line, without saying so again.
        assert_eq!(card.acquire(&mut lines), (Ready, false));
        assert_eq!(card.tried, [Four, One, One]);
    }

    #[test]
    fn a_card_gone_from_one_line_sends_the_next_card_to_four() {
        let mut lines = Lines::new();
        Script::new(Failed, Ready).acquire(&mut lines);
        assert!(lines.one_bit());
        assert_eq!(
            Script::new(Failed, Failed).acquire(&mut lines),
            (Failed, false)
        );
        assert!(!lines.one_bit());
        let mut next = Script::new(Ready, Ready);
        assert_eq!(next.acquire(&mut lines), (Ready, false));
        assert_eq!(next.tried, [Four]);
    }

    #[test]
    fn a_busy_card_gets_no_try_on_one_line() {
        let mut lines = Lines::new();
        let mut card = Script::new(Busy, Ready);
        assert_eq!(card.acquire(&mut lines), (Busy, false));
        assert_eq!(card.tried, [Four]);
        assert!(!lines.one_bit());
    }

    #[test]
    fn crc_failures_fall_back_only_after_strikes_in_a_row_and_only_if_one_line_works() {
        let mut lines = Lines::new();
        let mut card = Script::new(Ready, Ready);
        // One failure (or two) is not a pattern; a transfer that goes
        // through clears the count.
        lines.crc_failed();
        lines.crc_failed();
        lines.transferred();
        lines.crc_failed();
        assert_eq!(card.acquire(&mut lines), (Ready, false));
        assert_eq!(card.tried, [Four]);
        // Strikes in a row, each followed by a new initialisation on four.
        lines.crc_failed();
        assert_eq!(card.acquire(&mut lines), (Ready, false));
        lines.crc_failed();
        card.tried.clear();
        assert_eq!(card.acquire(&mut lines), (Ready, true));
        assert_eq!(card.tried, [One]);
        assert!(lines.one_bit());
    }

    #[test]
    fn strikes_where_one_line_fails_too_go_back_to_four() {
        let mut lines = Lines::new();
        for _ in 0..CRC_STRIKES {
            lines.crc_failed();
        }
        let mut card = Script::new(Ready, Failed);
        assert_eq!(card.acquire(&mut lines), (Ready, false));
        assert_eq!(card.tried, [One, Four]);
        assert!(!lines.one_bit());
        // The strikes have had their try: the next initialisation is on four.
        card.tried.clear();
        assert_eq!(card.acquire(&mut lines), (Ready, false));
        assert_eq!(card.tried, [Four]);
    }
}
