//! `rdmadump read --json`: one JSON object per frame. The key names are a contract with
//! downstream tools and are documented in docs/json-schema.md. Absent headers are absent keys.

use super::jsonw::Obj;
use crate::crc::CrcCheck;
use crate::dissect::{Encap, IpHeader, Packet, Tunnel, Ulp, Upper};
use crate::wire::aeth::{self, Syndrome};
use crate::wire::erspan::ErspanCommon;
use crate::wire::opcode;

/// Appends one JSON line (with its newline) for `pkt` to `out`.
pub fn write_packet(out: &mut Vec<u8>, pkt: &Packet<'_>, file: Option<&str>) {
    {
        let mut o = Obj::new(out);
        if let Some(file) = file {
            o.str("file", file);
        }
        o.u64("frame", pkt.frame);
        if let Some(ts) = pkt.ts_ns {
            // `ts_ns` for tools whose numbers are doubles (jq 1.6), which cannot hold `ts`
            // to the nanosecond.
            o.timestamp("ts", "ts_ns", ts);
        }
        o.u64("len", u64::from(pkt.len))
            .u64("caplen", u64::from(pkt.caplen))
            .name("kind", pkt.kind.name());
        if pkt.iface != 0 {
            o.u64("iface", u64::from(pkt.iface));
        }
        o.u64("linktype", u64::from(pkt.linktype));
        if !pkt.tunnels.is_empty() {
            let mut list = o.arr("tunnel");
            for tunnel in pkt.tunnels.iter() {
                write_tunnel(&mut list.obj(), &tunnel);
            }
        }
        if pkt.tunnels.too_deep {
            o.bool("tunnel_too_deep", true);
        }
        write_link(&mut o, pkt);
        if let Some(h) = &pkt.ipoib {
            o.obj("ipoib").u64("ethertype", u64::from(h.ethertype()));
        }
        write_ip(&mut o, pkt);
        write_upper(&mut o, pkt);
        write_ib(&mut o, pkt);
        write_transport(&mut o, pkt);
        if let Some(mad) = &pkt.mad {
            super::mad_json::write_mad(&mut o, mad);
        }
        match &pkt.ulp {
            Some(Ulp::Nvme(nvme)) => super::nvme_read::write_json(&mut o, nvme),
            Some(Ulp::Rpc(rpc)) => super::rpcrdma_read::write_json(&mut o, rpc),
            Some(Ulp::Iser(iser)) => super::iser_read::write_json(&mut o, iser),
            Some(Ulp::Smbd(smbd)) => super::smbd_read::write_json(&mut o, smbd),
            None => {}
        }
        if let Some(pfc) = &pkt.pfc {
            let mut p = o.obj("pfc");
            p.u64("class_enable", u64::from(pfc.class_enable()));
            let mut quanta = p.arr("quanta");
            for q in pfc.quanta() {
                quanta.u64(u64::from(q));
            }
        }
        if let Some(pause) = &pkt.pause {
            o.obj("pause").u64("quanta", u64::from(pause.quanta()));
        }
        if let Some(check) = &pkt.icrc {
            write_crc(&mut o, "icrc", check);
        }
        if let Some(check) = &pkt.vcrc {
            write_crc(&mut o, "vcrc", check);
        }
        if let Some(err) = &pkt.error {
            write_error(&mut o, "error", err);
        }
        if let Some(err) = &pkt.truncated {
            write_error(&mut o, "truncated", err);
        }
    }
    out.push(b'\n');
}

fn write_link(o: &mut Obj<'_>, pkt: &Packet<'_>) {
    if let Some(erf) = &pkt.erf {
        o.obj("erf")
            .u64("type", u64::from(erf.record_type))
            .u64("wlen", u64::from(erf.wlen));
    }
    if let Some(sll) = &pkt.sll {
        o.obj("sll")
            .u64("version", u64::from(sll.version))
            .u64("pkttype", u64::from(sll.packet_type))
            .u64("hatype", u64::from(sll.hatype))
            .u64("protocol", u64::from(sll.protocol));
    }
    if let Some(eth) = &pkt.eth {
        let mut e = o.obj("eth");
        e.mac("src", eth.src().0)
            .mac("dst", eth.dst().0)
            .u64("type", u64::from(eth.ethertype()));
        if !pkt.vlans.is_empty() {
            let mut list = e.arr("vlan");
            for tag in pkt.vlans.iter() {
                list.obj()
                    .u64("id", u64::from(tag.vid()))
                    .u64("pcp", u64::from(tag.pcp()))
                    .u64("dei", u64::from(tag.dei()));
            }
        }
    }
}

