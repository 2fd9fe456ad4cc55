//! Communication management (class 0x07, IBA 12.6): the connection messages REQ, REP, RTU,
//! REJ, MRA, DREQ, DREP, LAP, APR and the SIDR pair, and the RDMA IP CM private data
//! (IBA Annex A11) that rdma_cm puts in a REQ.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::super::{Field, Layer, get, header_view};

/// Where each message puts its fields, after the MAD header (IBA 12.6).
mod field {
    use super::Field;

    /// Every message but the SIDR pair begins with the two communication IDs.
    pub const LOCAL_COMM_ID: Field = 0..4;
    pub const REMOTE_COMM_ID: Field = 4..8;
    /// The CM body: what follows the MAD header.
    pub const BODY: Field = 0..232;

    /// ConnectRequest (IBA 12.6.5).
    pub mod req {
        use super::Field;

        pub const SERVICE_ID: Field = 8..16;
        pub const LOCAL_CA_GUID: Field = 16..24;
        pub const LOCAL_Q_KEY: Field = 28..32;
        /// Local QPN, then Responder Resources.
        pub const LOCAL_QPN: Field = 32..35;
        pub const RESPONDER_RESOURCES: usize = 35;
        pub const INITIATOR_DEPTH: usize = 39;
        /// Remote CM Response Timeout, Transport Service Type, End-to-End Flow Control.
        pub const TRANSPORT_SERVICE_TYPE: usize = 43;
        pub const STARTING_PSN: Field = 44..47;
        /// Local CM Response Timeout and Retry Count.
        pub const RETRY_COUNT: usize = 47;
        pub const PARTITION_KEY: Field = 48..50;
        /// Path Packet Payload MTU, RDC Exists and RNR Retry Count.
        pub const MTU_RNR_RETRY: usize = 50;
        /// Max CM Retries, SRQ and Extended Transport Type.
        pub const MAX_CM_RETRIES_SRQ: usize = 51;
        pub const PRIMARY_LOCAL_LID: Field = 52..54;
        pub const PRIMARY_REMOTE_LID: Field = 54..56;
        pub const PRIMARY_LOCAL_GID: Field = 56..72;
        pub const PRIMARY_REMOTE_GID: Field = 72..88;
        /// Primary Flow Label in the top 20 bits, then reserved bits and Packet Rate.
        pub const PRIMARY_FLOW_LABEL: Field = 88..92;
        pub const PRIMARY_PACKET_RATE: usize = 91;
        pub const PRIMARY_TRAFFIC_CLASS: usize = 92;
        pub const PRIMARY_HOP_LIMIT: usize = 93;
        /// Primary SL, Subnet Local and reserved bits.
        pub const PRIMARY_SL: usize = 94;
        /// Primary Local ACK Timeout and reserved bits.
        pub const PRIMARY_LOCAL_ACK_TIMEOUT: usize = 95;
        pub const PRIVATE_DATA: Field = 140..232;
    }

    /// ConnectReply (IBA 12.6.8).
    pub mod rep {
        use super::Field;

        pub const LOCAL_Q_KEY: Field = 8..12;
        pub const LOCAL_QPN: Field = 12..15;
        pub const STARTING_PSN: Field = 20..23;
        pub const RESPONDER_RESOURCES: usize = 24;
        pub const INITIATOR_DEPTH: usize = 25;
        /// Failover Accepted, End-to-End Flow Control, RNR Retry Count and SRQ.
        pub const RNR_RETRY_SRQ: usize = 27;
        pub const LOCAL_CA_GUID: Field = 28..36;
        pub const PRIVATE_DATA: Field = 36..232;
    }

    /// ConnectReject (IBA 12.6.7).
    pub mod rej {
        use super::Field;

        /// Message REJected, then reserved bits.
        pub const MESSAGE_REJECTED: usize = 8;
        pub const REASON: Field = 10..12;
        /// After the 72 bytes of Additional Reject Information.
        pub const PRIVATE_DATA: Field = 84..232;
    }

    /// DisconnectRequest (IBA 12.6.10).
    pub mod dreq {
        use super::Field;

