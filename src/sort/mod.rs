//! Sorting: the configuration ([`SortConfig`]), the recording form ([`Sorter`]: made once, records into the
//! caller's command buffers on the caller's buffers) and the host forms ([`sort()`], [`sort_pairs`]).
//! [`check`] verifies a sort's output on the GPU without reading it back.
//!
//! Keys of any [`KeyType`] (floats in IEEE 754 totalOrder), optionally a [`ValueType`] per key, in either
//! [`Order`], on all bits or a bit range ([`SortConfig::bits`]); stable but for [`SortAlgorithm::Bitonic`] and
//! [`SortAlgorithm::Quicksort`]. [`Sorter::new`] returns every error it can know then; recording fails only on
//! the call's own input, before it records anything. Memory, size limits and layers: docs/architecture.md.

mod algorithm;
internal! { mod auto; }
internal! { mod backend; }
internal! { mod bitonic; }
pub mod check;
mod config;
internal! { mod count; }
internal! { mod items; }
internal! { mod merge; }
internal! { mod quicksort; }
internal! { mod radix; }
internal! { mod registry; }
internal! { mod split; }
internal! { mod types; }
internal! { mod warpsort; }

pub use algorithm::SortAlgorithm;
pub use backend::StorageRequirements;
pub use bitonic::BitonicPolicy;
pub use config::{SortConfig, DEFAULT_MAX_N};
pub use count::{CTRL_N, CTRL_OVERFLOW, CTRL_RAW_COUNT};
pub use merge::{MergeKernel, MergePolicy, Partition};
pub use quicksort::{PivotMode, QuicksortPolicy};
pub use radix::{
    FusedSort, HybridSort, Lookback, MsdBucketPass, MsdSort, MsdSplitPass, PeerMatch, RadixPolicy,
    RankCounters, RankTile, ShortTiles, SmallSort, UpfrontPass,
};
pub use split::SplitPolicy;
pub use types::{KeyType, Order, SortKey, SortValue, ValueType};
pub use warpsort::WarpSortPolicy;
#[cfg(feature = "diagnostics")]
pub use {backend::Capabilities, types::cpu_sort_reference};

use crate::error::{Error, Result};
use crate::gpu::{check_disjoint, Buffer, BufferRef, Context, Recorder};
use crate::workload::{CostModel, PassModel};
use backend::Family;
use backend::{Overrides, SortBackend, SortBuffers};
use count::Count;
use registry::{family_of, FAMILIES};
use std::sync::Arc;

/// How [`SortAlgorithm::Auto`] chooses.
#[derive(Clone, Debug, Default)]
pub enum Selector {
    /// The policy of the first registered family that takes the configuration (the radix sort's size
    /// thresholds), except in the size ranges where the device class's crossover table names another family.
    #[default]
    Policy,
    /// The algorithm a calibrated cost model (`vksort calibrate`) predicts fastest among those that take the size.
    Model(Arc<CostModel>),
}

/// Builds a [`Sorter`] with tuning overrides or a selector: `Sorter::builder(&ctx, config).tuning(policy).build()`.
pub struct SorterBuilder {
    ctx: Arc<Context>,
    config: SortConfig,
    overrides: Overrides,
    selector: Selector,
}

