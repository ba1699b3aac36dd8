//! RenderDoc captures of vksort's work through RenderDoc's in-application API (`renderdoc_app.h`, API 1.6.0),
//! for `vksort sort|scan|compact --capture FILE.rdc` and the capture tests. The particle renderer example
//! (`examples/particles`, `--capture`) and the root package's `tests/renderdoc.rs` include this file by path: it
//! needs only vksort, ash, anyhow and libloading.
//!
//! Contract:
//! - [`RenderDoc::load`] loads `librenderdoc.so` (RenderDoc's capture library, Debian's `librenderdoc`) and
//!   asks it for the in-application API; where the library is not installed it fails with a message that says
//!   how to install it. It must run before the process creates its Vulkan instance: RenderDoc records through
//!   its implicit Vulkan layer (`VK_LAYER_RENDERDOC_Capture`, manifest `renderdoc_capture.json`), which the
//!   loader enables at `vkCreateInstance` only when `ENABLE_VULKAN_RENDERDOC_CAPTURE=1` is in the
//!   environment; `load` sets that variable, so call it while no other thread reads the environment (at
//!   start-up).
//! - [`RenderDoc::capture`] brackets `f` with `StartFrameCapture` / `EndFrameCapture` on `ctx`'s instance: every
//!   queue submission `f` makes lands in one capture, which is moved to the path asked for. It fails when
//!   RenderDoc did not hook the context's instance (the library was loaded too late, or the layer is missing)
//!   or when RenderDoc reports the capture failed.
//! - Validation keeps working under RenderDoc: the loader puts RenderDoc's implicit layer above an enabled
//!   `VK_LAYER_KHRONOS_validation`, and RenderDoc mutes the debug messages of the layers below it unless its
//!   option `DebugOutputMute` is off; `load` turns it off, so a context with validation on still receives
//!   the validation errors (the RenderDoc tests check it). RenderDoc adds transfer usage to the buffers it
//!   captures, so a missing `TRANSFER_*` usage goes unreported under capture.
//! - [`summarize`] reads a capture back the way the RenderDoc GUI opens it (a replay on the local device, through
//!   RenderDoc's Python module and `scripts/rdc-summary.py`, embedded here): its labelled regions and its named
//!   resources.
//! - Nothing here changes what vksort records: a capture shows the same passes, labels and names
//!   (`VK_EXT_debug_utils`) as a run without RenderDoc. RenderDoc hides device features it cannot capture
//!   (for example `bufferDeviceAddress` without `bufferDeviceAddressCaptureReplay`), so a context created under
//!   it may get another policy than without it, never a different result.

use anyhow::{anyhow, bail, Context as _, Result};
use ash::vk::Handle;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use vksort::Context;

/// The library's file name; the dynamic loader finds it in `/usr/lib` (Debian's `librenderdoc`).
pub const LIBRARY: &str = "librenderdoc.so";

/// The environment variable that enables RenderDoc's implicit Vulkan layer (see its `renderdoc_capture.json`).
pub const LAYER_ENV: &str = "ENABLE_VULKAN_RENDERDOC_CAPTURE";

/// `eRENDERDOC_API_Version_1_6_0`.
const API_1_6_0: c_int = 10600;

/// `eRENDERDOC_Option_DebugOutputMute`.
const OPTION_DEBUG_OUTPUT_MUTE: c_int = 11;

type DevicePointer = *mut c_void;
type WindowHandle = *mut c_void;
type Fn0 = unsafe extern "C" fn();

/// `RENDERDOC_API_1_6_0`: a table of function pointers, in the header's order. The entries vksort does not
/// call are kept as opaque pointers (only their count matters for the layout).
#[repr(C)]
struct Api {
    get_api_version: unsafe extern "C" fn(*mut c_int, *mut c_int, *mut c_int),
    set_capture_option_u32: unsafe extern "C" fn(c_int, u32) -> c_int,
    _set_capture_option_f32: Fn0,
    _get_capture_option_u32: Fn0,
    _get_capture_option_f32: Fn0,
    _set_focus_toggle_keys: Fn0,
    _set_capture_keys: Fn0,
    _get_overlay_bits: Fn0,
    _mask_overlay_bits: Fn0,
    _remove_hooks: Fn0,
    _unload_crash_handler: Fn0,
    set_capture_file_path_template: unsafe extern "C" fn(*const c_char),
    _get_capture_file_path_template: Fn0,
    get_num_captures: unsafe extern "C" fn() -> u32,
    get_capture: unsafe extern "C" fn(u32, *mut c_char, *mut u32, *mut u64) -> u32,
    _trigger_capture: Fn0,
    _is_target_control_connected: Fn0,
    _launch_replay_ui: Fn0,
    _set_active_window: Fn0,
    start_frame_capture: unsafe extern "C" fn(DevicePointer, WindowHandle),
    is_frame_capturing: unsafe extern "C" fn() -> u32,
    end_frame_capture: unsafe extern "C" fn(DevicePointer, WindowHandle) -> u32,
    _trigger_multi_frame_capture: Fn0,
    _set_capture_file_comments: Fn0,
    _discard_frame_capture: Fn0,
    _show_replay_ui: Fn0,
    set_capture_title: unsafe extern "C" fn(*const c_char),
}

