//! Line plots as standalone SVG: the figures of `sortlab reproduce`.
//!
//! Dependency-free on purpose: a figure here is a few series of (x, y) points on linear or
//! logarithmic axes with a legend, which a hundred lines of SVG do exactly; a plotting crate
//! would add font and image stacks for nothing.
//!
//! ```
//! use sortlab_cli::plot::{Plot, Scale, Series};
//!
//! let plot = Plot {
//!     title: "reduce".into(),
//!     x_label: "keys".into(),
//!     y_label: "ms".into(),
//!     x_scale: Scale::Log2,
//!     y_scale: Scale::Log10,
//!     series: vec![Series::new("Fast", vec![(1024.0, 0.01), (1048576.0, 0.02)])],
//! };
//! let svg = plot.to_svg();
//! assert!(svg.starts_with("<svg") && svg.contains("Fast"));
//! ```

use std::fmt::Write;

/// An axis scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Linear.
    Linear,
    /// Logarithmic with ticks at powers of two (labelled `2^k`).
    Log2,
    /// Logarithmic with ticks at powers of ten.
    Log10,
}

/// One named line of points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// Points, drawn in the given order; points that the scale cannot show (<= 0 on a log
    /// axis, non-finite) are skipped.
    pub points: Vec<(f64, f64)>,
}

impl Series {
    /// A series named `name`.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            points,
        }
    }
}

/// A figure: title, axis labels and scales, series.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// Title above the plot.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// X axis scale.
    pub x_scale: Scale,
    /// Y axis scale.
    pub y_scale: Scale,
    /// The lines.
    pub series: Vec<Series>,
}

const W: f64 = 760.0;
const H: f64 = 480.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 190.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
/// Distinguishable line colours (Okabe-Ito, then greys).
const COLOURS: [&str; 10] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
    "#777777", "#AA3377",
];

impl Scale {
    fn map(self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        match self {
            Scale::Linear => Some(v),
            Scale::Log2 | Scale::Log10 if v > 0.0 => Some(v.log10()),
            _ => None,
        }
    }

    /// Tick positions (in mapped units) and labels for the mapped range [lo, hi].
    fn ticks(self, lo: f64, hi: f64) -> Vec<(f64, String)> {
        match self {
            Scale::Linear => {
                let span = (hi - lo).max(f64::MIN_POSITIVE);
                let raw = span / 6.0;
                let mag = 10f64.powf(raw.log10().floor());
                let step = [1.0, 2.0, 5.0, 10.0]
                    .iter()
                    .map(|m| m * mag)
                    .find(|s| span / s <= 8.0)
                    .unwrap_or(10.0 * mag);
                let mut t = (lo / step).ceil() * step;
                let mut out = Vec::new();
                while t <= hi + step * 1e-9 && out.len() < 20 {
                    out.push((t, fmt_num(t)));
                    t += step;
                }
                out
            }
            Scale::Log2 => {
                let (a, b) = (
                    (lo / 2f64.log10()).ceil() as i64,
                    (hi / 2f64.log10()).floor() as i64,
                );
                let stride = ((b - a) / 10 + 1).max(1);
                (a..=b)
                    .filter(|k| (k - a) % stride == 0)
                    .map(|k| (k as f64 * 2f64.log10(), format!("2^{k}")))
                    .collect()
            }
            Scale::Log10 => {
                let (a, b) = (lo.ceil() as i64, hi.floor() as i64);
                let stride = ((b - a) / 10 + 1).max(1);
                (a..=b)
                    .filter(|k| (k - a) % stride == 0)
                    .map(|k| (k as f64, fmt_num(10f64.powi(k as i32))))
                    .collect()
            }
        }
    }
}

