//! SMB Direct (MS-SMBD) and the first SMB2 message of its data (MS-SMB2), with the RDMA
//! buffers a READ or WRITE names; under Wireshark's `smb_direct.*` and `smb2.*` names where
//! the value is the same.

use super::{Each, Field, MAX_ELEMENTS, Parquet, Type, Value, int};
use crate::dissect::{CallLink, Packet, ReadWrite, SmbdFrame, SmbdMsg, Ulp};
use crate::wire::smbd::data::DataHeader;
use crate::wire::smbd::negotiate::{NegotiateRequest, NegotiateResponse};
use crate::wire::smbd::nt_status;
use crate::wire::smbd::rw::{BufferDescriptor, channel_name};
use crate::wire::smbd::smb2::{Smb2Header, command_name};

fn smbd<'p, 'a>(p: &'p Packet<'a>) -> Option<&'p SmbdFrame<'a>> {
    match &p.ulp {
        Some(Ulp::Smbd(f)) => Some(f),
        _ => None,
    }
}

fn request<'a>(p: &Packet<'a>) -> Option<NegotiateRequest<'a>> {
    smbd(p).and_then(|f| match f.msg {
        SmbdMsg::NegotiateRequest(r) => Some(r),
        _ => None,
    })
}

fn response<'a>(p: &Packet<'a>) -> Option<NegotiateResponse<'a>> {
    smbd(p).and_then(|f| match f.msg {
        SmbdMsg::NegotiateResponse(r) => Some(r),
        _ => None,
    })
}

fn data<'a>(p: &Packet<'a>) -> Option<DataHeader<'a>> {
    smbd(p).and_then(|f| match f.msg {
        SmbdMsg::Data { message, .. } => Some(message.header),
        _ => None,
    })
}

fn smb2<'a>(p: &Packet<'a>) -> Option<Smb2Header<'a>> {
    smbd(p).and_then(|f| f.smb2()).map(|m| m.header)
}

fn rw<'a>(p: &Packet<'a>) -> Option<ReadWrite<'a>> {
    smbd(p).and_then(|f| f.read_write())
}

fn buffer<'a>(p: &Packet<'a>, i: usize) -> Option<BufferDescriptor<'a>> {
    smbd(p).and_then(|f| f.buffers().nth(i))
}

fn link(p: &Packet<'_>) -> Option<CallLink> {
    smbd(p).and_then(|f| f.call)
}

/// Buffer descriptors a field gives at most: a READ or WRITE of a large file scatters into
/// several registered buffers.
const MAX_BUFFERS: usize = 2 * MAX_ELEMENTS;

