//! `vksort._native`: the native half of the Python package. The Python half (python/vksort/) checks and
//! converts the arrays (dtype, dimensions, contiguity, copies) and hands this module 1-D contiguous numpy arrays
//! of a key dtype to sort in place; what reaches here unchecked still gives a Python exception, never a crash.
//!
//! A [`PyContext`] owns a `vksort::Context`, its pipeline-cache file (the CLI's, `tools/src/cache.rs`, included
//! by path) and the sorters it made, one per (key, value, order, algorithm), kept for the next call and rebuilt
//! only for a larger array (the host forms of the library build one per call). The GIL is released while the
//! GPU works. Errors: `vksort.errors`' classes, by the Rust variant ([`error_class`]).

use numpy::{Element, PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use vksort::gpu::Buffer;
use vksort::sort::{
    KeyType, Order, SortAlgorithm, SortConfig, SortKey, SortValue, Sorter, ValueType,
};
use vksort::{Context, ContextOptions};

#[allow(dead_code)]
#[path = "../../tools/src/cache.rs"]
mod cache;

/// The smallest capacity a cached sorter is built for (smaller arrays share it; larger ones rebuild it at the
/// next power of two).
const MIN_CAPACITY: u64 = 1 << 16;

/// The `vksort.errors` class of a library error: one per group of variants a caller reacts to alike.
fn error_class(e: &vksort::Error) -> &'static str {
    use vksort::Error as E;
    match e {
        E::Loader(_) | E::NoDevice(_) => "NoDeviceError",
        E::Unsupported { .. } | E::UnsupportedAlgorithm { .. } | E::NotStable { .. } => {
            "UnsupportedError"
        }
        E::TooLarge { .. }
        | E::AlgorithmLimit { .. }
        | E::CountOverCapacity { .. }
        | E::GridTooLarge { .. } => "TooLargeError",
        E::Allocation { .. } => "OutOfDeviceMemoryError",
        E::InvalidArgument(_)
        | E::InvalidBitRange { .. }
        | E::InvalidPolicy { .. }
        | E::LengthMismatch { .. } => "InvalidArgumentError",
        E::Vulkan { .. }
        | E::DeviceLost { .. }
        | E::Timeout { .. }
        | E::InvalidGpuResult { .. }
        | E::Shader { .. } => "DeviceError",
        _ => "Error",
    }
}

/// A Python exception of class `class` (in `vksort.errors`) with `message`; a RuntimeError if that module is
/// missing (the native module imported alone).
fn py_error(py: Python<'_>, class: &str, message: String) -> PyErr {
    match py.import("vksort.errors").and_then(|m| m.getattr(class)) {
        Ok(cls) => PyErr::from_type(cls.downcast_into().expect("an exception class"), message),
        Err(_) => PyRuntimeError::new_err(message),
    }
}

fn to_py(py: Python<'_>, e: vksort::Error) -> PyErr {
    py_error(py, error_class(&e), e.to_string())
}

/// Seconds of the three phases of one sort: host to device, the sort on the device, device to host.
type Timings = (f64, f64, f64);

type SorterKey = (KeyType, ValueType, Order, SortAlgorithm);

/// A Vulkan device with vksort's pipelines: `vksort.Context(device=None)`.
#[pyclass(name = "Context", module = "vksort._native", frozen)]
struct PyContext {
    ctx: Arc<Context>,
    sorters: Mutex<HashMap<SorterKey, (u64, Arc<Sorter>)>>,
    cache: Option<cache::PipelineCacheFile>,
    notes: Vec<String>,
}