        pub const REMOTE_QPN: Field = 8..11;
    }

    /// LoadAlternatePath (IBA 12.8.1).
    pub mod lap {
        use super::Field;

        pub const REMOTE_QPN: Field = 12..15;
    }

    /// ServiceIDResolutionRequest and Response (IBA 12.11).
    pub mod sidr {
        use super::Field;

        /// In place of the communication IDs, both messages.
        pub const REQUEST_ID: Field = 0..4;
        pub const REQ_SERVICE_ID: Field = 8..16;
        pub const REP_QPN: Field = 8..11;
        pub const REP_SERVICE_ID: Field = 12..20;
    }

    /// The RDMA IP CM private-data header (IBA Annex A11).
    pub mod ip_cm {
        use super::Field;

        /// MajV and MinV.
        pub const VERSIONS: usize = 0;
        /// IPV and four reserved bits.
        pub const IP_VERSION: usize = 1;
        pub const SOURCE_PORT: Field = 2..4;
        pub const SOURCE_IP: Field = 4..20;
        /// An IPv4 source address: the last 4 bytes of the 16.
        pub const SOURCE_IPV4: Field = 16..20;
        pub const DESTINATION_IP: Field = 20..36;
        pub const DESTINATION_IPV4: Field = 32..36;
    }
}

/// The bytes after the MAD header.
type Body = [u8; field::BODY.end];

header_view!(
    /// The 232 bytes after the MAD header, laid out by the message the attribute ID names.
    CmBody, field::BODY.end, Layer::Cm
);

/// The CM message an attribute ID names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmMsg {
    Req,
    Mra,
    Rej,
    Rep,
    Rtu,
    Dreq,
    Drep,
    SidrReq,
    SidrRep,
    Lap,
    Apr,
}

impl CmMsg {
    pub fn from_attr_id(attr_id: u16) -> Option<Self> {
        Some(match attr_id {
            0x0010 => CmMsg::Req,
            0x0011 => CmMsg::Mra,
            0x0012 => CmMsg::Rej,
            0x0013 => CmMsg::Rep,
            0x0014 => CmMsg::Rtu,
            0x0015 => CmMsg::Dreq,
            0x0016 => CmMsg::Drep,
            0x0017 => CmMsg::SidrReq,
            0x0018 => CmMsg::SidrRep,
            0x0019 => CmMsg::Lap,
            0x001a => CmMsg::Apr,
            _ => return None,
        })
    }

    /// The JSON `cm.msg` value.
    pub fn key(self) -> &'static str {
        match self {
            CmMsg::Req => "req",
            CmMsg::Mra => "mra",
            CmMsg::Rej => "rej",
            CmMsg::Rep => "rep",
            CmMsg::Rtu => "rtu",
            CmMsg::Dreq => "dreq",
            CmMsg::Drep => "drep",
            CmMsg::SidrReq => "sidr_req",
            CmMsg::SidrRep => "sidr_rep",
            CmMsg::Lap => "lap",
            CmMsg::Apr => "apr",
        }
    }

    fn is_sidr(self) -> bool {
        matches!(self, CmMsg::SidrReq | CmMsg::SidrRep)
    }
}

/// One CM message: which it is, and its bytes.
#[derive(Debug, Clone, Copy)]
pub struct Cm<'a> {
    msg: CmMsg,
    body: CmBody<'a>,
}

impl<'a> Cm<'a> {
    /// `None` for CM attributes that are not messages (ClassPortInfo, vendor ones).
    pub fn new(attr_id: u16, body: CmBody<'a>) -> Option<Self> {
        CmMsg::from_attr_id(attr_id).map(|msg| Cm { msg, body })
    }

    pub fn msg(&self) -> CmMsg {
        self.msg
    }

