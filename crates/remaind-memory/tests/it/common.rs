//! A fresh `.context/` inside a temporary project folder.

use camino::{Utf8Path, Utf8PathBuf};
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;

pub(crate) struct Project {
    _tmp: tempfile::TempDir,
    pub(crate) root: Utf8PathBuf,
    pub(crate) ctx: ContextDir,
}

impl Project {
    pub(crate) fn new() -> Project {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = Utf8PathBuf::from_path_buf(tmp.path().to_path_buf()).expect("utf-8 temp dir");
        let ctx = ContextDir::new(root.join(".context"));
        Ledger::create(ctx.root()).expect("create ledger");
        if remaind_testkit::on_store() {
            // The same suite on a shared store (REMAIND_TEST_ON_STORE): the folder is a replica.
            remaind_testkit::make_replica(ctx.root(), "memory");
        }
        Project {
            _tmp: tmp,
            root,
            ctx,
        }
    }

    pub(crate) fn ledger(&self) -> Ledger {
        Ledger::open(self.ctx.root()).expect("open ledger")
    }

    /// Every memory file under `memory/` (path → contents), sorted; the store's own
    /// `history/` is not a memory file.
    pub(crate) fn memory_files(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let dir = self.ctx.join("memory");
        if dir.exists() {
            walk(&dir, "memory", &mut out);
        }
        out.sort();
        out
    }
}

fn walk(dir: &Utf8Path, rel: &str, out: &mut Vec<(String, String)>) {
    for e in dir.read_dir_utf8().expect("read dir") {
        let e = e.expect("entry");
        let path = e.path().to_owned();
        let name = format!("{rel}/{}", e.file_name());
        if name == "memory/history" {
            continue;
        }
        if path.is_dir() {
            walk(&path, &name, out);
        } else {
            out.push((name, std::fs::read_to_string(&path).expect("read")));
        }
    }
}
