/*!
Limited-memory quasi-Newton minimisation with an elastic-net penalty: L-BFGS for the smooth part
(the objective plus `c2/2·‖x‖²`) and OWL-QN (Andrew & Gao, 2007) for `c1·‖x‖₁`, the same
penalty form as Wapiti's `rho1`/`rho2`. Written here (about 200 lines) rather than taken from
`liblbfgs`, because the trainer needs a per-iteration callback that can cancel, Wapiti's
window-based stopping rule, and no copies of the (multi-million) weight vector per call.

Stopping, as Wapiti's `lbfgs.c`: when the pseudo-gradient norm falls below `1e-5·max(‖x‖, 1)`;
when the objective changed by less than `epsilon` (relative) over the last `objective_window`
(Wapiti: 5) iterations; at `max_iter`; when the line search cannot decrease the objective
(machine precision); or when the per-iteration callback says so (the trainer's error-rate
window, and cancellation).
*/

/// Optimiser settings.
#[derive(Debug, Clone)]
pub struct OwlqnParams {
    pub c1: f64,
    pub c2: f64,
    pub epsilon: f64,
    /// Iterations over which the objective's relative change is compared with `epsilon`.
    pub objective_window: usize,
    pub max_iter: usize,
    /// Number of correction pairs kept (Wapiti's default history size is 5).
    pub history: usize,
    pub max_linesearch: usize,
}

impl Default for OwlqnParams {
    fn default() -> Self {
        OwlqnParams {
            c1: 0.5,
            c2: 1e-4,
            epsilon: 1e-5,
            objective_window: 5,
            max_iter: 2000,
            history: 5,
            max_linesearch: 40,
        }
    }
}

/// What the per-iteration callback asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// Stop and keep the current point (a caller-side convergence test).
    Stop,
    Cancel,
}