fn write_tunnel(t: &mut Obj<'_>, tunnel: &Tunnel<'_>) {
    t.name("type", tunnel.encap.name());
    if let Some(eth) = &tunnel.eth {
        t.mac("src_mac", eth.src().0).mac("dst_mac", eth.dst().0);
    }
    if let Some(tag) = &tunnel.vlan {
        t.obj("eth_vlan").u64("id", tag.vid()).u64("pcp", tag.pcp());
    }
    t.ip("src", tunnel.ip.src()).ip("dst", tunnel.ip.dst());
    if let Some(gre) = tunnel.encap.gre() {
        t.u64("proto", gre.header.protocol());
        if let Some(key) = gre.key() {
            t.u64("key", key);
        }
        if let Some(seq) = gre.sequence() {
            t.u64("seq", seq);
        }
        if let Some(checksum) = gre.checksum() {
            t.u64("checksum", checksum);
        }
    }
    match &tunnel.encap {
        Encap::Gre(_) | Encap::ErspanI(_) => {}
        Encap::ErspanII(_, h) => {
            t.u64("version", h.version())
                .u64("session_id", h.session_id())
                .u64("vlan", h.vlan())
                .u64("cos", h.cos())
                .u64("index", h.index());
        }
        Encap::ErspanIII(_, h, platform) => {
            t.u64("version", h.version())
                .u64("session_id", h.session_id())
                .u64("vlan", h.vlan())
                .u64("cos", h.cos())
                .name("direction", h.direction())
                .u64("timestamp", h.timestamp())
                .u64("hw_id", h.hw_id());
            if let Some(platform) = platform {
                t.u64("platform_id", platform.platform_id());
            }
        }
        Encap::Vxlan(udp, h) => {
            t.u64("sport", udp.src_port())
                .u64("dport", udp.dst_port())
                .u64("flags", h.flags())
                .u64("vni", h.vni());
        }
    }
}

fn write_ip(o: &mut Obj<'_>, pkt: &Packet<'_>) {
    if let Some(ip) = &pkt.ip {
        let mut i = o.obj("ip");
        i.u64("version", u64::from(ip.version()))
            .ip("src", ip.src())
            .ip("dst", ip.dst())
            .u64("dscp", u64::from(ip.dscp()))
            .u64("ecn", u64::from(ip.ecn()))
            .u64("ttl", u64::from(ip.ttl()));
        match ip {
            IpHeader::V4(h) => {
                i.u64("total_len", u64::from(h.total_len()))
                    .u64("proto", u64::from(h.protocol()));
            }
            IpHeader::V6(h) => {
                i.u64("flow_label", u64::from(h.flow_label()))
                    .u64("payload_len", u64::from(h.payload_len()));
            }
        }
    }
    if let Some(udp) = &pkt.udp {
        o.obj("udp")
            .u64("sport", u64::from(udp.src_port()))
            .u64("dport", u64::from(udp.dst_port()))
            .u64("len", u64::from(udp.length()))
            .u64("checksum", u64::from(udp.checksum()));
    }
}

fn write_upper(o: &mut Obj<'_>, pkt: &Packet<'_>) {
    match &pkt.upper {
        Some(Upper::Tcp(h)) => {
            o.obj("tcp")
                .u64("sport", u64::from(h.src_port()))
                .u64("dport", u64::from(h.dst_port()));
        }
        Some(Upper::Icmp(h)) => {
            o.obj("icmp")
                .u64("type", u64::from(h.icmp_type()))
                .u64("code", u64::from(h.code()));
        }
        Some(Upper::Arp(arp)) => {
            let mut a = o.obj("arp");
            a.u64("op", u64::from(arp.header.op()));
            if let Some((sender, target)) = arp.ips() {
                a.ip("sender_ip", sender.into())
                    .ip("target_ip", target.into());
            }
        }
        None => {}
    }
}

