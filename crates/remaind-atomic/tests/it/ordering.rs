//! Total order of history points, even within one clock tick or with the clock behind.

use remaind_atomic::{Timestamp, format_time};

use crate::common::{micros_after, store};

#[test]
fn rapid_writes_get_consecutive_seqs_and_strictly_increasing_times() {
    let (_tmp, store) = store();
    let mut points = Vec::new();
    for i in 0..50u8 {
        let file = if i % 2 == 0 { "a" } else { "b" };
        points.push(store.write(file, &[i]).expect("write"));
    }
    for (i, pair) in points.windows(2).enumerate() {
        assert_eq!(pair[1].seq(), pair[0].seq() + 1, "at {i}");
        assert!(pair[1].time() > pair[0].time(), "at {i}");
    }
    assert_eq!(store.list().expect("list"), points);
    // Every point is an unambiguous instant: the version as of it is the one written then.
    for (i, p) in points.iter().enumerate() {
        let got = store.version_at(p.file(), p.time()).expect("version_at");
        assert_eq!(got, Some(vec![u8::try_from(i).expect("small")]));
    }
}

#[test]
fn clock_behind_last_point_still_advances_by_one_microsecond() {
    let (_tmp, store) = store();
    store.write("a", b"0").expect("write");
    // Plant a point an hour in the future, as if the clock had since stepped back.
    let future = Timestamp::from_microsecond(Timestamp::now().as_microsecond() + 3_600_000_000)
        .expect("in range");
    let name = format!("00000000000000000002_{}_P_a", format_time(future));
    std::fs::write(store.history_dir().join(name), b"0").expect("plant");
    let p = store.write("a", b"1").expect("write");
    assert_eq!(p.seq(), 3);
    assert_eq!(p.time(), micros_after(future));
    let q = store.write("a", b"2").expect("write");
    assert_eq!(q.time(), micros_after(p.time()));
}

#[test]
fn time_format_has_exactly_six_fraction_digits() {
    let whole: Timestamp = "2026-11-21T21:03:35Z".parse().expect("parse");
    assert_eq!(format_time(whole), "2026-11-21T21:03:35.000000Z");
    let nanos: Timestamp = "2026-11-21T21:03:35.123456789Z".parse().expect("parse");
    assert_eq!(format_time(nanos), "2026-11-21T21:03:35.123456Z");
}

#[test]
fn concurrent_writers_are_serialized() {
    let (_tmp, store) = store();
    let threads: Vec<_> = (0..4u8)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                (0..8u8)
                    .map(|i| store.write(format!("t{t}"), &[i]).expect("write"))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut all: Vec<_> = threads
        .into_iter()
        .flat_map(|h| h.join().expect("thread"))
        .collect();
    all.sort_by_key(|p| p.seq());
    assert_eq!(all, store.list().expect("list"));
    for (i, pair) in all.windows(2).enumerate() {
        assert_eq!(pair[1].seq(), pair[0].seq() + 1, "at {i}");
        assert!(pair[1].time() > pair[0].time(), "at {i}");
    }
    for t in 0..4u8 {
        assert_eq!(store.read(format!("t{t}")).expect("read"), Some(vec![7]));
    }
}
