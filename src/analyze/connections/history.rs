//! A connection's history: one letter per event, in order, as Zeek writes it. Each end
//! keeps the events of the packets that arrive at it; the report merges both ends by time.
//! Repeats of the last letter are folded, and an end keeps at most [`EVENTS`] letters.

/// Letters kept per end; a connection shows at most twice as many.
pub const EVENTS: usize = 12;

#[derive(Debug, Clone, Copy, Default)]
pub struct History {
    /// Times and letters apart: a (u64, u8) pair would pad to 16 bytes.
    clocks: [u64; EVENTS],
    letters: [u8; EVENTS],
    len: u8,
    /// Events not kept because the history was full.
    pub dropped: u32,
}

/// The letters: lower case in storage; written upper case for A's direction.
/// `h` CM handshake, `d` data, `g` PSN gap, `t` retransmission, `b` go-back-N,
/// `z` go-back-0, `n` NAK, `r` RNR NAK, `c` ECN-CE mark, `p` CNP, `x` disconnect.
const INTO: u8 = 0x80;

impl History {
    /// `into`: the event belongs to the direction whose requests arrive at this end.
    pub fn push(&mut self, letter: u8, into: bool, clock: u64) {
        let tagged = if into { letter | INTO } else { letter };
        let len = usize::from(self.len);
        if len > 0 && self.letters[len - 1] == tagged {
            return;
        }
        // Data and CE marks are the steady state: once each between other events.
        if matches!(letter, b'd' | b'c')
            && self.letters[..len]
                .iter()
                .rev()
                .take_while(|&&l| matches!(l & !INTO, b'd' | b'c'))
                .any(|&l| l == tagged)
        {
            return;
        }
        if len == EVENTS {
            self.dropped = self.dropped.saturating_add(1);
            return;
        }
        self.clocks[len] = clock;
        self.letters[len] = tagged;
        self.len += 1;
    }

    /// The events as (time, letter, belongs to the direction into this end).
    pub fn events(&self) -> impl Iterator<Item = (u64, u8, bool)> + '_ {
        let len = usize::from(self.len);
        self.clocks[..len]
            .iter()
            .zip(&self.letters[..len])
            .map(|(&clock, &tagged)| (clock, tagged & !INTO, tagged & INTO != 0))
    }
}
