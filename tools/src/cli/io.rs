//! Input and output of the CLI: raw little-endian arrays or text (one number per line), files or standard
//! input/output (`-`). Output files are written to a temporary file beside the target and renamed into place
//! only once everything succeeded, so a failed run leaves no output file behind.

use crate::bench::data::{Column, ElemType};
use anyhow::{bail, Context as _, Result};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Parses an element count: `1000`, `2^20`, `4K`, `16M`, `1G` (binary multiples).
pub fn parse_count(s: &str) -> Result<u64> {
    let t = s.trim();
    let bad = || anyhow::anyhow!("`{s}` is not a count (examples: 1000, 2^20, 16M)");
    if let Some(e) = t.strip_prefix("2^") {
        let e: u32 = e.parse().map_err(|_| bad())?;
        if e > 40 {
            bail!("2^{e} is too large");
        }
        return Ok(1 << e);
    }
    let (num, mul) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1u64 << 10),
        Some((i, 'm' | 'M')) => (&t[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    let n: u64 = num.trim().parse().map_err(|_| bad())?;
    n.checked_mul(mul).ok_or_else(bad)
}

/// Reads a column of `ty` from `path` (`-`: standard input), binary or text.
pub fn read_column(path: &str, ty: ElemType, text: bool, what: &str) -> Result<Column> {
    let mut bytes = Vec::new();
    if path == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("reading standard input")?;
    } else {
        bytes = std::fs::read(path).with_context(|| format!("reading {what} file `{path}`"))?;
    }
    let name = if path == "-" { "standard input" } else { path };
    if text {
        let s = String::from_utf8(bytes)
            .with_context(|| format!("{what} `{name}` is not UTF-8 text"))?;
        Column::parse_text(ty, &s).map_err(|e| anyhow::anyhow!("{what} `{name}`: {e}"))
    } else {
        Column::from_bytes(ty, &bytes).map_err(|e| anyhow::anyhow!("{what} `{name}`: {e}"))
    }
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