/// Why the optimiser stopped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    Converged { iteration: usize },
    Stopped { iteration: usize },
    MaxIterations { iteration: usize },
    LineSearchFailed { iteration: usize },
    Cancelled { iteration: usize },
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The pseudo-gradient of `f + c1·‖x‖₁` (the steepest-descent direction's negative).
fn pseudo_gradient(pg: &mut [f64], x: &[f64], g: &[f64], c1: f64) {
    if c1 == 0.0 {
        pg.copy_from_slice(g);
        return;
    }
    for ((p, &xi), &gi) in pg.iter_mut().zip(x).zip(g) {
        *p = if xi > 0.0 {
            gi + c1
        } else if xi < 0.0 {
            gi - c1
        } else if gi + c1 < 0.0 {
            gi + c1
        } else if gi - c1 > 0.0 {
            gi - c1
        } else {
            0.0
        };
    }
}

/// Smooth objective + L2 term, and its gradient.
fn eval_smooth(
    eval: &mut impl FnMut(&[f64], &mut [f64]) -> f64,
    x: &[f64],
    g: &mut [f64],
    c2: f64,
) -> f64 {
    let mut f = eval(x, g);
    if c2 != 0.0 {
        f += 0.5 * c2 * dot(x, x);
        for (gi, &xi) in g.iter_mut().zip(x) {
            *gi += c2 * xi;
        }
    }
    f
}

fn l1(x: &[f64], c1: f64) -> f64 {
    if c1 == 0.0 {
        0.0
    } else {
        c1 * x.iter().map(|v| v.abs()).sum::<f64>()
    }
}

/// Minimise `eval` (returns f, writes the gradient) from `x`, in place. `progress(iteration,
/// objective, x)` is called after every iteration and may stop or cancel.
pub fn minimize(
    x: &mut [f64],
    mut eval: impl FnMut(&[f64], &mut [f64]) -> f64,
    p: &OwlqnParams,
    mut progress: impl FnMut(usize, f64, &[f64]) -> Control,
) -> Outcome {
    let n = x.len();
    let m = p.history.max(1);
    let mut g = vec![0.0; n];
    let mut pg = vec![0.0; n];
    let mut d = vec![0.0; n];
    let mut xn = vec![0.0; n];
    let mut gn = vec![0.0; n];
    let mut s_hist: Vec<Vec<f64>> = Vec::with_capacity(m);
    let mut y_hist: Vec<Vec<f64>> = Vec::with_capacity(m);
    let mut rho: Vec<f64> = Vec::with_capacity(m);
    let mut alpha = vec![0.0; m];
    let mut fx = eval_smooth(&mut eval, x, &mut g, p.c2) + l1(x, p.c1);
    let mut history_f = vec![fx];
    pseudo_gradient(&mut pg, x, &g, p.c1);
    let mut k = 0;
    loop {
        if dot(&pg, &pg) == 0.0 {
            return Outcome::Converged { iteration: k };
        }
        // Two-loop recursion: d = -H·pg.
        d.iter_mut().zip(&pg).for_each(|(di, &gi)| *di = -gi);
        let h = s_hist.len();
        for j in (0..h).rev() {
            alpha[j] = rho[j] * dot(&s_hist[j], &d);
            let a = alpha[j];
            d.iter_mut()
                .zip(&y_hist[j])
                .for_each(|(di, &yi)| *di -= a * yi);
        }
        if h > 0 {
            let yy = dot(&y_hist[h - 1], &y_hist[h - 1]);
            let gamma = 1.0 / (rho[h - 1] * yy);
            d.iter_mut().for_each(|di| *di *= gamma);
        }
        for j in 0..h {
            let b = rho[j] * dot(&y_hist[j], &d);
            let c = alpha[j] - b;
            d.iter_mut()
                .zip(&s_hist[j])
                .for_each(|(di, &si)| *di += c * si);
        }
        if p.c1 != 0.0 {
            // Keep only components that agree with the steepest-descent orthant.
            for (di, &gi) in d.iter_mut().zip(&pg) {
                if *di * gi >= 0.0 {
                    *di = 0.0;
                }
            }
        }
        let mut dg = dot(&d, &pg);
        if dg >= 0.0 {
            // Not a descent direction: restart from steepest descent.
            s_hist.clear();
            y_hist.clear();
            rho.clear();
            d.iter_mut().zip(&pg).for_each(|(di, &gi)| *di = -gi);
            dg = dot(&d, &pg);
        }
        let mut step = if k == 0 {
            1.0 / dot(&d, &d).sqrt()
        } else {
            1.0
        };
        let mut accepted = None;
        for _ in 0..p.max_linesearch {
            for i in 0..n {
                let mut v = x[i] + step * d[i];
                if p.c1 != 0.0 {
                    let orthant = if x[i] != 0.0 { x[i] } else { -pg[i] };
                    if v * orthant <= 0.0 {
                        v = 0.0;
                    }
                }
                xn[i] = v;
            }
            let f_new = eval_smooth(&mut eval, &xn, &mut gn, p.c2) + l1(&xn, p.c1);
            // Armijo condition along the projected step.
            let decrease: f64 = if p.c1 != 0.0 {
                (0..n).map(|i| pg[i] * (xn[i] - x[i])).sum()
            } else {
                step * dg
            };
            if f_new.is_finite() && f_new <= fx + 1e-4 * decrease {
                accepted = Some(f_new);
                break;
            }
            step *= 0.5;
        }
        let Some(f_new) = accepted else {
            return Outcome::LineSearchFailed { iteration: k };
        };
        // Update the history with s = xn - x, y = gn - g.
        let (mut s, mut y) = if s_hist.len() == m {
            rho.remove(0);
            (s_hist.remove(0), y_hist.remove(0))
        } else {
            (vec![0.0; n], vec![0.0; n])
        };
        for i in 0..n {
            s[i] = xn[i] - x[i];
            y[i] = gn[i] - g[i];
        }
        let sy = dot(&s, &y);
        if sy > 0.0 {
            s_hist.push(s);
            y_hist.push(y);
            rho.push(1.0 / sy);
        }
        x.copy_from_slice(&xn);
        std::mem::swap(&mut g, &mut gn);
        fx = f_new;
        pseudo_gradient(&mut pg, x, &g, p.c1);
        k += 1;
        history_f.push(fx);
        match progress(k, fx, x) {
            Control::Continue => {}
            Control::Stop => return Outcome::Stopped { iteration: k },
            Control::Cancel => return Outcome::Cancelled { iteration: k },
        }
        let xnorm = dot(x, x).sqrt();
        if dot(&pg, &pg).sqrt() / xnorm.max(1.0) <= 1e-5 {
            return Outcome::Converged { iteration: k };
        }
        let w = p.objective_window;
        if w > 0 && k >= w {
            let old = history_f[k - w];
            if (old - fx).abs() / old.abs().max(f64::MIN_POSITIVE) < p.epsilon {
                return Outcome::Converged { iteration: k };
            }
        }
        if k >= p.max_iter {
            return Outcome::MaxIterations { iteration: k };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f(x) = Σ (x_i - t_i)², minimum at t; with L1 the small targets are cut to zero.
    fn quad(t: &'static [f64]) -> impl FnMut(&[f64], &mut [f64]) -> f64 {
        move |x, g| {
            let mut f = 0.0;
            for i in 0..x.len() {
                f += (x[i] - t[i]).powi(2);
                g[i] = 2.0 * (x[i] - t[i]);
            }
            f
        }
    }

    #[test]
    fn lbfgs_finds_the_minimum_of_a_quadratic() {
        let mut x = vec![0.0; 3];
        let p = OwlqnParams {
            c1: 0.0,
            c2: 0.0,
            epsilon: 1e-12,
            max_iter: 100,
            ..OwlqnParams::default()
        };
        let out = minimize(&mut x, quad(&[1.0, -2.0, 3.0]), &p, |_, _, _| {
            Control::Continue
        });
        assert!(!matches!(out, Outcome::Cancelled { .. }));
        for (a, b) in x.iter().zip([1.0, -2.0, 3.0]) {
            assert!((a - b).abs() < 1e-4, "{x:?}");
        }
    }

    #[test]
    fn owlqn_soft_thresholds_to_exact_zeros() {
        // argmin (x-t)² + c1|x| = sign(t)·max(|t| - c1/2, 0)
        let mut x = vec![0.0; 3];
        let p = OwlqnParams {
            c1: 1.0,
            c2: 0.0,
            epsilon: 1e-12,
            max_iter: 200,
            ..OwlqnParams::default()
        };
        minimize(&mut x, quad(&[2.0, 0.3, -1.0]), &p, |_, _, _| {
            Control::Continue
        });
        assert!((x[0] - 1.5).abs() < 1e-4, "{x:?}");
        assert_eq!(x[1], 0.0, "{x:?}");
        assert!((x[2] + 0.5).abs() < 1e-4, "{x:?}");
    }

    #[test]
    fn the_callback_stops_or_cancels() {
        let mut x = vec![0.0; 2];
        let p = OwlqnParams {
            c1: 0.0,
            epsilon: 0.0,
            max_iter: 1000,
            ..OwlqnParams::default()
        };
        let ctl = |stop| move |it, _, _: &[f64]| if it < 2 { Control::Continue } else { stop };
        let out = minimize(&mut x, quad(&[5.0, 5.0]), &p, ctl(Control::Cancel));
        assert_eq!(out, Outcome::Cancelled { iteration: 2 });
        let mut x = vec![0.0; 2];
        let out = minimize(&mut x, quad(&[5.0, 5.0]), &p, ctl(Control::Stop));
        assert_eq!(out, Outcome::Stopped { iteration: 2 });
    }
}
