//! Media-type sniffing and text excerpts.

/// Magic numbers at offset 0, checked in order.
const MAGIC: &[(&[u8], &str)] = &[
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"\x1f\x8b", "application/gzip"),
    (b"PK\x03\x04", "application/zip"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
    (b"\x00asm", "application/wasm"),
    (b"\x28\xb5\x2f\xfd", "application/zstd"),
];

/// A media type for `bytes`, from content alone.
///
/// Known magic numbers first (`image/png`, `image/jpeg`, `image/gif`, `image/webp`,
/// `image/tiff`, `application/pdf`, `application/gzip`, `application/zip`, `application/wasm`,
/// `application/zstd`); then `application/json` for text that parses as a JSON object or array;
/// then `text/plain` for valid UTF-8 without NUL bytes; else `application/octet-stream`.
pub fn sniff_media_type(bytes: &[u8]) -> &'static str {
    if let Some((_, media_type)) = MAGIC.iter().find(|(magic, _)| bytes.starts_with(magic)) {
        return media_type;
    }
    if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        return "image/webp";
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return "application/octet-stream";
    };
    if text.contains('\0') {
        return "application/octet-stream";
    }
    let trimmed = text.trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
    {
        return "application/json";
    }
    "text/plain"
}

/// Whether `i` starts a character in `bytes`: not inside a UTF-8 sequence.
fn is_boundary(bytes: &[u8], i: usize) -> bool {
    i == 0 || i >= bytes.len() || (bytes[i] & 0b1100_0000) != 0b1000_0000
}

/// The head and tail of `bytes`, each at most `max` bytes of input, decoded lossily.
///
/// Cuts move inward to character boundaries, so no character is split (at most 3 bytes are
/// given up at each cut). When everything fits in `max` bytes the head is the whole content and
/// the tail is empty; the tail never repeats bytes that are in the head. Invalid UTF-8 decodes
/// to U+FFFD, so the strings may be longer than `max` bytes for binary input.
pub fn excerpts(bytes: &[u8], max: usize) -> (String, String) {
    if bytes.len() <= max {
        return (String::from_utf8_lossy(bytes).into_owned(), String::new());
    }
    let mut head_end = max;
    while head_end > 0 && !is_boundary(bytes, head_end) && max - head_end < 3 {
        head_end -= 1;
    }
    if !is_boundary(bytes, head_end) {
        // Not UTF-8 around the cut: any cut is as good as another.
        head_end = max;
    }
    let mut tail_start = (bytes.len() - max).max(head_end);
    let limit = tail_start;
    while tail_start < bytes.len() && !is_boundary(bytes, tail_start) && tail_start - limit < 3 {
        tail_start += 1;
    }
    if !is_boundary(bytes, tail_start) {
        tail_start = limit;
    }
    (
        String::from_utf8_lossy(&bytes[..head_end]).into_owned(),
        String::from_utf8_lossy(&bytes[tail_start..]).into_owned(),
    )
}
