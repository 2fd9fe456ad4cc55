//! `rdmadump read -x`: the frame's bytes under its line, laid out as `tshark -x` and
//! `tcpdump -X` print them: offset, 16 bytes in hex, the same bytes as ASCII.

const PER_LINE: usize = 16;

pub fn write_hex(out: &mut Vec<u8>, data: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (line, chunk) in data.chunks(PER_LINE).enumerate() {
        let offset = line * PER_LINE;
        for shift in [12, 8, 4, 0] {
            out.push(HEX[(offset >> shift) & 0xf]);
        }
        out.push(b' ');
        for column in 0..PER_LINE {
            out.push(b' ');
            match chunk.get(column) {
                Some(&byte) => {
                    out.push(HEX[usize::from(byte >> 4)]);
                    out.push(HEX[usize::from(byte & 0xf)]);
                }
                None => out.extend_from_slice(b"  "),
            }
        }
        out.extend_from_slice(b"   ");
        out.extend(chunk.iter().map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                b
            } else {
                b'.'
            }
        }));
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_hex_and_printable_bytes() {
        let data: Vec<u8> = (0x3e..0x3e + 18).collect();
        let mut out = Vec::new();
        write_hex(&mut out, &data);
        // The short last line keeps the ASCII column where the full lines have it.
        let missing = " ".repeat(14 * 3);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "0000  3e 3f 40 41 42 43 44 45 46 47 48 49 4a 4b 4c 4d   >?@ABCDEFGHIJKLM\n\
                 0010  4e 4f{missing}   NO\n"
            )
        );
    }

    #[test]
    fn unprintable_bytes_are_dots() {
        let mut out = Vec::new();
        write_hex(&mut out, &[0x00, 0x7f, 0x80, b'a']);
        assert!(String::from_utf8(out).unwrap().ends_with("   ...a\n"));
    }
}
