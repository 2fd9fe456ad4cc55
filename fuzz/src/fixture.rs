//! What several targets share: the packets of a few fixed fixtures, decoded once, and a
//! scratch directory for the entry points that only take paths.

use std::path::PathBuf;
use std::sync::OnceLock;

use rdmadump::capture::{CaptureReader, Record, SliceInput};
use rdmadump::dissect::{DecodeOptions, Packet, dissect};

/// Fixtures that between them hold every kind of frame a filter can select on: MADs and CM
/// over IB and RoCE, tunnels, every RoCE opcode, IPoIB, PFC, several interfaces, ERF, an
/// IPv6 VLAN frame and malformed frames. Included, so the targets need no working directory.
pub const CAPTURES: [&[u8]; 10] = [
    include_bytes!("../../fixtures/mad_cm_ib.pcap"),
    include_bytes!("../../fixtures/mad_cm_roce.pcap"),
    include_bytes!("../../fixtures/tunnels.pcap"),
    include_bytes!("../../fixtures/roce_v2_opcodes.pcap"),
    include_bytes!("../../fixtures/ipoib_ud.pcap"),
    include_bytes!("../../fixtures/pfc_pause.pcap"),
    include_bytes!("../../fixtures/multi_if.pcapng"),
    include_bytes!("../../fixtures/malformed.pcap"),
    include_bytes!("../../fixtures/ib_erf.pcap"),
    include_bytes!("../../fixtures/roce_v2_ipv6_vlan.pcap"),
];

/// Every record of [`CAPTURES`], dissected with its CRCs verified. The bytes are copied and
/// kept for the life of the process, so the packets can be shared by every run.
pub fn packets() -> &'static [Packet<'static>] {
    static PACKETS: OnceLock<Vec<Packet<'static>>> = OnceLock::new();
    PACKETS.get_or_init(|| {
        let opts = DecodeOptions::default();
        let mut all = Vec::new();
        for capture in CAPTURES {
            let mut reader = CaptureReader::new(SliceInput::new(capture)).expect("a fixture");
            let mut frame = 0;
            while let Ok(true) = reader.advance() {
                let Some(record) = reader.current() else {
                    break;
                };
                frame += 1;
                let data: &'static [u8] = Box::leak(record.data.to_vec().into_boxed_slice());
                let record = Record {
                    data,
                    orig_len: record.orig_len,
                    ts_ns: record.ts_ns,
                    linktype: record.linktype,
                    iface: record.iface,
                    offset: record.offset,
                };
                let mut pkt = dissect(&record, frame, &opts);
                pkt.verify_crcs();
                all.push(pkt);
            }
        }
        assert!(all.len() > 50, "the fixtures hold {} packets", all.len());
        all
    })
}

/// A directory of this process's own under the system's temporary directory; each target
/// names its files so that one run overwrites the last.
pub fn scratch_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("rdmadump-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        dir
    })
    .clone()
}
