//! Exact DTZ checked two ways on random positions from 4- and 5-piece
//! tables: against shakmaty-syzygy's (possibly rounded) value, and against a
//! plain one-ply search over the successors' WDL and DTZ.

mod common;

use fiftymove::{
    chess::material::Material,
    chess::wdl::Wdl,
    probe::{DtzMemo, Prober},
};
use rand::{rngs::StdRng, SeedableRng};
use shakmaty::{Chess, Position, Square};
use shakmaty_syzygy::MaybeRounded;

/// The DTZ a plain search gives: the best, for the side to move, of what
/// each legal move leads to. A zeroing move (or mate) ends the phase: 1 ply
/// into a decisive position, 101 into a cursed one. Any other move adds one
/// ply to the successor's DTZ.
fn plain_search(prober: &Prober, pos: &Chess, memo: &mut DtzMemo) -> i32 {
    if pos.is_checkmate() {
        return 0;
    }
    let own = prober.wdl(pos).unwrap();
    if own == Wdl::Draw {
        return 0;
    }
    let winning = own.signum() > 0;
    let mut best: Option<i32> = None;
    for m in pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(m);
        let score = if after.is_checkmate() {
            Some(1)
        } else if m.is_zeroing() {
            match (winning, prober.wdl(&after).unwrap()) {
                (true, Wdl::Loss) | (false, Wdl::Win) => Some(1),
                (true, Wdl::BlessedLoss) | (false, Wdl::CursedWin) => Some(101),
                _ => None,
            }
        } else {
            let d = prober.dtz_with(&after, memo).unwrap().0;
            (d != 0 && d.signum() != own.signum()).then(|| 1 + d.abs())
        };
        if let Some(s) = score {
            best = Some(match best {
                None => s,
                Some(b) if winning => b.min(s),
                Some(b) => b.max(s),
            });
        }
    }
    own.signum() * best.expect("a decisive position has a move that keeps its result")
}

/// Whether shakmaty-syzygy's one-ply search for the losing `pos` would
/// keep a precise `v` that is one ply short: the DTZ file does not store
/// this side, so it takes the longest loss over the non-zeroing moves,
/// keeping the first of equal candidates; a precise one came first and a
/// rounded one ("`|v|` or `|v|+1`") after it. (`v < -1`: the search's own
/// starting value, -1 for a loss by zeroing, cannot be the tie.)
fn precise_tied_with_rounded(prober: &Prober, pos: &Chess, v: i32) -> bool {
    let mut first: Option<bool> = None;
    let mut rounded_after = false;
    for m in pos.legal_moves() {
        if m.is_zeroing() {
            continue;
        }
        let mut after = pos.clone();
        after.play_unchecked(m);
        // The successor's DTZ as the loser sees it, one ply further.
        let (candidate, precise) = match prober.raw_dtz(&after).unwrap() {
            MaybeRounded::Precise(d) if d > 0 => (-d - 1, true),
            MaybeRounded::Rounded(d) if d > 0 => (-d - 1, false),
            _ => continue,
        };
        assert!(candidate >= v, "a longer loss than shakmaty-syzygy's {v}");
        if candidate == v {
            match first {
                None => first = Some(precise),
                Some(_) => rounded_after |= !precise,
            }
        }
    }
    first == Some(true) && rounded_after
}

