//! Readers that misbehave as real streams do, for the tests of the stream readers.

use std::io::{self, Read};

/// Hands out a few bytes per read, then fails if told to.
pub struct Dribble {
    pub data: Vec<u8>,
    pub at: usize,
    pub fail_at_end: bool,
}

impl Read for Dribble {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = (self.data.len() - self.at).min(out.len()).min(777);
        if n == 0 && self.fail_at_end {
            return Err(io::Error::other("device went away"));
        }
        out[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
