//! iSER (RFC 7145), the iSCSI PDU inside it (RFC 7143) and the SCSI CDB of a command; under
//! Wireshark's `iser.*` and `iscsi.*` names where the value is the same.

use super::{Field, Parquet, Type, Value};
use crate::dissect::{CallLink, IserFrame, IserMsg, Packet, Ulp};
use crate::wire::iser::bhs::{self, Bhs, opcode};
use crate::wire::iser::cdb;
use crate::wire::iser::header::{self, Hello, IserHeader};

fn iser<'p, 'a>(p: &'p Packet<'a>) -> Option<&'p IserFrame<'a>> {
    match &p.ulp {
        Some(Ulp::Iser(f)) => Some(f),
        _ => None,
    }
}

fn control<'a>(p: &Packet<'a>) -> Option<IserHeader<'a>> {
    iser(p).and_then(|f| f.header())
}

fn hello<'a>(p: &Packet<'a>) -> Option<Hello<'a>> {
    iser(p).and_then(|f| match f.msg {
        IserMsg::Hello(h) => Some(h),
        IserMsg::Control { .. } => None,
    })
}

fn hello_of<'a>(p: &Packet<'a>, op: u8) -> Option<Hello<'a>> {
    hello(p).filter(|h| h.opcode() == op)
}

fn pdu<'a>(p: &Packet<'a>) -> Option<Bhs<'a>> {
    iser(p).and_then(|f| f.bhs())
}

/// The BHS of a PDU with this opcode.
fn pdu_of<'a>(p: &Packet<'a>, op: u8) -> Option<Bhs<'a>> {
    pdu(p).filter(|b| b.opcode() == op)
}

fn command<'a>(p: &Packet<'a>) -> Option<Bhs<'a>> {
    pdu_of(p, opcode::SCSI_COMMAND)
}

/// The SCSI status of a SCSI Response, or of a Data-In carrying it.
fn scsi_status(p: &Packet<'_>) -> Option<u8> {
    pdu(p)
        .filter(|b| {
            b.opcode() == opcode::SCSI_RESPONSE || b.opcode() == opcode::DATA_IN && b.status_flag()
        })
        .map(|b| b.status())
}

fn response_byte(p: &Packet<'_>) -> Option<u8> {
    pdu(p)
        .filter(|b| {
            matches!(
                b.opcode(),
                opcode::SCSI_RESPONSE | opcode::TASK_MGMT_RESPONSE | opcode::LOGOUT_RESPONSE
            )
        })
        .map(|b| b.response())
}

fn link(p: &Packet<'_>) -> Option<CallLink> {
    iser(p).and_then(|f| f.call)
}