fn write_ib(o: &mut Obj<'_>, pkt: &Packet<'_>) {
    if let Some(lrh) = &pkt.lrh {
        o.obj("lrh")
            .u64("vl", u64::from(lrh.vl()))
            .u64("lver", u64::from(lrh.lver()))
            .u64("sl", u64::from(lrh.sl()))
            .u64("lnh", u64::from(lrh.lnh()))
            .u64("dlid", u64::from(lrh.dlid()))
            .u64("pktlen", u64::from(lrh.pktlen()))
            .u64("slid", u64::from(lrh.slid()));
    }
    if let Some(grh) = &pkt.grh {
        o.obj("grh")
            .u64("ipver", u64::from(grh.ipver()))
            .u64("tclass", u64::from(grh.tclass()))
            .u64("flow_label", u64::from(grh.flow_label()))
            .u64("paylen", u64::from(grh.paylen()))
            .u64("nxthdr", u64::from(grh.nxthdr()))
            .u64("hoplmt", u64::from(grh.hoplmt()))
            .ipv6("sgid", grh.sgid())
            .ipv6("dgid", grh.dgid());
    }
}

fn write_transport(o: &mut Obj<'_>, pkt: &Packet<'_>) {
    if let Some(bth) = &pkt.bth {
        o.obj("bth")
            .u64("opcode", u64::from(bth.opcode()))
            .name("opcode_name", opcode::info(bth.opcode()).name)
            .bool("se", bth.solicited_event())
            .bool("migreq", bth.migreq())
            .u64("pad", u64::from(bth.pad_count()))
            .u64("tver", u64::from(bth.tver()))
            .u64("pkey", u64::from(bth.pkey()))
            .bool("fecn", bth.fecn())
            .bool("becn", bth.becn())
            .u64("dest_qp", u64::from(bth.dest_qp()))
            .bool("ack_req", bth.ack_req())
            .u64("psn", u64::from(bth.psn()));
    }
    if let Some(h) = &pkt.rdeth {
        o.obj("rdeth").u64("eecnxt", u64::from(h.eecnxt()));
    }
    if let Some(h) = &pkt.deth {
        o.obj("deth")
            .u64("qkey", u64::from(h.qkey()))
            .u64("src_qp", u64::from(h.src_qp()));
    }
    if let Some(h) = &pkt.xrceth {
        o.obj("xrceth").u64("xrcsrq", u64::from(h.xrcsrq()));
    }
    if let Some(feth) = pkt.feth {
        o.u64("feth", u64::from(feth));
    }
    if let Some(h) = &pkt.reth {
        o.obj("reth")
            .u64("va", h.va())
            .u64("rkey", u64::from(h.rkey()))
            .u64("dma_len", u64::from(h.dma_len()));
    }
    if let Some(h) = &pkt.atomic_eth {
        o.obj("atomic_eth")
            .u64("va", h.va())
            .u64("rkey", u64::from(h.rkey()))
            .u64("swap", h.swap())
            .u64("compare", h.compare());
    }
    if let Some(h) = &pkt.aeth {
        let syndrome = h.decode();
        let mut a = o.obj("aeth");
        a.u64("syndrome", u64::from(h.syndrome()))
            .name("kind", syndrome.kind_name())
            .u64("code", u64::from(h.code()))
            .u64("msn", u64::from(h.msn()));
        match syndrome {
            Syndrome::Ack { credit_code } => match aeth::credits(credit_code) {
                Some(count) => a.u64("credits", count),
                None => a.null("credits"),
            },
            Syndrome::RnrNak { timer } => a.u64("rnr_timer_us", aeth::rnr_timer_us(timer)),
            Syndrome::Nak(code) => a.name("nak", code.name()),
            Syndrome::Reserved => &mut a,
        };
    }
    if let Some(h) = &pkt.atomic_ack_eth {
        o.obj("atomic_ack_eth").u64("orig", h.orig());
    }
    if let Some(h) = &pkt.immdt {
        o.u64("immdt", u64::from(h.value()));
    }
    if let Some(h) = &pkt.ieth {
        o.u64("ieth", u64::from(h.rkey()));
    }
    if let Some(len) = pkt.payload_len {
        o.u64("payload_len", u64::from(len));
    }
}

fn write_crc(o: &mut Obj<'_>, key: &str, check: &CrcCheck) {
    let mut c = o.obj(key);
    if let Some(stored) = check.stored {
        c.u64("value", u64::from(stored));
    }
    c.name("status", check.status.name());
    if check.status == crate::crc::CrcStatus::Bad
        && let Some(computed) = check.computed
    {
        c.u64("computed", u64::from(computed));
    }
}

fn write_error(o: &mut Obj<'_>, key: &str, err: &crate::wire::DecodeError) {
    o.obj(key)
        .name("layer", err.layer.name())
        .u64("offset", err.offset as u64)
        .display("message", err);
}
