//! Every fixture against the truth its generator wrote down (fixtures/expected/*.json), from
//! how it built each frame: scapy's ICRC, deliberate corruption, deliberate truncation.
//! Nothing here comes from rdmadump's own code.
//!
//! Every key the generator writes is in TRUTH with the way it is checked; a key that is not
//! there fails the test, so a fact the generator starts recording cannot be ignored.

use serde_json::Value;

use crate::harness::{fixture, rdmadump, read_json, stderr, stdout};

/// How one truth key is checked against rdmadump's frame.
#[derive(Clone, Copy)]
enum How {
    /// Equal to the value at this path of rdmadump's frame (0/1 for false/true); a `*`
    /// stands for the index of the enclosing list element.
    Same(&'static str),
    /// An object whose members have keys of their own in TRUTH.
    Object,
    /// A list of objects whose members have keys of their own, under `key.*.member`.
    Each,
    /// Checked by a function that states what the key implies for rdmadump's output.
    By(fn(&Frame<'_>, &str, &Value) -> Result<(), String>),
}

use How::*;

/// Every key of a frame in fixtures/expected/*.json, nested keys joined with dots.
const TRUTH: &[(&str, How)] = &[
    ("frame", Same("frame")),
    ("kind", By(kind)),
    ("kind_with_roce_port_4792", By(kind_with_roce_port)),
    ("ts_ns", Same("ts_ns")),
    ("caplen", Same("caplen")),
    ("orig_len", Same("len")),
    ("note", By(note)),
    ("iface", By(iface)),
    ("epb_flags", By(container_metadata)),
    ("epb_comment", By(container_metadata)),
    ("erf_type", Same("erf.type")),
    ("erf_wlen", By(erf_wlen)),
    ("erf_rlen", By(erf_room)),
    ("erf_ts_frac", By(erf_ts_frac)),
    ("erf_extensions", By(erf_room)),
    ("pcap_record_len", By(erf_room)),
    ("dst_mac", Same("eth.dst")),
    ("eth_fcs", By(eth_fcs)),
    ("vlans", Each),
    ("vlans.*.vid", Same("eth.vlan.*.id")),
    ("vlans.*.pcp", Same("eth.vlan.*.pcp")),
    ("vlans.*.dei", Same("eth.vlan.*.dei")),
    ("vlans.*.tpid", By(vlan_tpid)),
    ("mac_control", Object),
    ("mac_control.opcode", By(mac_control_opcode)),
    ("mac_control.class_enable_vector", Same("pfc.class_enable")),
    ("mac_control.quanta", By(mac_control_quanta)),
    ("ip", Object),
    ("ip.version", Same("ip.version")),
    ("ip.src", Same("ip.src")),
    ("ip.dst", Same("ip.dst")),
    ("ip.dscp", Same("ip.dscp")),
    ("ip.ecn", Same("ip.ecn")),
    ("ip.ttl", Same("ip.ttl")),
    ("ip.hop_limit", Same("ip.ttl")),
    ("ip.flow_label", Same("ip.flow_label")),
    ("ip.tc", By(ipv6_traffic_class)),
    ("ip.ihl", By(ipv4_ihl)),
    ("udp", Object),
    ("udp.sport", Same("udp.sport")),
    ("udp.dport", Same("udp.dport")),
    ("lrh", Object),
    ("lrh.vl", Same("lrh.vl")),
    ("lrh.lver", Same("lrh.lver")),
    ("lrh.sl", Same("lrh.sl")),
    ("lrh.lnh", Same("lrh.lnh")),
    ("lrh.dlid", Same("lrh.dlid")),
    ("lrh.pkt_len", Same("lrh.pktlen")),
    ("lrh.slid", Same("lrh.slid")),
    ("rwh", Object),
    ("rwh.ethertype", By(raw_ethertype)),
    ("grh", Object),
    ("grh.tclass", Same("grh.tclass")),
    ("grh.flow_label", Same("grh.flow_label")),
    ("grh.paylen", Same("grh.paylen")),
    ("grh.nxthdr", Same("grh.nxthdr")),
    ("grh.hop_limit", Same("grh.hoplmt")),
    ("grh.sgid", Same("grh.sgid")),
    ("grh.dgid", Same("grh.dgid")),
    ("opcode", By(transport)),
    ("opcode_name", By(transport)),
    ("se", By(transport)),
    ("migreq", By(transport)),
    ("pad_cnt", By(transport)),
    ("tver", By(transport)),
    ("pkey", By(transport)),
    ("fecn", By(transport)),
    ("becn", By(transport)),
    ("dest_qp", By(transport)),
    ("ackreq", By(transport)),
    ("psn", By(transport)),
    ("rdeth", Object),
    ("rdeth.ee_ctx", Same("rdeth.eecnxt")),
    ("deth", Object),
    ("deth.qkey", Same("deth.qkey")),
    ("deth.src_qp", Same("deth.src_qp")),
    ("xrceth", Object),
    ("xrceth.xrc_srq", Same("xrceth.xrcsrq")),
    ("reth", Object),
    ("reth.va", Same("reth.va")),
    ("reth.rkey", Same("reth.rkey")),
    ("reth.dma_len", Same("reth.dma_len")),
    ("atomiceth", Object),
    ("atomiceth.va", Same("atomic_eth.va")),
    ("atomiceth.rkey", Same("atomic_eth.rkey")),
    ("atomiceth.swap", Same("atomic_eth.swap")),
    ("atomiceth.compare", Same("atomic_eth.compare")),
    ("atomicacketh", Object),
    ("atomicacketh.orig_data", Same("atomic_ack_eth.orig")),
    ("aeth", Object),
    ("aeth.syndrome", Same("aeth.syndrome")),
    ("aeth.msn", Same("aeth.msn")),
    ("aeth.type", Same("aeth.kind")),
    ("aeth.credit", Same("aeth.code")),
    ("aeth.rnr_timer", Same("aeth.code")),
    ("aeth.nak_code", Same("aeth.code")),
    ("aeth.credits", Same("aeth.credits")),
    ("aeth.rnr_timer_us", Same("aeth.rnr_timer_us")),
    ("feth", Object),
    ("feth.word", Same("feth")),
    ("immdt", Object),
    ("immdt.imm", Same("immdt")),
    ("ieth", Object),
    ("ieth.rkey", Same("ieth")),
    ("payload_len", By(transport)),
    ("cnp_reserved_len", By(cnp_reserved_len)),
    ("icrc", By(transport)),
    ("vcrc", Same("vcrc.status")),
    ("truncated", By(truncated)),
    ("captured_payload_len", By(captured_payload_len)),
    ("ipoib", Object),
    ("ipoib.ethertype", Same("ipoib.ethertype")),
    ("arp", Object),
    ("arp.op", Same("arp.op")),
    ("arp.sender_ip", Same("arp.sender_ip")),
    ("arp.target_ip", Same("arp.target_ip")),
    ("tcp", Object),
    ("tcp.sport", Same("tcp.sport")),
    ("tcp.dport", Same("tcp.dport")),
    ("icmp", Object),
    ("icmp.type", Same("icmp.type")),
    ("icmp.code", Same("icmp.code")),
    ("error_layer", Same("error.layer")),
    ("error_offset", By(error_offset)),
    ("error_field", By(error_offset)),
    ("truncated_layer", Same("truncated.layer")),
    // Management datagrams (fixtures/gen/make_mad.py): the truth uses rdmadump's key names.
    ("cm", Object),
    ("cm.ip_cm", Object),
    ("cm.ip_cm.dst_ip", Same("cm.ip_cm.dst_ip")),
    ("cm.ip_cm.ip_version", Same("cm.ip_cm.ip_version")),
    ("cm.ip_cm.port", Same("cm.ip_cm.port")),
    ("cm.ip_cm.port_space", Same("cm.ip_cm.port_space")),
    ("cm.ip_cm.src_ip", Same("cm.ip_cm.src_ip")),
    ("cm.ip_cm.src_port", Same("cm.ip_cm.src_port")),
    ("cm.local_comm_id", Same("cm.local_comm_id")),
    ("cm.local_qpn", Same("cm.local_qpn")),
    ("cm.msg", Same("cm.msg")),
    ("cm.name", Same("cm.name")),
    ("cm.path_mtu", Same("cm.path_mtu")),
    ("cm.pkey", Same("cm.pkey")),
    ("cm.primary_path", Object),
    (
        "cm.primary_path.local_gid",
        Same("cm.primary_path.local_gid"),
    ),
    (
        "cm.primary_path.local_lid",
        Same("cm.primary_path.local_lid"),
    ),
    (
        "cm.primary_path.remote_gid",
        Same("cm.primary_path.remote_gid"),
    ),
    (
        "cm.primary_path.remote_lid",
        Same("cm.primary_path.remote_lid"),
    ),
    ("cm.reason", Same("cm.reason")),
    ("cm.reason_name", Same("cm.reason_name")),
    ("cm.remote_comm_id", Same("cm.remote_comm_id")),
    ("cm.remote_qpn", Same("cm.remote_qpn")),
    ("cm.request_id", Same("cm.request_id")),
    ("cm.retry_count", Same("cm.retry_count")),
    ("cm.rnr_retry_count", Same("cm.rnr_retry_count")),
    ("cm.service_id", Same("cm.service_id")),
    ("cm.starting_psn", Same("cm.starting_psn")),
    ("cm.transport", Same("cm.transport")),
    ("mad", Object),
    ("mad.attr_id", Same("mad.attr_id")),
    ("mad.attr_mod", Same("mad.attr_mod")),
    ("mad.attr_name", Same("mad.attr_name")),
    ("mad.base_version", Same("mad.base_version")),
    ("mad.class", Same("mad.class")),
    ("mad.class_name", Same("mad.class_name")),
    ("mad.class_version", Same("mad.class_version")),
    ("mad.dr", Object),
    ("mad.dr.d", Same("mad.dr.d")),
    ("mad.dr.dr_dlid", Same("mad.dr.dr_dlid")),
    ("mad.dr.dr_slid", Same("mad.dr.dr_slid")),
    ("mad.dr.hop_count", Same("mad.dr.hop_count")),
    ("mad.dr.hop_pointer", Same("mad.dr.hop_pointer")),
    ("mad.dr.initial_path", Same("mad.dr.initial_path")),
    ("mad.dr.return_path", Same("mad.dr.return_path")),
    ("mad.m_key", Same("mad.m_key")),
    ("mad.method", Same("mad.method")),
    ("mad.method_name", Same("mad.method_name")),
    ("mad.node_info", Object),
    (
        "mad.node_info.base_version",
        Same("mad.node_info.base_version"),
    ),
    (
        "mad.node_info.class_version",
        Same("mad.node_info.class_version"),
    ),
    ("mad.node_info.device_id", Same("mad.node_info.device_id")),
    (
        "mad.node_info.local_port_num",
        Same("mad.node_info.local_port_num"),
    ),
    ("mad.node_info.node_guid", Same("mad.node_info.node_guid")),
    ("mad.node_info.node_type", Same("mad.node_info.node_type")),
    ("mad.node_info.num_ports", Same("mad.node_info.num_ports")),
    (
        "mad.node_info.partition_cap",
        Same("mad.node_info.partition_cap"),
    ),
    ("mad.node_info.port_guid", Same("mad.node_info.port_guid")),
    ("mad.node_info.revision", Same("mad.node_info.revision")),
    (
        "mad.node_info.system_image_guid",
        Same("mad.node_info.system_image_guid"),
    ),
    ("mad.node_info.vendor_id", Same("mad.node_info.vendor_id")),
    ("mad.path_record", Object),
    ("mad.path_record.dgid", Same("mad.path_record.dgid")),
    ("mad.path_record.dlid", Same("mad.path_record.dlid")),
    (
        "mad.path_record.flow_label",
        Same("mad.path_record.flow_label"),
    ),
    (
        "mad.path_record.hop_limit",
        Same("mad.path_record.hop_limit"),
    ),
    ("mad.path_record.mtu", Same("mad.path_record.mtu")),
    (
        "mad.path_record.mtu_bytes",
        Same("mad.path_record.mtu_bytes"),
    ),
    (
        "mad.path_record.mtu_selector",
        Same("mad.path_record.mtu_selector"),
    ),
    ("mad.path_record.num_path", Same("mad.path_record.num_path")),
    (
        "mad.path_record.packet_lifetime",
        Same("mad.path_record.packet_lifetime"),
    ),
    (
        "mad.path_record.packet_lifetime_selector",
        Same("mad.path_record.packet_lifetime_selector"),
    ),
    ("mad.path_record.pkey", Same("mad.path_record.pkey")),
    (
        "mad.path_record.preference",
        Same("mad.path_record.preference"),
    ),
    ("mad.path_record.rate", Same("mad.path_record.rate")),
    (
        "mad.path_record.rate_selector",
        Same("mad.path_record.rate_selector"),
    ),
    (
        "mad.path_record.raw_traffic",
        Same("mad.path_record.raw_traffic"),
    ),
    (
        "mad.path_record.reversible",
        Same("mad.path_record.reversible"),
    ),
    ("mad.path_record.sgid", Same("mad.path_record.sgid")),
    ("mad.path_record.sl", Same("mad.path_record.sl")),
    ("mad.path_record.slid", Same("mad.path_record.slid")),
    ("mad.path_record.tclass", Same("mad.path_record.tclass")),
    ("mad.port_counters", Object),
    (
        "mad.port_counters.counter_select",
        Same("mad.port_counters.counter_select"),
    ),
    (
        "mad.port_counters.excessive_buffer_overrun_errors",
        Same("mad.port_counters.excessive_buffer_overrun_errors"),
    ),
    (
        "mad.port_counters.link_downed",
        Same("mad.port_counters.link_downed"),
    ),
    (
        "mad.port_counters.link_error_recovery",
        Same("mad.port_counters.link_error_recovery"),
    ),
    (
        "mad.port_counters.local_link_integrity_errors",
        Same("mad.port_counters.local_link_integrity_errors"),
    ),
    (
        "mad.port_counters.port_select",
        Same("mad.port_counters.port_select"),
    ),
    (
        "mad.port_counters.rcv_constraint_errors",
        Same("mad.port_counters.rcv_constraint_errors"),
    ),
    (
        "mad.port_counters.rcv_data",
        Same("mad.port_counters.rcv_data"),
    ),
    (
        "mad.port_counters.rcv_errors",
        Same("mad.port_counters.rcv_errors"),
    ),
    (
        "mad.port_counters.rcv_pkts",
        Same("mad.port_counters.rcv_pkts"),
    ),
    (
        "mad.port_counters.rcv_remote_physical_errors",
        Same("mad.port_counters.rcv_remote_physical_errors"),
    ),
    (
        "mad.port_counters.rcv_switch_relay_errors",
        Same("mad.port_counters.rcv_switch_relay_errors"),
    ),
    (
        "mad.port_counters.symbol_errors",
        Same("mad.port_counters.symbol_errors"),
    ),
    (
        "mad.port_counters.vl15_dropped",
        Same("mad.port_counters.vl15_dropped"),
    ),
    (
        "mad.port_counters.xmit_constraint_errors",
        Same("mad.port_counters.xmit_constraint_errors"),
    ),
    (
        "mad.port_counters.xmit_data",
        Same("mad.port_counters.xmit_data"),
    ),
    (
        "mad.port_counters.xmit_discards",
        Same("mad.port_counters.xmit_discards"),
    ),
    (
        "mad.port_counters.xmit_pkts",
        Same("mad.port_counters.xmit_pkts"),
    ),
    (
        "mad.port_counters.xmit_wait",
        Same("mad.port_counters.xmit_wait"),
    ),
    ("mad.port_info", Object),
    (
        "mad.port_info.capability_mask",
        Same("mad.port_info.capability_mask"),
    ),
    ("mad.port_info.gid_prefix", Same("mad.port_info.gid_prefix")),
    ("mad.port_info.lid", Same("mad.port_info.lid")),
    (
        "mad.port_info.link_speed_active",
        Same("mad.port_info.link_speed_active"),
    ),
    (
        "mad.port_info.link_width_active",
        Same("mad.port_info.link_width_active"),
    ),
    ("mad.port_info.lmc", Same("mad.port_info.lmc")),
    (
        "mad.port_info.local_port_num",
        Same("mad.port_info.local_port_num"),
    ),
    ("mad.port_info.m_key", Same("mad.port_info.m_key")),
    (
        "mad.port_info.master_sm_lid",
        Same("mad.port_info.master_sm_lid"),
    ),
    (
        "mad.port_info.master_sm_sl",
        Same("mad.port_info.master_sm_sl"),
    ),
    ("mad.port_info.mtu_cap", Same("mad.port_info.mtu_cap")),
    (
        "mad.port_info.neighbor_mtu",
        Same("mad.port_info.neighbor_mtu"),
    ),
    (
        "mad.port_info.port_phys_state",
        Same("mad.port_info.port_phys_state"),
    ),
    ("mad.port_info.port_state", Same("mad.port_info.port_state")),
    ("mad.sa", Object),
    ("mad.sa.attr_offset", Same("mad.sa.attr_offset")),
    ("mad.sa.component_mask", Same("mad.sa.component_mask")),
    ("mad.sa.rmpp_flags", Same("mad.sa.rmpp_flags")),
    ("mad.sa.rmpp_status", Same("mad.sa.rmpp_status")),
    ("mad.sa.rmpp_type", Same("mad.sa.rmpp_type")),
    ("mad.sa.sm_key", Same("mad.sa.sm_key")),
    ("mad.sm_info", Object),
    ("mad.sm_info.act_count", Same("mad.sm_info.act_count")),
    ("mad.sm_info.guid", Same("mad.sm_info.guid")),
    ("mad.sm_info.priority", Same("mad.sm_info.priority")),
    ("mad.sm_info.sm_key", Same("mad.sm_info.sm_key")),
    ("mad.sm_info.sm_state", Same("mad.sm_info.sm_state")),
    ("mad.status", Same("mad.status")),
    ("mad.tid", Same("mad.tid")),
    ("tunnel", Each),
    ("tunnel.*.type", Same("tunnel.*.type")),
    ("tunnel.*.src", Same("tunnel.*.src")),
    ("tunnel.*.dst", Same("tunnel.*.dst")),
    ("tunnel.*.src_mac", Same("tunnel.*.src_mac")),
    ("tunnel.*.dst_mac", Same("tunnel.*.dst_mac")),
    ("tunnel.*.eth_vlan", Object),
    ("tunnel.*.eth_vlan.id", Same("tunnel.*.eth_vlan.id")),
    ("tunnel.*.eth_vlan.pcp", Same("tunnel.*.eth_vlan.pcp")),
    ("tunnel.*.proto", Same("tunnel.*.proto")),
    ("tunnel.*.key", Same("tunnel.*.key")),
    ("tunnel.*.seq", Same("tunnel.*.seq")),
    ("tunnel.*.checksum", Same("tunnel.*.checksum")),
    ("tunnel.*.version", Same("tunnel.*.version")),
    ("tunnel.*.session_id", Same("tunnel.*.session_id")),
    ("tunnel.*.vlan", Same("tunnel.*.vlan")),
    ("tunnel.*.cos", Same("tunnel.*.cos")),
    ("tunnel.*.index", Same("tunnel.*.index")),
    ("tunnel.*.direction", Same("tunnel.*.direction")),
    ("tunnel.*.timestamp", Same("tunnel.*.timestamp")),
    ("tunnel.*.hw_id", Same("tunnel.*.hw_id")),
    ("tunnel.*.platform_id", Same("tunnel.*.platform_id")),
    ("tunnel.*.sport", Same("tunnel.*.sport")),
    ("tunnel.*.dport", Same("tunnel.*.dport")),
    ("tunnel.*.flags", Same("tunnel.*.flags")),
    ("tunnel.*.vni", Same("tunnel.*.vni")),
    ("tunnel_too_deep", Same("tunnel_too_deep")),
];

/// Headers a frame of kind other shows too.
const NOT_RDMA: &[&str] = &["ip", "udp", "ipoib", "arp", "tcp", "icmp"];

/// Keys of the file-level truth, beside `frames`, each with its check.
const FILE_TRUTH: &[(&str, FileCheck)] = &[
    ("file_error", file_error),
    ("interfaces", interfaces),
    ("skipped_blocks", skipped_blocks),
    ("shb_comment", file_container_metadata),
];

type FileCheck = fn(&Run<'_>, &Value) -> Result<(), String>;

/// One rdmadump run over one fixture.
struct Run<'a> {
    file: &'a str,
    extra: &'a [&'a str],
    got: Vec<Value>,
    stderr: String,
    status: Option<i32>,
}

impl Run<'_> {
    fn with_roce_port(&self) -> bool {
        self.extra.contains(&"--roce-port")
    }
}

/// One truth frame and rdmadump's frame of the same number.
#[derive(Clone, Copy)]
struct Frame<'a> {
    run: &'a Run<'a>,
    want: &'a Value,
    got: &'a Value,
    /// The position in the enclosing list, for keys under an `Each`.
    index: Option<usize>,
}