impl PyContext {
    /// The cached sorter for a configuration, rebuilt when `n` is above its capacity; saves the pipeline cache
    /// after building one.
    fn sorter(
        &self,
        key: KeyType,
        value: ValueType,
        order: Order,
        algorithm: SortAlgorithm,
        n: u64,
    ) -> vksort::Result<Arc<Sorter>> {
        let k = (key, value, order, algorithm);
        if let Some((cap, s)) = self
            .sorters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&k)
        {
            if *cap >= n {
                return Ok(s.clone());
            }
        }
        let capacity = n.max(MIN_CAPACITY).next_power_of_two();
        let config = SortConfig {
            key,
            value,
            order,
            algorithm,
            // A carried value is an index or a row (argsort, sort_pairs): equal keys keep their order.
            stable: value != ValueType::None,
            max_n: capacity,
            bits: None,
        };
        // An algorithm with a size limit below the capacity: build for the array's own size instead.
        let s = match Sorter::new(&self.ctx, config) {
            Ok(s) => (capacity, s),
            Err(vksort::Error::AlgorithmLimit { .. }) if capacity > n.max(1) => (
                n.max(1),
                Sorter::new(
                    &self.ctx,
                    SortConfig {
                        max_n: n.max(1),
                        ..config
                    },
                )?,
            ),
            Err(e) => return Err(e),
        };
        let s = (s.0, Arc::new(s.1));
        if let Some(file) = &self.cache {
            // A cache that cannot be written costs the next process its compile time, nothing more.
            let _ = file.save(&self.ctx);
        }
        self.sorters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(k, s.clone());
        Ok(s.1)
    }

    /// Sorts `keys` (and `values`) in place on the device; with `src`, sorts `src` into `keys` (same length).
    fn run<K: SortKey, V: SortValue>(
        &self,
        src: Option<&[K]>,
        keys: &mut [K],
        values: Option<&mut [V]>,
        order: Order,
        algorithm: SortAlgorithm,
    ) -> vksort::Result<Timings> {
        let n = keys.len() as u64;
        let value = if values.is_some() {
            V::TYPE
        } else {
            ValueType::None
        };
        // Built for 0 and 1 keys too: an algorithm that cannot take the configuration fails the same way
        // at every size.
        let sorter = self.sorter(K::TYPE, value, order, algorithm, n)?;
        if n <= 1 {
            if let Some(src) = src {
                keys.copy_from_slice(src);
            }
            return Ok((0.0, 0.0, 0.0));
        }
        let ctx = &self.ctx;
        let t0 = Instant::now();
        let kb = Buffer::from_slice(ctx, "vksort::python::keys", src.unwrap_or(keys))?;
        let vb = match &values {
            Some(v) => Some(Buffer::from_slice(ctx, "vksort::python::values", v)?),
            None => None,
        };
        let req = sorter.storage_requirements(n)?;
        let scratch = Buffer::device_local(ctx, "vksort::python::scratch", req.scratch_bytes)?;
        let t1 = Instant::now();
        ctx.submit("vksort::python::sort", |rec| {
            sorter.cmd_sort(
                rec,
                kb.as_ref(),
                vb.as_ref().map(Buffer::as_ref),
                scratch.as_ref(),
                n,
            )
        })?;
        let t2 = Instant::now();
        kb.read_into(0, bytemuck::cast_slice_mut(keys))?;
        if let (Some(v), Some(b)) = (values, &vb) {
            b.read_into(0, bytemuck::cast_slice_mut(v))?;
        }
        let t3 = Instant::now();
        Ok((
            (t1 - t0).as_secs_f64(),
            (t2 - t1).as_secs_f64(),
            (t3 - t2).as_secs_f64(),
        ))
    }

    /// Keys of element type `K` with optional values of `V`, borrowed writable from numpy.
    fn sort_typed<K: SortKey + Element, V: SortValue + Element>(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyArray1<K>>,
        values: Option<&Bound<'_, PyArray1<V>>>,
        order: Order,
        algorithm: SortAlgorithm,
    ) -> PyResult<Timings> {
        let mut kg = keys
            .try_readwrite()
            .map_err(|e| py_error(py, "InvalidArgumentError", format!("keys: {e}")))?;
        let k = kg
            .as_slice_mut()
            .map_err(|e| py_error(py, "InvalidArgumentError", format!("keys: {e}")))?;
        let r = match values {
            None => py.allow_threads(|| self.run::<K, V>(None, k, None, order, algorithm)),
            Some(values) => {
                // The same array as keys: refused by the borrow above's twin.
                let mut vg = values
                    .try_readwrite()
                    .map_err(|e| py_error(py, "InvalidArgumentError", format!("values: {e}")))?;
                let v = vg
                    .as_slice_mut()
                    .map_err(|e| py_error(py, "InvalidArgumentError", format!("values: {e}")))?;
                if v.len() != k.len() {
                    return Err(py_error(
                        py,
                        "InvalidArgumentError",
                        format!("{} values for {} keys", v.len(), k.len()),
                    ));
                }
                py.allow_threads(|| self.run(None, k, Some(v), order, algorithm))
            }
        };
        r.map_err(|e| to_py(py, e))
    }

    /// `src` sorted into `out` (both contiguous, same dtype and length): no host copy before the upload.
    fn sort_copy_typed<K: SortKey + Element>(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyArray1<K>>,
        out: &Bound<'_, PyAny>,
        order: Order,
        algorithm: SortAlgorithm,
    ) -> PyResult<Timings> {
        let out = out.downcast::<PyArray1<K>>().map_err(|_| {
            PyTypeError::new_err("out must be a 1-D numpy array of the keys' dtype")
        })?;
        let bad =
            |what: &str, e: String| py_error(py, "InvalidArgumentError", format!("{what}: {e}"));
        let sg = src.try_readonly().map_err(|e| bad("keys", e.to_string()))?;
        let mut og = out.try_readwrite().map_err(|e| bad("out", e.to_string()))?;
        let s = sg.as_slice().map_err(|e| bad("keys", e.to_string()))?;
        let o = og.as_slice_mut().map_err(|e| bad("out", e.to_string()))?;
        if s.len() != o.len() {
            return Err(bad(
                "out",
                format!("{} elements for {} keys", o.len(), s.len()),
            ));
        }
        py.allow_threads(|| self.run::<K, u32>(Some(s), o, None, order, algorithm))
            .map_err(|e| to_py(py, e))
    }

    /// Dispatches on the keys' dtype, then on the values' (u32 or u64 words).
    fn dispatch(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        values: Option<&Bound<'_, PyAny>>,
        descending: bool,
        algorithm: &str,
    ) -> PyResult<Timings> {
        let (order, algorithm) = order_and_algorithm(py, descending, algorithm)?;
        macro_rules! with_values {
            ($k:ty, $keys:expr) => {
                match values {
                    None => self.sort_typed::<$k, u32>(py, $keys, None, order, algorithm),
                    Some(v) => {
                        if let Ok(v) = v.downcast::<PyArray1<u32>>() {
                            self.sort_typed::<$k, u32>(py, $keys, Some(v), order, algorithm)
                        } else if let Ok(v) = v.downcast::<PyArray1<u64>>() {
                            self.sort_typed::<$k, u64>(py, $keys, Some(v), order, algorithm)
                        } else {
                            Err(PyTypeError::new_err(
                                "values must be a 1-D numpy array of uint32 or uint64",
                            ))
                        }
                    }
                }
            };
        }
        macro_rules! keys {
            ($($k:ty),*) => {
                $(if let Ok(a) = keys.downcast::<PyArray1<$k>>() {
                    return with_values!($k, a);
                })*
            };
        }
        keys!(u32, i32, f32, u64, i64, f64);
        Err(PyTypeError::new_err(
            "keys must be a 1-D numpy array of uint32, int32, float32, uint64, int64 or float64",
        ))
    }
}

