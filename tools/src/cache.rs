//! The persistent pipeline cache of the `vksort` binaries, tests and examples: one file per device and driver
//! (`pipelineCacheUUID`, vendor and device ids, driver version) under the user's cache directory, merged into a
//! context after its creation ([`vksort::Context::merge_pipeline_cache`]) and written back, atomically
//! (temporary file and rename), when the command is done.
//!
//! The library itself reads and writes no file: a renderer keeps its own blob
//! ([`vksort::ContextOptions::pipeline_cache`], [`vksort::Context::pipeline_cache_data`]).
//!
//! Where: `$VKSORT_PIPELINE_CACHE_DIR` when set (empty, `0` or `off`: no cache at all), else
//! `$VKSORT_CACHE_DIR/pipelines` (beside the calibration), else `$XDG_CACHE_HOME/vksort/pipelines` or `~/.cache/vksort/pipelines` (`~/Library/Caches/...` on macOS,
//! `%LOCALAPPDATA%\vksort\pipelines` on Windows).
//!
//! File format: a 32-byte header of vksort's own (magic `VKSORTPC`, format version, payload length, FNV-1a hash
//! of the payload) before the driver's data, so that a truncated or corrupted file is ignored with a warning
//! before the driver sees it; the driver's own header is checked by the library against the device.
//!
//! Std only (no `dirs`, no logging crate): examples of the library include this file by path.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use vksort::gpu::{Context, DeviceCaps, PipelineCacheStatus};

const MAGIC: &[u8; 8] = b"VKSORTPC";
const FORMAT: u32 = 1;
const HEADER: usize = 32;

/// How loud a [`Note`] is: debug notes are printed with `-v` / `VKSORT_LOG=debug`, warnings always.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Debug,
    Warn,
}

/// One thing worth telling about the cache (a hit, a miss, a file ignored and why).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub level: Level,
    pub message: String,
}

impl Note {
    fn debug(message: String) -> Self {
        Self {
            level: Level::Debug,
            message,
        }
    }
    fn warn(message: String) -> Self {
        Self {
            level: Level::Warn,
            message,
        }
    }
}

/// The directory of the cache files: `$VKSORT_PIPELINE_CACHE_DIR`, `$VKSORT_CACHE_DIR/pipelines`, or the
/// platform's user cache directory's `vksort/pipelines`; `None` when the first is empty, `0` or `off`, or no
/// cache directory is known.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("VKSORT_PIPELINE_CACHE_DIR") {
        let s = d.to_string_lossy();
        if s.is_empty() || s.eq_ignore_ascii_case("off") || s == "0" {
            return None;
        }
        return Some(PathBuf::from(d));
    }
    // The calibration's cache root (`crate::model`), when set.
    if let Some(d) = std::env::var_os("VKSORT_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("pipelines"));
    }
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(windows) {
        env("LOCALAPPDATA")
    } else if cfg!(target_os = "macos") {
        env("HOME").map(|h| h.join("Library").join("Caches"))
    } else {
        env("XDG_CACHE_HOME").or_else(|| env("HOME").map(|h| h.join(".cache")))
    }?;
    Some(base.join("vksort").join("pipelines"))
}

/// The file name of the cache of a device and driver.
pub fn file_name(caps: &DeviceCaps) -> String {
    let uuid: String = caps
        .pipeline_cache_uuid
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!(
        "{:04x}-{:04x}-{uuid}-{:08x}.bin",
        caps.vendor_id, caps.device_id, caps.driver_version
    )
}