impl Frame<'_> {
    fn at(&self, path: &str) -> Value {
        let path = match self.index {
            Some(i) => path.replace('*', &i.to_string()),
            None => path.to_string(),
        };
        get(self.got, &path).cloned().unwrap_or(Value::Null)
    }

    fn num(&self, path: &str) -> Result<u64, String> {
        self.at(path)
            .as_u64()
            .ok_or_else(|| format!("rdmadump has no number at {path}"))
    }

    /// The kind this run must give: the truth's kind, or under `--roce-port 4792` the kind
    /// the generator wrote down for that option.
    fn kind(&self) -> &Value {
        match self.want.get("kind_with_roce_port_4792") {
            Some(kind) if self.run.with_roce_port() => kind,
            _ => &self.want["kind"],
        }
    }

    fn expect(&self, what: &str, expected: &Value, path: &str) -> Result<(), String> {
        let actual = self.at(path);
        if same(expected, &actual) {
            Ok(())
        } else {
            Err(format!(
                "{what}: expected {expected}, rdmadump {path} = {actual}"
            ))
        }
    }
}

fn ensure(ok: bool, message: impl FnOnce() -> String) -> Result<(), String> {
    if ok { Ok(()) } else { Err(message()) }
}

fn number(value: &Value) -> u64 {
    value
        .as_u64()
        .unwrap_or_else(|| panic!("truth value {value} is not a number"))
}

