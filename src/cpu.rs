/*!
Which vector instructions the hand-vectorised kernels may use (the BiLSTM-CRFs' LSTM steps,
input projections and Viterbi; the CRFs' loops measured slower with 512-bit registers and keep
AVX2). Each kernel is compiled once per instruction set and picks one when it runs; every
choice gives the same bits, since a wider register changes how many lanes one instruction
computes, never the arithmetic of a lane.
*/

/// Whether AVX-512F (with AVX2 and FMA) may be used: the CPU has it and the environment does
/// not turn it off (`QUIRE_AVX512=off`: on processors that lower their clock for 512-bit
/// arithmetic, or to compare both kernels in one build). Read once per process.
pub fn avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *ON.get_or_init(|| {
            let off = std::env::var("QUIRE_AVX512")
                .is_ok_and(|v| matches!(v.trim(), "off" | "0" | "false" | "no"));
            !off && std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
