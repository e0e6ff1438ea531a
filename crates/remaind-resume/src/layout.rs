//! The names of the `.context/` folder this layer uses; the layout and how the folder is
//! found are `remaind_fs::layout`'s (docs/contract.md#the-folder).

pub(crate) use remaind_fs::ContextDir;
pub(crate) use remaind_fs::layout::{
    DERIVED_FILES, FRAMING_FILE, HANDOVER_FILE, PACKET_FILE, STATE_FILE,
};