/// The order of `descending` and the algorithm named `algorithm` (the sorts' keyword arguments).
fn order_and_algorithm(
    py: Python<'_>,
    descending: bool,
    algorithm: &str,
) -> PyResult<(Order, SortAlgorithm)> {
    let order = if descending {
        Order::Descending
    } else {
        Order::Ascending
    };
    Ok((order, parse_algorithm(py, algorithm)?))
}

/// The algorithm `name` names, or InvalidArgumentError listing the names.
fn parse_algorithm(py: Python<'_>, name: &str) -> PyResult<SortAlgorithm> {
    SortAlgorithm::from_name(name).ok_or_else(|| {
        py_error(
            py,
            "InvalidArgumentError",
            format!(
                "unknown algorithm `{name}` (one of {})",
                SortAlgorithm::ALL.map(|a| a.name()).join(", ")
            ),
        )
    })
}

/// The device's description as a dict (index where known, name, type, vendor, driver, limits).
fn caps_dict<'py>(
    py: Python<'py>,
    index: Option<usize>,
    caps: &vksort::DeviceCaps,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("index", index)?;
    d.set_item("name", &caps.name)?;
    let kind = format!("{:?}", caps.device_type).to_lowercase();
    d.set_item("type", kind.replace('_', "-"))?;
    d.set_item("vendor", caps.vendor())?;
    d.set_item("driver", &caps.driver_info)?;
    let v = caps.api_version;
    d.set_item(
        "vulkan",
        format!("{}.{}.{}", v >> 22, (v >> 12) & 0x3ff, v & 0xfff),
    )?;
    d.set_item("device_local_bytes", caps.device_local_bytes)?;
    d.set_item("max_storage_buffer_range", caps.max_storage_buffer_range)?;
    d.set_item("buffer_device_address", caps.buffer_device_address)?;
    d.set_item("subgroup_size", caps.subgroup_size)?;
    Ok(d)
}