fn kind(fr: &Frame<'_>, _: &str, value: &Value) -> Result<(), String> {
    if fr.want.get("kind_with_roce_port_4792").is_some() && fr.run.with_roce_port() {
        // This run is the option's: kind_with_roce_port_4792 says what it must give.
        return Ok(());
    }
    fr.expect("kind", value, "kind")
}

fn kind_with_roce_port(fr: &Frame<'_>, _: &str, value: &Value) -> Result<(), String> {
    if fr.run.with_roce_port() {
        fr.expect("kind with --roce-port 4792", value, "kind")
    } else {
        // Without the option the port is not RoCE's: the kind differs, or the fixture would
        // not show what the option does.
        ensure(fr.want["kind"] == "other" && value != "other", || {
            format!(
                "truth: kind {} without the option, {value} with it",
                fr.want["kind"]
            )
        })?;
        fr.expect("kind without --roce-port", &fr.want["kind"], "kind")
    }
}

/// A sentence for people reading the truth file; the facts it states are keys of their own.
fn note(_: &Frame<'_>, _: &str, value: &Value) -> Result<(), String> {
    ensure(value.as_str().is_some_and(|s| !s.is_empty()), || {
        format!("note is not a sentence: {value}")
    })
}

/// rdmadump leaves `iface` out when it is 0 (docs/json-schema.md).
fn iface(fr: &Frame<'_>, _: &str, value: &Value) -> Result<(), String> {
    let got = fr.at("iface").as_u64().unwrap_or(0);
    ensure(got == number(value), || {
        format!("iface: expected {value}, rdmadump {got}")
    })
}

