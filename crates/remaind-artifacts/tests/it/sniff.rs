//! Media-type sniffing and excerpts.

use remaind_artifacts::{excerpts, sniff_media_type};

#[test]
fn media_types_by_content() {
    let cases: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "image/png"),
        (b"\xff\xd8\xff\xe0\0\x10JFIF", "image/jpeg"),
        (b"GIF89a\x01\0\x01\0", "image/gif"),
        (b"RIFF\x24\0\0\0WEBPVP8 ", "image/webp"),
        (b"%PDF-1.7\n", "application/pdf"),
        (b"\x1f\x8b\x08\0", "application/gzip"),
        (b"PK\x03\x04\x14\0", "application/zip"),
        (b"{\"a\": [1, 2, {\"b\": null}]}", "application/json"),
        (b"  \n[1, 2, 3]\n", "application/json"),
        (b"\"just a string\"", "text/plain"),
        (b"42", "text/plain"),
        (b"{\"truncated\": ", "text/plain"),
        (b"hello, world\n", "text/plain"),
        ("héllo ☃".as_bytes(), "text/plain"),
        (b"", "text/plain"),
        (b"text with a \0 NUL", "application/octet-stream"),
        (b"\xff\xfe\xfd", "application/octet-stream"),
        (b"RIFF\x24\0\0\0WAVE", "application/octet-stream"),
    ];
    for (bytes, expected) in cases {
        assert_eq!(sniff_media_type(bytes), *expected, "{bytes:?}");
    }
    let deep = "[".repeat(10_000);
    assert_eq!(sniff_media_type(deep.as_bytes()), "text/plain");
}

#[test]
fn excerpts_cut_on_char_boundaries() {
    assert_eq!(excerpts(b"short", 10), ("short".to_owned(), String::new()));
    assert_eq!(
        excerpts(b"abcdefghij", 3),
        ("abc".to_owned(), "hij".to_owned())
    );
    assert_eq!(excerpts(b"abcdef", 4), ("abcd".to_owned(), "ef".to_owned()));
    assert_eq!(excerpts(b"abc", 0), (String::new(), String::new()));
    // "é" is two bytes, "☃" three: cuts never split them.
    let text = "ééééé middle ☃☃☃☃";
    for max in 0..text.len() {
        let (head, tail) = excerpts(text.as_bytes(), max);
        assert!(text.starts_with(&head), "{max}: {head:?}");
        assert!(text.ends_with(&tail), "{max}: {tail:?}");
        assert!(head.len() <= max && tail.len() <= max, "{max}");
        assert!(head.len() + 3 >= max.min(text.len()), "{max}: {head:?}");
        assert!(!head.contains('\u{fffd}') && !tail.contains('\u{fffd}'));
        assert!(head.len() + tail.len() <= text.len());
    }
    // Binary input decodes lossily without panicking.
    let binary: Vec<u8> = (0..=255u8).collect();
    let (head, tail) = excerpts(&binary, 16);
    assert!(head.starts_with("\0\u{1}"));
    assert!(tail.ends_with('\u{fffd}'));
}