#[test]
fn exact_dtz_agrees_with_plain_search_and_with_shakmaty_syzygy() {
    let prober = common::prober();
    // Tables of both kinds: 4- and 5-piece, with and without pawns, with like
    // pieces, with cursed wins; some settle rounding by parity, the others by
    // search.
    let materials = [
        "KQvKR", "KRvKP", "KPvKP", "KBNvK", "KRvKN", "KQvKN", "KRBvKR", "KBBvKN", "KNNvKP",
        "KQPvKQ", "KRPvKR", "KQRvKQ", "KBBvKQ", "KRNvKR",
    ];
    let mut rng = StdRng::seed_from_u64(0x5059_5a59);
    let mut memo = DtzMemo::new();
    let (mut checked, mut decisive, mut rounded, mut bumped, mut cursed) = (0, 0, 0, 0, 0);
    // Precise losses one ply short (the case of the test below), and
    // precise losses whose search met that tie at all.
    let (mut short, mut ties) = (0, 0);
    while checked < 10_200 {
        let material: Material = materials[checked % materials.len()].parse().unwrap();
        let Some(pos) = common::random_position(&mut rng, &material) else {
            continue;
        };
        let exact = prober.dtz_with(&pos, &mut memo).unwrap().0;
        let plain = plain_search(&prober, &pos, &mut memo);
        let fen = fiftymove::chess::position::fen_of(&pos);
        assert_eq!(exact, plain, "{fen}: exact DTZ vs plain search");
        if !pos.is_checkmate() {
            match prober.raw_dtz(&pos).unwrap() {
                // shakmaty-syzygy may state a loss one ply short (see the
                // test below); every other precise value must stand.
                MaybeRounded::Precise(v) if v < -1 => {
                    assert!(
                        exact == v || exact == v - 1,
                        "{fen}: exact {exact}, precise {v}"
                    );
                    let tie = precise_tied_with_rounded(&prober, &pos, v);
                    ties += usize::from(tie);
                    if exact == v - 1 {
                        assert!(
                            tie,
                            "{fen}: exact {exact}, precise {v}, and not from a tie \
                             of a precise and a rounded successor"
                        );
                        short += 1;
                    }
                }
                MaybeRounded::Precise(v) => assert_eq!(exact, v, "{fen}: precise value"),
                MaybeRounded::Rounded(v) => {
                    rounded += 1;
                    assert_eq!(exact.signum(), v.signum(), "{fen}");
                    let extra = exact.abs() - v.abs();
                    assert!(
                        extra == 0 || extra == 1,
                        "{fen}: exact {exact}, rounded {v}"
                    );
                    bumped += extra;
                }
            }
        }
        decisive += usize::from(exact != 0);
        cursed += usize::from(exact.abs() > 100);
        checked += 1;
    }
    // The sample must exercise what the test is about.
    assert!(decisive > 5_000, "{decisive} decisive positions");
    assert!(rounded > 1_000, "{rounded} rounded values");
    assert!(bumped > 100, "{bumped} rounded values resolved upwards");
    assert!(cursed > 10, "{cursed} cursed or blessed positions");
    // The shortfall needs a precise and a rounded successor of the same
    // length, the rounded one really a ply longer. Measured with this
    // sampler, 20,000 positions of each of these materials: the tie 15 times
    // in 280,000 positions, the shortfall never (KRvKP's position below is
    // found by hand). In this sample of 10,200 more than 2 would mean
    // shakmaty-syzygy errs in some other way too.
    eprintln!(
        "{short} precise losses one ply short; {ties} ties of a precise and a rounded successor"
    );
    assert!(short <= 2, "{short} precise losses one ply short");
}

/// White: Ka2, Pb3; Black: Kc2, Rd4; White to move, lost. shakmaty-syzygy
/// answers a precise DTZ of -2 here: the DTZ file does not store this side,
/// and its one-ply search keeps the first of two equal candidates, a precise
/// 2 found before a rounded "2 or 3". By hand: after 1. Ka3 the king guards
/// b3, and no Black move captures or moves a pawn, so Black cannot zero at
/// once: White survives at least three plies, so -2 cannot be right. The
/// search gives -3; the generator's KRvKP statistics, which the sweep engine
/// reproduces, count such positions at 3 plies too.
#[test]
fn a_loss_that_shakmaty_syzygy_states_one_ply_short() {
    let prober = common::prober();
    let pos = fiftymove::chess::position::parse_fen("8/8/8/8/3r4/1P6/K1k5/8 w - - 0 1").unwrap();
    assert_eq!(prober.wdl(&pos).unwrap(), Wdl::Loss);
    assert!(matches!(
        prober.raw_dtz(&pos).unwrap(),
        MaybeRounded::Precise(-2)
    ));
    // The case the test above accepts, and only it.
    assert!(precise_tied_with_rounded(&prober, &pos, -2));
    // The hand argument's first step, checked move by move.
    let ka3 = pos
        .legal_moves()
        .into_iter()
        .find(|m| m.to() == Square::A3 && m.role() == shakmaty::Role::King)
        .expect("Ka3 is legal");
    let mut after = pos.clone();
    after.play_unchecked(ka3);
    assert!(
        after.legal_moves().iter().all(|m| !m.is_zeroing()),
        "Black cannot zero after Ka3"
    );
    assert_eq!(prober.wdl(&after).unwrap(), Wdl::Win);
    // Hence at least -3, and the search settles it.
    assert_eq!(prober.dtz(&pos).unwrap().0, -3);
    assert_eq!(plain_search(&prober, &pos, &mut DtzMemo::new()), -3);
}
