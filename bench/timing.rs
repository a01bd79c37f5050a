//! CPU-time rates shared by the tagging benches.

use std::time::Instant;

/// CPU seconds of this process (every thread), robust to other load on the machine.
pub fn cpu_s() -> f64 {
    // SAFETY: getrusage only writes into the zeroed struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Run `f` (which tags `tokens` tokens) repeatedly for at least `min_cpu_s` CPU seconds;
/// return tokens per wall second and per CPU second.
pub fn rate(tokens: usize, min_cpu_s: f64, mut f: impl FnMut()) -> (f64, f64) {
    let (w0, c0) = (Instant::now(), cpu_s());
    let mut rounds = 0;
    while rounds == 0 || cpu_s() - c0 < min_cpu_s {
        f();
        rounds += 1;
    }
    let n = (tokens * rounds) as f64;
    (n / w0.elapsed().as_secs_f64(), n / (cpu_s() - c0))
}
