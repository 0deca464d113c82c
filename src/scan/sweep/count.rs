//! The counting pass of the sweep: each position of the window, both
//! sides to move, weighed by its orbit under the board's symmetries
//! ([`super::weights`]) and recorded in the statistics document as the
//! probe engine records it: the WDL counts, the DTZ histograms and the
//! longest positions (their FENs settled to the smallest).

use rayon::prelude::*;
use shakmaty::Color;

use super::{
    board::Pos,
    code::{sign, DTZ_MATED, ILLEGAL, MATED},
    frame::CHUNK,
    progress::Progress,
    tables::Block,
    values::Values,
    weights::{like_factorial, on_one_diagonal, Canon, Squares},
};
use crate::{
    chess::wdl::Wdl,
    error::{Error, Result},
    model::{DtzHistograms, Histogram, Longest, RawCounts, SideStats, WdlCounts},
    scan::probe::ScanPlan,
};

/// Both sides' accumulators merged.
pub(super) fn merge_sides(mut a: [Acc; 2], [w, b]: [Acc; 2], canon: &Canon) -> [Acc; 2] {
    a[0].merge(w, canon);
    a[1].merge(b, canon);
    a
}

/// Counts in units of 1/|G| for one side to move.
#[derive(Default, Clone)]
pub(super) struct Acc {
    positions: u64,
    wdl: [u64; 5],
    win: Vec<u64>,
    loss: Vec<u64>,
    raw: [u64; 5],
    longest: [Option<(u32, Vec<Cand>)>; 5],
}

/// A candidate for a longest position: the board in the user's frame and
/// the canonical placement it was counted under (`None`: every ordering).
#[derive(Clone)]
enum Cand {
    Pending {
        pos: Pos,
        turn: Color,
        only: Option<Squares>,
    },
    Fen(String),
}

/// Candidate lists longer than this are settled to their best FEN.
const MAX_CANDIDATES: usize = 256;

impl Acc {
    fn add(&mut self, wdl: u8, mag: u32, num: u64) {
        self.positions += num;
        self.wdl[usize::from(wdl)] += num;
        let hist = match sign(wdl) {
            1 => &mut self.win,
            -1 => &mut self.loss,
            _ => return,
        };
        let i = mag as usize;
        if hist.len() <= i {
            hist.resize(i + 1, 0);
        }
        hist[i] += num;
    }

    fn offer(&mut self, wdl: u8, mag: u32, cand: impl FnOnce() -> Cand, canon: &Canon) {
        if sign(wdl) == 0 {
            return;
        }
        let slot = &mut self.longest[usize::from(wdl)];
        match slot {
            Some((m, list)) if *m == mag => {
                list.push(cand());
                if list.len() > MAX_CANDIDATES {
                    let best = settle(list, canon);
                    *list = vec![Cand::Fen(best)];
                }
            }
            Some((m, _)) if *m > mag => {}
            _ => *slot = Some((mag, vec![cand()])),
        }
    }

    fn merge(&mut self, other: Acc, canon: &Canon) {
        self.positions += other.positions;
        for k in 0..5 {
            self.wdl[k] += other.wdl[k];
            self.raw[k] += other.raw[k];
        }
        for (a, b) in [(&mut self.win, &other.win), (&mut self.loss, &other.loss)] {
            if a.len() < b.len() {
                a.resize(b.len(), 0);
            }
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        for (k, theirs) in other.longest.into_iter().enumerate() {
            let Some((mag, list)) = theirs else { continue };
            let slot = &mut self.longest[k];
            match slot {
                Some((m, mine)) if *m == mag => {
                    mine.extend(list);
                    if mine.len() > MAX_CANDIDATES {
                        let best = settle(mine, canon);
                        *mine = vec![Cand::Fen(best)];
                    }
                }
                Some((m, _)) if *m > mag => {}
                _ => *slot = Some((mag, list)),
            }
        }
    }
}

/// The smallest FEN among candidates.
fn settle(list: &[Cand], canon: &Canon) -> String {
    let mut best: Option<String> = None;
    let mut consider = |fen: String| {
        if best.as_ref().is_none_or(|b| fen < *b) {
            best = Some(fen);
        }
    };
    for c in list {
        match c {
            Cand::Fen(f) => consider(f.clone()),
            Cand::Pending { pos, turn, only } => match only {
                Some(x) => consider(canon.fen(x, *turn)),
                None => {
                    for x in canon.reps(pos) {
                        consider(canon.fen(&x, *turn));
                    }
                }
            },
        }
    }
    best.unwrap_or_default()
}

/// Everything the counting pass needs besides the sweep.
pub(super) struct Counting<'a> {
    pub(super) plan: &'a ScanPlan,
    pub(super) canon: Canon,
    user_flipped: bool,
    group: u64,
    fact: u64,
    per_ordering: bool,
    /// With a shard: [`Canon::shard_prefixes`], which rules out most
    /// orderings before their canonical placement is sought.
    shard_prefixes: Option<Vec<bool>>,
}

