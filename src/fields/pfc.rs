//! MAC Control frames: priority flow control (802.1Qbb) and PAUSE (802.3x).

use super::{Each, Field, MAX_ELEMENTS, Parquet, Type, Value, int};

/// Each PFC class's enable bit and pause time, under Wireshark's per-class names.
macro_rules! per_class {
    ($(($enable:literal, $time:literal, $n:literal)),* $(,)?) => {
        &[$(
            Field::new($enable, Type::Bool, "PFC class-enable bit of this class", |p| {
                p.pfc.map(|f| Value::Bool(f.enabled($n)))
            })
            .wireshark_only(),
            int!($time, "PFC pause quanta of this class", |p| p
                .pfc
                .map(|f| f.quanta()[$n]))
            .wireshark_only(),
        )*]
    };
}

/// Priority flow control (802.1Qbb) and PAUSE (802.3x) frames.
pub(super) const PAUSE_FRAMES: &[Field] = &[
    int!("pfc.class_enable", "PFC class-enable vector", |p| p
        .pfc
        .map(|f| f.class_enable()))
    .wireshark("macc.cbfc.enbv"),
    each!(
        "pfc.quanta",
        Type::Int,
        "PFC pause quanta of any class (compare one class with macc.cbfc.pause_time.cN)",
        |p, i| p.pfc.and_then(|f| f.quanta().get(i).copied()),
        int
    ),
    int!("pause.quanta", "PAUSE quanta", |p| p
        .pause
        .map(|f| f.quanta()))
    .wireshark("macc.pause_time"),
];

pub(super) const PRESENT: &[Field] = &[
    header!("pfc", "is a PFC frame", |p| p.pfc.is_some()),
    header!("pause", "is a PAUSE frame", |p| p.pause.is_some()),
];

/// The MAC Control opcode, which Wireshark names and rdmadump shows as the frame's kind.
pub(super) const WIRESHARK_OPCODE: &[Field] = &[int!(
    "macc.opcode",
    "MAC Control opcode: 0x0001 PAUSE, 0x0101 PFC",
    |p| {
        if p.pfc.is_some() {
            Some(crate::wire::mac_control::OPCODE_PFC)
        } else {
            p.pause.map(|_| crate::wire::mac_control::OPCODE_PAUSE)
        }
    }
)
.wireshark_only()];

/// The eight PFC classes, where rdmadump's `pfc.quanta` has one value per class.
pub(super) const WIRESHARK_CLASSES: &[Field] = per_class![
    ("macc.cbfc.enbv.c0", "macc.cbfc.pause_time.c0", 0),
    ("macc.cbfc.enbv.c1", "macc.cbfc.pause_time.c1", 1),
    ("macc.cbfc.enbv.c2", "macc.cbfc.pause_time.c2", 2),
    ("macc.cbfc.enbv.c3", "macc.cbfc.pause_time.c3", 3),
    ("macc.cbfc.enbv.c4", "macc.cbfc.pause_time.c4", 4),
    ("macc.cbfc.enbv.c5", "macc.cbfc.pause_time.c5", 5),
    ("macc.cbfc.enbv.c6", "macc.cbfc.pause_time.c6", 6),
    ("macc.cbfc.enbv.c7", "macc.cbfc.pause_time.c7", 7),
];
