//! A sort's output checked where it lies (pass `vksort::sort::check`), for results too large to read back
//! cheaply; a verification aid for tests and benchmarks. One pass finds the first element out of order, with
//! index values the first equal keys whose values do not rise (stability), and a 64-bit fingerprint of the
//! (key, value) elements that [`fingerprint`] computes on the host: sorted order and equal fingerprints of
//! input and output mean the output is the sorted input (a wrong one passes with probability about 2^-64).
//! A mismatch says that something is wrong, not what. Barriers as in [`crate::gpu::recorder`].

use super::config::SortConfig;
use super::items::Items;
use super::types::{KeyType, ValueType};
use crate::error::{Error, Result};
use crate::gpu::{check_disjoint, push_block, Buffer, BufferRef, Context, Kernel, Recorder};
use crate::policy::SubgroupPlan;
use crate::shaders::{sort_check as sh, Spec};
use ash::vk;
use std::sync::Arc;

/// Elements per invocation of the check pass.
const ITEMS: u32 = 16;
/// Words of the result before the per-workgroup sums (the first unsorted index, the first unstable index, all
/// ones for none, and two unused words); then four 16-bit-chunk sums of the hashes per workgroup.
const HEADER_WORDS: u64 = 4;

push_block! {
    /// Push constants of `glsl/sort/sort_check.comp`.
    struct CheckPush {
        mask: [u32; 4],
        n: u32,
        kind: u32,
        descending: u32,
        stable: u32,
        groups: u32,
    }
}

/// What one check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Elements checked.
    pub n: u64,
    /// The first index whose key the key before it orders after (None: the keys are in order).
    pub first_unsorted: Option<u64>,
    /// With stability checked: the first index whose key equals the one before it while its value does not
    /// exceed that one's (None: values rise among equal keys, or not checked).
    pub first_unstable: Option<u64>,
    /// The wrapping sum of the elements' hashes ([`fingerprint`]).
    pub fingerprint: u64,
}

impl CheckReport {
    /// The report in the result words of a check of `n` elements (at least [`SortChecker::result_bytes`] / 4).
    pub fn from_words(words: &[u32], n: u64) -> Self {
        let index = |w: u32| (w != u32::MAX).then_some(w as u64);
        // a and b are the hash's low and high halves; each chunk sum is below 2^32 and the halves' sums below
        // 2^64 (n < 2^32), so both add up exactly before they are combined mod 2^64.
        let (mut a, mut b) = (0u64, 0u64);
        for g in words[HEADER_WORDS as usize..].chunks_exact(4) {
            a += g[0] as u64 + ((g[1] as u64) << 16);
            b += g[2] as u64 + ((g[3] as u64) << 16);
        }
        Self {
            n,
            first_unsorted: index(words[0]),
            first_unstable: index(words[1]),
            fingerprint: a.wrapping_add(b.wrapping_shl(32)),
        }
    }

    /// In order, (if checked) stable, and with the fingerprint `expected` (the input's, from [`fingerprint`]).
    pub fn passes(&self, expected: u64) -> bool {
        self.first_unsorted.is_none()
            && self.first_unstable.is_none()
            && self.fingerprint == expected
    }
}

/// The check pass for the outputs of sorts of one configuration (key type, value type, order, bit range).
pub struct SortChecker {
    ctx: Arc<Context>,
    kernel: Arc<Kernel>,
    items: Items,
    stability: bool,
    workgroup_size: u32,
}

impl SortChecker {
    /// A checker of the outputs of sorts made with `config` (its algorithm and capacity do not matter).
    /// `stability`: the values are their keys' input indices and the sort is stable, so equal keys must carry
    /// rising values (ignored without values). Errors: [`Error::InvalidBitRange`].
    pub fn new(ctx: &Arc<Context>, config: &SortConfig, stability: bool) -> Result<Self> {
        let items = Items::new(config)?;
        let caps = ctx.caps();
        let plan = SubgroupPlan::for_device(caps);
        let workgroup_size = plan.workgroup_size(caps, 256);
        let kernel = plan.kernel(
            ctx,
            sh::SHADER,
            workgroup_size,
            Spec::new()
                .with(sh::ITEMS, ITEMS)
                .with(sh::KEY_WORDS, items.key_words)
                .with(sh::VAL_WORDS, items.val_words),
        )?;
        Ok(Self {
            ctx: ctx.clone(),
            kernel,
            items,
            stability: stability && items.val_words > 0,
            workgroup_size,
        })
    }

    fn groups(&self, n: u64) -> u64 {
        n.div_ceil((self.workgroup_size * ITEMS) as u64)
    }

    /// Bytes of the result of a check of `n` elements.
    pub fn result_bytes(&self, n: u64) -> u64 {
        (HEADER_WORDS + 4 * self.groups(n)) * 4
    }