fn fmt_num(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1e5 || v.abs() < 1e-3 {
        format!("{v:.0e}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The mapped range of some values, widened when empty or a single point.
fn range(vals: impl Iterator<Item = f64>, scale: Scale) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if scale == Scale::Linear && lo > 0.0 {
        lo = 0.0; // bars of throughput read best from zero
    }
    if hi - lo < 1e-12 {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        return (lo - pad, hi + pad);
    }
    let pad = (hi - lo) * 0.04;
    (lo - pad, hi + pad)
}

impl Plot {
    /// The figure as a standalone SVG document.
    pub fn to_svg(&self) -> String {
        let mapped: Vec<Vec<(f64, f64)>> = self
            .series
            .iter()
            .map(|s| {
                s.points
                    .iter()
                    .filter_map(|&(x, y)| Some((self.x_scale.map(x)?, self.y_scale.map(y)?)))
                    .collect()
            })
            .collect();
        let (x0, x1) = range(mapped.iter().flatten().map(|p| p.0), self.x_scale);
        let (y0, y1) = range(mapped.iter().flatten().map(|p| p.1), self.y_scale);
        let pw = W - LEFT - RIGHT;
        let ph = H - TOP - BOTTOM;
        let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * pw;
        let py = |y: f64| TOP + ph - (y - y0) / (y1 - y0) * ph;

        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="24" text-anchor="middle" font-size="15">{}</text>"#,
            LEFT + pw / 2.0,
            escape(&self.title)
        );
        for (t, label) in self.x_scale.ticks(x0, x1) {
            let x = px(t);
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#e5e5e5"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                TOP + ph,
                TOP + ph + 16.0,
                escape(&label)
            );
        }
        for (t, label) in self.y_scale.ticks(y0, y1) {
            let y = py(t);
            let _ = writeln!(
                s,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e5e5e5"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                LEFT + pw,
                LEFT - 6.0,
                y + 4.0,
                escape(&label)
            );
        }
        let _ = writeln!(
            s,
            r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>"##
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + pw / 2.0,
            H - 18.0,
            escape(&self.x_label)
        );
        let _ = writeln!(
            s,
            r#"<text transform="translate(20 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
            TOP + ph / 2.0,
            escape(&self.y_label)
        );
        for (i, (series, pts)) in self.series.iter().zip(&mapped).enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let dash = if i >= COLOURS.len() {
                r#" stroke-dasharray="5 3""#
            } else {
                ""
            };
            if pts.len() > 1 {
                let path: Vec<String> = pts
                    .iter()
                    .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
                    .collect();
                let _ = writeln!(
                    s,
                    r#"<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{}"/>"#,
                    path.join(" ")
                );
            }
            for &(x, y) in pts {
                let _ = writeln!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"/>"#,
                    px(x),
                    py(y)
                );
            }
            let ly = TOP + 10.0 + 18.0 * i as f64;
            let lx = LEFT + pw + 12.0;
            let _ = writeln!(
                s,
                r#"<line x1="{lx}" y1="{ly}" x2="{:.1}" y2="{ly}" stroke="{colour}" stroke-width="2"{dash}/><text x="{:.1}" y="{:.1}">{}</text>"#,
                lx + 22.0,
                lx + 28.0,
                ly + 4.0,
                escape(&series.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plot(x_scale: Scale, y_scale: Scale, series: Vec<Series>) -> Plot {
        Plot {
            title: "t <&>".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            x_scale,
            y_scale,
            series,
        }
    }

    #[test]
    fn log_axes_skip_unplottable_points_and_escape_text() {
        let p = plot(
            Scale::Log2,
            Scale::Log10,
            vec![Series::new(
                "a<b",
                vec![
                    (0.0, 1.0),
                    (1024.0, 0.5),
                    (4096.0, f64::NAN),
                    (65536.0, 2.0),
                ],
            )],
        );
        let svg = p.to_svg();
        assert!(svg.contains("a&lt;b") && svg.contains("t &lt;&amp;&gt;"));
        // Two plottable points: two markers, one polyline of two vertices.
        assert_eq!(svg.matches("<circle").count(), 2);
        assert!(svg.contains("2^10") && svg.contains("2^16"));
        assert!(svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn empty_and_single_point_plots_are_valid() {
        for series in [vec![], vec![Series::new("one", vec![(3.0, 3.0)])]] {
            let svg = plot(Scale::Linear, Scale::Linear, series).to_svg();
            assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        }
    }

    #[test]
    fn linear_ticks_are_round_numbers() {
        let t = Scale::Linear.ticks(0.0, 95.0);
        let labels: Vec<&str> = t.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["0", "20", "40", "60", "80"]);
    }
}