/// The BTH's fields and what follows from them. Under an option that makes the frame not
/// RDMA (kind `other`) they describe what the bytes would decode to, which rdmadump must not
/// show. When the truth says the snaplen cut the BTH (it is truncated and lists no DestQP),
/// it lists the fields whose bytes were captured, but rdmadump shows headers whole only: it
/// must show no BTH and say the cut is in the BTH.
fn transport(fr: &Frame<'_>, key: &str, value: &Value) -> Result<(), String> {
    let path = match key {
        "opcode" => "bth.opcode",
        "opcode_name" => "bth.opcode_name",
        "se" => "bth.se",
        "migreq" => "bth.migreq",
        "pad_cnt" => "bth.pad",
        "tver" => "bth.tver",
        "pkey" => "bth.pkey",
        "fecn" => "bth.fecn",
        "becn" => "bth.becn",
        "dest_qp" => "bth.dest_qp",
        "ackreq" => "bth.ack_req",
        "psn" => "bth.psn",
        "payload_len" => "payload_len",
        "icrc" => "icrc.status",
        _ => unreachable!("{key} is not a transport key"),
    };
    let top = path.split('.').next().unwrap();
    if *fr.kind() == "other" {
        return ensure(fr.got.get(top).is_none(), || {
            format!(
                "{key}: kind other must have no {top}, rdmadump has {}",
                fr.got[top]
            )
        });
    }
    let bth_cut =
        fr.want.get("truncated") == Some(&Value::Bool(true)) && fr.want.get("dest_qp").is_none();
    if bth_cut && top == "bth" {
        ensure(fr.got.get("bth").is_none(), || {
            format!("{key}: the truth's BTH is cut, rdmadump shows one")
        })?;
        return fr.expect(key, &Value::from("bth"), "truncated.layer");
    }
    fr.expect(key, value, path)
}

