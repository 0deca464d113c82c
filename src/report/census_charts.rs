//! The census's charts as SVG: horizontal bars by material (the share of
//! wins each rule loses; the wins lost at 50 and at 75 moves), and the
//! distribution of DTR over every win of the census.

use plotters::{coord::types::RangedCoordf64, prelude::*, style::text_anchor};

use super::charts::{draw_legend, framed, log_chart_svg, plot_err, Axes, BLUE};
use crate::{error::Result, model::Histogram};

/// One series of a bar chart: its label, colour and one value per row.
pub struct Series<'a> {
    /// The legend's label.
    pub label: String,
    /// The bars' colour.
    pub color: RGBColor,
    /// One value per row; values at or below the axis's least are not drawn.
    pub values: &'a [f64],
}

/// The colours of the census's rules, 50, 66, 75 and 100 moves.
pub const RULE_COLORS: [RGBColor; 4] = [
    RGBColor(200, 60, 40),
    RGBColor(230, 150, 30),
    BLUE,
    RGBColor(90, 150, 80),
];

/// Horizontal bars on a log scale, a row per name (the first at the top),
/// a bar per series in each row, the names written at the left: an SVG
/// document 760 pixels wide, 26 pixels a row.
///
/// # Errors
///
/// [`crate::Error::Chart`] if plotters fails.
pub fn horizontal_bars_svg(
    title: &str,
    names: &[String],
    series: &[Series<'_>],
    x_desc: &str,
    least: f64,
) -> Result<String> {
    let rows = names.len().max(1);
    let most = series
        .iter()
        .flat_map(|s| s.values.iter().copied())
        .fold(least * 10.0, f64::max);
    let height = 90 + 26 * rows as u32 + 16 * series.len() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, height)).into_drawing_area();
        let mut chart = framed(&root, title, 96)?
            .build_cartesian_2d(
                (least..most * 2.0).log_scale(),
                -0.5f64..(rows as f64 - 0.5),
            )
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_desc(x_desc)
            .x_label_formatter(&|x| {
                if *x >= 1.0 {
                    format!("{x:.0}")
                } else {
                    format!("{x}")
                }
            })
            .draw()
            .map_err(plot_err)?;
        let band = 0.8 / series.len().max(1) as f64;
        for (k, s) in series.iter().enumerate() {
            let color = s.color;
            chart
                .draw_series(
                    s.values
                        .iter()
                        .enumerate()
                        .filter(|(_, v)| **v > least)
                        .map(|(i, v)| {
                            // Row i from the top; series k from the top of its row.
                            let top = (rows - 1 - i) as f64 + 0.4 - band * k as f64;
                            Rectangle::new([(least, top), (*v, top - band * 0.9)], color.filled())
                        }),
                )
                .map_err(plot_err)?
                .label(s.label.clone())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled())
                });
        }
        draw_legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        // The names, right-aligned against the axis: drawn on the whole
        // picture, where the plotting area would clip them.
        let style = TextStyle::from(("sans-serif", 12).into_font()).pos(text_anchor::Pos::new(
            text_anchor::HPos::Right,
            text_anchor::VPos::Center,
        ));
        for (i, name) in names.iter().enumerate() {
            let (px, py) = name_anchor(&chart, least, (rows - 1 - i) as f64);
            root.draw(&Text::new(name.clone(), (px - 6, py), style.clone()))
                .map_err(plot_err)?;
        }
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// The picture's pixel at the left end of row `y`.
fn name_anchor(
    chart: &ChartContext<
        '_,
        SVGBackend<'_>,
        Cartesian2d<plotters::coord::combinators::LogCoord<f64>, RangedCoordf64>,
    >,
    least: f64,
    y: f64,
) -> (i32, i32) {
    chart.backend_coord(&(least, y))
}

/// The DTR of every win of the census, by plies, on a log count axis, with
/// the 50-, 66-, 75- and 100-move rules' limits marked: the wins right of a
/// line are those that rule cuts short.
///
/// # Errors
///
/// [`crate::Error::Chart`] if plotters fails.
pub fn dtr_distribution_svg(h: &Histogram, title: &str) -> Result<String> {
    let max_x = h.max().unwrap_or(0).max(210) + 5;
    let max_y = h.bins().map(|(_, n)| n).max().unwrap_or(1).max(1) as f64;
    let axes = Axes {
        x: -0.5..(max_x as f64 + 0.5),
        max_y,
        x_desc: "DTR (plies)",
        y_desc: "wins (log scale)",
    };
    log_chart_svg(title, axes, |chart| {
        chart
            .draw_series(h.bins().map(|(d, n)| {
                Rectangle::new(
                    [(f64::from(d) - 0.45, 0.5), (f64::from(d) + 0.45, n as f64)],
                    BLUE.filled(),
                )
            }))
            .map_err(plot_err)?
            .label("wins by DTR")
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], BLUE.filled()));
        for (n, color) in crate::model::RULES_COUNTED.iter().zip(RULE_COLORS) {
            let plies = 2.0 * f64::from(*n);
            let style = color.stroke_width(2);
            chart
                .draw_series(LineSeries::new(
                    vec![(plies, 0.5), (plies, max_y * 2.0)],
                    style,
                ))
                .map_err(plot_err)?
                .label(format!("{n}-move rule: {} plies", 2 * n))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 12, y)], style));
        }
        Ok(())
    })
}