/// RenderDoc's in-application API, loaded into this process.
pub struct RenderDoc {
    api: *const Api,
    version: (i32, i32, i32),
    /// Captures must not overlap (renderdoc_app.h: "the results are undefined"): one at a time.
    capturing: Mutex<()>,
    // Keeps the library mapped for as long as `api` is used (RenderDoc is never unloaded in practice).
    _lib: libloading::Library,
}

// SAFETY: the table is immutable static data of the library, and its functions may be called from any thread;
// the one rule, no overlapping captures, is kept by `capturing`.
unsafe impl Send for RenderDoc {}
unsafe impl Sync for RenderDoc {}

impl RenderDoc {
    /// Loads `librenderdoc.so` and its API, and enables its Vulkan layer for instances created from now on.
    /// Call it before the first Vulkan instance of the process is created (see the module docs).
    pub fn load() -> Result<Self> {
        // The layer is implicit: the loader enables it at vkCreateInstance when this variable is set.
        std::env::set_var(LAYER_ENV, "1");
        // SAFETY: RenderDoc's library runs its initialisation on load (installing its hooks); it is built to be
        // loaded into an application this way (the in-application API's documented use).
        let lib = unsafe { libloading::Library::new(LIBRARY) }.map_err(|e| {
            anyhow!(
                "RenderDoc is not installed ({LIBRARY} could not be loaded: {e}); install it with \
                 `apt install librenderdoc` (Debian 12 ships RenderDoc 1.24; `./dev` installs it), or from \
                 https://renderdoc.org"
            )
        })?;
        // SAFETY: `RENDERDOC_GetAPI` has this signature in every RenderDoc release (renderdoc_app.h).
        let get_api: libloading::Symbol<unsafe extern "C" fn(c_int, *mut *mut c_void) -> c_int> =
            unsafe { lib.get(b"RENDERDOC_GetAPI\0") }
                .with_context(|| format!("{LIBRARY} has no RENDERDOC_GetAPI"))?;
        let mut api: *mut c_void = std::ptr::null_mut();
        // SAFETY: the out-pointer is valid; RenderDoc writes a pointer to its static function table.
        let ok = unsafe { get_api(API_1_6_0, &mut api) };
        if ok != 1 || api.is_null() {
            bail!("{LIBRARY} does not offer the in-application API 1.6.0 (RenderDoc 1.24 or later needed)");
        }
        let api = api as *const Api;
        let (mut major, mut minor, mut patch) = (0, 0, 0);
        // SAFETY: `api` is RenderDoc's table of version 1.6.0, whose layout `Api` mirrors.
        unsafe {
            ((*api).get_api_version)(&mut major, &mut minor, &mut patch);
            // RenderDoc's layer sits above the validation layer (implicit layers come first) and by default
            // mutes every debug message on its way up: a validated run would report nothing under capture.
            ((*api).set_capture_option_u32)(OPTION_DEBUG_OUTPUT_MUTE, 0);
        }
        Ok(Self {
            api,
            version: (major, minor, patch),
            capturing: Mutex::new(()),
            _lib: lib,
        })
    }

    /// The in-application API version RenderDoc reports (1.6.0 for RenderDoc 1.24): the version of the API
    /// table, not of RenderDoc (see [`RenderDoc::program_version`]).
    pub fn api_version(&self) -> (i32, i32, i32) {
        self.version
    }

    /// RenderDoc's own version (`1.24`), as `renderdoccmd version` prints it (`renderdoccmd x64 v1.24 ...`);
    /// None where `renderdoccmd` is not installed or prints no version. The in-application API does not say.
    pub fn program_version() -> Option<String> {
        let out = Command::new("renderdoccmd").arg("version").output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        text.split_whitespace()
            .filter_map(|w| w.strip_prefix('v'))
            .find(|v| v.starts_with(|c: char| c.is_ascii_digit()) && v.contains('.'))
            .map(str::to_string)
    }