/// Container metadata: pcapng options rdmadump does not report (docs/json-schema.md has no
/// key for them). They must not change the decode, so the same file with every EPB and SHB
/// option and every interface name removed must decode to the same frame.
fn container_metadata(fr: &Frame<'_>, key: &str, _: &Value) -> Result<(), String> {
    let frame = number(&fr.want["frame"]) as usize;
    let bare = without_metadata(fr.run.file)?;
    let other = bare
        .get(frame - 1)
        .ok_or_else(|| format!("{key}: frame {frame} missing without the metadata"))?;
    ensure(other == fr.got, || {
        format!("{key}: without the metadata frame {frame} decodes as {other}")
    })
}

fn file_container_metadata(run: &Run<'_>, value: &Value) -> Result<(), String> {
    ensure(value.as_str().is_some_and(|s| !s.is_empty()), || {
        format!("shb_comment: {value}")
    })?;
    let bare = without_metadata(run.file)?;
    ensure(bare == run.got, || {
        "without the section's comment and the options the frames decode differently".into()
    })
}

/// The ERF record header says how many bytes the record holds (`rlen`, 16 of them header,
/// 2 more of pad for Ethernet) and how long the packet was (`wlen`); the pcap record around it
/// may hold fewer. rdmadump's captured length must be what is there, up to the packet's length,
/// and the frame truncated exactly when the packet did not fit.
fn erf_room(fr: &Frame<'_>, _: &str, _: &Value) -> Result<(), String> {
    let rlen = number(&fr.want["erf_rlen"]);
    let record = fr.want.get("pcap_record_len").map_or(rlen, number);
    let pad = if number(&fr.want["erf_type"]) == 2 {
        2
    } else {
        0
    };
    // Each extension header takes 8 bytes of the record before the packet.
    let extensions = fr.want.get("erf_extensions").map_or(0, number) * 8;
    let room = rlen.min(record) - 16 - extensions - pad;
    let wlen = number(&fr.want["erf_wlen"]);
    let caplen = fr.num("caplen")?;
    ensure(caplen == wlen.min(room), || {
        format!("ERF: {room} bytes of room for a {wlen}-byte packet, rdmadump caplen {caplen}")
    })?;
    ensure(fr.got.get("truncated").is_some() == (wlen > room), || {
        format!(
            "ERF: {room} bytes of room for {wlen}, rdmadump truncated = {}",
            fr.got["truncated"]
        )
    })
}

fn erf_wlen(fr: &Frame<'_>, key: &str, value: &Value) -> Result<(), String> {
    fr.expect(key, value, "erf.wlen")?;
    // For ERF the length on the wire is the packet's (docs/json-schema.md `len`).
    fr.expect(key, value, "len")?;
    erf_room(fr, key, value)
}

/// The fraction of a second in units of 2^-32 s: rdmadump's nanoseconds are it rounded.
fn erf_ts_frac(fr: &Frame<'_>, _: &str, value: &Value) -> Result<(), String> {
    let ns = (u128::from(number(value)) * 1_000_000_000 + (1 << 31)) >> 32;
    let got = fr.num("ts_ns")?;
    ensure(
        u128::from(got % 1_000_000_000) == ns % 1_000_000_000,
        || format!("ERF fraction {value} is {ns} ns, rdmadump ts_ns {got}"),
    )
}

/// A trailing 4-byte FCS: the frame is the Ethernet header, the IP datagram and 4 bytes, and
/// those 4 bytes are neither payload nor ICRC (both checked by their own keys).
fn eth_fcs(fr: &Frame<'_>, key: &str, value: &Value) -> Result<(), String> {
    ensure(*value == Value::Bool(true), || format!("{key}: {value}"))?;
    let datagram = eth_and_ip_len(fr)?;
    let len = fr.num("len")?;
    ensure(len == datagram + 4, || {
        format!("{key}: Ethernet header and IP datagram {datagram} bytes, frame {len}")
    })
}

/// The Ethernet header (with its tags) and the IP datagram, by rdmadump's fields.
fn eth_and_ip_len(fr: &Frame<'_>) -> Result<u64, String> {
    let tags = fr.at("eth.vlan").as_array().map_or(0, Vec::len) as u64;
    let ip = match fr.num("ip.version")? {
        4 => fr.num("ip.total_len")?,
        _ => 40 + fr.num("ip.payload_len")?,
    };
    Ok(14 + 4 * tags + ip)
}

/// The first tag's TPID is the frame's first EtherType, which rdmadump gives; an inner TPID
/// is what made rdmadump read a tag there, so the tag must be in its list.
fn vlan_tpid(fr: &Frame<'_>, key: &str, value: &Value) -> Result<(), String> {
    let i = fr.index.unwrap();
    if i == 0 {
        return fr.expect(key, value, "eth.type");
    }
    let tags = fr.at("eth.vlan").as_array().map_or(0, Vec::len);
    ensure(tags > i, || {
        format!("{key}: tag {i} missing, rdmadump has {tags}")
    })
}

fn mac_control_opcode(fr: &Frame<'_>, key: &str, value: &Value) -> Result<(), String> {
    let (shown, not) = match number(value) {
        0x0101 => ("pfc", "pause"),
        0x0001 => ("pause", "pfc"),
        other => return Err(format!("{key}: truth has MAC Control opcode {other:#x}")),
    };
    ensure(
        fr.got.get(shown).is_some() && fr.got.get(not).is_none(),
        || format!("{key} {value}: rdmadump must show {shown} and not {not}"),
    )
}

fn mac_control_quanta(fr: &Frame<'_>, key: &str, value: &Value) -> Result<(), String> {
    match number(&fr.want["mac_control"]["opcode"]) {
        0x0101 => fr.expect(key, value, "pfc.quanta"),
        _ => fr.expect(key, value, "pause.quanta"),
    }
}

/// IPv6 Traffic Class = DSCP << 2 | ECN (RFC 8200 section 7, RFC 3168).
fn ipv6_traffic_class(fr: &Frame<'_>, key: &str, value: &Value) -> Result<(), String> {
    fr.expect(key, &Value::from(6), "ip.version")?;
    let tc = fr.num("ip.dscp")? << 2 | fr.num("ip.ecn")?;
    ensure(tc == number(value), || {
        format!("{key}: expected {value}, rdmadump {tc}")
    })
}

/// The IPv4 header is IHL words long and UDP follows it, so the IP total length is the
/// header and the UDP length (both as rdmadump read them).
fn ipv4_ihl(fr: &Frame<'_>, key: &str, value: &Value) -> Result<(), String> {
    fr.expect(key, &Value::from(4), "ip.version")?;
    let header = fr.num("ip.total_len")? - fr.num("udp.len")?;
    ensure(header == 4 * number(value), || {
        format!("{key} {value}: rdmadump's IP and UDP lengths leave {header} header bytes")
    })
}