pub(super) const SMBD: &[Field] = &[
    int!(
        "smbd.session",
        "SMB Direct connection, numbered as the capture makes them known",
        |p| smbd(p).map(|f| f.session.index)
    ),
    string!(
        "smbd.recognised_by",
        "how the connection was recognised as SMB Direct: cm, traffic or option",
        |p| smbd(p).map(|f| f.session.recognised_by.name())
    ),
    string!(
        "smbd.type",
        "SMB Direct message: negotiate_request, negotiate_response or data",
        |p| smbd(p).map(|f| match f.msg {
            SmbdMsg::NegotiateRequest(_) => "negotiate_request",
            SmbdMsg::NegotiateResponse(_) => "negotiate_response",
            SmbdMsg::Data { .. } => "data",
        })
    ),
    int!(
        "smbd.min_version",
        "negotiate: lowest version (0x100)",
        |p| {
            request(p)
                .map(|r| r.min_version())
                .or_else(|| response(p).map(|r| r.min_version()))
        }
    )
    .wireshark("smb_direct.version.min"),
    int!("smbd.max_version", "negotiate: highest version", |p| {
        request(p)
            .map(|r| r.max_version())
            .or_else(|| response(p).map(|r| r.max_version()))
    })
    .wireshark("smb_direct.version.max"),
    int!(
        "smbd.negotiated_version",
        "negotiate response: the version chosen",
        |p| response(p).map(|r| r.negotiated_version())
    )
    .wireshark("smb_direct.version.negotiated"),
    int!(
        "smbd.credits_requested",
        "SMB Direct credits requested (negotiate or data message)",
        |p| request(p)
            .map(|r| r.credits_requested())
            .or_else(|| response(p).map(|r| r.credits_requested()))
            .or_else(|| data(p).map(|d| d.credits_requested()))
    )
    .wireshark("smb_direct.credits.requested"),
    int!(
        "smbd.credits_granted",
        "SMB Direct credits granted (negotiate response or data message)",
        |p| response(p)
            .map(|r| r.credits_granted())
            .or_else(|| data(p).map(|d| d.credits_granted()))
    )
    .wireshark("smb_direct.credits.granted"),
    int!(
        "smbd.nt_status",
        "negotiate response: NTSTATUS (0 success)",
        |p| response(p).map(|r| r.status())
    )
    .wireshark("smb_direct.status"),
    int!(
        "smbd.max_read_write_size",
        "negotiate response: largest RDMA READ or WRITE",
        |p| response(p).map(|r| r.max_read_write_size())
    )
    .wireshark("smb_direct.max_read_write_size"),
    int!(
        "smbd.preferred_send_size",
        "negotiate: preferred send size",
        |p| request(p)
            .map(|r| r.preferred_send_size())
            .or_else(|| response(p).map(|r| r.preferred_send_size()))
    )
    .wireshark("smb_direct.preferred_send_size"),
    int!("smbd.max_receive_size", "negotiate: largest receive", |p| {
        request(p)
            .map(|r| r.max_receive_size())
            .or_else(|| response(p).map(|r| r.max_receive_size()))
    })
    .wireshark("smb_direct.max_receive_size"),
    int!(
        "smbd.max_fragmented_size",
        "negotiate: largest message reassembled from fragments",
        |p| request(p)
            .map(|r| r.max_fragmented_size())
            .or_else(|| response(p).map(|r| r.max_fragmented_size()))
    )
    .wireshark("smb_direct.max_fragmented_size"),
    int!("smbd.flags", "data message flags", |p| data(p)
        .map(|d| d.flags()))
    .wireshark("smb_direct.flags"),
    boolean!(
        "smbd.response_requested",
        "data message: SMB_DIRECT_RESPONSE_REQUESTED",
        |p| data(p).map(|d| d.response_requested())
    )
    .wireshark("smb_direct.flags.response_requested"),
    int!(
        "smbd.remaining_length",
        "data message: bytes of the message still to come in later fragments",
        |p| data(p).map(|d| d.remaining_data_length())
    )
    .wireshark("smb_direct.remaining_length"),
    int!("smbd.data_offset", "data message: DataOffset", |p| data(p)
        .map(|d| d.data_offset()))
    .wireshark("smb_direct.data_offset"),
    int!("smbd.data_length", "data message: DataLength", |p| data(p)
        .map(|d| d.data_length()))
    .wireshark("smb_direct.data_length"),
    int!(
        "smbd.smb2.header_length",
        "SMB2 header StructureSize (64)",
        |p| smb2(p).map(|h| h.structure_size())
    )
    .wireshark("smb2.header_len"),
    int!("smbd.smb2.credit_charge", "SMB2 CreditCharge", |p| smb2(p)
        .map(|h| h.credit_charge())),
    int!("smbd.smb2.command", "SMB2 command", |p| smb2(p)
        .map(|h| h.command()))
    .wireshark("smb2.cmd"),
    string!(
        "smbd.smb2.command_name",
        "SMB2 command name (READ, WRITE, CREATE...)",
        |p| smb2(p).map(|h| command_name(h.command()))
    ),
    int!("smbd.smb2.flags", "SMB2 header flags", |p| smb2(p)
        .map(|h| h.flags()))
    .wireshark("smb2.flags"),
    boolean!(
        "smbd.smb2.response",
        "SMB2 SERVER_TO_REDIR: a response",
        |p| smb2(p).map(|h| h.is_response())
    )
    .wireshark("smb2.flags.response"),
    int!(
        "smbd.smb2.next_command",
        "SMB2 NextCommand: offset of the next compounded message, 0 for the last",
        |p| smb2(p).map(|h| h.next_command())
    )
    .wireshark("smb2.chain_offset"),
    int!(
        "smbd.smb2.message_id",
        "SMB2 MessageId: pairs a response with its request",
        |p| smb2(p).map(|h| h.message_id())
    )
    .wireshark("smb2.msg_id"),
    int!("smbd.smb2.session_id", "SMB2 SessionId", |p| smb2(p)
        .map(|h| h.session_id()))
    .wireshark("smb2.sesid"),
    int!("smbd.smb2.tree_id", "SMB2 TreeId (sync header)", |p| smb2(
        p
    )
    .and_then(|h| h.tree_id()))
    .wireshark("smb2.tid"),
    int!("smbd.smb2.async_id", "SMB2 AsyncId (async header)", |p| {
        smb2(p).and_then(|h| h.async_id())
    }),
    int!(
        "smbd.smb2.credits_requested",
        "SMB2 request: CreditRequest",
        |p| smb2(p).filter(|h| !h.is_response()).map(|h| h.credits())
    )
    .wireshark("smb2.credits.requested"),
    int!(
        "smbd.smb2.credits_granted",
        "SMB2 response: CreditResponse",
        |p| smb2(p).filter(|h| h.is_response()).map(|h| h.credits())
    )
    .wireshark("smb2.credits.granted"),
    int!("smbd.smb2.nt_status", "SMB2 response: NTSTATUS", |p| smb2(
        p
    )
    .filter(|h| h.is_response())
    .map(|h| h.status()))
    .wireshark("smb2.nt_status"),
    string!(
        "smbd.smb2.nt_status_name",
        "SMB2 response: NTSTATUS name",
        |p| smb2(p)
            .filter(|h| h.is_response())
            .map(|h| nt_status::name(h.status()))
    ),
    int!("smbd.smb2.read_length", "READ request: Length", |p| rw(p)
        .and_then(|b| match b {
            ReadWrite::ReadRequest(r) => Some(r.length()),
            _ => None,
        }))
    .wireshark("smb2.read_length"),
    int!(
        "smbd.smb2.data_length",
        "READ response: bytes returned inline (0 when they went by RDMA)",
        |p| rw(p).and_then(|b| match b {
            ReadWrite::ReadResponse(r) => Some(r.data_length()),
            _ => None,
        })
    ),
    int!(
        "smbd.smb2.data_remaining",
        "READ response: DataRemaining, over RDMA the bytes the server wrote",
        |p| rw(p).and_then(|b| match b {
            ReadWrite::ReadResponse(r) => Some(r.data_remaining()),
            _ => None,
        })
    )
    .wireshark("smb2.read_remaining"),
    int!("smbd.smb2.write_length", "WRITE request: Length", |p| rw(p)
        .and_then(|b| match b {
            ReadWrite::WriteRequest(w) => Some(w.length()),
            _ => None,
        }))
    .wireshark("smb2.write_length"),
    int!(
        "smbd.smb2.write_count",
        "WRITE response: bytes written",
        |p| rw(p).and_then(|b| match b {
            ReadWrite::WriteResponse(w) => Some(w.count()),
            _ => None,
        })
    ),
    int!(
        "smbd.smb2.write_remaining",
        "WRITE response: Remaining",
        |p| rw(p).and_then(|b| match b {
            ReadWrite::WriteResponse(w) => Some(w.remaining()),
            _ => None,
        })
    ),
    int!(
        "smbd.smb2.file_offset",
        "READ or WRITE request: offset in the file",
        |p| rw(p).and_then(|b| match b {
            ReadWrite::ReadRequest(r) => Some(r.offset()),
            ReadWrite::WriteRequest(w) => Some(w.offset()),
            _ => None,
        })
    )
    .wireshark("smb2.file_offset"),
    int!(
        "smbd.smb2.minimum_count",
        "READ request: MinimumCount",
        |p| rw(p).and_then(|b| match b {
            ReadWrite::ReadRequest(r) => Some(r.minimum_count()),
            _ => None,
        })
    ),
    int!(
        "smbd.smb2.channel",
        "READ or WRITE request: channel (1 RDMA_V1, 2 RDMA_V1_INVALIDATE)",
        |p| channel(p)
    )
    .wireshark("smb2.channel"),
    string!(
        "smbd.smb2.channel_name",
        "READ or WRITE request: channel name",
        |p| channel(p).map(channel_name)
    ),
    int!(
        "smbd.smb2.remaining_bytes",
        "READ or WRITE request: RemainingBytes",
        |p| rw(p).and_then(|b| match b {
            ReadWrite::ReadRequest(r) => Some(r.remaining_bytes()),
            ReadWrite::WriteRequest(w) => Some(w.remaining_bytes()),
            _ => None,
        })
    )
    .wireshark("smb2.remaining_bytes"),
    each!(
        "smbd.smb2.buffers.offset",
        Type::Int,
        "RDMA buffer descriptor: the client buffer's address",
        |p, i| buffer(p, i).map(|d| d.offset()),
        int,
        MAX_BUFFERS
    )
    .wireshark("smb2.buffer_descriptor.offset"),
    each!(
        "smbd.smb2.buffers.token",
        Type::Int,
        "RDMA buffer descriptor: its token, the R_Key the server's RDMA READ or WRITE carries",
        |p, i| buffer(p, i).map(|d| d.token()),
        int,
        MAX_BUFFERS
    )
    .wireshark("smb2.buffer_descriptor.token"),
    each!(
        "smbd.smb2.buffers.length",
        Type::Int,
        "RDMA buffer descriptor: its length",
        |p, i| buffer(p, i).map(|d| d.length()),
        int,
        MAX_BUFFERS
    )
    .wireshark("smb2.buffer_descriptor.length"),
    string!(
        "smbd.status",
        "how the request went: the NTSTATUS name of a response",
        |p| smbd(p).and_then(|f| f.status())
    ),
];

fn channel(p: &Packet<'_>) -> Option<u32> {
    rw(p).and_then(|b| match b {
        ReadWrite::ReadRequest(r) => Some(r.channel()),
        ReadWrite::WriteRequest(w) => Some(w.channel()),
        _ => None,
    })
}

pub(super) const CALL: [Field; 3] =
    call_link_fields!("smbd", link, "smb2.response_to", "smb2.time");

pub(super) const PRESENT: &[Field] = &[
    header!("smbd", "is SMB Direct", |p| smbd(p).is_some()),
    protocol!(
        "smb_direct",
        "SMB Direct: negotiate and data messages",
        |p| { smbd(p).is_some() }
    ),
    protocol!("smb2", "SMB2, as SMB Direct carries it", |p| smb2(p)
        .is_some()),
];

/// How many occurrences the list field `name` has in a frame, for the export's list
/// columns: one per RDMA buffer descriptor.
pub fn list_len(name: &str) -> Option<fn(&Packet<'_>) -> usize> {
    name.starts_with("smbd.smb2.buffers.")
        .then_some(|p| smbd(p).map_or(0, |f| f.buffers().count()))
}