impl Counting<'_> {
    pub(super) fn new(plan: &ScanPlan) -> Counting<'_> {
        let material = plan.material;
        let canon = Canon::new(&material);
        Counting {
            plan,
            user_flipped: material.is_flipped_in_table(),
            group: material.symmetries().len() as u64,
            fact: like_factorial(&material.pieces()),
            per_ordering: plan.shard.is_some() || plan.filter.is_some(),
            shard_prefixes: plan.shard.map(|shard| canon.shard_prefixes(shard)),
            canon,
        }
    }

    /// Adds one position (table frame `pos()`, built only where needed,
    /// `turn`) to `acc`: `images`
    /// placements per side to move, times `diag` (2 for a pawnless
    /// placement on one long diagonal, else 1; see `weights`).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn record(
        &self,
        acc: &mut [Acc; 2],
        pos: impl Fn() -> Pos,
        turn: Color,
        flip_colours: bool,
        wdl: u8,
        mag: u32,
        images: u64,
        diag: u64,
    ) {
        let user_turn = if flip_colours { !turn } else { turn };
        // Built only for a candidate or a per-ordering count (rare).
        let user_pos = || {
            if flip_colours {
                pos().color_flipped()
            } else {
                pos()
            }
        };
        let side = &mut acc[usize::from(user_turn == Color::Black)];
        let num = images * diag;
        if !self.per_ordering {
            side.add(wdl, mag, num * self.fact);
            side.raw[usize::from(wdl)] += images * self.fact;
            side.offer(
                wdl,
                mag,
                || Cand::Pending {
                    pos: user_pos(),
                    turn: user_turn,
                    only: None,
                },
                &self.canon,
            );
            return;
        }
        let user_pos = user_pos();
        let prefixes = self.shard_prefixes.as_deref();
        self.canon.for_each_rep_in(&user_pos, prefixes, |x| {
            if let Some(shard) = self.plan.shard {
                if !shard.holds(self.canon.item(&x)) {
                    return;
                }
            }
            if let Some(keep) = &self.plan.filter {
                match self.canon.position(&x, user_turn) {
                    Some(p) if keep(&p) => {}
                    _ => return,
                }
            }
            side.add(wdl, mag, num);
            side.raw[usize::from(wdl)] += images;
            side.offer(
                wdl,
                mag,
                || Cand::Pending {
                    pos: user_pos,
                    turn: user_turn,
                    only: Some(x),
                },
                &self.canon,
            );
        });
    }
}

/// The counting pass over the blocks of the window's chunk.
pub(super) fn count(values: &Values, ctx: &Counting, progress: &Progress) -> [Acc; 2] {
    let merge = |a: [Acc; 2], b: [Acc; 2]| merge_sides(a, b, &ctx.canon);
    let mut total = [Acc::default(), Acc::default()];
    for b in values.window().frame.blocks() {
        let part = if ctx.per_ordering {
            count_walked(values, ctx, b, progress)
        } else {
            count_in_order(values, ctx, b, progress)
        };
        total = merge(total, part);
    }
    total
}

/// The counts of one position of block `b` (global index `j`), both sides
/// to move: `images` per side to move, `diag` (see
/// [`Counting::record`]); `pos` builds the position.
#[allow(clippy::too_many_arguments)]
#[inline]
fn count_one(
    values: &Values,
    ctx: &Counting,
    acc: &mut [Acc; 2],
    b: &Block,
    j: usize,
    images: u64,
    diag: u64,
    pos: impl Fn() -> Pos + Copy,
) {
    let symmetric = values.window().tables().symmetric;
    for half in 0..values.window().tables().code_halves() {
        let code = values.code(j, half);
        if code == ILLEGAL {
            continue;
        }
        let turn = if half == 0 { b.side } else { !b.side };
        let dtz = values.value_counted(half, j);
        let mag = if code & MATED != 0 || dtz == DTZ_MATED {
            0
        } else {
            u32::from(dtz.unsigned_abs())
        };
        let wdl = code & 7;
        if symmetric {
            // White to move as stored; Black to move is its
            // colour-flipped image.
            ctx.record(acc, pos, turn, false, wdl, mag, images, diag);
            ctx.record(acc, pos, turn, true, wdl, mag, images, diag);
        } else {
            ctx.record(acc, pos, turn, ctx.user_flipped, wdl, mag, images, diag);
        }
    }
}

/// Whether a position's codes say it is illegal for both sides to move.
fn illegal(values: &Values, j: usize) -> bool {
    let w = values.window();
    w.code(j, 0) == ILLEGAL && (w.tables().symmetric || w.code(j, 1) == ILLEGAL)
}

