//! Names of management classes, methods, attributes and CM reject reasons, spelled as the
//! IBA tables (and tshark) spell them, so a line reads `SubnGet(SMInfo)`.

use super::class;
use super::cm::CmMsg;

pub fn class_name(mgmt_class: u8) -> &'static str {
    match mgmt_class {
        class::SUBN_LID_ROUTED => "SubnMgt",
        class::SUBN_DIRECTED_ROUTE => "SubnMgtDR",
        0x02 => "SubnMgtReserved",
        class::SUBN_ADM => "SubnAdm",
        class::PERF => "PerfMgt",
        0x05 => "BaseboardMgt",
        0x06 => "DevMgt",
        class::CM => "CM",
        0x08 => "SNMP",
        0x09..=0x0f => "Vendor",
        0x10 => "Application",
        0x21 => "CongestionMgt",
        0x30..=0x4f => "Application",
        0x50..=0x6f => "VendorRMPP",
        _ => "Unknown",
    }
}

pub fn method_name(method: u8) -> &'static str {
    match method {
        0x01 => "Get",
        0x02 => "Set",
        0x03 => "Send",
        0x05 => "Trap",
        0x06 => "Report",
        0x07 => "TrapRepress",
        0x12 => "GetTable",
        0x13 => "GetTraceTable",
        0x14 => "GetMulti",
        0x15 => "Delete",
        0x81 => "GetResp",
        0x85 => "TrapResp",
        0x86 => "ReportResp",
        0x92 => "GetTableResp",
        0x94 => "GetMultiResp",
        0x95 => "DeleteResp",
        _ => "Unknown",
    }
}

/// The prefix tshark puts before the method in a summary: `Subn`, `SubnAdm`, `Perf`.
pub fn method_prefix(mgmt_class: u8) -> Option<&'static str> {
    match mgmt_class {
        class::SUBN_LID_ROUTED | class::SUBN_DIRECTED_ROUTE => Some("Subn"),
        class::SUBN_ADM => Some("SubnAdm"),
        class::PERF => Some("Perf"),
        _ => None,
    }
}

/// Attribute IDs are scoped by class: 0x0011 is NodeInfo to the SM and NodeRecord to the SA.
pub fn attr_name(mgmt_class: u8, attr_id: u16) -> &'static str {
    let common = match attr_id {
        0x0001 => Some("ClassPortInfo"),
        0x0002 => Some("Notice"),
        0x0003 => Some("InformInfo"),
        _ => None,
    };
    let specific = match mgmt_class {
        class::SUBN_LID_ROUTED | class::SUBN_DIRECTED_ROUTE => smp_attr(attr_id),
        class::SUBN_ADM => sa_attr(attr_id),
        class::PERF => perf_attr(attr_id),
        class::CM => CmMsg::from_attr_id(attr_id).map(cm_name),
        _ => None,
    };
    specific.or(common).unwrap_or(match attr_id {
        0xff00..=0xffff => "Vendor",
        _ => "Unknown",
    })
}

fn smp_attr(attr_id: u16) -> Option<&'static str> {
    Some(match attr_id {
        0x0010 => "NodeDescription",
        0x0011 => "NodeInfo",
        0x0012 => "SwitchInfo",
        0x0014 => "GUIDInfo",
        0x0015 => "PortInfo",
        0x0016 => "P_KeyTable",
        0x0017 => "SLtoVLMappingTable",
        0x0018 => "VLArbitrationTable",
        0x0019 => "LinearForwardingTable",
        0x001a => "RandomForwardingTable",
        0x001b => "MulticastForwardingTable",
        0x0020 => "SMInfo",
        0x0030 => "VendorDiag",
        0x0031 => "LedInfo",
        _ => return None,
    })
}

fn sa_attr(attr_id: u16) -> Option<&'static str> {
    Some(match attr_id {
        0x0011 => "NodeRecord",
        0x0012 => "PortInfoRecord",
        0x0013 => "SLtoVLMappingTableRecord",
        0x0014 => "SwitchInfoRecord",
        0x0015 => "LinearForwardingTableRecord",
        0x0016 => "RandomForwardingTableRecord",
        0x0017 => "MulticastForwardingTableRecord",
        0x0018 => "SMInfoRecord",
        0x0020 => "LinkRecord",
        0x0030 => "GuidInfoRecord",
        0x0031 => "ServiceRecord",
        0x0033 => "P_KeyTableRecord",
        0x0035 => "PathRecord",
        0x0036 => "VLArbitrationTableRecord",
        0x0038 => "MCMemberRecord",
        0x0039 => "TraceRecord",
        0x003a => "MultiPathRecord",
        0x003b => "ServiceAssociationRecord",
        0x00f3 => "InformInfoRecord",
        _ => return None,
    })
}

