//! Communication management (class 0x07, IBA 12.6): the connection messages REQ, REP, RTU,
//! REJ, MRA, DREQ, DREP, LAP, APR and the SIDR pair, and the RDMA IP CM private data
//! (IBA Annex A11) that rdma_cm puts in a REQ.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::super::{Layer, array_at, header_view, u8_at, u16_at, u32_at, u64_at};

header_view!(
    /// The 232 bytes after the MAD header, laid out by the message the attribute ID names.
    CmBody, 232, Layer::Cm
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

    fn bytes(&self) -> &'a [u8; 232] {
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
        (!self.msg.is_sidr()).then(|| u32_at::<0, 232>(self.bytes()))
    }

    /// The peer's communication ID, which a REQ does not know yet.
    pub fn remote_comm_id(&self) -> Option<u32> {
        (!self.msg.is_sidr() && self.msg != CmMsg::Req).then(|| u32_at::<4, 232>(self.bytes()))
    }

    /// SIDR_REQ and SIDR_REP: the ID pairing the two.
    pub fn request_id(&self) -> Option<u32> {
        self.msg.is_sidr().then(|| u32_at::<0, 232>(self.bytes()))
    }

    /// The sender's QP: REQ and REP, and the QP a SIDR_REP resolves to.
    pub fn local_qpn(&self) -> Option<u32> {
        match self.msg {
            CmMsg::Req => Some(u32_at::<32, 232>(self.bytes()) >> 8),
            CmMsg::Rep => Some(u32_at::<12, 232>(self.bytes()) >> 8),
            CmMsg::SidrRep => Some(u32_at::<8, 232>(self.bytes()) >> 8),
            _ => None,
        }
    }

    /// The first PSN the sender will send: REQ and REP.
    pub fn starting_psn(&self) -> Option<u32> {
        match self.msg {
            CmMsg::Req => Some(u32_at::<44, 232>(self.bytes()) >> 8),
            CmMsg::Rep => Some(u32_at::<20, 232>(self.bytes()) >> 8),
            _ => None,
        }
    }

    /// The peer's QP as the sender knows it: DREQ and LAP.
    pub fn remote_qpn(&self) -> Option<u32> {
        match self.msg {
            CmMsg::Dreq => Some(u32_at::<8, 232>(self.bytes()) >> 8),
            CmMsg::Lap => Some(u32_at::<12, 232>(self.bytes()) >> 8),
            _ => None,
        }
    }

    /// The service asked for: REQ and the SIDR pair.
    pub fn service_id(&self) -> Option<u64> {
        match self.msg {
            CmMsg::Req | CmMsg::SidrReq => Some(u64_at::<8, 232>(self.bytes())),
            CmMsg::SidrRep => Some(u64_at::<12, 232>(self.bytes())),
            _ => None,
        }
    }

    pub fn req(&self) -> Option<Req<'a>> {
        (self.msg == CmMsg::Req).then_some(Req(self.bytes()))
    }

    pub fn rep(&self) -> Option<Rep<'a>> {
        (self.msg == CmMsg::Rep).then_some(Rep(self.bytes()))
    }

    /// REJ: the reason code (IBA table 112).
    pub fn reject_reason(&self) -> Option<u16> {
        (self.msg == CmMsg::Rej).then(|| u16_at::<10, 232>(self.bytes()))
    }

    /// REJ: which message is rejected (0 REQ, 1 REP, 2 other).
    pub fn rejected_msg(&self) -> Option<u8> {
        (self.msg == CmMsg::Rej).then(|| u8_at::<8, 232>(self.bytes()) >> 6)
    }
}

/// A ConnectRequest.
#[derive(Debug, Clone, Copy)]
pub struct Req<'a>(&'a [u8; 232]);

