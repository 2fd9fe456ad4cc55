//! The IPoIB-CM state that batches decoded side by side start from.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::dissect::IpoibCmState;

/// The IPoIB-CM state (connected-mode IPoIB QPs) as of the last batch consumed. Batches
/// are decoded on several threads at once, each from the state committed when its decoding
/// began; the consumer, which takes batches in order, commits each batch's changed state
/// after it, and decodes again a batch that began before an earlier one changed the state.
/// That happens once per IPoIB-CM handshake at most; a capture without one never does it.
#[derive(Default)]
pub(super) struct CommittedCmState {
    /// The generation (how many batches changed the state) and the state.
    committed: Mutex<(u64, Arc<IpoibCmState>)>,
}

impl CommittedCmState {
    fn committed(&self) -> MutexGuard<'_, (u64, Arc<IpoibCmState>)> {
        self.committed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The generation and the state committed now.
    pub(super) fn snapshot(&self) -> (u64, Arc<IpoibCmState>) {
        let committed = self.committed();
        (committed.0, Arc::clone(&committed.1))
    }

    pub(super) fn generation(&self) -> u64 {
        self.committed().0
    }

    /// Makes `state` the one later batches start from.
    pub(super) fn commit(&self, state: IpoibCmState) {
        let mut committed = self.committed();
        committed.0 += 1;
        committed.1 = Arc::new(state);
    }
}
