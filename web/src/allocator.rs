/*!
The allocator of every `quire` process: mimalloc, for Rust's allocations (the binary's global
allocator, `main.rs`) and, through mimalloc's `override` feature, for the C code running in the
same process, pdfium in the layout workers and in `quire layout` above all (its `malloc`,
`free`, … resolve to mimalloc's, which the binary exports).

Why: pdfium allocates and frees in small pieces throughout `FPDF_LoadPage` and
`FPDFText_LoadPage`; with glibc's malloc, allocation was about a fifth of a layout process's CPU
(docs/experiments/2026-12-06-layout-process-profile.md). On the same PDFs, `quire layout`
takes about 10 % less CPU with mimalloc (0.32 × pdfalto's instead of 0.356), and the service
gives 8 % more full texts and 9 % more headers per CPU-second
(docs/experiments/2026-12-07-mimalloc-for-pdfium.md).

What the server asked of glibc's allocator has its mimalloc form here: giving freed memory back
to the system after the last request in flight and after a large citation list ([`give_back`],
formerly `malloc_trim`). The
glibc-only parts went with glibc: the cap on its arenas (`server.malloc_arenas`, now ignored)
and the heap gauges read from `mallinfo2` (mimalloc counts live bytes only in its statistics
builds, and its committed figure includes arenas reserved up front, so it has no gauge to
offer in their place; `process_resident_memory_bytes` stays).
*/

/// Returns the memory freed to the allocator to the system now (mimalloc would otherwise purge
/// it after a delay): the calling thread's free pages and every arena's pending purges.
pub fn give_back() {
    // SAFETY: mi_collect has no preconditions; it only releases free memory.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The C code's `malloc` is mimalloc's too (the `override` feature): a block from
    /// `libc::malloc` lies in mimalloc's heap.
    #[test]
    fn malloc_of_the_c_code_is_mimallocs() {
        // SAFETY: a plain malloc/free pair; the pointer is only inspected in between.
        unsafe {
            let p = libc::malloc(64);
            assert!(!p.is_null());
            assert!(libmimalloc_sys::mi_is_in_heap_region(p));
            libc::free(p);
        }
    }

    /// Resident pages of this process, from `/proc/self/statm`.
    fn resident_bytes() -> u64 {
        let statm = std::fs::read_to_string("/proc/self/statm").expect("statm");
        let pages: u64 = statm
            .split_whitespace()
            .nth(1)
            .expect("resident")
            .parse()
            .expect("a number");
        // SAFETY: sysconf has no preconditions.
        pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64
    }

    /// Freed memory leaves the process at `give_back` (not only after mimalloc's purge delay,
    /// which this test does not wait out): 256 MiB written, freed, given back.
    #[test]
    fn give_back_returns_freed_memory_to_the_system() {
        let held = std::hint::black_box(vec![1u8; 256 << 20]);
        let during = resident_bytes();
        drop(held);
        give_back();
        let after = resident_bytes();
        assert!(during > after + (128 << 20), "{during} then {after}");
    }
}
