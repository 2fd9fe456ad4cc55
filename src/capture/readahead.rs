//! A stream read, and decompressed, on a thread of its own. A pipe hands over at most its
//! buffer (64 KiB) per `read`, and each read is a copy in the kernel; a compressed capture
//! costs its decompression besides. Done on the decoding thread, both stall it; done here,
//! they run beside it, and only a bounded number of chunks wait between the two.

use std::io::{self, Read};
use std::sync::mpsc::{Receiver, SendError, SyncSender, TryRecvError, sync_channel};

/// The most one chunk holds: a read returns whatever arrived, up to this, so a live capture
/// (`tcpdump -U -w - | rdmadump read -`) is decoded as its packets come, not once a chunk
/// fills.
const CHUNK: usize = 1 << 18;

/// Chunks read and not yet taken: with the one being read and the one being taken, this
/// bounds the memory at about 2.5 MB.
const AHEAD: usize = 8;

type Chunk = io::Result<(Vec<u8>, usize)>;

/// Implements [`Read`] over what the reading thread sends.
pub struct ReadAhead {
    chunks: Receiver<Chunk>,
    /// Buffers taken, sent back to be filled again, so that reading allocates nothing.
    spent: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    at: usize,
    end: usize,
    done: bool,
}

impl ReadAhead {
    /// Starts reading `inner` on a new thread. When no thread can be started, `inner` comes
    /// back, to be read where it is.
    pub fn spawn(inner: Box<dyn Read + Send>) -> Result<Self, Box<dyn Read + Send>> {
        let (chunk_out, chunks) = sync_channel::<Chunk>(AHEAD);
        let (spent, refill) = sync_channel::<Vec<u8>>(AHEAD + 2);
        // The reader is handed over only once the thread exists: when it could not start,
        // its end of this channel is gone, and the send gives the reader back.
        let (give, take) = sync_channel::<Box<dyn Read + Send>>(1);
        let _started = std::thread::Builder::new()
            .name("rdmadump-read".into())
            .spawn(move || {
                if let Ok(inner) = take.recv() {
                    fill(inner, &chunk_out, &refill);
                }
            });
        if let Err(SendError(inner)) = give.send(inner) {
            return Err(inner);
        }
        Ok(ReadAhead {
            chunks,
            spent,
            current: Vec::new(),
            at: 0,
            end: 0,
            done: false,
        })
    }
}

/// The reading thread: reads until the end, an error, or the reader side going away.
fn fill(mut inner: Box<dyn Read + Send>, out: &SyncSender<Chunk>, refill: &Receiver<Vec<u8>>) {
    loop {
        let mut buf = match refill.try_recv() {
            Ok(buf) => buf,
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => vec![0; CHUNK],
        };
        let read = loop {
            match inner.read(&mut buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => break other,
            }
        };
        match read {
            Ok(0) => return,
            Ok(n) => {
                if out.send(Ok((buf, n))).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = out.send(Err(e));
                return;
            }
        }
    }
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.end {
            if self.done {
                return Ok(0);
            }
            match self.chunks.recv() {
                Ok(Ok((next, len))) => {
                    let spent = std::mem::replace(&mut self.current, next);
                    if !spent.is_empty() {
                        let _ = self.spent.try_send(spent);
                    }
                    self.at = 0;
                    self.end = len;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                // The thread ended: the stream is over.
                Err(_) => self.done = true,
            }
        }
        let available = &self.current[self.at..self.end];
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::testing::Dribble;

    fn data() -> Vec<u8> {
        (0..3 * CHUNK + 12_345).map(|i| (i % 253) as u8).collect()
    }

    #[test]
    fn reads_every_byte_in_order() {
        let source = Dribble {
            data: data(),
            at: 0,
            fail_at_end: false,
        };
        let Ok(mut ahead) = ReadAhead::spawn(Box::new(source)) else {
            panic!("no thread");
        };
        let mut got = Vec::new();
        ahead.read_to_end(&mut got).unwrap();
        assert_eq!(got, data());
        // The end stays the end.
        assert_eq!(ahead.read(&mut [0; 8]).unwrap(), 0);
    }

    #[test]
    fn an_error_arrives_after_the_bytes_before_it() {
        let source = Dribble {
            data: data(),
            at: 0,
            fail_at_end: true,
        };
        let Ok(mut ahead) = ReadAhead::spawn(Box::new(source)) else {
            panic!("no thread");
        };
        let mut got = vec![0; data().len()];
        ahead.read_exact(&mut got).unwrap();
        assert_eq!(got, data());
        let err = ahead.read(&mut [0; 8]).unwrap_err();
        assert_eq!(err.to_string(), "device went away");
    }

    #[test]
    fn dropping_the_reader_ends_the_thread() {
        // An endless source: the thread must notice that nobody reads any more.
        let source = io::repeat(7);
        let Ok(mut ahead) = ReadAhead::spawn(Box::new(source)) else {
            panic!("no thread");
        };
        let mut some = [0; 100];
        ahead.read_exact(&mut some).unwrap();
        assert!(some.iter().all(|&b| b == 7));
        drop(ahead);
    }
}