fn perf_attr(attr_id: u16) -> Option<&'static str> {
    Some(match attr_id {
        0x0010 => "PortSamplesControl",
        0x0011 => "PortSamplesResult",
        0x0012 => "PortCounters",
        0x001d => "PortCountersExtended",
        _ => return None,
    })
}

/// tshark's name for a CM message.
pub fn cm_name(msg: CmMsg) -> &'static str {
    match msg {
        CmMsg::Req => "ConnectRequest",
        CmMsg::Mra => "MsgRcptAck",
        CmMsg::Rej => "ConnectReject",
        CmMsg::Rep => "ConnectReply",
        CmMsg::Rtu => "ReadyToUse",
        CmMsg::Dreq => "DisconnectRequest",
        CmMsg::Drep => "DisconnectReply",
        CmMsg::SidrReq => "ServiceIDResReq",
        CmMsg::SidrRep => "ServiceIDResReqResp",
        CmMsg::Lap => "LoadAlternatePath",
        CmMsg::Apr => "AlternatePathResponse",
    }
}

/// REJ reason codes (IBA 12.6.7.2, table 112).
pub fn reject_reason_name(reason: u16) -> &'static str {
    match reason {
        1 => "NoQPAvailable",
        2 => "NoEECAvailable",
        3 => "NoResourcesAvailable",
        4 => "Timeout",
        5 => "UnsupportedRequest",
        6 => "InvalidCommID",
        7 => "InvalidCommInstance",
        8 => "InvalidServiceID",
        9 => "InvalidTransportType",
        10 => "StaleConnection",
        11 => "RDCNotExist",
        12 => "InvalidGID",
        13 => "InvalidLID",
        14 => "InvalidSL",
        15 => "InvalidTrafficClass",
        16 => "InvalidHopLimit",
        17 => "InvalidPacketRate",
        18 => "InvalidAltGID",
        19 => "InvalidAltLID",
        20 => "InvalidAltSL",
        21 => "InvalidAltTrafficClass",
        22 => "InvalidAltHopLimit",
        23 => "InvalidAltPacketRate",
        24 => "PortCMRedirect",
        25 => "PortRedirect",
        26 => "InvalidPathMTU",
        27 => "InsufficientRespResources",
        28 => "ConsumerReject",
        29 => "InvalidRNRRetry",
        30 => "DuplicateLocalCommID",
        31 => "UnsupportedClassVersion",
        32 => "InvalidFlowLabel",
        33 => "InvalidAltFlowLabel",
        _ => "Unknown",
    }
}

/// Path MTU in bytes from its IBA code, `None` for a reserved code.
pub fn mtu_bytes(code: u8) -> Option<u16> {
    match code {
        1..=5 => Some(128 << code),
        _ => None,
    }
}

/// The CM transport service type.
pub fn transport_name(code: u8) -> &'static str {
    match code {
        0 => "rc",
        1 => "uc",
        2 => "rd",
        _ => "reserved",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_class() {
        assert_eq!(attr_name(0x81, 0x20), "SMInfo");
        assert_eq!(attr_name(0x03, 0x35), "PathRecord");
        assert_eq!(attr_name(0x03, 0x11), "NodeRecord");
        assert_eq!(attr_name(0x01, 0x11), "NodeInfo");
        assert_eq!(attr_name(0x04, 0x12), "PortCounters");
        assert_eq!(attr_name(0x04, 0x01), "ClassPortInfo");
        assert_eq!(attr_name(0x07, 0x10), "ConnectRequest");
        assert_eq!(attr_name(0x07, 0x77), "Unknown");
        assert_eq!(
            (mtu_bytes(1), mtu_bytes(5), mtu_bytes(6)),
            (Some(256), Some(4096), None)
        );
        assert_eq!(method_name(0x81), "GetResp");
    }
}
