//! A scripted byte stream to serve connections over.

use std::vec::Vec;

use llv_core::control::{body_len, decode, Response, PREFIX_LEN};

/// A connection's byte stream: hands out `input` at most `step` bytes per
/// read, then end of stream, or (with `hold`) nothing ever again; keeps what
/// is written.
pub struct ScriptedStream {
    /// What the peer sends.
    pub input: Vec<u8>,
    /// How much of it was read.
    pub at: usize,
    /// The most one read returns.
    pub step: usize,
    /// After the input, wait forever instead of ending the stream.
    pub hold: bool,
    /// What the box wrote.
    pub output: Vec<u8>,
}

impl ScriptedStream {
    /// A stream of `input`, `step` bytes a read, that ends after it.
    pub fn new(input: Vec<u8>, step: usize) -> Self {
        ScriptedStream {
            input,
            at: 0,
            step,
            hold: false,
            output: Vec::new(),
        }
    }

    /// The responses written, decoded.
    pub fn responses(&self) -> Vec<Response> {
        let mut responses = Vec::new();
        let mut rest = &self.output[..];
        while rest.len() >= PREFIX_LEN {
            let len = body_len([rest[0], rest[1]]);
            let Some(body) = rest.get(PREFIX_LEN..PREFIX_LEN + len) else {
                break;
            };
            match decode(body) {
                Ok(response) => responses.push(response),
                Err(_) => break,
            }
            rest = &rest[PREFIX_LEN + len..];
        }
        responses
    }
}

impl embedded_io_async::ErrorType for ScriptedStream {
    type Error = core::convert::Infallible;
}

impl embedded_io_async::Read for ScriptedStream {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        if self.at == self.input.len() && self.hold {
            core::future::pending::<()>().await;
        }
        let n = buf.len().min(self.step).min(self.input.len() - self.at);
        buf[..n].copy_from_slice(&self.input[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl embedded_io_async::Write for ScriptedStream {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        self.output.extend_from_slice(buf);
        Ok(buf.len())
    }

    async fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}
