//! iSER in its session: the iSER header, the iSCSI BHS after it and the SCSI CDB of a
//! command; a response is paired with its request by Initiator Task Tag.

use super::session::{CallBody, CallLink, Exchange, Parsed, SessionMessage, SessionRef};
use crate::wire::iser::bhs::{self, BHS_LEN, Bhs, RESERVED_ITT, opcode};
use crate::wire::iser::cdb;
use crate::wire::iser::header::{self, HEADER_LEN, Hello, IserHeader};

/// What an iSER SEND carries.
#[derive(Debug, Clone, Copy)]
pub enum IserMsg<'a> {
    /// An iSCSI control-type PDU: the iSER header, and the BHS when the SEND holds it.
    Control {
        header: IserHeader<'a>,
        bhs: Option<Bhs<'a>>,
    },
    /// A Hello or HelloReply.
    Hello(Hello<'a>),
}

/// One iSER frame.
#[derive(Debug, Clone, Copy)]
pub struct IserFrame<'a> {
    pub session: SessionRef,
    pub msg: IserMsg<'a>,
    /// For a response, the request it answers, when that was captured.
    pub call: Option<CallLink>,
}

impl<'a> IserFrame<'a> {
    pub fn bhs(&self) -> Option<Bhs<'a>> {
        match self.msg {
            IserMsg::Control { bhs, .. } => bhs,
            IserMsg::Hello(_) => None,
        }
    }

    pub fn header(&self) -> Option<IserHeader<'a>> {
        match self.msg {
            IserMsg::Control { header, .. } => Some(header),
            IserMsg::Hello(_) => None,
        }
    }

    /// The SCSI CDB of a SCSI Command.
    pub fn cdb(&self) -> Option<&'a [u8; 16]> {
        self.bhs()
            .filter(|b| b.opcode() == opcode::SCSI_COMMAND)
            .map(|b| b.cdb())
    }

    /// A control PDU whose flags RFC 7145 allows, carrying a request or a response: what
    /// traffic may learn a connection from.
    pub(super) fn teaches(&self) -> bool {
        self.header().is_some_and(|h| h.is_valid_control())
            && !matches!(exchange(self), Exchange::Neither)
    }

    /// How the task went, as far as a response says: the SCSI status (or the target
    /// failure) of a SCSI Response or of a Data-In with status, the login status class,
    /// the Task Management or Logout response. Text Responses and NOP-Ins answer without a
    /// status, and read as "Success".
    pub fn status(&self) -> Option<&'static str> {
        let b = self.bhs()?;
        Some(match b.opcode() {
            opcode::SCSI_RESPONSE if b.response() != 0 => bhs::scsi_response_name(b.response()),
            opcode::SCSI_RESPONSE => bhs::scsi_status_name(b.status()),
            opcode::DATA_IN if b.status_flag() => bhs::scsi_status_name(b.status()),
            opcode::LOGIN_RESPONSE => bhs::login_status_class_name(b.login_status().0),
            opcode::TASK_MGMT_RESPONSE => bhs::task_mgmt_response_name(b.response()),
            opcode::LOGOUT_RESPONSE => bhs::logout_response_name(b.response()),
            opcode::TEXT_RESPONSE | opcode::NOP_IN => "Success",
            _ => return None,
        })
    }

    /// Whether the response says the task failed: a SCSI status other than GOOD or
    /// CONDITION MET, a target failure, a login error class, a non-zero Task Management or
    /// Logout response.
    pub fn failed(&self) -> bool {
        let Some(b) = self.bhs() else { return false };
        let bad_status = |s: u8| !matches!(s, 0x00 | 0x04);
        match b.opcode() {
            opcode::SCSI_RESPONSE => b.response() != 0 || bad_status(b.status()),
            opcode::DATA_IN => b.status_flag() && bad_status(b.status()),
            opcode::LOGIN_RESPONSE => b.login_status().0 >= 2,
            opcode::TASK_MGMT_RESPONSE | opcode::LOGOUT_RESPONSE => b.response() != 0,
            _ => false,
        }
    }
}

impl SessionMessage for IserFrame<'_> {
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
        IserFrame::failed(self)
    }
}

/// The name a request is counted and shown under: the CDB's command for a SCSI Command,
/// the iSCSI opcode's otherwise.
pub fn request_name(b: &Bhs<'_>) -> &'static str {
    match b.opcode() {
        opcode::SCSI_COMMAND => cdb::name(b.cdb()),
        op => bhs::opcode_name(op),
    }
}

fn exchange(f: &IserFrame<'_>) -> Exchange {
    let Some(b) = f.bhs() else {
        return Exchange::Neither;
    };
    let itt = b.itt();
    let tagged = itt != RESERVED_ITT;
    match b.opcode() {
        opcode::SCSI_COMMAND
        | opcode::TASK_MGMT_REQUEST
        | opcode::LOGIN_REQUEST
        | opcode::TEXT_REQUEST
        | opcode::LOGOUT_REQUEST
        | opcode::NOP_OUT
            if tagged =>
        {
            let command = b.opcode() == opcode::SCSI_COMMAND;
            let edtl = u64::from(b.expected_data_len());
            Exchange::Call(CallLink {
                frame: 0,
                latency_ns: None,
                key: u64::from(itt),
                name: request_name(&b),
                body: CallBody::Scsi {
                    opcode: b.opcode(),
                    cdb: command.then(|| b.cdb()[0]),
                },
                read_len: if command && b.read_flag() { edtl } else { 0 },
                write_len: if command && b.write_flag() { edtl } else { 0 },
            })
        }
        opcode::SCSI_RESPONSE
        | opcode::TASK_MGMT_RESPONSE
        | opcode::LOGIN_RESPONSE
        | opcode::TEXT_RESPONSE
        | opcode::LOGOUT_RESPONSE
        | opcode::NOP_IN
            if tagged =>
        {
            Exchange::Reply(u64::from(itt))
        }
        opcode::DATA_IN if b.status_flag() => Exchange::Reply(u64::from(itt)),
        _ => Exchange::Neither,
    }
}

/// A control-type opcode with reserved bits clear, and room for the BHS: the test a SEND
/// pays before anything else is looked at.
#[inline]
pub(super) fn could_start(payload: &[u8]) -> bool {
    payload.len() >= HEADER_LEN + BHS_LEN
        && payload[0] & 0xf3 == header::opcode::ISCSI_CONTROL << 4
        && payload[1..4] == [0, 0, 0]
}

pub(super) fn parse(payload: &[u8]) -> Option<(Exchange, Parsed<'_>)> {
    let first = *payload.first()?;
    let msg = match first >> 4 {
        header::opcode::ISCSI_CONTROL => {
            let header = IserHeader::new_checked(payload, 0).ok()?;
            let bhs = payload
                .get(HEADER_LEN..)
                .and_then(|b| Bhs::new_checked(b, HEADER_LEN).ok());
            IserMsg::Control { header, bhs }
        }
        header::opcode::HELLO | header::opcode::HELLO_REPLY => {
            IserMsg::Hello(Hello::new_checked(payload, 0).ok()?)
        }
        _ => return None,
    };
    let frame = IserFrame {
        session: SessionRef::UNPLACED,
        msg,
        call: None,
    };
    Some((exchange(&frame), Parsed::Iser(frame)))
}
