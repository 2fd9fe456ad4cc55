//! SMB Direct in its session: the negotiate exchange, the data transfer message, and the
//! first SMB2 message of its data with the RDMA buffers a READ or WRITE names; a response
//! is paired with its request by SMB2 message ID (the negotiate response with the request).

use super::session::{CallBody, CallLink, Exchange, Parsed, SessionMessage, SessionRef};
use crate::wire::smbd::data::DataMessage;
use crate::wire::smbd::negotiate::{self, NegotiateRequest, NegotiateResponse};
use crate::wire::smbd::rw::{
    BufferDescriptor, ReadRequest, ReadResponse, WriteRequest, WriteResponse, descriptors,
};
use crate::wire::smbd::smb2::{self, HEADER_LEN as SMB2_HEADER_LEN, PROTOCOL_ID, Smb2, command};
use crate::wire::smbd::{VERSION_1, nt_status};

/// The key the negotiate exchange is paired under: no SMB2 message ID, since the all-ones
/// one is never a request's (MS-SMB2 3.2.4.1.3 keeps it for unsolicited oplock breaks).
const NEGOTIATE_KEY: u64 = CallLink::NO_KEY;

/// The name the negotiate exchange is counted under.
pub const NEGOTIATE_NAME: &str = "SMBD NEGOTIATE";

/// What an SMB Direct SEND carries.
#[derive(Debug, Clone, Copy)]
pub enum SmbdMsg<'a> {
    NegotiateRequest(NegotiateRequest<'a>),
    NegotiateResponse(NegotiateResponse<'a>),
    /// A data transfer message, and the SMB2 message its data begins with (none in a
    /// keep-alive or a later fragment).
    Data {
        message: DataMessage<'a>,
        smb2: Option<Smb2<'a>>,
    },
}

/// The body of a READ or WRITE, by kind.
#[derive(Debug, Clone, Copy)]
pub enum ReadWrite<'a> {
    ReadRequest(ReadRequest<'a>),
    ReadResponse(ReadResponse<'a>),
    WriteRequest(WriteRequest<'a>),
    WriteResponse(WriteResponse<'a>),
}

/// One SMB Direct frame.
#[derive(Debug, Clone, Copy)]
pub struct SmbdFrame<'a> {
    pub session: SessionRef,
    pub msg: SmbdMsg<'a>,
    /// For a response, the request it answers, when that was captured.
    pub call: Option<CallLink>,
}

impl<'a> SmbdFrame<'a> {
    pub fn smb2(&self) -> Option<Smb2<'a>> {
        match self.msg {
            SmbdMsg::Data { smb2, .. } => smb2,
            _ => None,
        }
    }

    /// The READ or WRITE body of the SMB2 message, when it is one and its fixed part is
    /// present (a response's only when it succeeded: an error response has another body).
    pub fn read_write(&self) -> Option<ReadWrite<'a>> {
        let m = self.smb2()?;
        let h = m.header;
        if h.is_response() && h.status() != nt_status::STATUS_SUCCESS {
            return None;
        }
        let body = m.body;
        let at = SMB2_HEADER_LEN;
        match (h.command(), h.is_response()) {
            (command::READ, false) => ReadRequest::new_checked(body, at)
                .ok()
                .map(ReadWrite::ReadRequest),
            (command::READ, true) => ReadResponse::new_checked(body, at)
                .ok()
                .map(ReadWrite::ReadResponse),
            (command::WRITE, false) => WriteRequest::new_checked(body, at)
                .ok()
                .map(ReadWrite::WriteRequest),
            (command::WRITE, true) => WriteResponse::new_checked(body, at)
                .ok()
                .map(ReadWrite::WriteResponse),
            _ => None,
        }
    }

    /// The RDMA buffer descriptors a READ or WRITE request names.
    pub fn buffers(&self) -> impl Iterator<Item = BufferDescriptor<'a>> + 'a {
        let (message, (at, len)) = match (self.smb2(), self.read_write()) {
            (Some(m), Some(ReadWrite::ReadRequest(r))) => (m.message, r.channel_info()),
            (Some(m), Some(ReadWrite::WriteRequest(w))) => (m.message, w.channel_info()),
            _ => (&[][..], (0, 0)),
        };
        descriptors(message, at, len)
    }

    /// A negotiate message, or a data transfer carrying an SMB2 request or response: what
    /// traffic may learn a connection from.
    pub(super) fn teaches(&self) -> bool {
        !matches!(exchange(self), Exchange::Neither)
    }

    /// How the request went, as far as a response says: the NTSTATUS's name.
    pub fn status(&self) -> Option<&'static str> {
        self.status_code().map(nt_status::name)
    }

    /// The NTSTATUS of a negotiate response or an SMB2 response.
    pub fn status_code(&self) -> Option<u32> {
        match self.msg {
            SmbdMsg::NegotiateResponse(r) => Some(r.status()),
            _ => self
                .smb2()
                .filter(|m| m.header.is_response())
                .map(|m| m.header.status()),
        }
    }
}

