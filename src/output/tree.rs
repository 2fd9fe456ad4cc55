//! `rdmadump read -V`: every decoded field as an indented tree, one section per layer, as
//! `tshark -V` shows a frame.
//!
//! The tree is drawn from the frame's JSON line rather than from the packet itself, so that
//! it shows exactly the fields `--json` has, and a header added to the JSON appears here
//! without a second renderer to keep in step. Only the JSON our own writer produces is read:
//! objects, arrays, strings, numbers, booleans and null, with no whitespace.

/// Indentation per level, as tshark uses.
const INDENT: usize = 4;

/// Appends the tree for one frame's JSON `line` (without its newline) to `out`.
pub fn write_tree(out: &mut Vec<u8>, line: &[u8]) {
    let mut reader = Reader { bytes: line, at: 0 };
    if !reader.eat(b'{') {
        return;
    }
    let mut in_frame_section = true;
    out.extend_from_slice(b"Frame\n");
    while let Some(key) = reader.key() {
        match reader.peek() {
            Some(b'{') => {
                in_frame_section = false;
                section(out, key, 0);
                reader.object(out, 1);
            }
            Some(b'[') if reader.array_holds_objects() => {
                in_frame_section = false;
                reader.object_array(out, key, 0);
            }
            _ if in_frame_section => {
                field(out, key, 1);
                reader.scalar_or_list(out);
            }
            // A header that is a single value (ImmDt, FETH) is a section of one line.
            _ => {
                out.extend_from_slice(title(key).as_bytes());
                out.extend_from_slice(b": ");
                reader.scalar_or_list(out);
            }
        }
        out.push(b'\n');
        reader.eat(b',');
    }
}

/// The section title tshark would give a layer; keys without one are shown as they are.
fn title(key: &[u8]) -> &str {
    match key {
        b"erf" => "Extensible Record Format",
        b"sll" => "Linux cooked capture",
        b"eth" => "Ethernet II",
        b"tunnel" => "Tunnel",
        b"ip" => "Internet Protocol",
        b"udp" => "User Datagram Protocol",
        b"tcp" => "Transmission Control Protocol",
        b"icmp" => "Internet Control Message Protocol",
        b"arp" => "Address Resolution Protocol",
        b"ipoib" => "IP over InfiniBand",
        b"lrh" => "Local Route Header",
        b"grh" => "Global Route Header",
        b"bth" => "Base Transport Header",
        b"rdeth" => "Reliable Datagram Extended Transport Header",
        b"deth" => "Datagram Extended Transport Header",
        b"xrceth" => "XRC Extended Transport Header",
        b"feth" => "FLUSH Extended Transport Header",
        b"reth" => "RDMA Extended Transport Header",
        b"atomic_eth" => "Atomic Extended Transport Header",
        b"aeth" => "ACK Extended Transport Header",
        b"atomic_ack_eth" => "Atomic ACK Extended Transport Header",
        b"immdt" => "Immediate Data",
        b"ieth" => "Invalidate Extended Transport Header",
        b"mad" => "Management Datagram",
        b"cm" => "Communication Management",
        b"nvme" => "NVM Express over Fabrics (RDMA)",
        b"rpcrdma" => "RPC over RDMA",
        b"iser" => "iSCSI Extensions for RDMA",
        b"smbd" => "SMB Direct (SMB2 over RDMA)",
        b"pfc" => "Priority-based Flow Control",
        b"pause" => "MAC Control PAUSE",
        b"icrc" => "Invariant CRC",
        b"vcrc" => "Variant CRC",
        b"error" => "Malformed",
        b"truncated" => "Truncated",
        other => std::str::from_utf8(other).unwrap_or("?"),
    }
}

fn section(out: &mut Vec<u8>, key: &[u8], depth: usize) {
    pad(out, depth);
    if depth == 0 {
        out.extend_from_slice(title(key).as_bytes());
    } else {
        out.extend_from_slice(key);
    }
}

fn field(out: &mut Vec<u8>, key: &[u8], depth: usize) {
    pad(out, depth);
    out.extend_from_slice(key);
    out.extend_from_slice(b": ");
}

