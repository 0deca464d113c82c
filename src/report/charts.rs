//! Charts as SVG, drawn with plotters' SVG backend: DTZ and DTM
//! histograms, and the wins each move-limit rule cuts short (from DTR).

use std::ops::Range;

use plotters::{
    coord::{combinators::LogCoord, types::RangedCoordf64, Shift},
    prelude::*,
};

use crate::{
    error::{Error, Result},
    model::{Histogram, RULES_COUNTED},
};

/// Which histogram of a side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistKind {
    /// Wins and cursed wins of the side to move.
    Win,
    /// Losses and blessed losses of the side to move.
    Loss,
    /// Wins of the side to move by depth to mate.
    MateWin,
    /// Losses of the side to move by depth to mate.
    MateLoss,
}

/// The blue of wins that no rule cuts short, of mates, and of the charts
/// with a single series.
pub(super) const BLUE: RGBColor = RGBColor(46, 110, 180);

pub(super) fn plot_err(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Chart(Box::new(e))
}

/// The axes of a chart: `x` linear, counts on a log scale from 0.5 (so
/// that a count of 1 shows) to twice `max_y`.
pub(super) struct Axes {
    pub(super) x: Range<f64>,
    pub(super) max_y: f64,
    pub(super) x_desc: &'static str,
    pub(super) y_desc: &'static str,
}

/// Draws the legend of `chart`'s labelled series at `position`, in the
/// style every chart of the reports shares.
pub(super) fn draw_legend<'a, 'b: 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
    position: SeriesLabelPosition,
) -> Result<()> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .draw()
        .map_err(plot_err)
}

/// A chart's builder on `root`, filled white first, in the frame every
/// chart of the reports has: `title` as caption, the margin, room for the
/// x axis's labels, and `y_labels` pixels for the y axis's.
pub(super) fn framed<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
    title: &str,
    y_labels: u32,
) -> Result<ChartBuilder<'a, 'static, SVGBackend<'b>>> {
    root.fill(&WHITE).map_err(plot_err)?;
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(y_labels);
    Ok(builder)
}

/// A chart drawn by `draw` in the frame every chart here shares.
pub(super) type LogChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, LogCoord<f64>>>;

/// An SVG document of 720 by 300 with `title`, the mesh of `axes`, what
/// `draw` puts on it, and the legend at the upper right: the frame both
/// charts share, so that they look alike.
pub(super) fn log_chart_svg(
    title: &str,
    axes: Axes,
    draw: impl FnOnce(&mut LogChart<'_, '_>) -> Result<()>,
) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, 300)).into_drawing_area();
        let mut chart = framed(&root, title, 64)?
            .build_cartesian_2d(axes.x, (0.5f64..axes.max_y * 2.0).log_scale())
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(axes.x_desc)
            .y_desc(axes.y_desc)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| {
                if *y >= 1.0 {
                    format!("{y:.0}")
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(plot_err)?;
        draw(&mut chart)?;
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// A DTZ histogram as a standalone SVG document, drawn with plotters.
///
/// Bars up to 100 plies are the wins (losses) the 50-move rule leaves
/// standing, bars above are cursed (blessed); vertical lines mark 100 and
/// 150 plies. The count axis is logarithmic so that the rare long positions
/// stay visible.
///
/// # Errors
///
/// [`Error::Chart`] if plotters fails.
pub fn histogram_svg(h: &Histogram, title: &str, kind: HistKind) -> Result<String> {
    let mate = matches!(kind, HistKind::MateWin | HistKind::MateLoss);
    let max_x = h.max().unwrap_or(0).max(if mate { 20 } else { 160 }) + 5;
    let max_y = h.bins().map(|(_, n)| n).max().unwrap_or(1).max(1) as f64;
    let axes = Axes {
        x: -0.5..(max_x as f64 + 0.5),
        max_y,
        x_desc: if mate { "DTM (plies)" } else { "DTZ (plies)" },
        y_desc: "positions (log scale)",
    };
    log_chart_svg(title, axes, |chart| {
        let (plain, cursed, plain_label, cursed_label) = match kind {
            HistKind::Win => (
                BLUE,
                RGBColor(230, 120, 20),
                "win",
                "cursed win (> 100 plies)",
            ),
            HistKind::Loss => (
                RGBColor(180, 50, 50),
                RGBColor(140, 70, 170),
                "loss",
                "blessed loss (> 100 plies)",
            ),
            // Mate distances know no rule: one colour.
            HistKind::MateWin => (BLUE, BLUE, "mate", ""),
            HistKind::MateLoss => (RGBColor(180, 50, 50), RGBColor(180, 50, 50), "mated", ""),
        };
        let split = if mate { u32::MAX } else { 100 };
        chart
            .draw_series(h.bins().filter(|(d, _)| *d <= split).map(|(d, n)| {
                Rectangle::new(
                    [(f64::from(d) - 0.45, 0.5), (f64::from(d) + 0.45, n as f64)],
                    plain.filled(),
                )
            }))
            .map_err(plot_err)?
            .label(plain_label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], plain.filled()));
        if !mate {
            chart
                .draw_series(h.bins().filter(|(d, _)| *d > split).map(|(d, n)| {
                    Rectangle::new(
                        [(f64::from(d) - 0.45, 0.5), (f64::from(d) + 0.45, n as f64)],
                        cursed.filled(),
                    )
                }))
                .map_err(plot_err)?
                .label(cursed_label)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], cursed.filled())
                });
        }
        let lines: &[(f64, &str, ShapeStyle)] = &[
            (100.0, "50-move rule: 100 plies", BLACK.stroke_width(2)),
            (
                150.0,
                "75-move rule: 150 plies",
                RGBColor(120, 120, 120).stroke_width(2),
            ),
        ];
        for &(plies, label, style) in if mate { &[][..] } else { lines } {
            chart
                .draw_series(LineSeries::new(
                    vec![(plies, 0.5), (plies, max_y * 2.0)],
                    style,
                ))
                .map_err(plot_err)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 12, y)], style));
        }
        Ok(())
    })
}