    /// Records the check of `n` keys (and values, which the configuration must have) into
    /// [`Self::result_bytes`]`(n)` bytes of `result` (`STORAGE_BUFFER | TRANSFER_DST`): a fill, a barrier, the
    /// pass. Errors: [`Error::ValuesMismatch`], [`Error::TooLarge`] (one storage binding, 2^32 - 1 elements),
    /// [`Error::WrongContext`], [`Error::Overlap`] and the buffer checks of [`crate::BufferRef`].
    pub fn cmd_check(
        &self,
        rec: &mut Recorder,
        keys: BufferRef<'_>,
        values: Option<BufferRef<'_>>,
        result: BufferRef<'_>,
        n: u64,
    ) -> Result<()> {
        let (keys, values, result) = (keys.region(), values.map(|v| v.region()), result.region());
        let ctx = rec.ctx();
        if ctx.id != self.ctx.id {
            return Err(Error::WrongContext { what: "checker" });
        }
        if n >= u32::MAX as u64 {
            // the pass indexes elements with 32-bit words
            return Err(Error::TooLarge {
                n,
                max: u32::MAX as u64 - 1,
                limit: "the check's 32-bit element index",
            });
        }
        let (kb, vb) = self.items.check_data(ctx, &keys, values.as_ref(), n)?;
        let result_bytes = self.result_bytes(n);
        result.check(
            ctx,
            "result",
            result_bytes,
            vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        let mut regions = vec![("keys", keys, kb), ("result", result, result_bytes)];
        if let Some(v) = values {
            regions.push(("values", v, vb));
        }
        check_disjoint(&regions)?;
        let groups = self.groups(n) as u32;
        let keys = keys.slice(0, kb.max(4));
        let push = CheckPush {
            mask: self.items.mask,
            n: n as u32,
            kind: self.items.key.kind(),
            descending: self.items.descending as u32,
            stable: self.stability as u32,
            groups,
        };
        rec.scope("vksort::sort::check", |rec| {
            rec.fill_region(
                "vksort::sort::check::clear",
                result.slice(0, HEADER_WORDS * 4),
                u32::MAX,
            )?;
            rec.barrier();
            // without values the keys stand in for the unused binding
            let vals = values.map_or(keys, |v| v.slice(0, vb));
            rec.pass("vksort::sort::check", &self.kernel)
                .bind(&[keys, vals, result.slice(0, result_bytes)])
                .push(&push)
                .groups(groups)
        })
    }

    /// Checks `n` keys (and values) on the GPU and reads the report back (a few bytes per 4096 elements).
    pub fn check(
        &self,
        keys: BufferRef<'_>,
        values: Option<BufferRef<'_>>,
        n: u64,
    ) -> Result<CheckReport> {
        let result = Buffer::device_local(
            &self.ctx,
            "vksort::sort::check::result",
            self.result_bytes(n),
        )?;
        self.ctx.submit("vksort::sort::check", |rec| {
            self.cmd_check(rec, keys, values, result.as_ref(), n)
        })?;
        let words = result.read_vec::<u32>((self.result_bytes(n) / 4) as usize)?;
        Ok(CheckReport::from_words(&words, n))
    }
}

/// The hash's 32-bit mixer (`mix32` in `glsl/sort/sort_check.comp`).
fn mix32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// The 64-bit hash of one element's raw words (key words, then value words; the shader's twin).
fn element_hash(words: impl Iterator<Item = u32>, count: u32) -> u64 {
    let (mut a, mut b) = (0x6a09_e667u32, 0xbb67_ae85u32);
    for w in words {
        a = mix32(a ^ w);
        b = mix32((b ^ w).wrapping_mul(0x9e37_79b1).wrapping_add(0x632b_e5ab));
    }
    a = mix32(a.wrapping_add(count));
    b = mix32(b ^ a);
    ((b as u64) << 32) | a as u64
}

/// The fingerprint [`SortChecker`] computes, on the host: the wrapping sum of the hashes of the elements whose
/// keys are `keys` (little-endian, `key.bytes()` each) and values `values` (`value.bytes()` each; empty for
/// [`ValueType::None`]). Sums of parts add up (wrapping) to the whole's, so large inputs may be hashed in
/// parallel ranges. Panics if the slices do not hold whole elements of one count.
pub fn fingerprint(key: KeyType, value: ValueType, keys: &[u8], values: &[u8]) -> u64 {
    let (kb, vb) = (key.bytes() as usize, value.bytes() as usize);
    let n = keys.len() / kb;
    assert!(
        keys.len() == n * kb && values.len() == n * vb,
        "fingerprint: {} key bytes and {} value bytes are not {n} whole elements",
        keys.len(),
        values.len()
    );
    fn words(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
    }
    let count = (kb + vb) as u32 / 4;
    let mut sum = 0u64;
    for i in 0..n {
        let k = words(&keys[i * kb..(i + 1) * kb]);
        let v = words(&values[i * vb..(i + 1) * vb]);
        sum = sum.wrapping_add(element_hash(k.chain(v), count));
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_of_parts_add_up_and_ignore_order() {
        let keys: Vec<u64> = (0..1000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let vals: Vec<u32> = (0..1000).collect();
        let kb: &[u8] = bytemuck::cast_slice(&keys);
        let vb: &[u8] = bytemuck::cast_slice(&vals);
        let fp = |k: &[u8], v: &[u8]| fingerprint(KeyType::U64, ValueType::U32, k, v);
        let whole = fp(kb, vb);
        let parts =
            fp(&kb[..8 * 300], &vb[..4 * 300]).wrapping_add(fp(&kb[8 * 300..], &vb[4 * 300..]));
        assert_eq!(whole, parts);
        let (mut rk, mut rv) = (keys.clone(), vals.clone());
        rk.reverse();
        rv.reverse();
        assert_eq!(
            whole,
            fp(bytemuck::cast_slice(&rk), bytemuck::cast_slice(&rv))
        );
        // a key moved to another value is another multiset
        rv.swap(0, 1);
        assert_ne!(
            whole,
            fp(bytemuck::cast_slice(&rk), bytemuck::cast_slice(&rv))
        );
        // the report sums chunk sums exactly: one element's hash, split as the shader splits it
        let h = element_hash([5u32, 7].into_iter(), 2);
        let (a, b) = (h as u32, (h >> 32) as u32);
        let words = [
            u32::MAX,
            u32::MAX,
            0,
            0,
            a & 0xffff,
            a >> 16,
            b & 0xffff,
            b >> 16,
        ];
        let r = CheckReport::from_words(&words, 1);
        assert_eq!(
            (r.fingerprint, r.first_unsorted, r.first_unstable),
            (h, None, None)
        );
    }
}
