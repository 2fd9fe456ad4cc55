//! How `read` shows the request a response answers, for every request/response protocol
//! over RDMA: ` call frame 4 latency 150.000 us` at the end of a text line, and the `call`
//! object of its `read --json` layer.

use std::io::Write;

use super::jsonw::Obj;
use crate::dissect::CallLink;

/// ` call frame N latency X us`.
pub(super) fn write_tail(out: &mut Vec<u8>, link: &CallLink) {
    let _ = write!(out, " call frame {}", link.frame);
    if let Some(ns) = link.latency_ns {
        let _ = write!(out, " latency {}.{:03} us", ns / 1000, ns % 1000);
    }
}

/// `"call": {"frame", "name", "latency_ns"}`.
pub(super) fn write_json(layer: &mut Obj<'_>, link: &CallLink) {
    let mut c = layer.obj("call");
    c.u64("frame", link.frame).name("name", link.name);
    if let Some(ns) = link.latency_ns {
        c.u64("latency_ns", ns);
    }
}