/// The wins that an `N`-move rule cuts short, for every `N`, from a DTR
/// histogram of wins (`wins` positions in all): the wins whose DTR exceeds
/// `2N` plies. The 50-, 75- and 100-move allowances are marked.
///
/// # Errors
///
/// [`Error::Chart`] if plotters fails.
pub fn wins_lost_svg(dtr: &Histogram, wins: u64, title: &str) -> Result<String> {
    let max_n = dtr.max().unwrap_or(0).div_ceil(2).max(110) + 5;
    let lost: Vec<(f64, f64)> = (1..=max_n)
        .map(|n| {
            let within: u64 = dtr
                .bins()
                .filter(|(p, _)| *p <= 2 * n)
                .map(|(_, c)| c)
                .sum();
            (f64::from(n), (wins - within) as f64)
        })
        .collect();
    let max_y = lost.iter().map(|(_, y)| *y).fold(1.0, f64::max);
    let axes = Axes {
        x: 0.0..f64::from(max_n),
        max_y,
        x_desc: "N of an N-move rule (moves)",
        y_desc: "wins cut short (log scale)",
    };
    log_chart_svg(title, axes, |chart| {
        // Where no win is cut short the count is 0, below the log axis: the
        // curve stops there.
        chart
            .draw_series(LineSeries::new(
                lost.iter().copied().filter(|(_, y)| *y >= 1.0),
                BLUE.stroke_width(2),
            ))
            .map_err(plot_err)?
            .label("wins whose DTR exceeds 2N plies")
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 12, y)], BLUE.stroke_width(2))
            });
        for n in RULES_COUNTED.iter().filter(|n| **n != 66) {
            let style = BLACK.stroke_width(1);
            chart
                .draw_series(LineSeries::new(
                    vec![(f64::from(*n), 0.5), (f64::from(*n), max_y * 2.0)],
                    style,
                ))
                .map_err(plot_err)?
                .label(format!("{n}-move rule"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 12, y)], style));
        }
        Ok(())
    })
}

/// An SVG document made fit for inlining in HTML: the XML namespace
/// attribute (a URL, and optional in HTML) is dropped.
pub fn inline_svg(svg: &str) -> String {
    svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
        .replace(" xmlns:xlink=\"http://www.w3.org/1999/xlink\"", "")
}