    /// `RenderDoc 1.24 (in-application API 1.6.0)`, or without RenderDoc's version where it is not known.
    pub fn describe(&self) -> String {
        let (a, b, c) = self.version;
        match Self::program_version() {
            Some(v) => format!("RenderDoc {v}, in-application API {a}.{b}.{c}"),
            None => format!("RenderDoc of in-application API {a}.{b}.{c}"),
        }
    }

    /// Captures every queue submission `f` makes on `ctx` into `path` (a `.rdc` file, replaced if present),
    /// titled `title`. Returns what `f` returned. Captures from several threads run one after the other.
    pub fn capture<T>(
        &self,
        ctx: &Context,
        path: &Path,
        title: &str,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let _one_at_a_time = self.capturing.lock().unwrap_or_else(|e| e.into_inner());
        let api = self.api();
        // RenderDoc appends a frame suffix to the template; the file is renamed to `path` afterwards.
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let stem = dir.join(format!(".vksort-capture-{}", std::process::id()));
        let template = CString::new(stem.to_string_lossy().as_bytes())?;
        let before = unsafe { (api.get_num_captures)() };
        // `RENDERDOC_DEVICEPOINTER_FROM_VKINSTANCE`: the dispatch table pointer the instance handle points at.
        let instance = ctx.instance().handle().as_raw() as *const DevicePointer;
        // SAFETY: a live dispatchable handle points at its loader dispatch table pointer (Vulkan's ABI);
        // RenderDoc's functions take these plain values and strings that outlive the calls.
        let device = unsafe { *instance };
        unsafe {
            (api.set_capture_file_path_template)(template.as_ptr());
            (api.start_frame_capture)(device, std::ptr::null_mut());
        }
        if unsafe { (api.is_frame_capturing)() } == 0 {
            bail!(
                "RenderDoc did not hook this Vulkan instance: load it before the instance is created (the CLI \
                 does), with its layer VK_LAYER_RENDERDOC_Capture registered (renderdoc_capture.json)"
            );
        }
        let title = CString::new(title.replace('\0', " "))?;
        unsafe { (api.set_capture_title)(title.as_ptr()) };
        let result = f();
        // SAFETY: as above; the capture started on this device pointer.
        let ended = unsafe { (api.end_frame_capture)(device, std::ptr::null_mut()) };
        let value = result?;
        if ended != 1 {
            bail!("RenderDoc reports that the capture failed");
        }
        let after = unsafe { (api.get_num_captures)() };
        if after <= before {
            bail!("RenderDoc wrote no capture");
        }
        let written = self.capture_path(after - 1)?;
        std::fs::rename(&written, path)
            .or_else(|_| std::fs::copy(&written, path).and_then(|_| std::fs::remove_file(&written)))
            .with_context(|| format!("moving {} to {}", written.display(), path.display()))?;
        Ok(value)
    }

    /// The file of capture `idx` as RenderDoc wrote it.
    fn capture_path(&self, idx: u32) -> Result<PathBuf> {
        let api = self.api();
        let mut len = 0u32;
        // SAFETY: null pointers are skipped by RenderDoc; `len` receives the path's length with its NUL.
        if unsafe { (api.get_capture)(idx, std::ptr::null_mut(), &mut len, std::ptr::null_mut()) }
            != 1
        {
            bail!("RenderDoc has no capture {idx}");
        }
        let mut buf = vec![0u8; len as usize + 1];
        // SAFETY: `buf` holds `len` bytes and a spare NUL.
        unsafe {
            (api.get_capture)(
                idx,
                buf.as_mut_ptr() as *mut c_char,
                &mut len,
                std::ptr::null_mut(),
            )
        };
        let name = CStr::from_bytes_until_nul(&buf)?
            .to_string_lossy()
            .into_owned();
        Ok(PathBuf::from(name))
    }

    fn api(&self) -> &Api {
        // SAFETY: RenderDoc's table is static data of the library, which `self` keeps loaded.
        unsafe { &*self.api }
    }
}

/// `scripts/rdc-summary.py`: prints a capture's regions and resources (see the script's docs).
pub const SUMMARY_SCRIPT: &str = include_str!("../../scripts/rdc-summary.py");

/// The Python interpreter RenderDoc's module is built for: Debian's `python3-renderdoc` installs it for the
/// system interpreter, which another `python3` on the PATH (pyenv, a virtual environment) may hide.
pub fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

