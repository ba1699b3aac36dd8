//! Input and output of the CLI: raw little-endian arrays or text (one number per line), files or standard
//! input/output (`-`). Output files are written to a temporary file beside the target and renamed into place
//! only once everything succeeded, so a failed run leaves no output file behind.

use crate::bench::data::{Column, ElemType};
use anyhow::{bail, Context as _, Result};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Parses an element count: `1000`, `1_000_000`, `2^20`, or with a suffix: `100K`, `16M`, `1G` (powers of 1000)
/// or `4Ki`, `16Mi`, `1Gi` (powers of 1024).
pub fn parse_count(s: &str) -> Result<u64> {
    let t = s.trim().replace('_', "");
    let bad = || {
        anyhow::anyhow!("`{s}` is not a count (examples: 1000, 2^20, 100K = 100000, 1Mi = 2^20)")
    };
    if let Some(e) = t.strip_prefix("2^") {
        let e: u32 = e.parse().map_err(|_| bad())?;
        if e > 40 {
            bail!("2^{e} is too large");
        }
        return Ok(1 << e);
    }
    let lower = t.to_ascii_lowercase();
    let suffixes: [(&str, u64); 6] = [
        ("ki", 1 << 10),
        ("mi", 1 << 20),
        ("gi", 1 << 30),
        ("k", 1_000),
        ("m", 1_000_000),
        ("g", 1_000_000_000),
    ];
    let (num, mul) = suffixes
        .iter()
        .find_map(|&(suf, mul)| lower.strip_suffix(suf).map(|n| (n.to_string(), mul)))
        .unwrap_or((lower.clone(), 1));
    let n: u64 = num.trim().parse().map_err(|_| bad())?;
    n.checked_mul(mul).ok_or_else(bad)
}

/// Files from this size on are read with a progress bar (on a terminal).
const READ_PROGRESS_BYTES: u64 = 64 << 20;

/// The bytes of `path` (`-`: standard input); a large file with a progress bar on a terminal.
fn read_bytes(path: &str, what: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if path == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("reading standard input")?;
        return Ok(bytes);
    }
    let ctx = || format!("reading {what} file `{path}`");
    let mut f = std::fs::File::open(path).with_context(ctx)?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if len < READ_PROGRESS_BYTES {
        f.read_to_end(&mut bytes).with_context(ctx)?;
        return Ok(bytes);
    }
    crate::progress::debug(format!("reading {what} file `{path}` ({})", fmt_bytes(len)));
    let bar = crate::progress::bytes_bar(len, &format!("reading {path}"));
    bytes.reserve_exact(len as usize);
    let mut chunk = vec![0u8; 8 << 20];
    loop {
        let k = f.read(&mut chunk).with_context(ctx)?;
        if k == 0 {
            break;
        }
        bytes.extend_from_slice(&chunk[..k]);
        bar.inc(k as u64);
    }
    bar.finish_and_clear();
    Ok(bytes)
}

/// Reads a column of `ty` from `path` (`-`: standard input), binary or text.
pub fn read_column(path: &str, ty: ElemType, text: bool, what: &str) -> Result<Column> {
    let bytes = read_bytes(path, what)?;
    let name = if path == "-" { "standard input" } else { path };
    if text {
        let s = String::from_utf8(bytes).with_context(|| {
            format!("{what} `{name}` is not UTF-8 text (a binary file? leave out --text)")
        })?;
        Column::parse_text(ty, &s).map_err(|e| anyhow::anyhow!("{what} `{name}`: {e}"))
    } else {
        let textlike = looks_like_text(&bytes);
        match Column::from_bytes(ty, &bytes) {
            Err(e) if textlike => bail!("{what} `{name}`: {e} (it looks like text: add --text)"),
            Err(e) => bail!("{what} `{name}`: {e}"),
            Ok(col) => {
                if textlike {
                    eprintln!("note: {what} `{name}` looks like text; it is read as raw numbers (add --text if it is)");
                }
                Ok(col)
            }
        }
    }
}

/// Whether raw input is more likely numbers as text: digits, signs, points and whitespace, ending in a newline.
fn looks_like_text(bytes: &[u8]) -> bool {
    bytes.last() == Some(&b'\n')
        && bytes
            .iter()
            .take(4096)
            .all(|b| b.is_ascii_digit() || b.is_ascii_whitespace() || b"+-.eEinfaINFA".contains(b))
}