impl<'a> Req<'a> {
    pub fn local_ca_guid(&self) -> u64 {
        u64_at::<16, 232>(self.0)
    }
    pub fn local_qkey(&self) -> u32 {
        u32_at::<28, 232>(self.0)
    }
    pub fn responder_resources(&self) -> u8 {
        u8_at::<35, 232>(self.0)
    }
    pub fn initiator_depth(&self) -> u8 {
        u8_at::<39, 232>(self.0)
    }
    /// 0 RC, 1 UC, 2 RD.
    pub fn transport_type(&self) -> u8 {
        (u8_at::<43, 232>(self.0) >> 1) & 0x03
    }
    pub fn retry_count(&self) -> u8 {
        u8_at::<47, 232>(self.0) & 0x07
    }
    pub fn pkey(&self) -> u16 {
        u16_at::<48, 232>(self.0)
    }
    /// IBA MTU code: 1 = 256 bytes ... 5 = 4096.
    pub fn path_mtu_code(&self) -> u8 {
        u8_at::<50, 232>(self.0) >> 4
    }
    pub fn rnr_retry_count(&self) -> u8 {
        u8_at::<50, 232>(self.0) & 0x07
    }
    pub fn max_cm_retries(&self) -> u8 {
        u8_at::<51, 232>(self.0) >> 4
    }
    pub fn srq(&self) -> bool {
        u8_at::<51, 232>(self.0) & 0x08 != 0
    }
    pub fn primary_local_lid(&self) -> u16 {
        u16_at::<52, 232>(self.0)
    }
    pub fn primary_remote_lid(&self) -> u16 {
        u16_at::<54, 232>(self.0)
    }
    pub fn primary_local_gid(&self) -> Ipv6Addr {
        Ipv6Addr::from(array_at::<56, 16, 232>(self.0))
    }
    pub fn primary_remote_gid(&self) -> Ipv6Addr {
        Ipv6Addr::from(array_at::<72, 16, 232>(self.0))
    }
    pub fn primary_flow_label(&self) -> u32 {
        u32_at::<88, 232>(self.0) >> 12
    }
    pub fn primary_packet_rate(&self) -> u8 {
        u8_at::<91, 232>(self.0) & 0x3f
    }
    pub fn primary_traffic_class(&self) -> u8 {
        u8_at::<92, 232>(self.0)
    }
    pub fn primary_hop_limit(&self) -> u8 {
        u8_at::<93, 232>(self.0)
    }
    pub fn primary_sl(&self) -> u8 {
        u8_at::<94, 232>(self.0) >> 4
    }
    pub fn primary_local_ack_timeout(&self) -> u8 {
        u8_at::<95, 232>(self.0) >> 3
    }
    /// The RDMA IP CM header of the private data, when the service ID is in the IP range.
    pub fn ip_cm(&self) -> Option<IpCm<'a>> {
        ip_service(u64_at::<8, 232>(self.0))?;
        IpCm::new_checked(&self.0[IP_CM_AT..], IP_CM_AT).ok()
    }
}

/// The private data starts here in a REQ.
const IP_CM_AT: usize = 140;

/// A ConnectReply.
#[derive(Debug, Clone, Copy)]
pub struct Rep<'a>(&'a [u8; 232]);

impl Rep<'_> {
    pub fn local_qkey(&self) -> u32 {
        u32_at::<8, 232>(self.0)
    }
    pub fn responder_resources(&self) -> u8 {
        u8_at::<24, 232>(self.0)
    }
    pub fn initiator_depth(&self) -> u8 {
        u8_at::<25, 232>(self.0)
    }
    pub fn rnr_retry_count(&self) -> u8 {
        u8_at::<27, 232>(self.0) >> 5
    }
    pub fn srq(&self) -> bool {
        u8_at::<27, 232>(self.0) & 0x10 != 0
    }
    pub fn local_ca_guid(&self) -> u64 {
        u64_at::<28, 232>(self.0)
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
    IpCm, 36, Layer::Cm
);

impl IpCm<'_> {
    pub fn major_version(&self) -> u8 {
        u8_at::<0, 36>(self.bytes) >> 4
    }
    pub fn minor_version(&self) -> u8 {
        u8_at::<0, 36>(self.bytes) & 0x0f
    }
    pub fn ip_version(&self) -> u8 {
        u8_at::<1, 36>(self.bytes) >> 4
    }
    pub fn src_port(&self) -> u16 {
        u16_at::<2, 36>(self.bytes)
    }
    /// `None` when the IP version is neither 4 nor 6.
    pub fn src_ip(&self) -> Option<IpAddr> {
        self.address(
            array_at::<16, 4, 36>(self.bytes),
            array_at::<4, 16, 36>(self.bytes),
        )
    }
    pub fn dst_ip(&self) -> Option<IpAddr> {
        self.address(
            array_at::<32, 4, 36>(self.bytes),
            array_at::<20, 16, 36>(self.bytes),
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