fn pad(out: &mut Vec<u8>, depth: usize) {
    out.resize(out.len() + depth * INDENT, b' ');
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        self.at += usize::from(found);
        found
    }

    /// The next member's key, with the colon after it consumed; `None` at the object's end.
    fn key(&mut self) -> Option<&'a [u8]> {
        if self.eat(b'}') || self.peek() != Some(b'"') {
            return None;
        }
        let (start, end) = self.string_span();
        self.eat(b':');
        Some(&self.bytes[start..end])
    }

    /// Skips a string, returning where its contents start and end (escapes left as they are).
    fn string_span(&mut self) -> (usize, usize) {
        self.at += 1;
        let start = self.at;
        while let Some(byte) = self.peek() {
            match byte {
                b'\\' => self.at += 2,
                b'"' => break,
                _ => self.at += 1,
            }
        }
        let end = self.at.min(self.bytes.len());
        self.at += 1;
        (start, end)
    }

    /// Members of an object whose `{` is next, each on its own line at `depth`.
    fn object(&mut self, out: &mut Vec<u8>, depth: usize) {
        self.eat(b'{');
        while let Some(key) = self.key() {
            out.push(b'\n');
            match self.peek() {
                Some(b'{') => {
                    section(out, key, depth);
                    self.object(out, depth + 1);
                }
                Some(b'[') if self.array_holds_objects() => self.object_array(out, key, depth),
                _ => {
                    field(out, key, depth);
                    self.scalar_or_list(out);
                }
            }
            self.eat(b',');
        }
    }

    fn array_holds_objects(&self) -> bool {
        self.bytes.get(self.at + 1) == Some(&b'{')
    }

    /// `key[0]`, `key[1]`, ... each a section of its own at `depth`.
    fn object_array(&mut self, out: &mut Vec<u8>, key: &[u8], depth: usize) {
        self.eat(b'[');
        let mut index = 0;
        while self.peek() == Some(b'{') {
            if index > 0 {
                out.push(b'\n');
            }
            section(out, key, depth);
            out.push(b'[');
            let mut digits = itoa::Buffer::new();
            out.extend_from_slice(digits.format(index).as_bytes());
            out.push(b']');
            self.object(out, depth + 1);
            index += 1;
            self.eat(b',');
        }
        self.eat(b']');
    }

    /// A value that is not an object: strings lose their quotes, lists of values are kept
    /// on one line.
    fn scalar_or_list(&mut self, out: &mut Vec<u8>) {
        match self.peek() {
            Some(b'"') => {
                let (start, end) = self.string_span();
                out.extend_from_slice(&self.bytes[start..end]);
            }
            Some(b'[') => {
                self.eat(b'[');
                out.push(b'[');
                let mut first = true;
                while !self.eat(b']') && self.peek().is_some() {
                    if !first {
                        out.extend_from_slice(b", ");
                    }
                    first = false;
                    self.scalar_or_list(out);
                    self.eat(b',');
                }
                out.push(b']');
            }
            Some(_) => {
                let start = self.at;
                while let Some(byte) = self.peek() {
                    if matches!(byte, b',' | b'}' | b']') {
                        break;
                    }
                    self.at += 1;
                }
                out.extend_from_slice(&self.bytes[start..self.at]);
            }
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(json: &str) -> String {
        let mut out = Vec::new();
        write_tree(&mut out, json.as_bytes());
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn layers_become_sections_and_arrays_numbered_entries() {
        let json = r#"{"frame":3,"kind":"roce_v2","eth":{"src":"02:00:00:00:00:01","vlan":[{"id":5,"pcp":3},{"id":7,"pcp":0}]},"bth":{"opcode":4,"opcode_name":"RC_SEND_ONLY"},"immdt":17,"pfc":{"quanta":[1,2]},"error":{"layer":"udp","problem":"a \"quoted\" word"}}"#;
        assert_eq!(
            tree(json),
            "Frame\n    frame: 3\n    kind: roce_v2\n\
             Ethernet II\n    src: 02:00:00:00:00:01\n    vlan[0]\n        id: 5\n        pcp: 3\n    vlan[1]\n        id: 7\n        pcp: 0\n\
             Base Transport Header\n    opcode: 4\n    opcode_name: RC_SEND_ONLY\n\
             Immediate Data: 17\n\
             Priority-based Flow Control\n    quanta: [1, 2]\n\
             Malformed\n    layer: udp\n    problem: a \\\"quoted\\\" word\n"
        );
    }

    #[test]
    fn a_top_level_array_of_objects_is_a_section_per_entry() {
        let json = r#"{"frame":1,"tunnel":[{"type":"vxlan","vni":42}],"udp":{"sport":1}}"#;
        assert_eq!(
            tree(json),
            "Frame\n    frame: 1\nTunnel[0]\n    type: vxlan\n    vni: 42\nUser Datagram Protocol\n    sport: 1\n"
        );
    }

    #[test]
    fn cut_input_ends_without_panicking() {
        for cut in 0..60 {
            let json = r#"{"frame":1,"eth":{"vlan":[{"id":5}],"src":"a\"b"},"x":[1,"#;
            let _ = tree(&json[..cut.min(json.len())]);
        }
    }
}