    fn bytes(&self) -> &'a Body {
        self.body.bytes()
    }

    /// A REQ's RDMA IP CM addressing: the port space and port its service ID names, and the
    /// private-data header; `None` unless the service ID is in the IP range.
    pub fn ip_cm(&self) -> Option<(u8, u16, IpCm<'a>)> {
        let (space, port) = self.service_id().and_then(ip_service)?;
        let header = self.req()?.ip_cm()?;
        Some((space, port, header))
    }

    /// The sender's communication ID; SIDR messages have a request ID instead.
    pub fn local_comm_id(&self) -> Option<u32> {
        (!self.msg.is_sidr()).then(|| get!(u32_at, self.bytes(), field::LOCAL_COMM_ID))
    }

    /// The peer's communication ID, which a REQ does not know yet.
    pub fn remote_comm_id(&self) -> Option<u32> {
        (!self.msg.is_sidr() && self.msg != CmMsg::Req)
            .then(|| get!(u32_at, self.bytes(), field::REMOTE_COMM_ID))
    }

    /// SIDR_REQ and SIDR_REP: the ID pairing the two.
    pub fn request_id(&self) -> Option<u32> {
        self.msg
            .is_sidr()
            .then(|| get!(u32_at, self.bytes(), field::sidr::REQUEST_ID))
    }

    /// The sender's QP: REQ and REP, and the QP a SIDR_REP resolves to.
    pub fn local_qpn(&self) -> Option<u32> {
        match self.msg {
            CmMsg::Req => Some(get!(u24_at, self.bytes(), field::req::LOCAL_QPN)),
            CmMsg::Rep => Some(get!(u24_at, self.bytes(), field::rep::LOCAL_QPN)),
            CmMsg::SidrRep => Some(get!(u24_at, self.bytes(), field::sidr::REP_QPN)),
            _ => None,
        }
    }

    /// The first PSN the sender will send: REQ and REP.
    pub fn starting_psn(&self) -> Option<u32> {
        match self.msg {
            CmMsg::Req => Some(get!(u24_at, self.bytes(), field::req::STARTING_PSN)),
            CmMsg::Rep => Some(get!(u24_at, self.bytes(), field::rep::STARTING_PSN)),
            _ => None,
        }
    }

    /// The peer's QP as the sender knows it: DREQ and LAP.
    pub fn remote_qpn(&self) -> Option<u32> {
        match self.msg {
            CmMsg::Dreq => Some(get!(u24_at, self.bytes(), field::dreq::REMOTE_QPN)),
            CmMsg::Lap => Some(get!(u24_at, self.bytes(), field::lap::REMOTE_QPN)),
            _ => None,
        }
    }

    /// The service asked for: REQ and the SIDR pair.
    pub fn service_id(&self) -> Option<u64> {
        match self.msg {
            CmMsg::Req => Some(get!(u64_at, self.bytes(), field::req::SERVICE_ID)),
            CmMsg::SidrReq => Some(get!(u64_at, self.bytes(), field::sidr::REQ_SERVICE_ID)),
            CmMsg::SidrRep => Some(get!(u64_at, self.bytes(), field::sidr::REP_SERVICE_ID)),
            _ => None,
        }
    }

    pub fn req(&self) -> Option<Req<'a>> {
        (self.msg == CmMsg::Req).then_some(Req(self.bytes()))
    }

    pub fn rep(&self) -> Option<Rep<'a>> {
        (self.msg == CmMsg::Rep).then_some(Rep(self.bytes()))
    }

    /// The consumer's private data of a REQ, REP or REJ: where an upper protocol (NVMe-oF,
    /// iSER, SMB Direct) states its connection parameters. A REQ's begins with the RDMA IP CM
    /// header when its service ID is in the IP range.
    pub fn private_data(&self) -> Option<&'a [u8]> {
        let bytes = self.bytes();
        match self.msg {
            CmMsg::Req => Some(&bytes[field::req::PRIVATE_DATA]),
            CmMsg::Rep => Some(&bytes[field::rep::PRIVATE_DATA]),
            CmMsg::Rej => Some(&bytes[field::rej::PRIVATE_DATA]),
            _ => None,
        }
    }

    /// Where [`Cm::private_data`] starts, counted from the CM body, for error offsets.
    pub fn private_data_offset(&self) -> usize {
        match self.msg {
            CmMsg::Rep => field::rep::PRIVATE_DATA.start,
            CmMsg::Rej => field::rej::PRIVATE_DATA.start,
            _ => field::req::PRIVATE_DATA.start,
        }
    }

    /// REJ: the reason code (IBA table 112).
    pub fn reject_reason(&self) -> Option<u16> {
        (self.msg == CmMsg::Rej).then(|| get!(u16_at, self.bytes(), field::rej::REASON))
    }

    /// REJ: which message is rejected (0 REQ, 1 REP, 2 other).
    pub fn rejected_msg(&self) -> Option<u8> {
        (self.msg == CmMsg::Rej).then(|| self.bytes()[field::rej::MESSAGE_REJECTED] >> 6)
    }
}