/// FNV-1a, 64 bits: enough to tell a damaged file from an intact one.
fn fnv1a(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The driver's data out of a cache file's bytes, or why it is unusable.
pub fn decode(bytes: &[u8]) -> Result<&[u8], String> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err("not a vksort pipeline-cache file".into());
    }
    let format = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    if format != FORMAT {
        return Err(format!("format {format} (this build reads {FORMAT})"));
    }
    let len = u64::from_le_bytes(bytes[16..24].try_into().unwrap());
    let hash = u64::from_le_bytes(bytes[24..32].try_into().unwrap());
    let payload = &bytes[HEADER..];
    if payload.len() as u64 != len {
        return Err(format!(
            "truncated or damaged ({} bytes of data where the header says {len})",
            payload.len()
        ));
    }
    if fnv1a(payload) != hash {
        return Err("damaged (its checksum does not match)".into());
    }
    Ok(payload)
}

/// A cache file's bytes for the driver's `data`.
pub fn encode(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a(data).to_le_bytes());
    out.extend_from_slice(data);
    out
}

/// The cache file of one context's device: loaded into it by [`PipelineCacheFile::attach`], written back by
/// [`PipelineCacheFile::save`].
#[derive(Debug)]
pub struct PipelineCacheFile {
    path: PathBuf,
    /// The hash and length of the driver data the file held (nothing to write when unchanged).
    loaded: Option<(u64, usize)>,
}

impl PipelineCacheFile {
    /// The file of `ctx`'s device in `dir`, its data merged into `ctx`'s pipeline cache when it exists and
    /// is sound (otherwise a warning saying why, and the cache starts empty: the run goes on either way).
    pub fn attach_in(dir: &Path, ctx: &Context) -> (Self, Vec<Note>) {
        let path = dir.join(file_name(ctx.caps()));
        let mut notes = Vec::new();
        let mut loaded = None;
        match std::fs::read(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => notes.push(Note::debug(format!(
                "pipeline cache miss: no `{}` yet (pipelines are compiled, then saved there)",
                path.display()
            ))),
            Err(e) => notes.push(Note::warn(format!(
                "ignoring the pipeline cache `{}`: {e}",
                path.display()
            ))),
            Ok(bytes) => match decode(&bytes) {
                Err(why) => notes.push(Note::warn(format!(
                    "ignoring the pipeline cache `{}`: {why}; it will be rewritten",
                    path.display()
                ))),
                Ok(data) => match ctx.merge_pipeline_cache(data) {
                    PipelineCacheStatus::Loaded { bytes } => {
                        loaded = Some((fnv1a(data), data.len()));
                        notes.push(Note::debug(format!(
                            "pipeline cache hit: loaded {bytes} bytes from `{}`",
                            path.display()
                        )));
                    }
                    PipelineCacheStatus::Rejected { reason } => notes.push(Note::warn(format!(
                        "ignoring the pipeline cache `{}`: {reason}; it will be rewritten",
                        path.display()
                    ))),
                    other => notes.push(Note::debug(format!(
                        "pipeline cache `{}`: {other:?}",
                        path.display()
                    ))),
                },
            },
        }
        (Self { path, loaded }, notes)
    }

    /// [`PipelineCacheFile::attach_in`] the default directory ([`cache_dir`]); `None` (no notes) when the
    /// cache is turned off or no directory is known.
    pub fn attach(ctx: &Context) -> Option<(Self, Vec<Note>)> {
        cache_dir().map(|d| Self::attach_in(&d, ctx))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `ctx`'s pipeline cache to the file when it changed since it was loaded: into a temporary file
    /// beside it, renamed over it (a reader never sees half a file; of two writers the last rename wins).
    /// Returns the bytes written (None: unchanged).
    pub fn save(&self, ctx: &Context) -> Result<Option<usize>, String> {
        let data = ctx
            .pipeline_cache_data()
            .map_err(|e| format!("reading the pipeline cache: {e}"))?;
        if self.loaded == Some((fnv1a(&data), data.len())) {
            return Ok(None);
        }
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| format!("creating `{}`: {e}", dir.display()))?;
        let tmp = dir.join(format!(
            ".{}.tmp{}",
            self.path
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
            std::process::id()
        ));
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&encode(&data))?;
            f.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("writing `{}`: {e}", self.path.display())
        })?;
        Ok(Some(HEADER + data.len()))
    }
}
