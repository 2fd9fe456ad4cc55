//! The SMB Direct part of `read`: the `smbd` layer of `--json` (which `-V` draws), and the
//! summary at the end of a text line: `SMB2 READ Request mid 5 len 65536 off 0 channel
//! RDMA_V1`, `SMB2 READ Response mid 5 STATUS_SUCCESS call frame 8 latency 250.000 us`,
//! `SMBD NegotiateRequest credits 255`.

use std::io::Write;

use super::call_link::{self, write_tail};
use super::jsonw::Obj;
use crate::dissect::{ReadWrite, SmbdFrame, SmbdMsg};
use crate::wire::smbd::nt_status;
use crate::wire::smbd::rw::channel_name;
use crate::wire::smbd::smb2::command_name;

/// Appends ` | SMB2 ...` (or ` | SMBD ...` for what carries no SMB2 header) to a text line.
pub fn write_summary(out: &mut Vec<u8>, f: &SmbdFrame<'_>) {
    out.extend_from_slice(b" |");
    match f.msg {
        SmbdMsg::NegotiateRequest(r) => {
            let _ = write!(
                out,
                " SMBD NegotiateRequest credits {}",
                r.credits_requested()
            );
        }
        SmbdMsg::NegotiateResponse(r) => {
            let _ = write!(
                out,
                " SMBD NegotiateResponse {} credits {}",
                nt_status::name(r.status()),
                r.credits_granted()
            );
        }
        SmbdMsg::Data {
            message,
            smb2: None,
        } => {
            let h = message.header;
            let _ = write!(
                out,
                " SMBD DataMessage len {} remaining {}",
                h.data_length(),
                h.remaining_data_length()
            );
        }
        SmbdMsg::Data { smb2: Some(m), .. } => {
            let h = m.header;
            let kind = if h.is_response() {
                "Response"
            } else {
                "Request"
            };
            let _ = write!(
                out,
                " SMB2 {} {kind} mid {}",
                command_name(h.command()),
                h.message_id()
            );
            match f.read_write() {
                Some(ReadWrite::ReadRequest(r)) => {
                    let _ = write!(out, " len {} off {}", r.length(), r.offset());
                    if r.channel() != 0 {
                        let _ = write!(out, " channel {}", channel_name(r.channel()));
                    }
                }
                Some(ReadWrite::WriteRequest(w)) => {
                    let _ = write!(out, " len {} off {}", w.data_len(), w.offset());
                    if w.channel() != 0 {
                        let _ = write!(out, " channel {}", channel_name(w.channel()));
                    }
                }
                _ => {}
            }
            if m.is_compounded() {
                out.extend_from_slice(b" (compounded)");
            }
            if let Some(status) = f.status() {
                let _ = write!(out, " {status}");
            }
        }
    }
    if let Some(link) = &f.call {
        write_tail(out, link);
    }
}

/// The `smbd` object of `read --json`.
pub fn write_json(o: &mut Obj<'_>, f: &SmbdFrame<'_>) {
    let mut r = o.obj("smbd");
    r.u64("session", f.session.index)
        .name("recognised_by", f.session.recognised_by.name());
    match f.msg {
        SmbdMsg::NegotiateRequest(n) => {
            r.name("type", "negotiate_request")
                .u64("min_version", n.min_version())
                .u64("max_version", n.max_version())
                .u64("credits_requested", n.credits_requested())
                .u64("preferred_send_size", n.preferred_send_size())
                .u64("max_receive_size", n.max_receive_size())
                .u64("max_fragmented_size", n.max_fragmented_size());
        }
        SmbdMsg::NegotiateResponse(n) => {
            r.name("type", "negotiate_response")
                .u64("min_version", n.min_version())
                .u64("max_version", n.max_version())
                .u64("negotiated_version", n.negotiated_version())
                .u64("credits_requested", n.credits_requested())
                .u64("credits_granted", n.credits_granted())
                .u64("nt_status", n.status())
                .u64("max_read_write_size", n.max_read_write_size())
                .u64("preferred_send_size", n.preferred_send_size())
                .u64("max_receive_size", n.max_receive_size())
                .u64("max_fragmented_size", n.max_fragmented_size());
        }
        SmbdMsg::Data { message, smb2 } => {
            let h = message.header;
            r.name("type", "data")
                .u64("credits_requested", h.credits_requested())
                .u64("credits_granted", h.credits_granted())
                .u64("flags", h.flags())
                .bool("response_requested", h.response_requested())
                .u64("remaining_length", h.remaining_data_length())
                .u64("data_offset", h.data_offset())
                .u64("data_length", h.data_length());
            if let Some(m) = smb2 {
                write_smb2(&mut r, f, &m);
            }
        }
    }
    if let Some(status) = f.status() {
        r.name("status", status);
    }
    if let Some(link) = &f.call {
        call_link::write_json(&mut r, link);
    }
}

fn write_smb2(r: &mut Obj<'_>, f: &SmbdFrame<'_>, m: &crate::wire::smbd::smb2::Smb2<'_>) {
    let h = m.header;
    let mut s = r.obj("smb2");
    s.u64("header_length", h.structure_size())
        .u64("credit_charge", h.credit_charge())
        .u64("command", h.command())
        .name("command_name", command_name(h.command()))
        .u64("flags", h.flags())
        .bool("response", h.is_response())
        .u64("next_command", h.next_command())
        .u64("message_id", h.message_id())
        .u64("session_id", h.session_id());
    if h.is_response() {
        s.u64("credits_granted", h.credits())
            .u64("nt_status", h.status())
            .name("nt_status_name", nt_status::name(h.status()));
    } else {
        s.u64("credits_requested", h.credits());
    }
    if let Some(tree) = h.tree_id() {
        s.u64("tree_id", tree);
    }
    if let Some(id) = h.async_id() {
        s.u64("async_id", id);
    }
    match f.read_write() {
        Some(ReadWrite::ReadRequest(q)) => {
            s.u64("read_length", q.length())
                .u64("file_offset", q.offset())
                .u64("minimum_count", q.minimum_count())
                .u64("channel", q.channel())
                .name("channel_name", channel_name(q.channel()))
                .u64("remaining_bytes", q.remaining_bytes());
        }
        Some(ReadWrite::ReadResponse(q)) => {
            s.u64("data_length", q.data_length())
                .u64("data_remaining", q.data_remaining());
        }
        Some(ReadWrite::WriteRequest(w)) => {
            s.u64("write_length", w.length())
                .u64("file_offset", w.offset())
                .u64("channel", w.channel())
                .name("channel_name", channel_name(w.channel()))
                .u64("remaining_bytes", w.remaining_bytes());
        }
        Some(ReadWrite::WriteResponse(w)) => {
            s.u64("write_count", w.count())
                .u64("write_remaining", w.remaining());
        }
        None => {}
    }
    if f.buffers().next().is_some() {
        let mut list = s.arr("buffers");
        for d in f.buffers() {
            list.obj()
                .u64("offset", d.offset())
                .u64("token", d.token())
                .u64("length", d.length());
        }
    }
}