/// Reads a sort's text input with values: `key value` lines (what `--print` writes) give both columns; lines of
/// one number give the keys alone (None: the caller makes index values). Mixed lines are an error naming one.
pub fn read_text_keys_values(
    path: &str,
    key: ElemType,
    value: ElemType,
) -> Result<(Column, Option<Column>)> {
    let bytes = read_bytes(path, "input")?;
    let name = if path == "-" { "standard input" } else { path };
    let s = String::from_utf8(bytes).with_context(|| {
        format!("input `{name}` is not UTF-8 text (a binary file? leave out --text)")
    })?;
    let data = |l: &&str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#')
    };
    let pairs = s
        .lines()
        .find(data)
        .is_some_and(|l| l.split_whitespace().count() == 2);
    if !pairs {
        let keys =
            Column::parse_text(key, &s).map_err(|e| anyhow::anyhow!("input `{name}`: {e}"))?;
        return Ok((keys, None));
    }
    let (mut keys, mut values) = (String::new(), String::new());
    for (i, line) in s.lines().enumerate() {
        let t = line.trim();
        if !data(&t) {
            continue;
        }
        let mut f = t.split_whitespace();
        match (f.next(), f.next(), f.next()) {
            (Some(k), Some(v), None) => {
                keys.push_str(k);
                keys.push('\n');
                values.push_str(v);
                values.push('\n');
            }
            _ => bail!(
                "input `{name}` line {}: `{t}` is not a `key value` pair like the first line",
                i + 1
            ),
        }
    }
    let keys =
        Column::parse_text(key, &keys).map_err(|e| anyhow::anyhow!("keys of `{name}`: {e}"))?;
    let values = Column::parse_text(value, &values)
        .map_err(|e| anyhow::anyhow!("values of `{name}`: {e}"))?;
    Ok((keys, Some(values)))
}

/// An output written to a temporary file, renamed into place by [`Staged::commit`], removed on drop otherwise.
pub struct Staged {
    tmp: Option<PathBuf>,
    target: PathBuf,
}

impl Staged {
    pub fn commit(mut self) -> Result<()> {
        if let Some(tmp) = self.tmp.take() {
            std::fs::rename(&tmp, &self.target).with_context(|| {
                let _ = std::fs::remove_file(&tmp);
                format!("renaming the output into `{}`", self.target.display())
            })?;
        }
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

fn encode(col: &Column, text: bool, w: &mut dyn Write) -> std::io::Result<()> {
    if text {
        col.write_text(w)
    } else {
        w.write_all(col.as_bytes())
    }
}

/// Writes `col` to a temporary file beside `path` (or, for `-`, straight to standard output, returning `None`).
pub fn stage(path: &str, col: &Column, text: bool) -> Result<Option<Staged>> {
    if path == "-" {
        let out = std::io::stdout();
        let mut w = std::io::BufWriter::new(out.lock());
        encode(col, text, &mut w).context("writing standard output")?;
        w.flush()?;
        return Ok(None);
    }
    let target = PathBuf::from(path);
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let file = target
        .file_name()
        .and_then(|f| f.to_str())
        .ok_or_else(|| anyhow::anyhow!("`{path}` is not a file path"))?;
    let tmp = dir.join(format!(".{file}.vksort-tmp{}", std::process::id()));
    let staged = Staged {
        tmp: Some(tmp.clone()),
        target,
    };
    let f = std::fs::File::create(&tmp).with_context(|| format!("creating `{}`", tmp.display()))?;
    let mut w = std::io::BufWriter::new(f);
    encode(col, text, &mut w)
        .and_then(|_| w.flush())
        .with_context(|| format!("writing `{}`", tmp.display()))?;
    Ok(Some(staged))
}

/// Prints `col` to standard output, one number per line (with values: `key value` per line).
pub fn print(col: &Column, values: Option<&Column>) -> Result<()> {
    let out = std::io::stdout();
    let mut w = std::io::BufWriter::new(out.lock());
    match values {
        None => col.write_text(&mut w)?,
        Some(v) => {
            for i in 0..col.len() {
                writeln!(w, "{} {}", col.format(i), v.format(i))?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

/// `1.00 GiB`, `4.00 KiB`, `12 B`.
pub fn fmt_bytes(b: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < units.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.2} {}", units[u])
    }
}

/// `5.10 ms`, `830 us`, `1.25 s`.
pub fn fmt_ms(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else if ms >= 1.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{:.1} us", ms * 1000.0)
    }
}

/// Items per second with three significant digits and a unit prefix: `52.6 G`, `412 M`, `3.20 K`.
pub fn fmt_rate(per_s: f64) -> String {
    let (x, unit) = if per_s >= 1e9 {
        (per_s / 1e9, "G")
    } else if per_s >= 1e6 {
        (per_s / 1e6, "M")
    } else {
        (per_s / 1e3, "K")
    };
    if x >= 100.0 {
        format!("{x:.0} {unit}")
    } else if x >= 10.0 {
        format!("{x:.1} {unit}")
    } else {
        format!("{x:.2} {unit}")
    }
}