/// [`count`] of one block in index order, without building positions:
/// the leading group's digit alone gives a placement's images, and rules
/// out a placement on one long diagonal for all but a few; positions are
/// decoded only for those and for candidates for the longest.
fn count_in_order(values: &Values, ctx: &Counting, b: &Block, progress: &Progress) -> [Acc; 2] {
    let has_pawns = ctx.plan.material.has_pawns();
    let frame = &values.window().frame;
    let codec = &frame.dtz.subs[b.sub].encoding;
    let facts = codec.lead_facts();
    let (factor, radix) = codec.lead_place();
    (0..b.len.div_ceil(CHUNK))
        .into_par_iter()
        .fold(
            || [Acc::default(), Acc::default()],
            |mut acc, c| {
                let first = c * CHUNK;
                let last = (first + CHUNK).min(b.len);
                // The leading digit, stepped with the index.
                let mut below = first as u64 % factor;
                let mut digit = first as u64 / factor % radix;
                for local in first..last {
                    let (images, on_diagonal) = facts[digit as usize];
                    below += 1;
                    if below == factor {
                        below = 0;
                        digit += 1;
                        if digit == radix {
                            digit = 0;
                        }
                    }
                    let j = b.base + local;
                    if illegal(values, j) {
                        continue;
                    }
                    let pos = || frame.pos_of(b, local);
                    let diag = if !has_pawns && on_diagonal && on_one_diagonal(&pos()) {
                        2
                    } else {
                        1
                    };
                    count_one(values, ctx, &mut acc, b, j, u64::from(images), diag, pos);
                }
                progress.add((last - first) as u64);
                acc
            },
        )
        .reduce(
            || [Acc::default(), Acc::default()],
            |x, y| merge_sides(x, y, &ctx.canon),
        )
}

/// [`count`] of one block by walking its placements (each position is
/// needed: a shard or a filter picks orderings).
fn count_walked(values: &Values, ctx: &Counting, b: &Block, progress: &Progress) -> [Acc; 2] {
    let has_pawns = ctx.plan.material.has_pawns();
    let frame = &values.window().frame;
    let codec = &frame.dtz.subs[b.sub].encoding;
    let units = codec.units();
    (0..units.count)
        .into_par_iter()
        .fold(
            || [Acc::default(), Acc::default()],
            |mut acc, unit| {
                let walked = frame.walk_unit(b, units, unit, progress, |local, pos| {
                    let j = b.base + local;
                    if illegal(values, j) {
                        return Ok::<(), std::convert::Infallible>(());
                    }
                    let images = u64::from(codec.images(&pos.sq[..pos.n]));
                    let diag = if !has_pawns && on_one_diagonal(pos) {
                        2
                    } else {
                        1
                    };
                    count_one(values, ctx, &mut acc, b, j, images, diag, || *pos);
                    Ok(())
                });
                let Ok(()) = walked;
                acc
            },
        )
        .reduce(
            || [Acc::default(), Acc::default()],
            |x, y| merge_sides(x, y, &ctx.canon),
        )
}

fn exact(n: u64, group: u64, what: &str) -> Result<u64> {
    if !n.is_multiple_of(group) {
        return Err(Error::inconsistent(
            "the sweep",
            format!("sweep: {what} count {n}/{group} is not whole; orbit weights are wrong"),
        ));
    }
    Ok(n / group)
}

pub(super) fn side_stats(acc: Acc, ctx: &Counting) -> Result<SideStats> {
    let g = ctx.group;
    let mut wdl = WdlCounts::default();
    let mut raw = RawCounts::default();
    let fields = [
        (Wdl::Loss, 0usize),
        (Wdl::BlessedLoss, 1),
        (Wdl::Draw, 2),
        (Wdl::CursedWin, 3),
        (Wdl::Win, 4),
    ];
    for (w, k) in fields {
        let n = exact(acc.wdl[k], g, w.as_str())?;
        match w {
            Wdl::Loss => wdl.loss = n,
            Wdl::BlessedLoss => wdl.blessed_loss = n,
            Wdl::Draw => wdl.draw = n,
            Wdl::CursedWin => wdl.cursed_win = n,
            Wdl::Win => wdl.win = n,
        }
        let r = acc.raw[k];
        raw.positions += r;
        match w {
            Wdl::Loss => raw.wdl.loss = r,
            Wdl::BlessedLoss => raw.wdl.blessed_loss = r,
            Wdl::Draw => raw.wdl.draw = r,
            Wdl::CursedWin => raw.wdl.cursed_win = r,
            Wdl::Win => raw.wdl.win = r,
        }
    }
    let hist = |v: &[u64]| -> Result<Histogram> {
        let mut h = Histogram::default();
        for (p, &n) in v.iter().enumerate() {
            if n > 0 {
                h.add(p as u32, exact(n, g, "histogram")?);
            }
        }
        Ok(h)
    };
    let mut longest = Longest::default();
    for (w, k) in fields {
        if let Some((mag, list)) = &acc.longest[k] {
            let fen = settle(list, &ctx.canon);
            longest.offer(w, *mag, || fen);
        }
    }
    Ok(SideStats {
        positions: exact(acc.positions, g, "position")?,
        wdl,
        dtz: DtzHistograms {
            win: hist(&acc.win)?,
            loss: hist(&acc.loss)?,
        },
        longest,
        won_under: None,
        lost_under: None,
        raw: ctx.plan.raw.then_some(raw),
    })
}