/// An LNH=0 raw packet: LRH, 4-byte RWH, data, VCRC. rdmadump shows no RWH, but its payload
/// must leave the RWH out, and there is no BTH.
fn raw_ethertype(fr: &Frame<'_>, key: &str, _: &Value) -> Result<(), String> {
    fr.expect(key, &Value::from(0), "lrh.lnh")?;
    ensure(fr.got.get("bth").is_none(), || {
        format!("{key}: a raw packet has no BTH")
    })?;
    let payload = fr.num("payload_len")?;
    let len = fr.num("len")?;
    ensure(payload + 8 + 4 + 2 == len, || {
        format!("{key}: {len}-byte raw packet, rdmadump payload {payload}")
    })
}

/// The CNP's reserved bytes are header (IBA Annex A17.9.3): no payload, yet the UDP length
/// counts them with the BTH and ICRC.
fn cnp_reserved_len(fr: &Frame<'_>, key: &str, value: &Value) -> Result<(), String> {
    fr.expect(key, &Value::from(129), "bth.opcode")?;
    fr.expect(key, &Value::from(0), "payload_len")?;
    let udp = fr.num("udp.len")?;
    ensure(udp == 8 + 12 + number(value) + 4, || {
        format!("{key} {value}: UDP length {udp}")
    })
}

/// The truth says the snaplen cut the frame: rdmadump must say so and must not claim a CRC
/// verdict. The other direction is in `implied_by_absent_keys`.
fn truncated(fr: &Frame<'_>, key: &str, value: &Value) -> Result<(), String> {
    ensure(*value == Value::Bool(true), || {
        format!("{key}: truth says {value}")
    })?;
    ensure(fr.got.get("truncated").is_some(), || {
        format!("{key}: rdmadump does not say truncated")
    })?;
    for crc in ["icrc", "vcrc"] {
        if let Some(status) = fr.got.get(crc) {
            ensure(status["status"] == "unverifiable", || {
                format!("{key}: a truncated frame's {crc} is {status}")
            })?;
        }
    }
    Ok(())
}

/// The payload bytes that were captured: the capture ends inside the payload, after this
/// many of its bytes. rdmadump's payload starts where the headers' lengths put it: the
/// packet less payload, pad and CRCs.
fn captured_payload_len(fr: &Frame<'_>, key: &str, value: &Value) -> Result<(), String> {
    fr.expect(key, &Value::from("payload"), "truncated.layer")?;
    let caplen = fr.num("caplen")?;
    fr.expect(key, &Value::from(caplen), "truncated.offset")?;
    let crcs = 4 + if fr.got.get("vcrc").is_some() { 2 } else { 0 };
    let start = fr.num("len")? - fr.num("payload_len")? - fr.num("bth.pad")? - crcs;
    ensure(caplen - start == number(value), || {
        format!("{key}: expected {value}, rdmadump's payload starts at {start} of {caplen}")
    })
}

fn error_offset(fr: &Frame<'_>, _: &str, _: &Value) -> Result<(), String> {
    let layer = fr.want["error_layer"].as_str().unwrap();
    let field = fr
        .want
        .get("error_field")
        .and_then(Value::as_str)
        .unwrap_or("");
    let start = number(&fr.want["error_offset"]) as usize;
    fr.expect(
        "error_offset",
        &Value::from(start + field_offset(layer, field)),
        "error.offset",
    )
}

/// What the absence of a key says: each is checked on every frame that lacks it.
fn implied_by_absent_keys(fr: &Frame<'_>) -> Vec<String> {
    let mut problems = Vec::new();
    if fr.want.get("truncated").is_none() && fr.got.get("truncated").is_some() {
        problems.push(format!(
            "not truncated in the truth, rdmadump says {}",
            fr.got["truncated"]
        ));
    }
    if fr.want.get("iface").is_none() && fr.got.get("iface").is_some() {
        problems.push(format!(
            "no interface in the truth, rdmadump iface {}",
            fr.got["iface"]
        ));
    }
    if fr.want.get("tunnel").is_none() && fr.got.get("tunnel").is_some() {
        problems.push(format!(
            "no tunnel in the truth, rdmadump {}",
            fr.got["tunnel"]
        ));
    }
    if fr.want.get("erf_type").is_none() && fr.got.get("erf").is_some() {
        problems.push(format!(
            "no ERF record in the truth, rdmadump {}",
            fr.got["erf"]
        ));
    }
    // A layer the generator did not build is not there: no IPoIB guessed into a payload, no
    // VCRC where the link layer kept none.
    for layer in ["ipoib", "arp", "tcp", "icmp", "vcrc"] {
        if fr.want.get(layer).is_none() && fr.got.get(layer).is_some() {
            problems.push(format!(
                "no {layer} in the truth, rdmadump {}",
                fr.got[layer]
            ));
        }
    }
    // Without an FCS the frame ends with the datagram, or with the pad up to Ethernet's
    // 60-byte minimum; a tunnelled frame's `eth` and `ip` are the inner ones.
    if fr.want.get("eth_fcs").is_none()
        && fr.got.get("tunnel").is_none()
        && fr.got.get("eth").is_some()
        && fr.got.get("ip").is_some()
        && let (Ok(datagram), Ok(len)) = (eth_and_ip_len(fr), fr.num("len"))
        && len != datagram
        && !(len == 60 && datagram < 60)
    {
        problems.push(format!(
            "no FCS in the truth, yet {len} bytes hold a {datagram}-byte datagram"
        ));
    }
    problems
}

fn walk(fr: &Frame<'_>, prefix: &str, value: &Value, problems: &mut Vec<String>) {
    for (member, value) in value.as_object().unwrap() {
        let key = if prefix.is_empty() {
            member.clone()
        } else {
            format!("{prefix}.{member}")
        };
        let Some((_, how)) = TRUTH.iter().find(|(name, _)| *name == key) else {
            problems.push(format!(
                "unknown truth key {key} = {value}: add it to TRUTH with how it is checked"
            ));
            continue;
        };
        let result = match how {
            Same(path) => fr.expect(&key, value, path),
            Object if *fr.kind() == "other" && !NOT_RDMA.contains(&key.as_str()) => {
                // Not RDMA under this run's options: the truth's transport headers say what
                // the bytes would decode to, which rdmadump must not show.
                let ours = ours_for(&key);
                ensure(fr.got.get(ours).is_none(), || {
                    format!("{key}: kind other must have no {ours}")
                })
            }
            Object => {
                walk(fr, &key, value, problems);
                Ok(())
            }
            Each => {
                let list = value.as_array().unwrap();
                let ours = fr.at(&each_path(&key)).as_array().map_or(0, Vec::len);
                for (i, element) in list.iter().enumerate() {
                    let fr = Frame {
                        index: Some(i),
                        ..*fr
                    };
                    walk(&fr, &format!("{key}.*"), element, problems);
                }
                ensure(ours == list.len(), || {
                    format!("{key}: {} expected, rdmadump has {ours}", list.len())
                })
            }
            By(check) => check(fr, &key, value),
        };
        if let Err(problem) = result {
            problems.push(problem);
        }
    }
}

