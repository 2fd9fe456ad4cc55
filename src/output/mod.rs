//! Rendering decoded packets: JSON Lines and one-line text.

pub mod analyze_json;
#[cfg(feature = "cli")]
pub mod analyze_text;
pub mod json;
pub mod jsonw;
pub mod mad_json;
pub mod mad_text;
pub mod text;
pub mod time;
