//! A connection's history: one letter per event, in order, as Zeek writes it. Each end
//! keeps the events of the packets that arrive at it; the report merges both ends by time.
//! Repeats of the last event are folded, and an end keeps at most [`EVENTS`] events.

/// Events kept per end; a connection shows at most twice as many.
pub const EVENTS: usize = 12;

/// What happened, as the letter the history writes for it: lower case; the report writes
/// it upper case for A's direction.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HistoryEvent {
    /// The CM handshake (REQ and REP).
    Handshake = b'h',
    /// A request sent for the first time.
    #[default]
    Data = b'd',
    /// A request past a PSN gap: lost, or not known yet.
    Gap = b'g',
    /// A request past a PSN gap that the responder acknowledged: the capture missed it.
    CaptureMissed = b'm',
    /// A request sent again.
    Retransmission = b't',
    GoBackN = b'b',
    /// A go-back to the first unacknowledged PSN.
    GoBack0 = b'z',
    Nak = b'n',
    RnrNak = b'r',
    /// A request with an ECN-CE mark.
    CeMark = b'c',
    Cnp = b'p',
    /// A CM DREQ or DREP.
    Disconnect = b'x',
}

impl HistoryEvent {
    pub fn letter(self) -> u8 {
        self as u8
    }

    /// Data and CE marks are the steady state: each is kept once between other events.
    fn is_steady(self) -> bool {
        matches!(self, HistoryEvent::Data | HistoryEvent::CeMark)
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct History {
    /// Times and events apart: a (u64, u8) pair would pad to 16 bytes.
    clocks: [u64; EVENTS],
    events: [HistoryEvent; EVENTS],
    /// Bit `i`: event `i` belongs to the direction whose requests arrive at this end.
    into: u16,
    len: u8,
    /// Events not kept because the history was full.
    pub dropped: u32,
}

// The bits of `into` cover every event kept.
const _: () = assert!(EVENTS <= u16::BITS as usize);

impl History {
    fn is_into(&self, i: usize) -> bool {
        self.into >> i & 1 != 0
    }

    /// `into`: the event belongs to the direction whose requests arrive at this end.
    pub fn push(&mut self, event: HistoryEvent, into: bool, clock: u64) {
        let len = usize::from(self.len);
        let same = |i: usize| self.events[i] == event && self.is_into(i) == into;
        if len > 0 && same(len - 1) {
            return;
        }
        if event.is_steady()
            && (0..len)
                .rev()
                .take_while(|&i| self.events[i].is_steady())
                .any(same)
        {
            return;
        }
        if len == EVENTS {
            self.dropped = self.dropped.saturating_add(1);
            return;
        }
        self.clocks[len] = clock;
        self.events[len] = event;
        if into {
            self.into |= 1 << len;
        }
        self.len += 1;
    }

    /// The gap seen at `clock` turned out missed by the capture, not lost: the letter
    /// should not send the reader looking for a network problem. A gap folded into the one
    /// before it keeps that one's letter.
    pub fn gap_was_missed(&mut self, clock: u64) {
        let len = usize::from(self.len);
        if let Some(i) = (0..len)
            .rev()
            .find(|&i| self.clocks[i] == clock && self.events[i] == HistoryEvent::Gap)
        {
            self.events[i] = HistoryEvent::CaptureMissed;
        }
    }

    /// The events as (time, event, belongs to the direction into this end).
    pub fn events(&self) -> impl Iterator<Item = (u64, HistoryEvent, bool)> + '_ {
        let len = usize::from(self.len);
        (0..len).map(|i| (self.clocks[i], self.events[i], self.is_into(i)))
    }
}