/// rdmadump's key for a truth object, by where its members' `Same` paths point.
fn ours_for(key: &str) -> &'static str {
    let prefix = format!("{key}.");
    TRUTH
        .iter()
        .find_map(|(name, how)| match how {
            Same(path) if name.starts_with(&prefix) => path.split('.').next(),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no member of {key} maps to rdmadump's output"))
}

/// rdmadump's list for a truth list, by where its first member's `Same` path points.
fn each_path(key: &str) -> String {
    let prefix = format!("{key}.*.");
    TRUTH
        .iter()
        .find_map(|(name, how)| match how {
            Same(path) if name.starts_with(&prefix) => {
                Some(path.split(".*").next().unwrap().to_string())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no member of {key} maps to a list of rdmadump's"))
}

/// Offset of the damaged field inside its header, by the generator's field name.
fn field_offset(layer: &str, field: &str) -> usize {
    match (layer, field) {
        ("ipv4", "total_length") => 2,
        ("ipv6", "payload_length") => 4,
        ("udp", "length") => 4,
        ("bth", "pad_cnt") => 1,
        ("grh", "paylen") => 4,
        ("lrh", "pkt_len" | "pktlen") => 4,
        _ => 0,
    }
}

fn get<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.')
        .try_fold(value, |v, key| match key.parse::<usize>() {
            Ok(index) => v.get(index),
            Err(_) => v.get(key),
        })
}

/// Booleans in our output, 0/1 in the generator's.
fn same(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Number(n), Value::Bool(b)) => n.as_u64() == Some(u64::from(*b)),
        _ => expected == actual,
    }
}

/// Fails on members of a file-level truth object that its check does not know.
fn members(what: &str, value: &Value, known: &[&str]) -> Result<(), String> {
    let unknown: Vec<&String> = value
        .as_object()
        .ok_or_else(|| format!("{what}: {value} is not an object"))?
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .collect();
    ensure(unknown.is_empty(), || {
        format!("unknown truth keys {what}.{unknown:?}: add them with how they are checked")
    })
}

/// Where the file is damaged: rdmadump must print every record before it, name the offset,
/// and exit 0 when the file merely ends early, 2 when it cannot go on.
fn file_error(run: &Run<'_>, value: &Value) -> Result<(), String> {
    members(
        "file_error",
        value,
        &["kind", "record", "record_offset", "note"],
    )?;
    let offset = format!("offset {}", number(&value["record_offset"]));
    ensure(run.stderr.contains(&offset), || {
        format!("file_error: stderr lacks {offset:?}: {}", run.stderr)
    })?;
    let before = number(&value["record"]) as usize - 1;
    ensure(run.got.len() == before, || {
        format!(
            "file_error: {before} records before the damage, rdmadump printed {}",
            run.got.len()
        )
    })?;
    let (status, says) = match value["kind"].as_str() {
        Some("truncated_record") => (0, "cut short"),
        Some("bad_caplen") => (2, "damaged"),
        _ => return Err(format!("file_error: unknown kind {}", value["kind"])),
    };
    ensure(
        run.status == Some(status) && run.stderr.contains(says),
        || {
            format!(
                "file_error {}: exit {:?}, stderr {}",
                value["kind"], run.status, run.stderr
            )
        },
    )?;
    note_text(&value["note"])
}

fn note_text(value: &Value) -> Result<(), String> {
    ensure(value.as_str().is_some_and(|s| !s.is_empty()), || {
        format!("note: {value}")
    })
}

/// Each interface's link type is the one rdmadump gives its frames, and its timestamp
/// resolution bounds their timestamps: each is a whole number of its units. The names are
/// container metadata, which `without_metadata` removes.
fn interfaces(run: &Run<'_>, value: &Value) -> Result<(), String> {
    let list = value.as_array().ok_or("interfaces: not a list")?;
    for (id, interface) in list.iter().enumerate() {
        members("interfaces.*", interface, &["linktype", "tsresol", "name"])?;
        let resol = number(&interface["tsresol"]);
        let unit_ns = if resol & 0x80 != 0 {
            1_000_000_000 >> (resol & 0x7f)
        } else {
            10u64.pow(9 - resol as u32)
        };
        let frames: Vec<&Value> = run
            .got
            .iter()
            .filter(|f| f.get("iface").map_or(0, number) as usize == id)
            .collect();
        ensure(!frames.is_empty(), || format!("interface {id}: no frame"))?;
        for frame in frames {
            ensure(frame["linktype"] == interface["linktype"], || {
                format!(
                    "interface {id}: linktype {}, frame {frame}",
                    interface["linktype"]
                )
            })?;
            if let Some(ts) = frame.get("ts_ns") {
                ensure(number(ts).is_multiple_of(unit_ns), || {
                    format!("interface {id}: {ts} ns is not a multiple of {unit_ns} ns")
                })?;
            }
        }
        ensure(
            interface["name"].as_str().is_some_and(|s| !s.is_empty()),
            || format!("interface {id}: name {}", interface["name"]),
        )?;
    }
    let bare = without_metadata(run.file)?;
    ensure(bare == run.got, || {
        "without the interface names the frames decode differently".into()
    })
}

/// Blocks that are not packets: the fixture must hold one of each type where the truth says,
/// and rdmadump must skip it (the frames after it match their truth frame by frame).
fn skipped_blocks(run: &Run<'_>, value: &Value) -> Result<(), String> {
    let bytes = std::fs::read(fixture(run.file)).unwrap();
    let blocks = pcapng_blocks(&bytes);
    for skipped in value.as_array().ok_or("skipped_blocks: not a list")? {
        members(
            "skipped_blocks.*",
            skipped,
            &["type", "after_frame", "what"],
        )?;
        let after = number(&skipped["after_frame"]) as usize;
        let kind = number(&skipped["type"]) as u32;
        let mut packets = 0;
        let found = blocks.iter().any(|block| {
            if matches!(block.kind, 3 | 6) {
                packets += 1;
            }
            block.kind == kind && packets == after
        });
        ensure(found, || {
            format!("skipped block {skipped}: not in the file there")
        })?;
        note_text(&skipped["what"])?;
    }
    Ok(())
}

struct Block {
    kind: u32,
    start: usize,
    end: usize,
    big_endian: bool,
}

/// The blocks of a pcapng file, each section in its own byte order.
fn pcapng_blocks(bytes: &[u8]) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut at = 0;
    let mut big_endian = false;
    while at + 12 <= bytes.len() {
        if bytes[at..at + 4] == [0x0a, 0x0d, 0x0d, 0x0a] {
            big_endian = bytes[at + 8..at + 12] == [0x1a, 0x2b, 0x3c, 0x4d];
        }
        let word = |o: usize| {
            let b: [u8; 4] = bytes[o..o + 4].try_into().unwrap();
            if big_endian {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        let end = at + word(at + 4) as usize;
        blocks.push(Block {
            kind: word(at),
            start: at,
            end,
            big_endian,
        });
        at = end;
    }
    blocks
}

/// The options of a block body from `from`, less those `drop` names, rewritten with an end.
fn kept_options(body: &[u8], big_endian: bool, drop: impl Fn(u16) -> bool) -> Vec<u8> {
    let half = |b: &[u8]| {
        let b: [u8; 2] = b.try_into().unwrap();
        if big_endian {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    };
    let mut kept = Vec::new();
    let mut at = 0;
    while at + 4 <= body.len() {
        let code = half(&body[at..at + 2]);
        let len = half(&body[at + 2..at + 4]) as usize;
        let next = at + 4 + len.div_ceil(4) * 4;
        if code == 0 {
            break;
        }
        if !drop(code) {
            kept.extend_from_slice(&body[at..next]);
        }
        at = next;
    }
    if !kept.is_empty() {
        kept.extend_from_slice(&[0; 4]);
    }
    kept
}

/// rdmadump's frames for the fixture with the section's options (its comment), the interface
/// names and every Enhanced Packet Block's options (flags, comment) removed.
fn without_metadata(file: &str) -> Result<Vec<Value>, String> {
    let bytes = std::fs::read(fixture(file)).unwrap();
    let mut out = Vec::new();
    for block in pcapng_blocks(&bytes) {
        let body = &bytes[block.start + 8..block.end - 4];
        let (fixed, drop): (usize, fn(u16) -> bool) = match block.kind {
            0x0a0d_0d0a => (16, |_| true),
            1 => (8, |code| code == 1 || code == 2),
            6 => {
                let caplen = u32::from_le_bytes(body[12..16].try_into().unwrap());
                let caplen = if block.big_endian {
                    caplen.swap_bytes()
                } else {
                    caplen
                };
                (20 + (caplen as usize).div_ceil(4) * 4, |_| true)
            }
            _ => {
                out.extend_from_slice(&bytes[block.start..block.end]);
                continue;
            }
        };
        let mut new_body = body[..fixed].to_vec();
        if block.kind == 0x0a0d_0d0a {
            // The section length is optional (-1): with the options gone it would be wrong.
            new_body[8..16].fill(0xff);
        }
        new_body.extend(kept_options(&body[fixed..], block.big_endian, drop));
        let len = (new_body.len() + 12) as u32;
        let len = if block.big_endian {
            len.to_be_bytes()
        } else {
            len.to_le_bytes()
        };
        out.extend_from_slice(&bytes[block.start..block.start + 4]);
        out.extend_from_slice(&len);
        out.extend_from_slice(&new_body);
        out.extend_from_slice(&len);
    }
    ensure(out.len() < bytes.len(), || {
        format!("{file}: no metadata to remove")
    })?;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(file);
    std::fs::write(&path, &out).unwrap();
    Ok(read_json(&path, &[]))
}

fn check_fixture(file: &str, extra: &[&str]) -> Vec<String> {
    let truth: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture(&format!("expected/{file}.json"))).unwrap(),
    )
    .unwrap();
    let frames = truth["frames"].as_array().unwrap();
    let path = fixture(file);
    let mut args = vec!["read", "--json"];
    args.extend_from_slice(extra);
    args.push(path.to_str().unwrap());
    let out = rdmadump(&args);
    let run = Run {
        file,
        extra,
        got: read_json(&path, extra),
        stderr: stderr(&out),
        status: out.status.code(),
    };
    assert_eq!(stdout(&out).lines().count(), run.got.len());
    let mut problems = Vec::new();
    for (key, value) in truth.as_object().unwrap() {
        if key == "frames" {
            continue;
        }
        match FILE_TRUTH.iter().find(|(name, _)| name == key) {
            Some((_, check)) => {
                if let Err(problem) = check(&run, value) {
                    problems.push(format!("{file}: {problem}"));
                }
            }
            None => problems.push(format!(
                "{file}: unknown truth key {key}: add it to FILE_TRUTH with how it is checked"
            )),
        }
    }
    if run.got.len() != frames.len() {
        problems.push(format!(
            "{file}: {} frames expected, rdmadump printed {}",
            frames.len(),
            run.got.len()
        ));
    }
    for (want, got) in frames.iter().zip(&run.got) {
        let fr = Frame {
            run: &run,
            want,
            got,
            index: None,
        };
        let mut found = Vec::new();
        walk(&fr, "", want, &mut found);
        found.extend(implied_by_absent_keys(&fr));
        let frame = &want["frame"];
        problems.extend(
            found
                .into_iter()
                .map(|p| format!("{file} frame {frame}: {p}")),
        );
    }
    problems
}

#[test]
fn every_fixture_matches_its_generator_truth() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(fixture("expected")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(file) = name.strip_suffix(".json") else {
            continue;
        };
        problems.extend(check_fixture(file, &[]));
        checked += 1;
    }
    problems.extend(check_fixture(
        "roce_v2_custom_port.pcap",
        &["--roce-port", "4792"],
    ));
    assert!(checked >= 20, "only {checked} expected files found");
    assert!(
        problems.is_empty(),
        "{} mismatches:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn a_capture_cut_short_yields_every_complete_record_and_warns() {
    let out = rdmadump(&[
        "read",
        "--json",
        fixture("cut_short.pcap").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 3);
    assert!(stderr(&out).contains("cut short"), "{}", stderr(&out));
}

#[test]
fn a_record_claiming_4_gib_is_refused_without_allocating_it() {
    let out = rdmadump(&[
        "read",
        "--json",
        fixture("huge_caplen.pcap").to_str().unwrap(),
    ]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    assert!(stderr(&out).contains("offset 114"), "{}", stderr(&out));
    assert_eq!(out.status.code(), Some(2));
}