#[pymethods]
impl PyContext {
    /// A context on `device` (an index into `vksort.devices()` or a name substring; `None`: `VKSORT_DEVICE`,
    /// else the best device). `validation`: the Khronos validation layer (`None`: `VKSORT_VALIDATION=1`).
    /// `pipeline_cache`: load and save the CLI's pipeline-cache file (`VKSORT_PIPELINE_CACHE_DIR`).
    #[new]
    #[pyo3(signature = (device=None, *, validation=None, pipeline_cache=true))]
    fn new(
        py: Python<'_>,
        device: Option<&Bound<'_, PyAny>>,
        validation: Option<bool>,
        pipeline_cache: bool,
    ) -> PyResult<Self> {
        let mut opts = ContextOptions::from_env();
        if let Some(d) = device {
            opts.device = Some(if let Ok(i) = d.extract::<usize>() {
                i.to_string()
            } else if let Ok(s) = d.extract::<String>() {
                s
            } else {
                return Err(PyTypeError::new_err(
                    "device must be an index (int) or a name substring (str)",
                ));
            });
        }
        if let Some(v) = validation {
            opts.validation = v;
        }
        let ctx = py
            .allow_threads(|| Context::new(opts))
            .map_err(|e| to_py(py, e))?;
        let (cache, notes) = match pipeline_cache
            .then(|| cache::PipelineCacheFile::attach(&ctx))
            .flatten()
        {
            Some((file, notes)) => (Some(file), notes.into_iter().map(|n| n.message).collect()),
            None => (None, Vec::new()),
        };
        Ok(Self {
            ctx,
            sorters: Mutex::new(HashMap::new()),
            cache,
            notes,
        })
    }

    /// The device: a dict of name, type, vendor, driver, Vulkan version and limits.
    #[getter]
    fn device<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        caps_dict(py, None, self.ctx.caps())
    }

    /// The pipeline-cache file's path, or None when the cache is off.
    #[getter]
    fn pipeline_cache_path(&self) -> Option<String> {
        self.cache.as_ref().map(|c| c.path().display().to_string())
    }

    /// What loading the pipeline cache found (hit, miss, a file ignored and why).
    #[getter]
    fn pipeline_cache_notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    /// Writes the pipeline cache back when it changed; returns the bytes written (None: unchanged or off).
    fn save_pipeline_cache(&self, py: Python<'_>) -> PyResult<Option<usize>> {
        match &self.cache {
            None => Ok(None),
            Some(f) => f
                .save(&self.ctx)
                .map_err(|e| py_error(py, "Error", format!("pipeline cache: {e}"))),
        }
    }

    /// The validation layer's messages since the last call (empty without validation).
    fn take_validation_errors(&self) -> Vec<String> {
        self.ctx.take_validation_errors()
    }

    /// Sorts a 1-D contiguous writable array of a key dtype in place; with `values` (uint32 or uint64, same
    /// length) carried along, stably. Returns (upload, sort, download) seconds.
    #[pyo3(signature = (keys, values=None, *, descending=false, algorithm="auto"))]
    fn sort_inplace(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        values: Option<&Bound<'_, PyAny>>,
        descending: bool,
        algorithm: &str,
    ) -> PyResult<Timings> {
        self.dispatch(py, keys, values, descending, algorithm)
    }

    /// Sorts the 1-D contiguous array `keys` into `out` (contiguous, writable, same dtype and length; keys
    /// unchanged). Returns (upload, sort, download) seconds.
    #[pyo3(signature = (keys, out, *, descending=false, algorithm="auto"))]
    fn sort_copy(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        out: &Bound<'_, PyAny>,
        descending: bool,
        algorithm: &str,
    ) -> PyResult<Timings> {
        let (order, algorithm) = order_and_algorithm(py, descending, algorithm)?;
        macro_rules! keys {
            ($($k:ty),*) => {
                $(if let Ok(a) = keys.downcast::<PyArray1<$k>>() {
                    return self.sort_copy_typed::<$k>(py, a, out, order, algorithm);
                })*
            };
        }
        keys!(u32, i32, f32, u64, i64, f64);
        Err(PyTypeError::new_err(
            "keys must be a 1-D numpy array of uint32, int32, float32, uint64, int64 or float64",
        ))
    }

    fn __repr__(&self) -> String {
        let c = self.ctx.caps();
        format!("vksort.Context({:?}, {})", c.name, c.driver_info)
    }
}

/// Every Vulkan device: a list of dicts (index, name, type, vendor, driver, limits).
#[pyfunction]
fn devices(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = py
        .allow_threads(Context::enumerate)
        .map_err(|e| to_py(py, e))?;
    let out = PyList::empty(py);
    for (i, caps) in &list {
        out.append(caps_dict(py, Some(*i), caps)?)?;
    }
    Ok(out)
}

/// The sort algorithms' names (`algorithm=`), "auto" first.
#[pyfunction]
fn algorithms() -> Vec<&'static str> {
    SortAlgorithm::ALL.iter().map(|a| a.name()).collect()
}

/// Whether an algorithm keeps equal keys in input order.
#[pyfunction]
fn algorithm_is_stable(py: Python<'_>, name: &str) -> PyResult<bool> {
    SortAlgorithm::from_name(name)
        .map(SortAlgorithm::stable)
        .ok_or_else(|| {
            py_error(
                py,
                "InvalidArgumentError",
                format!("unknown algorithm `{name}`"),
            )
        })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyContext>()?;
    m.add_function(wrap_pyfunction!(devices, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(algorithm_is_stable, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
