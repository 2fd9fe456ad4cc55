//! `render_packet`: what `read -T fields -e ... -E ...`, `read -V` and `read -x` print for
//! an arbitrary frame of any link type.

use rdmadump::capture::Record;
use rdmadump::dissect::{DecodeOptions, Packet, dissect};
use rdmadump::fields::{self, Field};
use rdmadump::output::fields::{FieldsFormat, FieldsOption, Occurrence, write_packet};
use rdmadump::output::{hexdump, json, tree};
use serde_json::Value;

use super::LINKTYPES;

/// The separators, quotes and aggregators `-E` can give, a multi-byte one among them.
const SEPARATORS: [char; 6] = ['\t', ' ', ',', ';', '|', 'é'];

/// Input: a link-type byte, three field bytes (indices into the catalogue), a `-E` byte,
/// two bytes of wire length (big-endian), then the frame.
pub fn render_packet(data: &[u8]) {
    let Some((&[selector, f1, f2, f3, style, len_hi, len_lo], frame)) =
        data.split_first_chunk::<7>()
    else {
        return;
    };
    let record = Record {
        data: frame,
        orig_len: u16::from_be_bytes([len_hi, len_lo]).into(),
        ts_ns: Some(1_700_000_000_123_456_789),
        linktype: LINKTYPES[usize::from(selector) % LINKTYPES.len()],
        iface: 0,
        offset: 0,
    };
    let mut pkt = dissect(&record, 1, &DecodeOptions::default());
    pkt.verify_crcs();
    fields_line(&pkt, [f1, f2, f3], style);
    verbose_tree(&pkt);
    hex_dump(frame);
}

/// `-T fields`: one line, whatever the values hold.
fn fields_line(pkt: &Packet<'_>, picks: [u8; 3], style: u8) {
    let all: Vec<&Field> = fields::all().collect();
    let chosen: Vec<&Field> = picks
        .iter()
        .map(|&p| all[usize::from(p) * all.len() / 256])
        .collect();
    let pick = |shift: u8| SEPARATORS[usize::from(style >> shift) % SEPARATORS.len()];
    let options = [
        FieldsOption::Separator(pick(0)),
        FieldsOption::Aggregator(pick(3)),
        FieldsOption::Quote([None, Some('"'), Some('\''), None][usize::from(style >> 6) % 4]),
        FieldsOption::Occurrence(
            [Occurrence::All, Occurrence::First, Occurrence::Last][usize::from(style) % 3],
        ),
    ];
    let format = FieldsFormat::new(&options);
    let mut out = Vec::new();
    write_packet(&mut out, pkt, &chosen, &format);
    let line = std::str::from_utf8(&out).expect("-T fields output is UTF-8");
    let line = line
        .strip_suffix('\n')
        .expect("a -T fields line ends in \\n");
    assert!(
        !line.contains('\n'),
        "a -T fields line spans lines: {line:?}"
    );
}

/// `-V`: the tree shows every key the JSON line has below a layer.
fn verbose_tree(pkt: &Packet<'_>) {
    let mut line = Vec::new();
    json::write_packet(&mut line, pkt, None);
    let line = line.strip_suffix(b"\n").expect("a JSON line ends in \\n");
    let mut out = Vec::new();
    tree::write_tree(&mut out, line);
    let shown = std::str::from_utf8(&out).expect("-V output is UTF-8");
    assert!(
        shown.starts_with("Frame\n"),
        "the tree starts with the frame"
    );
    let value: Value = serde_json::from_slice(line).expect("a JSON line parses");
    let mut keys = Vec::new();
    if let Value::Object(layers) = &value {
        for layer in layers.values() {
            nested_keys(layer, &mut keys);
        }
    }
    for key in keys {
        assert!(
            shown.contains(&key),
            "-V lacks `{key}`:\n{shown}\n{}",
            String::from_utf8_lossy(line)
        );
    }
}

/// The keys of every object inside `value` (the layer's own fields and deeper).
fn nested_keys(value: &Value, keys: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                keys.push(key.clone());
                nested_keys(member, keys);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| nested_keys(item, keys)),
        _ => {}
    }
}

/// `-x`: the dump, read back as a person would, gives the frame's bytes.
fn hex_dump(frame: &[u8]) {
    let mut out = Vec::new();
    hexdump::write_hex(&mut out, frame);
    let text = std::str::from_utf8(&out).expect("-x output is UTF-8");
    let mut bytes = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let (offset, rest) = line.split_once("  ").expect("offset, then the bytes");
        assert_eq!(
            usize::from_str_radix(offset, 16),
            Ok(n * 16),
            "offset of line {n}: {line:?}"
        );
        // 16 columns of " xx" (blank past the end), then three spaces and the ASCII.
        let columns = &rest[..47];
        for column in columns.split(' ') {
            if !column.is_empty() {
                bytes.push(u8::from_str_radix(column, 16).expect("a hex byte"));
            }
        }
    }
    assert_eq!(bytes, frame, "the hex dump reads back as other bytes");
}
