//! Timestamp profiler: a stamp before the first pass and one after each pass (per-pass, [`Profiler::new`]) or
//! only where [`super::Recorder::stamp`] asks (per-run, [`Profiler::per_run`]: a whole run timed by two stamps,
//! as CUDA events time a CUB call). [`Profiler::results`] never waits ([`Error::TimestampsNotReady`] before the
//! command buffer completed, [`Error::ProfilerOverflow`] past the capacity or without [`Profiler::begin`]).

use super::Context;
use crate::error::{Error, Result, VkContext};
use ash::vk;
use std::sync::Arc;

/// The GPU time of one pass.
#[derive(Clone, Debug, PartialEq)]
pub struct PassTime {
    /// The pass label, e.g. `vksort::scan::reduce`.
    pub label: String,
    /// GPU time in nanoseconds.
    pub ns: f64,
}

/// A timestamp query pool and the labels of the passes it timed.
pub struct Profiler {
    ctx: Arc<Context>,
    pool: vk::QueryPool,
    capacity: u32,
    labels: Vec<String>,
    overflowed: bool,
    /// Stamps only at [`super::Recorder::stamp`], none per pass.
    per_run: bool,
}

impl Profiler {
    /// A profiler for up to `capacity - 1` passes per recording; [`Error::Unsupported`] without timestamps.
    pub fn new(ctx: &Arc<Context>, capacity: u32) -> Result<Self> {
        if ctx.caps.timestamp_valid_bits == 0 || ctx.caps.timestamp_period <= 0.0 {
            return Err(ctx.unsupported("needs timestamp queries on the compute queue"));
        }
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(capacity.max(2));
        // SAFETY: valid device; destroyed in Drop.
        let pool = unsafe { ctx.device.create_query_pool(&info, None) }.vk("vkCreateQueryPool")?;
        ctx.name(pool, "vksort::profiler");
        Ok(Self {
            ctx: ctx.clone(),
            pool,
            capacity: capacity.max(2),
            labels: Vec::new(),
            overflowed: false,
            per_run: false,
        })
    }

    /// A profiler that writes no stamp per pass, only at [`super::Recorder::stamp`] (up to `capacity - 1`).
    pub fn per_run(ctx: &Arc<Context>, capacity: u32) -> Result<Self> {
        let mut p = Self::new(ctx, capacity)?;
        p.per_run = true;
        Ok(p)
    }

    /// Resets the pool in `cmd` and writes the first stamp (the host forms do it themselves; a caller of
    /// [`super::Recorder::new`] calls it before [`super::Recorder::with_profiler`]).
    ///
    /// # Safety
    /// The caller promises that `device` is the device of the context this profiler was created on (e.g.
    /// [`Context::device`]), that `cmd` is a command buffer of that device in the recording state, allocated
    /// from a pool of a queue family with timestamp support, not recorded into from another thread during the
    /// call, and that this profiler is not dropped before the GPU has finished executing `cmd` (or `cmd` is
    /// reset or freed without being submitted).
    pub unsafe fn begin(&mut self, device: &ash::Device, cmd: vk::CommandBuffer) {
        self.labels.clear();
        self.overflowed = false;
        // SAFETY: the caller's promise: `cmd` is recording on `device`, the pool's device.
        unsafe {
            device.cmd_reset_query_pool(cmd, self.pool, 0, self.capacity);
            device.cmd_write_timestamp(cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, self.pool, 0);
        }
        self.labels.push("begin".into());
    }

    /// Writes the stamp that ends pass `label` (`explicit`: a [`super::Recorder::stamp`], for per-run ones).
    pub(crate) fn mark(
        &mut self,
        device: &ash::Device,
        cmd: vk::CommandBuffer,
        label: &str,
        explicit: bool,
    ) {
        if explicit != self.per_run {
            return;
        }
        let idx = self.labels.len() as u32;
        if idx >= self.capacity || self.labels.is_empty() {
            self.overflowed = true;
            return;
        }
        // SAFETY: idx < capacity; recording state.
        unsafe {
            device.cmd_write_timestamp(cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, self.pool, idx)
        };
        self.labels.push(label.into());
    }

    /// Per-pass GPU times of the last completed recording, in pass order.
    pub fn results(&self) -> Result<Vec<PassTime>> {
        if self.overflowed {
            return Err(Error::ProfilerOverflow {
                capacity: self.capacity,
            });
        }
        let n = self.labels.len();
        if n < 2 {
            return Ok(Vec::new());
        }
        let mut stamps = vec![[0u64; 2]; n];
        // SAFETY: n <= capacity queries were written; WITH_AVAILABILITY gives a flag per query, no waiting.
        unsafe {
            self.ctx.device.get_query_pool_results(
                self.pool,
                0,
                &mut stamps,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
            )
        }
        .or_else(|e| {
            if e == vk::Result::NOT_READY {
                Ok(())
            } else {
                Err(e)
            }
        })
        .vk("vkGetQueryPoolResults")?;
        if stamps.iter().any(|s| s[1] == 0) {
            return Err(Error::TimestampsNotReady);
        }
        let bits = self.ctx.caps.timestamp_valid_bits;
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let period = self.ctx.caps.timestamp_period as f64;
        Ok((1..n)
            .map(|i| PassTime {
                label: self.labels[i].clone(),
                ns: (stamps[i][0].wrapping_sub(stamps[i - 1][0]) & mask) as f64 * period,
            })
            .collect())
    }

    /// Total GPU time of the last recording, in nanoseconds.
    pub fn total_ns(&self) -> Result<f64> {
        Ok(self.results()?.iter().map(|p| p.ns).sum())
    }
}

impl Drop for Profiler {
    fn drop(&mut self) {
        if self.ctx.is_lost() {
            return; // timed-out work may still write the pool: leaked
        }
        // SAFETY: the host forms wait before returning; a caller's command buffer using this pool must be done.
        unsafe { self.ctx.device.destroy_query_pool(self.pool, None) };
    }
}

/// Sums pass times by label (passes repeated across portions or digit places add up), keeping first-seen order.
pub fn sum_by_label(passes: &[PassTime]) -> Vec<PassTime> {
    let mut out: Vec<PassTime> = Vec::new();
    for p in passes {
        match out.iter_mut().find(|q| q.label == p.label) {
            Some(q) => q.ns += p.ns,
            None => out.push(p.clone()),
        }
    }
    out
}