impl SorterBuilder {
    /// A tuning override for the family that knows its type (e.g. a [`radix::RadixPolicy`]); other families
    /// ignore it. A sorter with overrides keeps Auto (policy selector) within its policy's family.
    pub fn tuning<T: Copy + Send + Sync + 'static>(mut self, value: T) -> Self {
        self.overrides.set(value);
        self
    }

    /// The configured algorithm's family's policy (Auto: the policy selector's family) with the fields of a
    /// `path=value,...` string changed (keys: the policy's field paths, [`crate::Policy::legend`]). Unknown keys give
    /// [`Error::InvalidPolicy`].
    pub fn policy_overrides(mut self, spec: &str) -> Result<Self> {
        let family = match self.config.algorithm {
            SortAlgorithm::Auto => auto_families(&self.config)
                .next()
                .ok_or_else(|| unsupported(&self.config))?,
            a => family_of(a).expect("every algorithm but Auto has a family"),
        };
        (family.parse_overrides)(&self.ctx, &self.config, spec, &mut self.overrides)?;
        Ok(self)
    }

    /// How Auto chooses (default [`Selector::Policy`]).
    pub fn selector(mut self, selector: Selector) -> Self {
        self.selector = selector;
        self
    }

    /// Validates the configuration (bit range, policy against the device, needed subgroup operations) and
    /// builds every pipeline the sorter may use.
    pub fn build(self) -> Result<Sorter> {
        let sorter = self.assemble()?;
        sorter.prepare()?;
        Ok(sorter)
    }

    /// The algorithm a sort of `n` keys resolves to, and the cost model's predicted nanoseconds when it has one.
    /// Validates like [`SorterBuilder::build`] but builds no pipeline.
    pub fn choose(self, n: u64) -> Result<(SortAlgorithm, Option<f64>)> {
        let sorter = self.assemble()?;
        let c = sorter.choose(n)?;
        Ok((c.algorithm, c.predicted_ns))
    }

    /// The sorter, its backends created and checked, no pipeline built yet.
    fn assemble(self) -> Result<Sorter> {
        let SorterBuilder {
            ctx,
            config,
            overrides,
            selector,
        } = self;
        // A tuned sorter takes no crossover: they were measured with the default policies.
        let crossovers = if overrides.is_empty() {
            auto::crossovers(ctx.caps())
        } else {
            &[]
        };
        let mut backends = needed_families(&config, &selector, crossovers)?
            .into_iter()
            .map(|(family, reachable)| {
                let backend = (family.new)(&ctx, &config, &overrides, &reachable)?;
                Ok(Backend {
                    backend,
                    reachable,
                    max_n: config.max_n,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        if config.algorithm == SortAlgorithm::Auto && matches!(selector, Selector::Policy) {
            narrow_to_crossovers(&mut backends, crossovers, &config);
        }
        let sorter = Sorter {
            ctx,
            config,
            backends,
            selector,
        };
        sorter.check_capacity()?;
        Ok(sorter)
    }
}

/// A family a sorter needs, with the algorithms it may record (Auto: the family's own policy choice).
type Needed = (&'static Family, Vec<SortAlgorithm>);

/// The families a sorter of `config` needs. Auto considers only families that take the configuration and only
/// algorithms it may choose ([`SortAlgorithm::auto_eligible`]).
fn needed_families(
    config: &SortConfig,
    selector: &Selector,
    crossovers: &[auto::Crossover],
) -> Result<Vec<Needed>> {
    match (config.algorithm, selector) {
        (SortAlgorithm::Auto, Selector::Policy) => policy_families(config, crossovers),
        (SortAlgorithm::Auto, Selector::Model(_)) => {
            let v: Vec<Needed> = auto_families(config)
                .map(|f| {
                    let eligible = f.algorithms.iter().copied().filter(|a| a.auto_eligible());
                    (f, eligible.collect())
                })
                .collect();
            if v.is_empty() {
                return Err(unsupported(config));
            }
            Ok(v)
        }
        (a, _) => {
            if config.stable && !a.stable() {
                return Err(Error::NotStable {
                    algorithm: a.name(),
                });
            }
            let f = family_of(a).expect("every algorithm but Auto has a family");
            if let Some(reason) = (f.supports)(config) {
                return Err(Error::UnsupportedAlgorithm {
                    algorithm: a.name(),
                    reason,
                });
            }
            Ok(vec![(f, vec![a])])
        }
    }
}

/// Auto with the policy selector: the first family that takes `config`, and the families the crossovers may
/// pick for sizes up to the capacity.
fn policy_families(config: &SortConfig, crossovers: &[auto::Crossover]) -> Result<Vec<Needed>> {
    let first = auto_families(config)
        .next()
        .ok_or_else(|| unsupported(config))?;
    let mut v = vec![(first, vec![SortAlgorithm::Auto])];
    for c in auto::for_config(crossovers, config) {
        let Some(g) = family_of(c.algorithm) else {
            continue;
        };
        if c.min_n > config.max_n || (g.supports)(config).is_some() {
            continue;
        }
        match v.iter_mut().find(|(h, _)| h.name == g.name) {
            Some((_, algos)) if !algos.contains(&c.algorithm) => algos.push(c.algorithm),
            Some(_) => {}
            None => v.push((g, vec![c.algorithm])),
        }
    }
    Ok(v)
}

/// The families Auto may use for `config`, in registry order: those that take it and have a stable algorithm.
fn auto_families(config: &SortConfig) -> impl Iterator<Item = &'static Family> + '_ {
    FAMILIES
        .iter()
        .filter(move |f| (f.supports)(config).is_none() && f.algorithms.iter().any(|a| a.stable()))
}

/// The error for a configuration no family takes.
fn unsupported(config: &SortConfig) -> Error {
    Error::UnsupportedAlgorithm {
        algorithm: "auto",
        reason: FAMILIES
            .iter()
            .filter_map(|f| (f.supports)(config).map(|r| format!("{}: {r}", f.name)))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// A family's backend in a sorter, the algorithms it may record and the largest sort it builds pipelines for.
struct Backend {
    backend: Box<dyn SortBackend>,
    reachable: Vec<SortAlgorithm>,
    max_n: u64,
}

/// Auto with the policy selector: each family builds only the sizes it will sort. A crossover family takes
/// the sizes of its ranges (those its algorithm takes whole); the policy family (the first) sizes up to the
/// largest that no crossover covers.
fn narrow_to_crossovers(backends: &mut [Backend], table: &[auto::Crossover], config: &SortConfig) {
    let served: Vec<auto::Crossover> = auto::for_config(table, config)
        .filter(|c| {
            backends[1..].iter().any(|b| {
                b.reachable.contains(&c.algorithm)
                    && b.backend.capabilities(c.algorithm).max_keys >= c.max_n.min(config.max_n)
            })
        })
        .copied()
        .collect();
    let mut top = config.max_n;
    while let Some(c) = served
        .iter()
        .find(|c| top > 0 && c.min_n <= top && top <= c.max_n)
    {
        top = c.min_n - 1;
    }
    backends[0].max_n = top;
    for b in &mut backends[1..] {
        b.max_n = served
            .iter()
            .filter(|c| b.reachable.contains(&c.algorithm))
            .map(|c| c.max_n)
            .max()
            .unwrap_or(0)
            .min(config.max_n);
    }
}

/// What a sorter records for a size: the algorithm, its backend, and the cost model's prediction.
struct Choice<'a> {
    algorithm: SortAlgorithm,
    backend: &'a dyn SortBackend,
    predicted_ns: Option<f64>,
}

/// A planned sort for one [`SortConfig`] on one context: records sorts of up to `config.max_n` keys into
/// command buffers. Pipelines are built when it is created.
pub struct Sorter {
    ctx: Arc<Context>,
    config: SortConfig,
    backends: Vec<Backend>,
    selector: Selector,
}

impl Sorter {
    /// A sorter with the device's policies and [`Selector::Policy`] (see [`Sorter::builder`] for more).
    pub fn new(ctx: &Arc<Context>, config: SortConfig) -> Result<Self> {
        Self::builder(ctx, config).build()
    }

    /// A builder, for tuning overrides or a cost-model selector.
    pub fn builder(ctx: &Arc<Context>, config: SortConfig) -> SorterBuilder {
        SorterBuilder {
            ctx: ctx.clone(),
            config,
            overrides: Overrides::default(),
            selector: Selector::Policy,
        }
    }

    /// The context the sorter was made on (and records for).
    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// The configuration the sorter was made for.
    pub fn config(&self) -> &SortConfig {
        &self.config
    }

    /// The backend of family `T` (e.g. `radix::RadixSort`), for diagnostics and tests.
    #[cfg(feature = "diagnostics")]
    pub fn backend<T: 'static>(&self) -> Option<&T> {
        self.backends
            .iter()
            .find_map(|b| b.backend.as_any().downcast_ref::<T>())
    }

    /// The algorithm that sorts `n` keys, and its backend.
    fn choose(&self, n: u64) -> Result<Choice<'_>> {
        match (self.config.algorithm, &self.selector) {
            (SortAlgorithm::Auto, Selector::Model(model)) => {
                let mut best: Option<Choice> = None;
                for b in &self.backends {
                    for &a in &b.reachable {
                        if b.backend.capabilities(a).max_keys < n {
                            continue;
                        }
                        let t = model.predict_ns(&a.model_key(), &b.backend.workload(a, n));
                        if best
                            .as_ref()
                            .map_or(true, |c| c.predicted_ns.is_some_and(|bt| t < bt))
                        {
                            best = Some(Choice {
                                algorithm: a,
                                backend: b.backend.as_ref(),
                                predicted_ns: Some(t),
                            });
                        }
                    }
                }
                best.ok_or(Error::TooLarge {
                    n,
                    max: self
                        .backends
                        .iter()
                        .flat_map(|b| {
                            b.reachable
                                .iter()
                                .map(|&a| b.backend.capabilities(a).max_keys)
                        })
                        .max()
                        .unwrap_or(0),
                    limit: "every algorithm the cost model may choose",
                })
            }
            (SortAlgorithm::Auto, Selector::Policy) => {
                let crossover = auto::choice(auto::crossovers(self.ctx.caps()), &self.config, n)
                    .and_then(|a| {
                        self.backends
                            .iter()
                            .find(|b| b.reachable.contains(&a) && b.max_n >= n)
                            .map(|b| (a, b.backend.as_ref()))
                    })
                    .filter(|(a, b)| b.capabilities(*a).max_keys >= n);
                let (algorithm, backend) = crossover.unwrap_or_else(|| {
                    let b = self.backends[0].backend.as_ref();
                    (b.policy_choice(n), b)
                });
                Ok(Choice {
                    algorithm,
                    backend,
                    predicted_ns: None,
                })
            }
            (a, _) => Ok(Choice {
                algorithm: a,
                backend: self.backends[0].backend.as_ref(),
                predicted_ns: None,
            }),
        }
    }

    /// Limits known at creation are errors then: the algorithm the largest sort uses must take `max_n` keys.
    fn check_capacity(&self) -> Result<()> {
        let c = self.choose(self.config.max_n)?;
        let max = c.backend.capabilities(c.algorithm).max_keys;
        if self.config.max_n > max {
            return Err(Error::AlgorithmLimit {
                algorithm: c.algorithm.name(),
                max,
                n: self.config.max_n,
            });
        }
        Ok(())
    }

    /// Builds the pipelines of every sort this sorter may record (called by the builder), on several threads.
    fn prepare(&self) -> Result<()> {
        self.ctx.build_in_parallel(|| {
            for b in &self.backends {
                b.backend.prepare(&b.reachable, b.max_n)?;
            }
            Ok(())
        })
    }

    /// Scratch (size and usage flags) to sort up to `max_n` keys with any algorithm this sorter may choose.
    /// Errors: [`Error::CountOverCapacity`] for `max_n` above the configuration's.
    pub fn storage_requirements(&self, max_n: u64) -> Result<StorageRequirements> {
        if max_n > self.config.max_n {
            return Err(Error::CountOverCapacity {
                n: max_n,
                capacity: self.config.max_n,
            });
        }
        let mut r = StorageRequirements {
            scratch_bytes: 0,
            scratch_usage: ash::vk::BufferUsageFlags::empty(),
        };
        for b in &self.backends {
            let s = b.backend.storage_requirements(max_n.min(b.max_n));
            r.scratch_bytes = r.scratch_bytes.max(s.scratch_bytes);
            r.scratch_usage |= s.scratch_usage;
        }
        Ok(r)
    }

    /// What the configured algorithm (or Auto) resolves to for `n` keys.
    pub fn algorithm_for(&self, n: u64) -> SortAlgorithm {
        self.choose(n)
            .map(|c| c.algorithm)
            .unwrap_or(self.config.algorithm)
    }

    /// The modelled passes of a sort of `n` keys (the algorithm [`Sorter::algorithm_for`] picks).
    pub fn workload(&self, n: u64) -> Vec<PassModel> {
        match self.choose(n) {
            Ok(c) => c.backend.workload(c.algorithm, n),
            Err(_) => Vec::new(),
        }
    }

    /// Byte offset in the scratch of the control block of a sort recorded for `max_n` keys (host n or the
    /// capacity): u32 words [`CTRL_N`], [`CTRL_OVERFLOW`], [`CTRL_RAW_COUNT`]. Whether a wait gave up:
    /// [`Sorter::gave_up_offset`].
    pub fn control_offset(&self, max_n: u64) -> u64 {
        match self.choose(max_n) {
            Ok(c) => c.backend.control_offset(max_n),
            Err(_) => 0,
        }
    }

    /// Byte offset in the scratch of a u32 that is non-zero after a sort recorded for `max_n` keys (as for
    /// [`Sorter::control_offset`]) whose bounded inter-workgroup wait gave up, its result then wrong (the fused
    /// Onesweep's place wait; None for sorts without one, or above the capacity). Read it after the sort's
    /// commands completed (a host count of at most one records nothing). The host forms ([`sort()`],
    /// [`sort_pairs`]) check it and return [`Error::InvalidGpuResult`].
    pub fn gave_up_offset(&self, max_n: u64) -> Option<u64> {
        if max_n > self.config.max_n {
            return None;
        }
        let c = self.choose(max_n).ok()?;
        c.backend.gave_up_word(c.algorithm, max_n)
    }

    /// Records the sort of the first `n` keys of `keys` (and values) in place; `scratch` as
    /// [`Sorter::storage_requirements`]`(n)` says. Barrier contract: [`crate::gpu::recorder`]. Checked first (an
    /// `Err` records nothing): the capacity ([`Error::CountOverCapacity`]), the context ([`Error::WrongContext`]),
    /// each region's size, usage and alignment, values ([`Error::ValuesMismatch`]), overlap ([`Error::Overlap`]);
    /// radix sorts beyond one binding need `bufferDeviceAddress` ([`Error::TooLarge`]) and its usage flag.
    pub fn cmd_sort(
        &self,
        rec: &mut Recorder,
        keys: BufferRef<'_>,
        values: Option<BufferRef<'_>>,
        scratch: BufferRef<'_>,
        n: u64,
    ) -> Result<()> {
        self.record(rec, SortBuffers::of(keys, values, scratch), Count::Host(n))
    }

    /// Records the sort of a GPU-side count: the u32 at `count` (4-byte aligned), clamped to `capacity` (at most
    /// `config.max_n`); the clamped count and an overflow flag land in the control block
    /// ([`Sorter::control_offset`]). Checked like [`Sorter::cmd_sort`], the count's 4 bytes included (it needs
    /// `STORAGE_BUFFER` usage only: a shader reads it).
    pub fn cmd_sort_indirect(
        &self,
        rec: &mut Recorder,
        keys: BufferRef<'_>,
        values: Option<BufferRef<'_>>,
        scratch: BufferRef<'_>,
        count: BufferRef<'_>,
        capacity: u64,
    ) -> Result<()> {
        let count = Count::Gpu {
            count: count.region(),
            capacity,
        };
        self.record(rec, SortBuffers::of(keys, values, scratch), count)
    }

    fn record(&self, rec: &mut Recorder, buffers: SortBuffers, count: Count) -> Result<()> {
        let max_n = count.max_n();
        if max_n > self.config.max_n {
            return Err(Error::CountOverCapacity {
                n: max_n,
                capacity: self.config.max_n,
            });
        }
        if rec.ctx().id != self.ctx.id {
            return Err(Error::WrongContext { what: "sorter" });
        }
        let c = self.choose(max_n)?;
        // The bytes the sort touches of each region (the backend checks each is that large).
        let mut regions = vec![
            ("keys", buffers.keys, max_n * self.config.key.bytes() as u64),
            (
                "scratch",
                buffers.scratch,
                c.backend.storage_requirements(max_n).scratch_bytes,
            ),
        ];
        if let Some(v) = buffers.values {
            regions.push(("values", v, max_n * self.config.value.bytes() as u64));
        }
        if let Count::Gpu { count, .. } = count {
            regions.push(("count", count, 4));
        }
        check_disjoint(&regions)?;
        c.backend.record(rec, c.algorithm, buffers, count)
    }
}

/// Sorts `keys` ascending on the GPU.
pub fn sort<K: SortKey>(ctx: &Arc<Context>, keys: &mut [K]) -> Result<()> {
    sort_with(ctx, keys, &SortConfig::default())
}

/// Sorts `keys` on the GPU as `config` says (its key and value types are taken from `K`).
pub fn sort_with<K: SortKey>(
    ctx: &Arc<Context>,
    keys: &mut [K],
    config: &SortConfig,
) -> Result<()> {
    host_sort::<K, u32>(ctx, keys, None, config)
}

/// Sorts `keys` ascending and carries `values` along (stable).
pub fn sort_pairs<K: SortKey, V: SortValue>(
    ctx: &Arc<Context>,
    keys: &mut [K],
    values: &mut [V],
) -> Result<()> {
    sort_pairs_with(ctx, keys, values, &SortConfig::default())
}

/// Sorts `keys` as `config` says and carries `values` along (stable).
pub fn sort_pairs_with<K: SortKey, V: SortValue>(
    ctx: &Arc<Context>,
    keys: &mut [K],
    values: &mut [V],
    config: &SortConfig,
) -> Result<()> {
    if values.len() != keys.len() {
        return Err(Error::LengthMismatch {
            what: "values",
            expected: keys.len() as u64,
            got: values.len() as u64,
        });
    }
    host_sort(ctx, keys, Some(values), config)
}

fn host_sort<K: SortKey, V: SortValue>(
    ctx: &Arc<Context>,
    keys: &mut [K],
    values: Option<&mut [V]>,
    config: &SortConfig,
) -> Result<()> {
    let config = SortConfig {
        key: K::TYPE,
        value: if values.is_some() {
            V::TYPE
        } else {
            ValueType::None
        },
        ..*config
    };
    let n = keys.len() as u64;
    let sorter = Sorter::new(
        ctx,
        SortConfig {
            max_n: n.max(1),
            ..config
        },
    )?;
    if n <= 1 {
        return Ok(());
    }
    let kb = Buffer::from_slice(ctx, "vksort::sort::keys", keys)?;
    let vb = match &values {
        Some(v) => Some(Buffer::from_slice(ctx, "vksort::sort::values", v)?),
        None => None,
    };
    let req = sorter.storage_requirements(n)?;
    let scratch = Buffer::device_local(ctx, "vksort::sort::scratch", req.scratch_bytes)?;
    ctx.submit("vksort::sort", |rec| {
        sorter.cmd_sort(
            rec,
            kb.as_ref(),
            vb.as_ref().map(Buffer::as_ref),
            scratch.as_ref(),
            n,
        )
    })?;
    // A wait that gave up leaves a wrong order: an error, with the caller's slices untouched.
    if let Some(at) = sorter.gave_up_offset(n) {
        if scratch.read(at, 4)? != [0; 4] {
            return Err(Error::InvalidGpuResult {
                what: "the fused Onesweep's place wait gave up (CTRL_FUSED_STALLED set): the sort's result is \
                       wrong"
                    .into(),
            });
        }
    }
    keys.copy_from_slice(&kb.read_vec::<K>(keys.len())?);
    if let (Some(v), Some(b)) = (values, vb) {
        v.copy_from_slice(&b.read_vec::<V>(v.len())?);
    }
    Ok(())
}
