//! Rendering decoded packets: JSON Lines, one-line text, field trees and hex dumps.

#[cfg(feature = "cli")]
mod analyze_cnp;
#[cfg(feature = "cli")]
mod analyze_connections;
pub mod analyze_json;
#[cfg(feature = "cli")]
mod analyze_nvme;
#[cfg(feature = "cli")]
mod analyze_sessions;
#[cfg(feature = "cli")]
pub mod analyze_text;
pub mod atomic;
mod call_link;
pub mod fastjson;
pub mod fields;
#[cfg(feature = "cli")]
pub mod fields_list;
pub mod hexdump;
#[cfg(feature = "cli")]
pub mod html;
pub mod info;
mod iser_read;
pub mod json;
pub mod jsonw;
pub mod mad_json;
pub mod mad_text;
mod nvme_read;
#[cfg(feature = "export")]
pub mod parquet;
mod rpcrdma_read;
mod smbd_read;
pub mod text;
mod text_other;
pub mod time;
pub mod tree;
