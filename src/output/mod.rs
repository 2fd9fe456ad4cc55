//! Rendering decoded packets: JSON Lines and one-line text.

pub mod analyze_json;
#[cfg(feature = "cli")]
pub mod analyze_text;
pub mod json;
pub mod jsonw;
pub mod text;
mod text_other;
pub mod time;