/// Whether RenderDoc's Python module can be imported (Err: why not).
pub fn python_module() -> Result<()> {
    let out = Command::new(python())
        .args(["-c", "import renderdoc"])
        .env_remove(LAYER_ENV)
        .output()
        .with_context(|| format!("running {}", python()))?;
    if !out.status.success() {
        bail!(
            "RenderDoc's Python module is missing (apt install python3-renderdoc): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// A labelled region of a capture and the commands inside it (nested regions included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The nested labels, outermost first.
    pub path: Vec<String>,
    pub dispatches: u64,
    pub draws: u64,
    pub copies: u64,
    pub clears: u64,
}

impl Region {
    /// Every command inside: dispatches, draws, copies and clears (fills).
    pub fn commands(&self) -> u64 {
        self.dispatches + self.draws + self.copies + self.clears
    }

    /// The innermost label.
    pub fn label(&self) -> &str {
        self.path.last().map_or("", String::as_str)
    }
}

/// A resource of a capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// RenderDoc's resource type (`Buffer`, `Texture`, `PipelineState`, `Shader`, `ShaderBinding`, ...).
    pub kind: String,
    pub name: String,
    /// The application named it (false: RenderDoc's generated name, e.g. "Buffer 123").
    pub named: bool,
}

/// What a capture holds: its API, regions (in replay order) and resources.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub driver: String,
    pub regions: Vec<Region>,
    pub resources: Vec<Resource>,
}

impl Summary {
    /// The regions directly inside the label path `parent` (`&[]`: the outermost ones), in order.
    pub fn children(&self, parent: &[&str]) -> Vec<&Region> {
        self.regions
            .iter()
            .filter(|r| {
                r.path.len() == parent.len() + 1 && r.path.iter().zip(parent).all(|(a, b)| a == b)
            })
            .collect()
    }

    /// The innermost regions anywhere inside the label path `parent` (regions that hold no region), in
    /// order: the passes of a sort whose passes nest (a scan recorded inside a sort, say).
    pub fn leaves(&self, parent: &[&str]) -> Vec<&Region> {
        let under: Vec<&Region> = self
            .regions
            .iter()
            .filter(|r| {
                r.path.len() > parent.len() && r.path.iter().zip(parent).all(|(a, b)| a == b)
            })
            .collect();
        under
            .iter()
            .enumerate()
            .filter(|(i, r)| {
                under.get(i + 1).map_or(true, |next| {
                    !(next.path.len() > r.path.len() && next.path.starts_with(&r.path))
                })
            })
            .map(|(_, r)| *r)
            .collect()
    }

    /// The labels of [`Summary::children`].
    pub fn child_labels(&self, parent: &[&str]) -> Vec<&str> {
        self.children(parent)
            .into_iter()
            .map(Region::label)
            .collect()
    }

    /// Whether a resource of type `kind` carries the name `name` given by the application.
    pub fn has_named(&self, kind: &str, name: &str) -> bool {
        self.resources
            .iter()
            .any(|r| r.kind == kind && r.name == name && r.named)
    }

    /// The regions, one a line, for messages.
    pub fn dump(&self) -> String {
        self.regions
            .iter()
            .map(|r| format!("  {} ({} commands)", r.path.join(" > "), r.commands()))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Replays the capture `rdc` with RenderDoc's Python module and reads its regions and resources.
pub fn summarize(rdc: &Path) -> Result<Summary> {
    let out = Command::new(python())
        .arg("-c")
        .arg(SUMMARY_SCRIPT)
        .arg(rdc)
        // The replay makes its own instance: keep RenderDoc's capture layer out of it.
        .env_remove(LAYER_ENV)
        .output()
        .with_context(|| format!("running {}", python()))?;
    if !out.status.success() {
        bail!(
            "reading {} with RenderDoc's Python module failed: {}",
            rdc.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut s = Summary::default();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f.as_slice() {
            ["driver", d] => s.driver = d.to_string(),
            ["region", counts @ ..] if counts.len() > 4 => {
                let n = |i: usize| counts[i].parse::<u64>().unwrap_or(0);
                s.regions.push(Region {
                    dispatches: n(0),
                    draws: n(1),
                    copies: n(2),
                    clears: n(3),
                    path: counts[4..].iter().map(|l| l.to_string()).collect(),
                });
            }
            ["resource", kind, named, name @ ..] => s.resources.push(Resource {
                kind: kind.to_string(),
                named: *named == "1",
                name: name.join("\t"),
            }),
            _ => bail!("unexpected line from rdc-summary.py: {line:?}"),
        }
    }
    Ok(s)
}
