//! What the job modules share: a fresh folder as `remaind init` leaves it.

use camino::Utf8PathBuf;
use remaind_fs::ContextDir;

/// A new, initialized `.context/` in a scratch folder named after `suite` (kept while the
/// returned guard lives).
pub(crate) fn folder(suite: &str) -> (tempfile::TempDir, ContextDir) {
    let tmp = remaind_testkit::scratch_dir(suite);
    let root = Utf8PathBuf::from_path_buf(tmp.path().join(".context")).expect("a UTF-8 path");
    let ctx = ContextDir::new(root);
    remaind_resume::init(&ctx, false).expect("init");
    (tmp, ctx)
}