/// A ConnectRequest.
#[derive(Debug, Clone, Copy)]
pub struct Req<'a>(&'a Body);

impl<'a> Req<'a> {
    pub fn local_ca_guid(&self) -> u64 {
        get!(u64_at, self.0, field::req::LOCAL_CA_GUID)
    }
    pub fn local_qkey(&self) -> u32 {
        get!(u32_at, self.0, field::req::LOCAL_Q_KEY)
    }
    pub fn responder_resources(&self) -> u8 {
        self.0[field::req::RESPONDER_RESOURCES]
    }
    pub fn initiator_depth(&self) -> u8 {
        self.0[field::req::INITIATOR_DEPTH]
    }
    /// 0 RC, 1 UC, 2 RD.
    pub fn transport_type(&self) -> u8 {
        (self.0[field::req::TRANSPORT_SERVICE_TYPE] >> 1) & 0x03
    }
    pub fn retry_count(&self) -> u8 {
        self.0[field::req::RETRY_COUNT] & 0x07
    }
    pub fn pkey(&self) -> u16 {
        get!(u16_at, self.0, field::req::PARTITION_KEY)
    }
    /// IBA MTU code: 1 = 256 bytes ... 5 = 4096.
    pub fn path_mtu_code(&self) -> u8 {
        self.0[field::req::MTU_RNR_RETRY] >> 4
    }
    pub fn rnr_retry_count(&self) -> u8 {
        self.0[field::req::MTU_RNR_RETRY] & 0x07
    }
    pub fn max_cm_retries(&self) -> u8 {
        self.0[field::req::MAX_CM_RETRIES_SRQ] >> 4
    }
    pub fn srq(&self) -> bool {
        self.0[field::req::MAX_CM_RETRIES_SRQ] & 0x08 != 0
    }
    pub fn primary_local_lid(&self) -> u16 {
        get!(u16_at, self.0, field::req::PRIMARY_LOCAL_LID)
    }
    pub fn primary_remote_lid(&self) -> u16 {
        get!(u16_at, self.0, field::req::PRIMARY_REMOTE_LID)
    }
    pub fn primary_local_gid(&self) -> Ipv6Addr {
        Ipv6Addr::from(get!(array_at, self.0, field::req::PRIMARY_LOCAL_GID))
    }
    pub fn primary_remote_gid(&self) -> Ipv6Addr {
        Ipv6Addr::from(get!(array_at, self.0, field::req::PRIMARY_REMOTE_GID))
    }
    pub fn primary_flow_label(&self) -> u32 {
        get!(u32_at, self.0, field::req::PRIMARY_FLOW_LABEL) >> 12
    }
    pub fn primary_packet_rate(&self) -> u8 {
        self.0[field::req::PRIMARY_PACKET_RATE] & 0x3f
    }
    pub fn primary_traffic_class(&self) -> u8 {
        self.0[field::req::PRIMARY_TRAFFIC_CLASS]
    }
    pub fn primary_hop_limit(&self) -> u8 {
        self.0[field::req::PRIMARY_HOP_LIMIT]
    }
    pub fn primary_sl(&self) -> u8 {
        self.0[field::req::PRIMARY_SL] >> 4
    }
    pub fn primary_local_ack_timeout(&self) -> u8 {
        self.0[field::req::PRIMARY_LOCAL_ACK_TIMEOUT] >> 3
    }
    /// The RDMA IP CM header of the private data, when the service ID is in the IP range.
    pub fn ip_cm(&self) -> Option<IpCm<'a>> {
        ip_service(get!(u64_at, self.0, field::req::SERVICE_ID))?;
        let private_data = &self.0[field::req::PRIVATE_DATA];
        IpCm::new_checked(private_data, field::req::PRIVATE_DATA.start).ok()
    }
}