impl SessionMessage for SmbdFrame<'_> {
    fn session(&self) -> SessionRef {
        self.session
    }
    fn request(&self) -> Option<CallLink> {
        exchange(self).call()
    }
    fn answered(&self) -> Option<&CallLink> {
        self.call.as_ref()
    }
    fn outcome(&self) -> Option<&'static str> {
        self.status()
    }
    fn failed(&self) -> bool {
        self.status_code().is_some_and(nt_status::is_error)
    }
}

fn exchange(f: &SmbdFrame<'_>) -> Exchange {
    let m = match f.msg {
        SmbdMsg::NegotiateRequest(_) => {
            return Exchange::Call(CallLink {
                frame: 0,
                latency_ns: None,
                key: NEGOTIATE_KEY,
                name: NEGOTIATE_NAME,
                body: CallBody::Smb2 {
                    command: command::NEGOTIATE,
                },
                read_len: 0,
                write_len: 0,
            });
        }
        SmbdMsg::NegotiateResponse(_) => return Exchange::Reply(NEGOTIATE_KEY),
        SmbdMsg::Data { smb2: None, .. } => return Exchange::Neither,
        SmbdMsg::Data { smb2: Some(m), .. } => m,
    };
    let h = m.header;
    let mid = h.message_id();
    if mid == NEGOTIATE_KEY {
        return Exchange::Neither;
    }
    if h.is_response() {
        // An interim response promises the final one under the same message ID.
        return match h.status() {
            nt_status::STATUS_PENDING => Exchange::Neither,
            _ => Exchange::Reply(mid),
        };
    }
    let (read_len, write_len) = match f.read_write() {
        Some(ReadWrite::ReadRequest(r)) => (u64::from(r.length()), 0),
        Some(ReadWrite::WriteRequest(w)) => (0, u64::from(w.data_len())),
        _ => (0, 0),
    };
    Exchange::Call(CallLink {
        frame: 0,
        latency_ns: None,
        key: mid,
        name: smb2::command_name(h.command()),
        body: CallBody::Smb2 {
            command: h.command(),
        },
        read_len,
        write_len,
    })
}

/// A negotiate request or response of version 1.0, or a data transfer message whose data
/// at offset 24 begins with an SMB2 header: the test a SEND pays before anything else.
#[inline]
pub(super) fn could_start(payload: &[u8]) -> bool {
    let v = VERSION_1.to_le_bytes();
    match payload.len() {
        negotiate::REQUEST_LEN => payload[..6] == [v[0], v[1], v[0], v[1], 0, 0],
        negotiate::RESPONSE_LEN => payload[..8] == [v[0], v[1], v[0], v[1], v[0], v[1], 0, 0],
        len if len >= 24 + SMB2_HEADER_LEN => {
            payload[12..16] == [24, 0, 0, 0] && payload[24..28] == PROTOCOL_ID
        }
        _ => false,
    }
}

/// Which message a SEND is. A 20-byte negotiate request and an empty data transfer message
/// share their length; as in MS-SMBD 3.1.5, an empty data message has no offset, length or
/// remaining bytes, where a negotiate request's sizes are never 0.
fn message(payload: &[u8]) -> Option<SmbdMsg<'_>> {
    let v = VERSION_1.to_le_bytes();
    let versions = payload.get(..4) == Some(&[v[0], v[1], v[0], v[1]][..]);
    match payload.len() {
        negotiate::REQUEST_LEN if versions && payload[8..] != [0; 12] => Some(
            SmbdMsg::NegotiateRequest(NegotiateRequest::new_checked(payload, 0).ok()?),
        ),
        negotiate::RESPONSE_LEN if versions && payload[4..6] == v => Some(
            SmbdMsg::NegotiateResponse(NegotiateResponse::new_checked(payload, 0).ok()?),
        ),
        _ => {
            let message = DataMessage::new_checked(payload, 0).ok()?;
            let at = message.header.data_offset() as usize;
            // Only the first fragment of a message begins with its header.
            let smb2 = Smb2::new_checked(message.data, at).ok();
            Some(SmbdMsg::Data { message, smb2 })
        }
    }
}

pub(super) fn parse(payload: &[u8]) -> Option<(Exchange, Parsed<'_>)> {
    let frame = SmbdFrame {
        session: SessionRef::UNPLACED,
        msg: message(payload)?,
        call: None,
    };
    Some((exchange(&frame), Parsed::Smbd(frame)))
}
