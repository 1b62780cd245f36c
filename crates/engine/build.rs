//! Fingerprint of the engine's source: FNV-1a 64 over every file under src/ (paths sorted, '/'-separated,
//! each path and content hashed). Stored results are filed under it, so a result computed by one engine
//! is never taken for another's after a change (python/cclab/store.py, `results_version`).

use std::fs;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read src/") {
        let path = entry.expect("read src/ entry").path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files(&root.join("src"), &mut paths);
    let mut named: Vec<(String, PathBuf)> = paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>();
            (rel.join("/"), p)
        })
        .collect();
    named.sort();
    let mut hash = OFFSET;
    for (name, path) in &named {
        for byte in name.bytes().chain([0u8]).chain(fs::read(path).expect("read source file")).chain([0u8]) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
        }
    }
    println!("cargo:rustc-env=CCLAB_ENGINE_SOURCE_HASH={hash:016x}");
    println!("cargo:rerun-if-changed=src");
}