/// A ConnectReply.
#[derive(Debug, Clone, Copy)]
pub struct Rep<'a>(&'a Body);

impl Rep<'_> {
    pub fn local_qkey(&self) -> u32 {
        get!(u32_at, self.0, field::rep::LOCAL_Q_KEY)
    }
    pub fn responder_resources(&self) -> u8 {
        self.0[field::rep::RESPONDER_RESOURCES]
    }
    pub fn initiator_depth(&self) -> u8 {
        self.0[field::rep::INITIATOR_DEPTH]
    }
    pub fn rnr_retry_count(&self) -> u8 {
        self.0[field::rep::RNR_RETRY_SRQ] >> 5
    }
    pub fn srq(&self) -> bool {
        self.0[field::rep::RNR_RETRY_SRQ] & 0x10 != 0
    }
    pub fn local_ca_guid(&self) -> u64 {
        get!(u64_at, self.0, field::rep::LOCAL_CA_GUID)
    }
}

/// The port space and port of an RDMA IP CM service ID (0x0000_0000_01PP_NNNN), or `None`
/// outside that range.
pub fn ip_service(service_id: u64) -> Option<(u8, u16)> {
    (service_id >> 24 == 0x01).then_some(((service_id >> 16) as u8, service_id as u16))
}

/// The UD QPN of an IPoIB connected-mode (RFC 4755) service ID, or `None`: the top byte 0x10
/// (the IETF prefix, as Linux's ipoib_cm writes it), the QPN of the IPoIB UD interface in the
/// low 24 bits.
/// In ../shared/captures/infiniband-erf.pcap the REQs ask for 0x1000_0000_0000_0404 and
/// ..._0405, the source QPs of the two hosts' IPoIB datagrams.
pub fn ipoib_cm_qpn(service_id: u64) -> Option<u32> {
    (service_id & !0x00ff_ffff == 0x1000_0000_0000_0000).then_some(service_id as u32 & 0x00ff_ffff)
}

header_view!(
    /// The RDMA IP CM private-data header (IBA Annex A11): versions, IP version, source
    /// port, and the source and destination addresses, IPv4 ones in the last 4 of 16 bytes.
    IpCm, field::ip_cm::DESTINATION_IP.end, Layer::Cm
);

