/*!
The `quire` binary: a thin command line over the crates. `quire serve` runs the
GROBID-compatible HTTP service; other subcommands (layout worker, training, evaluation) live
in `cmd/`, one file each.
*/

use std::alloc::{GlobalAlloc, Layout};
use std::process::ExitCode;

use clap::Parser;
use mimalloc::MiMalloc;
use quire_web::cmd;

/// mimalloc (`quire_web::allocator`), which tells a layout worker when an allocation fails
/// under its memory cap (`quire::layout::worker::oom`: the worker answers `MEMORY` naming the
/// cap instead of dying silently). Elsewhere a failure goes on to the usual abort.
struct Allocator;

// SAFETY: every call is forwarded to `MiMalloc` unchanged; only a null result is observed.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { MiMalloc.alloc(layout) };
        if p.is_null() {
            quire::layout::worker::oom::allocation_failed();
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { MiMalloc.alloc_zeroed(layout) };
        if p.is_null() {
            quire::layout::worker::oom::allocation_failed();
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { MiMalloc.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { MiMalloc.realloc(ptr, layout, new_size) };
        if p.is_null() {
            quire::layout::worker::oom::allocation_failed();
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Allocator = Allocator;

#[derive(Debug, Parser)]
#[command(
    name = "quire",
    version,
    about = "Scholarly PDFs and bibliographic strings to TEI XML, with GROBID's HTTP interface"
)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
}

fn main() -> ExitCode {
    let cli = Cli::parse_from(cmd::batch::rewrite_grobid_flags(std::env::args_os()));
    match cmd::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("quire: {e:#}");
            ExitCode::FAILURE
        }
    }
}
