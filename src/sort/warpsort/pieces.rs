//! `vksort::warpsort::pieces` (glsl/sort/warpsort/warpsort_pieces.comp): one round of phase 4. Group (piece,
//! pair) merges the piece's segments of two row blocks (the windowed merge of `warp_merge.glsl`) from `input`
//! into the piece-major layout of `out`; round 0 reads the row-major layout (boundaries from `pos`), later
//! rounds the piece-major one (from `off`). Reads and writes k + v bytes per key (and the tables).

use super::{Side, WarpSort};
use crate::error::Result;
use crate::gpu::{Region, Recorder};
use crate::sort::count::Count;
use crate::sort::items::{Checked, ItemPush};
use crate::sort::warpsort::Plan;

/// Push constants of `warpsort_pieces`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PiecesPush {
    pub items: ItemPush,
    pub row_len: u32,
    pub rows: u32,
    pub pieces: u32,
    /// The round q: blocks of 2^q rows are merged pairwise.
    pub round: u32,
    /// Pairs per piece in this round.
    pub pairs: u32,
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn record(
    s: &WarpSort,
    rec: &mut Recorder,
    c: &Checked,
    count: &Count,
    plan: &Plan,
    round: u32,
    input: Side,
    out: Side,
    tables: [Region; 2],
) -> Result<()> {
    use crate::shaders::{warpsort_pieces as sh, Spec};
    let p = &s.policy;
    let k = crate::sort::items::kernel(
        rec.ctx(),
        &s.plan,
        &s.items,
        true,
        sh::SHADER,
        p.workgroup_size,
        Spec::new()
            .with(sh::GROUP_LANES, p.group_lanes)
            .with(sh::MPT, p.merge_items_per_lane),
    )?;
    let pairs = plan.piece_pairs(round);
    rec.dispatch(
        "vksort::warpsort::pieces",
        &k,
        &[
            input.keys, input.vals, out.keys, out.vals, c.meta, tables[0], tables[1],
        ],
        &PiecesPush {
            items: s.items.push(count),
            row_len: plan.row_len as u32,
            rows: plan.rows as u32,
            pieces: plan.pieces as u32,
            round,
            pairs: pairs as u32,
        },
        s.workgroups(plan.pieces * pairs),
    )
}