pub(super) const ISER: &[Field] = &[
    int!(
        "iser.session",
        "iSER connection, numbered as the capture makes them known",
        |p| iser(p).map(|f| f.session.index)
    ),
    string!(
        "iser.recognised_by",
        "how the connection was recognised as iSER: cm, traffic or option",
        |p| iser(p).map(|f| f.session.recognised_by.name())
    ),
    int!(
        "iser.flags",
        "iSER header's first byte: opcode and flags",
        |p| control(p)
            .map(|h| h.flags())
            .or_else(|| hello(p).map(|h| h.flags()))
    )
    .same_in_wireshark(),
    int!(
        "iser.opcode",
        "iSER opcode (1 iSCSI control-type PDU, 2 Hello, 3 HelloReply)",
        |p| control(p)
            .map(|h| h.opcode())
            .or_else(|| hello(p).map(|h| h.opcode()))
    )
    .wireshark("iser.flags.opcode"),
    string!("iser.opcode_name", "iSER opcode name", |p| control(p)
        .map(|h| h.opcode())
        .or_else(|| hello(p).map(|h| h.opcode()))
        .map(header::opcode_name)),
    boolean!(
        "iser.wsv",
        "iSER Write STag Valid: the target RDMA READs the initiator's buffer",
        |p| control(p).map(|h| h.wsv())
    )
    .wireshark("iser.flags.wsv"),
    boolean!(
        "iser.rsv",
        "iSER Read STag Valid: the target RDMA WRITEs the initiator's buffer",
        |p| control(p).map(|h| h.rsv())
    )
    .wireshark("iser.flags.rsv"),
    int!(
        "iser.write_stag",
        "iSER Write STag: the R_Key of the buffer holding the data to write",
        |p| control(p).map(|h| h.write_stag())
    )
    .same_in_wireshark(),
    int!(
        "iser.write_va",
        "iSER Write Base Offset: that buffer's address",
        |p| control(p).map(|h| h.write_va())
    )
    .wireshark("iser.write_base_offset"),
    int!(
        "iser.read_stag",
        "iSER Read STag: the R_Key of the buffer the read data goes to",
        |p| control(p).map(|h| h.read_stag())
    )
    .same_in_wireshark(),
    int!(
        "iser.read_va",
        "iSER Read Base Offset: that buffer's address",
        |p| control(p).map(|h| h.read_va())
    )
    .wireshark("iser.read_base_offset"),
    int!(
        "iser.max_version",
        "iSER Hello or HelloReply: highest version",
        |p| hello(p).map(|h| h.max_version())
    ),
    int!(
        "iser.min_version",
        "iSER Hello: lowest version; HelloReply: version chosen",
        |p| hello(p).map(|h| h.min_version())
    ),
    int!("iser.ird", "iSER Hello: iSER-IRD", |p| hello_of(
        p,
        header::opcode::HELLO
    )
    .map(|h| h.ird_ord()))
    .same_in_wireshark(),
    int!("iser.ord", "iSER HelloReply: iSER-ORD", |p| hello_of(
        p,
        header::opcode::HELLO_REPLY
    )
    .map(|h| h.ird_ord()))
    .same_in_wireshark(),
    boolean!(
        "iser.rej",
        "iSER HelloReply: the target rejects the connection",
        |p| hello_of(p, header::opcode::HELLO_REPLY).map(|h| h.rej())
    )
    .wireshark("iser.flags.rej"),
    int!("iser.iscsi.opcode", "iSCSI opcode", |p| pdu(p)
        .map(|b| b.opcode()))
    .wireshark("iscsi.opcode"),
    string!("iser.iscsi.opcode_name", "iSCSI opcode name", |p| pdu(p)
        .map(|b| bhs::opcode_name(b.opcode()))),
    boolean!("iser.iscsi.immediate", "iSCSI immediate delivery", |p| pdu(
        p
    )
    .map(|b| b.immediate())),
    boolean!("iser.iscsi.final", "iSCSI Final bit", |p| pdu(p)
        .map(|b| b.final_bit())),
    int!(
        "iser.iscsi.itt",
        "iSCSI Initiator Task Tag: pairs a response with its request",
        |p| pdu(p).map(|b| b.itt())
    )
    .wireshark("iscsi.initiatortasktag"),
    int!(
        "iser.iscsi.total_ahs_length",
        "iSCSI TotalAHSLength, in 4-byte words",
        |p| pdu(p).map(|b| b.total_ahs_len())
    )
    .wireshark("iscsi.totalahslength"),
    int!(
        "iser.iscsi.data_segment_length",
        "iSCSI DataSegmentLength",
        |p| pdu(p).map(|b| b.data_segment_len())
    )
    .wireshark("iscsi.datasegmentlength"),
    int!("iser.iscsi.lun", "SCSI Command: the LUN field", |p| {
        command(p).map(|b| b.lun())
    }),
    boolean!("iser.iscsi.read", "SCSI Command: data is read (R)", |p| {
        command(p).map(|b| b.read_flag())
    })
    .wireshark("iscsi.scsicommand.R"),
    boolean!(
        "iser.iscsi.write",
        "SCSI Command: data is written (W)",
        |p| command(p).map(|b| b.write_flag())
    )
    .wireshark("iscsi.scsicommand.W"),
    int!(
        "iser.iscsi.expected_data_length",
        "SCSI Command: Expected Data Transfer Length",
        |p| command(p).map(|b| b.expected_data_len())
    )
    .wireshark("iscsi.scsicommand.expecteddatatransferlength"),
    int!(
        "iser.iscsi.cmdsn",
        "iSCSI CmdSN of a request (not of a Data-Out or SNACK)",
        |p| pdu(p).and_then(|b| b.cmdsn())
    )
    .wireshark("iscsi.cmdsn"),
    int!("iser.iscsi.statsn", "iSCSI StatSN of a target PDU", |p| {
        pdu(p).and_then(|b| b.statsn())
    })
    .wireshark("iscsi.statsn"),
    int!(
        "iser.iscsi.cdb_opcode",
        "SCSI Command: the CDB's operation code",
        |p| command(p).map(|b| b.cdb()[0])
    ),
    string!(
        "iser.iscsi.cdb_name",
        "SCSI Command: the CDB's command name (READ(10), INQUIRY...)",
        |p| command(p).map(|b| cdb::name(b.cdb()))
    ),
    int!(
        "iser.iscsi.lba",
        "READ or WRITE (10) or (16): logical block address",
        |p| command(p)
            .and_then(|b| cdb::lba_and_blocks(b.cdb()))
            .map(|l| l.0)
    ),
    int!(
        "iser.iscsi.transfer_length",
        "READ or WRITE (10) or (16): transfer length in blocks",
        |p| command(p)
            .and_then(|b| cdb::lba_and_blocks(b.cdb()))
            .map(|l| l.1)
    ),
    int!(
        "iser.iscsi.response",
        "SCSI, Task Management or Logout Response: the response byte",
        |p| response_byte(p)
    ),
    int!(
        "iser.iscsi.scsi_status",
        "SCSI Response (or Data-In with status): SCSI status (0 GOOD, 2 CHECK CONDITION)",
        |p| scsi_status(p)
    )
    .wireshark("iscsi.scsiresponse.status"),
    int!(
        "iser.iscsi.residual_count",
        "SCSI Response: Residual Count",
        |p| pdu_of(p, opcode::SCSI_RESPONSE).map(|b| b.residual_count())
    )
    .wireshark("iscsi.scsiresponse.residualcount"),
    int!(
        "iser.iscsi.status_class",
        "Login Response: Status-Class (0 success)",
        |p| pdu_of(p, opcode::LOGIN_RESPONSE).map(|b| b.login_status().0)
    ),
    int!(
        "iser.iscsi.status_detail",
        "Login Response: Status-Detail",
        |p| pdu_of(p, opcode::LOGIN_RESPONSE).map(|b| b.login_status().1)
    ),
    string!(
        "iser.status",
        "how the request went: SCSI status, login status class, or the response's name",
        |p| iser(p).and_then(|f| f.status())
    ),
];

pub(super) const CALL: [Field; 3] =
    call_link_fields!("iser", link, "iscsi.request_frame", "iscsi.time");

pub(super) const PRESENT: &[Field] = &[
    header!("iser", "is iSER", |p| iser(p).is_some()),
    protocol!("iscsi", "iSCSI, as iSER carries it", |p| pdu(p).is_some()),
];
