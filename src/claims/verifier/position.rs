//! Claims about one position: its conversion or its win from the tables
//! (or a tablebase service), and its mate depth from the service.

use shakmaty::{Color, Position};

use super::Verifier;
use crate::{
    chess::material::Material,
    chess::position::fen_of,
    chess::wdl::Wdl,
    claims::{
        catalog::{position_after, Claim},
        evidence::{Evidence, LineSummary, Verdict, Witness},
    },
    error::{Error, Result},
    model::dtz::winner_moves,
};

impl Verifier<'_> {
    /// The position's winner, the winner's moves for its first phase, and
    /// the witness.
    fn probe_position(
        &mut self,
        claim: &Claim,
        fen: &str,
        play: &[String],
    ) -> Result<(Option<Color>, Witness)> {
        let pos = position_after(fen, play)?;
        let material = Material::from_board(pos.board())?;
        let prober = self.prober_for(&material);
        let wdl = if pos.is_checkmate() {
            Wdl::Loss
        } else {
            prober.wdl(&pos)?
        };
        let dtz = prober.dtz(&pos)?.0;
        let winner = match wdl.signum() {
            1 => Some(pos.turn()),
            -1 => Some(!pos.turn()),
            _ => None,
        };
        // The colour, on this board, of the claim's winner.
        let claimed = claim.winner.as_deref().and_then(|w| {
            Color::ALL
                .into_iter()
                .find(|c| material.side(*c).to_string() == w.to_ascii_uppercase())
        });
        let fen_now = fen_of(&pos);
        let (line, first) = if winner.is_some() {
            let l = LineSummary::from(self.line(&fen_now)?);
            let first = l.phases.first().map_or(0, |p| p.plies);
            (Some(l), Some(first))
        } else {
            (None, None)
        };
        let winner_to_move = claimed == Some(pos.turn());
        let moves = first.map(|p| winner_moves(p, winner_to_move));
        Ok((
            winner.filter(|w| Some(*w) == claimed),
            Witness {
                fen: fen_now,
                side_to_move: if winner_to_move { "winner" } else { "loser" }.into(),
                wdl,
                dtz: dtz.unsigned_abs(),
                metric: None,
                phase_plies: first,
                moves,
                line,
            },
        ))
    }

    pub(super) fn position_converts(
        &mut self,
        claim: &Claim,
        fen: &str,
        play: &[String],
        moves: u32,
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let (winner, w) = self.probe_position(claim, fen, play)?;
        ev.scope = Some(format!("the position {}", w.fen));
        ev.claimed_moves = Some(moves);
        let verdict = match (winner, w.moves) {
            (Some(_), Some(observed)) => {
                ev.observed_moves = Some([observed, observed]);
                if observed == moves {
                    ev.summary = format!(
                        "the winner converts in exactly {moves} moves (DTZ {} plies, first phase {} plies)",
                        w.dtz,
                        w.phase_plies.unwrap_or(0)
                    );
                    Verdict::Confirmed
                } else {
                    ev.summary = format!(
                        "the winner converts in {observed} moves, not {moves} (DTZ {} plies, first phase {} plies)",
                        w.dtz,
                        w.phase_plies.unwrap_or(0)
                    );
                    Verdict::Refuted
                }
            }
            _ => {
                ev.summary = not_a_win(claim, &w, "");
                Verdict::Refuted
            }
        };
        ev.longest = Some(w);
        Ok(verdict)
    }

    /// A position's mate depth from the tablebase service, which has DTM
    /// where it has DTM tables (up to 6 pieces on the public service).
    pub(super) fn remote_mate_check(
        &mut self,
        claim: &Claim,
        fen: &str,
        play: &[String],
        moves: u32,
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let pos = position_after(fen, play)?;
        let material = Material::from_board(pos.board())?;
        let prober = self.prober_for(&material);
        let remote = prober
            .remote_source()
            .ok_or_else(|| Error::inconsistent("the verifier", "a mate check without a service"))?;
        let fen_now = fen_of(&pos);
        ev.scope = Some(format!("the position {fen_now}"));
        ev.claimed_moves = Some(moves);
        ev.engine = self.remote_engine(&material);
        let claimed = claim.winner_color(&material);
        let Some(dtm) = remote.dtm(&pos)? else {
            ev.summary = format!(
                "{} gives no distance to mate for this position (it has DTM only where it has DTM tables: up to 6 pieces on the public service, none on a server without them)",
                remote.url()
            );
            return Ok(Verdict::Unverifiable);
        };
        let winner = match dtm.signum() {
            1 => Some(pos.turn()),
            -1 => Some(!pos.turn()),
            _ => None,
        };
        if winner.is_none() || winner != claimed {
            ev.summary = format!(
                "the position is not a mate for {} (DTM {dtm} plies for the side to move)",
                claim.winner.as_deref().unwrap_or("?")
            );
            return Ok(Verdict::Refuted);
        }
        let plies = dtm.unsigned_abs();
        let observed = winner_moves(plies, dtm > 0);
        ev.observed_moves = Some([observed, observed]);
        Ok(if observed == moves {
            ev.summary = format!("the winner mates in exactly {moves} moves (DTM {plies} plies)");
            Verdict::Confirmed
        } else {
            ev.summary =
                format!("the winner mates in {observed} moves, not {moves} (DTM {plies} plies)");
            Verdict::Refuted
        })
    }

    pub(super) fn position_wins(
        &mut self,
        claim: &Claim,
        fen: &str,
        play: &[String],
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let (winner, w) = self.probe_position(claim, fen, play)?;
        ev.scope = Some(format!("the position {}", w.fen));
        let verdict = if winner.is_some() {
            ev.summary = format!(
                "the position is a win for {}{}",
                claim.winner.as_deref().unwrap_or("?"),
                if matches!(w.wdl, Wdl::CursedWin | Wdl::BlessedLoss) {
                    " without the 50-move rule (with it, a draw)"
                } else {
                    ""
                }
            );
            Verdict::Confirmed
        } else {
            ev.summary = not_a_win(claim, &w, " for the side to move");
            Verdict::Refuted
        };
        ev.longest = Some(w);
        Ok(verdict)
    }
}

/// The summary of a position claim whose position is not a win for the
/// claimed winner: what the WDL is (`whose`: from whose view, if said).
fn not_a_win(claim: &Claim, w: &Witness, whose: &str) -> String {
    format!(
        "the position is not a win for {} (WDL {}{whose})",
        claim.winner.as_deref().unwrap_or("?"),
        w.wdl.as_str()
    )
}
