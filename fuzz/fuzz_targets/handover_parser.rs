//! The handover parser: arbitrary text parses into sections (with problems as data), its
//! binding line and citations; nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use remaind_validate::{Handover, citations, parse_binding};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let h = Handover::parse(&text);
    for (_, id) in h.current_citations() {
        let _ = id;
    }
    let _ = h.section("Superseded");
    let _ = parse_binding(&text);
    let ids = citations(&text);
    let rendered = remaind_validate::render_citations(&ids);
    // Rendered citations parse back to the same ids.
    assert_eq!(citations(&rendered), ids);
});