impl IpCm<'_> {
    pub fn major_version(&self) -> u8 {
        self.bytes[field::ip_cm::VERSIONS] >> 4
    }
    pub fn minor_version(&self) -> u8 {
        self.bytes[field::ip_cm::VERSIONS] & 0x0f
    }
    pub fn ip_version(&self) -> u8 {
        self.bytes[field::ip_cm::IP_VERSION] >> 4
    }
    pub fn src_port(&self) -> u16 {
        get!(u16_at, self.bytes, field::ip_cm::SOURCE_PORT)
    }
    /// `None` when the IP version is neither 4 nor 6.
    pub fn src_ip(&self) -> Option<IpAddr> {
        self.address(
            get!(array_at, self.bytes, field::ip_cm::SOURCE_IPV4),
            get!(array_at, self.bytes, field::ip_cm::SOURCE_IP),
        )
    }
    pub fn dst_ip(&self) -> Option<IpAddr> {
        self.address(
            get!(array_at, self.bytes, field::ip_cm::DESTINATION_IPV4),
            get!(array_at, self.bytes, field::ip_cm::DESTINATION_IP),
        )
    }
    /// Both addresses, or neither when the IP version is neither 4 nor 6.
    pub fn addresses(&self) -> Option<(IpAddr, IpAddr)> {
        self.src_ip().zip(self.dst_ip())
    }
    fn address(&self, v4: [u8; 4], v6: [u8; 16]) -> Option<IpAddr> {
        match self.ip_version() {
            4 => Some(Ipv4Addr::from(v4).into()),
            6 => Some(Ipv6Addr::from(v6).into()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> [u8; 232] {
        [0u8; 232]
    }

    #[test]
    fn req_with_an_ip_cm_service() {
        // Hand-assembled from IBA 12.6.5 and Annex A11: comm ID 0xac6608b9, service
        // 0x0000_0000_0106_1d2f (TCP port space, port 7471), QPN 0x17, PSN 0x89bb0e, RC,
        // retry 7, P_Key 0xffff, MTU code 3, RNR retry 7; private data IPv4 192.168.2.25
        // port 0xa129 to 192.168.2.24.
        let mut b = body();
        b[0..4].copy_from_slice(&0xac66_08b9_u32.to_be_bytes());
        b[8..16].copy_from_slice(&0x0106_1d2f_u64.to_be_bytes());
        b[32..36].copy_from_slice(&[0, 0, 0x17, 1]);
        b[43] = 0xa0;
        b[44..48].copy_from_slice(&[0x89, 0xbb, 0x0e, 0xa7]);
        b[48..52].copy_from_slice(&[0xff, 0xff, 0x37, 0xf0]);
        b[141] = 0x40;
        b[142..144].copy_from_slice(&[0xa1, 0x29]);
        b[156..160].copy_from_slice(&[192, 168, 2, 25]);
        b[172..176].copy_from_slice(&[192, 168, 2, 24]);
        let cm = Cm::new(0x0010, CmBody::new_checked(&b, 0).unwrap()).unwrap();
        assert_eq!(cm.msg(), CmMsg::Req);
        assert_eq!(
            (cm.local_comm_id(), cm.remote_comm_id()),
            (Some(0xac66_08b9), None)
        );
        assert_eq!(
            (cm.local_qpn(), cm.starting_psn()),
            (Some(0x17), Some(0x89bb0e))
        );
        let req = cm.req().unwrap();
        assert_eq!((req.transport_type(), req.retry_count()), (0, 7));
        assert_eq!(
            (req.pkey(), req.path_mtu_code(), req.rnr_retry_count()),
            (0xffff, 3, 7)
        );
        assert_eq!(ip_service(cm.service_id().unwrap()), Some((0x06, 7471)));
        let ip = req.ip_cm().unwrap();
        assert_eq!((ip.ip_version(), ip.src_port()), (4, 0xa129));
        assert_eq!(ip.src_ip(), Some("192.168.2.25".parse().unwrap()));
        assert_eq!(ip.dst_ip(), Some("192.168.2.24".parse().unwrap()));
    }

    #[test]
    fn per_message_fields() {
        let mut b = body();
        b[0..12].copy_from_slice(&[0, 0, 0, 1, 0, 0, 0, 2, 0x40, 0, 0, 28]);
        let body = CmBody::new_checked(&b, 0).unwrap();
        let rej = Cm::new(0x0012, body).unwrap();
        assert_eq!(
            (rej.local_comm_id(), rej.remote_comm_id()),
            (Some(1), Some(2))
        );
        assert_eq!(
            (rej.reject_reason(), rej.rejected_msg()),
            (Some(28), Some(1))
        );
        let dreq = Cm::new(0x0015, body).unwrap();
        assert_eq!(dreq.remote_qpn(), Some(0x40_0000));
        assert_eq!(dreq.local_qpn(), None);
        let sidr = Cm::new(0x0017, body).unwrap();
        assert_eq!((sidr.request_id(), sidr.local_comm_id()), (Some(1), None));
        assert!(Cm::new(0x0001, body).is_none());
        assert_eq!(ip_service(0x1000_0000_0000_0017), None);
        assert_eq!(ipoib_cm_qpn(0x1000_0000_0000_0404), Some(0x404));
        assert_eq!(ipoib_cm_qpn(0x0106_1d2f), None);
    }
}
