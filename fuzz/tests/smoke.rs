//! Runs the fuzz checks without libFuzzer, on stable: over every file of the fixture corpus,
//! and over deterministic mutations of them (bytes flipped, cut, spliced), so the checks stay
//! compiled and meaningful between fuzzing sessions.

use std::fs;
use std::path::{Path, PathBuf};

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

fn corpus(ext: &str) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut paths = Vec::new();
    files(&root, ext, &mut paths);
    paths.iter().map(|p| fs::read(p).unwrap()).collect()
}

/// A small xorshift generator: the same mutations on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutations(seeds: &[Vec<u8>], count: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let interesting: &[&[u8]] = &[
        b"|",
        b"\n",
        b"\r\n",
        b"```",
        b"<!--",
        b"- ",
        b": ",
        b"[",
        b"]",
        b"'",
        b"\"",
        b"&a",
        b"\xef\xbb\xbf",
        "ç😀".as_bytes(),
        b"\t",
        b"2026-10-22T14:05Z",
        b"---",
        b"$(",
        b"`",
        b"<<EOF\n",
        b"; then ",
        b" do ",
        b"bash -c '",
        b"\\",
        b" -exec rm {} \\;",
        b"(",
        b")",
        b"{ ",
        b" }",
        b"case x in ",
    ];
    (0..count)
        .map(|_| {
            let mut data = seeds[rng.below(seeds.len())].clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(data.len() + 1);
                match rng.below(4) {
                    0 if !data.is_empty() => {
                        let i = rng.below(data.len());
                        data[i] = rng.next() as u8;
                    }
                    1 => data.truncate(at),
                    2 => {
                        let piece = interesting[rng.below(interesting.len())];
                        data.splice(at..at, piece.iter().copied());
                    }
                    _ => {
                        let other = &seeds[rng.below(seeds.len())];
                        let from = rng.below(other.len());
                        let to = from + rng.below(other.len() - from + 1);
                        data.splice(at..at, other[from..to].iter().copied());
                    }
                }
            }
            data
        })
        .collect()
}

#[test]
fn rail_checks_hold_on_the_corpus() {
    let seeds = corpus("md");
    assert!(seeds.len() > 50, "the fixture corpus is missing");
    for data in seeds.iter().chain(&mutations(&seeds, 3000)) {
        rail_fuzz::check_rail(data);
    }
}

#[test]
fn yaml_checks_hold_on_the_corpus() {
    let seeds = corpus("yaml");
    assert!(seeds.len() > 30, "the fixture corpus is missing");
    for data in seeds.iter().chain(&mutations(&seeds, 3000)) {
        rail_fuzz::check_yaml(data);
    }
}

#[test]
fn merge_checks_hold_on_the_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/merge");
    let mut seeds = Vec::new();
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut data = fs::read(dir.join("base.md")).unwrap();
        data.push(0xFF);
        data.extend(fs::read(dir.join("ours.md")).unwrap());
        data.push(0xFF);
        data.extend(fs::read(dir.join("theirs.md")).unwrap());
        seeds.push(data);
    }
    assert!(seeds.len() > 8);
    for data in seeds.iter().chain(&mutations(&seeds, 3000)) {
        rail_fuzz::check_merge(data);
    }
}

#[test]
fn shell_checks_hold_on_the_command_corpus() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hooks/commands.tsv");
    let text = fs::read_to_string(path).unwrap();
    let seeds: Vec<Vec<u8>> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split('\t').next())
        .map(|c| c.replace('⏎', "\n").replace('⇥', "\t").into_bytes())
        .collect();
    assert!(seeds.len() > 200, "the command corpus is missing");
    for data in seeds.iter().chain(&mutations(&seeds, 3000)) {
        rail_fuzz::check_shell(data);
    }
}
