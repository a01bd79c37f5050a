/*!
The layout worker protocol: the `quire worker` process reads jobs on stdin and answers on
stdout, one at a time, with one pdfium per process (rust-stack.md §1.7).

A frame is a little-endian `u32` byte length followed by that many bytes of postcard. The
parent writes a [`Request`] frame (a layout [`Job`], a [`RenderJob`]: page regions to PNG, or an
[`AnnotateJob`]: links to add to the PDF);
the worker answers a [`Response`] of the same kind: `Ok(Document)` / `Ok(pngs)` or the error. A worker that dies (pdfium crash, memory cap, kill on
timeout) simply closes stdout; the pool in `quire-actors` turns that into the right code.
*/

use std::io::{self, Read, Write};
use std::path::PathBuf;

use serde::{de::DeserializeOwned, Deserialize, Serialize};

use super::{Document, Limits, PageRange};
use crate::Error;

/// Frames above this size are refused (the PDF upload limit is far below it).
pub const MAX_FRAME: usize = 1 << 30;

/// `Vec<u8>` fields written as one byte string instead of a sequence of numbers. Postcard
/// frames both alike (a varint length, then the bytes), but a sequence goes through serde one
/// byte at a time on each side of the pipe: for a PDF of a few megabytes that was a few
/// percent of a header request's CPU.
mod raw_bytes {
    use serde::de::{Deserializer, SeqAccess, Visitor};
    use serde::Serializer;

    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct Bytes;
        impl<'de> Visitor<'de> for Bytes {
            type Value = Vec<u8>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }

            fn visit_bytes<E>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }

            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }

            // Formats without a byte string write a sequence.
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
                while let Some(b) = seq.next_element()? {
                    out.push(b);
                }
                Ok(out)
            }
        }
        d.deserialize_byte_buf(Bytes)
    }
}

/// One layout job.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    #[serde(with = "raw_bytes")]
    pub pdf: Vec<u8>,
    pub range: PageRange,
    pub limits: Limits,
}

/// What the worker answers to a layout job.
pub type Reply = Result<Document, WorkerError>;

/// One render job: regions of `pdf` to PNG at `scale` pixels per PDF unit
/// ([`super::render`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RenderJob {
    #[serde(with = "raw_bytes")]
    pub pdf: Vec<u8>,
    pub regions: Vec<super::render::Region>,
    pub scale: f32,
}

/// What the worker answers to a render job: one PNG per region, in order.
pub type RenderReply = Result<Vec<Vec<u8>>, WorkerError>;

/// One annotation job: `pdf` with `links` added as link annotations
/// ([`crate::annotations::pdf`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AnnotateJob {
    #[serde(with = "raw_bytes")]
    pub pdf: Vec<u8>,
    pub links: Vec<crate::annotations::Link>,
}

/// What the worker answers to an annotation job: the rewritten PDF.
pub type AnnotateReply = Result<Vec<u8>, WorkerError>;

/// A frame the parent sends.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Request {
    Layout(Job),
    Render(RenderJob),
    /// A health check: the worker answers [`Response::Pong`] at once (no fault-injection
    /// hook delays it). The pool pings an idle worker before handing it a job.
    Ping,
    Annotate(AnnotateJob),
}

/// A frame the worker answers, of the request's kind.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Response {
    Layout(Reply),
    Render(RenderReply),
    Pong,
    Annotate(AnnotateReply),
}

/// An engine error as it crosses the worker pipe: the variant and its fields, so the server
/// rebuilds exactly the error the worker met (code, numbers and message), never by parsing
/// display text. Errors that cannot come out of layout (I/O on a path, corpus, model
/// mismatch) travel as `General` with their message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WorkerError {
    BadInput(String),
    NoBlocks,
    TooManyBlocks {
        blocks: usize,
        limit: usize,
    },
    TooManyTokens {
        tokens: usize,
        limit: usize,
    },
    TooManyPageTokens {
        page: u32,
        tokens: usize,
        limit: usize,
    },
    Timeout {
        stage: String,
        seconds: u64,
    },
    PdfConversion(String),
    Parsing(String),
    Tagging {
        model: String,
        reason: String,
    },
    General(String),
    /// The worker could not allocate memory under its cap (answered by [`oom`] just before it
    /// exits).
    Memory {
        stage: String,
        cap_mb: u64,
    },
}

impl From<&Error> for WorkerError {
    fn from(e: &Error) -> WorkerError {
        match e {
            Error::BadInput(m) => WorkerError::BadInput(m.clone()),
            Error::NoBlocks => WorkerError::NoBlocks,
            Error::TooManyBlocks { blocks, limit } => WorkerError::TooManyBlocks {
                blocks: *blocks,
                limit: *limit,
            },
            Error::TooManyTokens { tokens, limit } => WorkerError::TooManyTokens {
                tokens: *tokens,
                limit: *limit,
            },
            Error::TooManyPageTokens {
                page,
                tokens,
                limit,
            } => WorkerError::TooManyPageTokens {
                page: *page,
                tokens: *tokens,
                limit: *limit,
            },
            Error::Timeout { stage, seconds } => WorkerError::Timeout {
                stage: stage.clone(),
                seconds: *seconds,
            },
            Error::PdfConversion(m) => WorkerError::PdfConversion(m.clone()),
            Error::Parsing(m) => WorkerError::Parsing(m.clone()),
            Error::Tagging { model, reason } => WorkerError::Tagging {
                model: model.clone(),
                reason: reason.clone(),
            },
            Error::Memory { stage, cap_mb, .. } => WorkerError::Memory {
                stage: stage.clone(),
                cap_mb: *cap_mb,
            },
            other => WorkerError::General(other.to_string()),
        }
    }
}

impl From<WorkerError> for Error {
    fn from(e: WorkerError) -> Error {
        match e {
            WorkerError::BadInput(m) => Error::BadInput(m),
            WorkerError::NoBlocks => Error::NoBlocks,
            WorkerError::TooManyBlocks { blocks, limit } => Error::TooManyBlocks { blocks, limit },
            WorkerError::TooManyTokens { tokens, limit } => Error::TooManyTokens { tokens, limit },
            WorkerError::TooManyPageTokens {
                page,
                tokens,
                limit,
            } => Error::TooManyPageTokens {
                page,
                tokens,
                limit,
            },
            WorkerError::Timeout { stage, seconds } => Error::Timeout { stage, seconds },
            WorkerError::PdfConversion(m) => Error::PdfConversion(m),
            WorkerError::Parsing(m) => Error::Parsing(m),
            WorkerError::Tagging { model, reason } => Error::Tagging { model, reason },
            WorkerError::General(m) => Error::General(m),
            WorkerError::Memory { stage, cap_mb } => Error::Memory {
                stage,
                cap_mb,
                detail: String::new(),
            },
        }
    }
}

/// A postcard error as the I/O error a frame's reader or writer gives.
fn invalid(e: postcard::Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e.to_string())
}

/// The length of `value`'s postcard encoding (postcard's size pass), refused over
/// [`MAX_FRAME`].
fn payload_size<T: Serialize + ?Sized>(value: &T) -> io::Result<usize> {
    let size = postcard::experimental::serialized_size(value).map_err(invalid)?;
    if size > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame of {size} bytes is over the limit"),
        ));
    }
    Ok(size)
}

/// One frame's bytes: the payload's length (`u32`, little-endian), then its postcard
/// encoding. The buffer is sized once from postcard's size pass: a job carries the whole PDF
/// and a reply the whole layout, megabytes either way, which a growing vector would copy
/// again at each doubling.
pub fn encode_frame<T: Serialize + ?Sized>(value: &T) -> io::Result<Vec<u8>> {
    // With no slice to leave out, every byte goes to the head, sized for the whole frame.
    let parts = encode_frame_parts(value, &[])?;
    debug_assert!(parts.bytes.is_empty() && parts.tail.is_empty());
    Ok(parts.head)
}

/// A frame in three pieces that leave one byte string of the value where it is: the frame is
/// `head`, then `bytes`, then `tail`, the same bytes as [`encode_frame`]'s. A job's PDF is
/// the frame's bulk (a megabyte for a journal article); written from the job itself, it is
/// not copied into a second buffer on its way to the pipe.
pub struct FrameParts<'a> {
    pub head: Vec<u8>,
    pub bytes: &'a [u8],
    pub tail: Vec<u8>,
}

/// [`encode_frame`], leaving `bytes` out of the buffers when the value serialises that very
/// slice (the same address and length) as a byte string; otherwise every byte is in `head`.
pub fn encode_frame_parts<'a, T: Serialize + ?Sized>(
    value: &T,
    bytes: &'a [u8],
) -> io::Result<FrameParts<'a>> {
    let size = payload_size(value)?;
    let mut head = Vec::with_capacity(4 + size.saturating_sub(bytes.len()));
    head.extend_from_slice(&(size as u32).to_le_bytes());
    let split = Split {
        head,
        tail: Vec::new(),
        skip: bytes,
        skipped: false,
    };
    let split = postcard::serialize_with_flavor(value, split).map_err(invalid)?;
    Ok(FrameParts {
        head: split.head,
        bytes: if split.skipped { bytes } else { &[] },
        tail: split.tail,
    })
}

/// A postcard output that passes over one borrowed slice (see [`encode_frame_parts`]).
struct Split<'a> {
    head: Vec<u8>,
    tail: Vec<u8>,
    skip: &'a [u8],
    skipped: bool,
}

impl<'a> Split<'a> {
    fn out(&mut self) -> &mut Vec<u8> {
        if self.skipped {
            &mut self.tail
        } else {
            &mut self.head
        }
    }
}

impl<'a> postcard::ser_flavors::Flavor for Split<'a> {
    type Output = Split<'a>;

    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        self.out().push(byte);
        Ok(())
    }

    fn try_extend(&mut self, bytes: &[u8]) -> postcard::Result<()> {
        if !self.skipped
            && !bytes.is_empty()
            && std::ptr::eq(bytes.as_ptr(), self.skip.as_ptr())
            && bytes.len() == self.skip.len()
        {
            self.skipped = true;
        } else {
            self.out().extend_from_slice(bytes);
        }
        Ok(())
    }

    fn finalize(self) -> postcard::Result<Split<'a>> {
        Ok(self)
    }
}

impl Request {
    /// The PDF a job carries (none for a ping).
    pub fn pdf(&self) -> &[u8] {
        match self {
            Request::Layout(j) => &j.pdf,
            Request::Render(j) => &j.pdf,
            Request::Annotate(j) => &j.pdf,
            Request::Ping => &[],
        }
    }
}

/// Write one frame.
pub fn write_frame<T: Serialize>(w: &mut impl Write, value: &T) -> io::Result<()> {
    w.write_all(&encode_frame(value)?)?;
    w.flush()
}

/// Read one frame; `Ok(None)` at a clean end of stream.
pub fn read_frame<T: DeserializeOwned>(r: &mut impl Read) -> io::Result<Option<T>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame of {len} bytes is over the limit"),
        ));
    }
    let mut buf = vec![0u8; len];
    r.read_exact(&mut buf)?;
    postcard::from_bytes(&buf)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))
}

/// Runs `work`, turning an engine error into its wire form and a panic into
/// `PDFTOOL_CONVERSION_FAILURE` saying what panicked.
fn guarded<T>(what: &str, work: impl FnOnce() -> crate::Result<T>) -> Result<T, WorkerError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(WorkerError::from(&e)),
        Err(_) => Err(WorkerError::PdfConversion(format!(
            "the worker panicked {what} this PDF"
        ))),
    }
}

/// Run one layout job in this process (a panic becomes `PDFTOOL_CONVERSION_FAILURE`).
pub fn run_job(job: &Job, pdfium_lib: Option<&std::path::Path>) -> Reply {
    guarded("laying out", || {
        super::layout_pdf(&job.pdf, job.range, job.limits, pdfium_lib)
    })
}

/// Run one render job in this process (a panic becomes `PDFTOOL_CONVERSION_FAILURE`).
pub fn run_render(job: &RenderJob, pdfium_lib: Option<&std::path::Path>) -> RenderReply {
    guarded("rendering", || {
        super::render::render_pdf(&job.pdf, &job.regions, job.scale, pdfium_lib)
    })
}

/// Run one annotation job in this process (a panic becomes `PDFTOOL_CONVERSION_FAILURE`).
pub fn run_annotate(job: &AnnotateJob) -> AnnotateReply {
    guarded("annotating", || {
        crate::annotations::pdf::annotate_pdf(&job.pdf, &job.links)
    })
}

/// Answer one request in this process.
pub fn answer(request: &Request, pdfium_lib: Option<&std::path::Path>) -> Response {
    match request {
        Request::Layout(job) => Response::Layout(run_job(job, pdfium_lib)),
        Request::Render(job) => Response::Render(run_render(job, pdfium_lib)),
        Request::Ping => Response::Pong,
        Request::Annotate(job) => Response::Annotate(run_annotate(job)),
    }
}

/// Fault injection for the pool's tests, read from the environment by `quire worker`:
/// `QUIRE_WORKER_DELAY_MS` sleeps before each job (timeouts, kills mid-job),
/// `QUIRE_WORKER_ALLOC_MB` allocates and touches that much memory before each job (memory cap),
/// `QUIRE_WORKER_FOREIGN_ALLOC_MB` does the same through C's `malloc` and aborts when an
/// allocation fails, as pdfium (C++) does: the death the pool must still report as `MEMORY`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hooks {
    pub delay: Option<std::time::Duration>,
    pub alloc_mb: usize,
    pub foreign_alloc_mb: usize,
    /// CPU seconds one job may use: before each job the soft `RLIMIT_CPU` is set to the CPU
    /// time used so far plus this (the worker does it itself: once it runs as another user,
    /// the server may lack the capability to change its limits).
    pub cpu_budget_s: Option<u64>,
}

impl Hooks {
    pub fn from_env() -> Hooks {
        let num = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
        Hooks {
            delay: num("QUIRE_WORKER_DELAY_MS").map(std::time::Duration::from_millis),
            alloc_mb: num("QUIRE_WORKER_ALLOC_MB").unwrap_or(0) as usize,
            foreign_alloc_mb: num("QUIRE_WORKER_FOREIGN_ALLOC_MB").unwrap_or(0) as usize,
            cpu_budget_s: None,
        }
    }

    fn before_job(&self) {
        if let Some(budget) = self.cpu_budget_s {
            limit_own_cpu(budget);
        }
        if let Some(d) = self.delay {
            std::thread::sleep(d);
        }
        if self.alloc_mb > 0 {
            let block = vec![1u8; self.alloc_mb << 20];
            std::hint::black_box(&block);
        }
        if self.foreign_alloc_mb > 0 {
            foreign_alloc(self.foreign_alloc_mb);
        }
    }
}

/// Allocates and touches `mb` MiB through `malloc` in 8 MiB blocks (then frees them); a failed
/// allocation aborts the process, as a C++ library's unhandled `bad_alloc` does.
fn foreign_alloc(mb: usize) {
    const BLOCK: usize = 8 << 20;
    let mut blocks = Vec::new();
    for _ in 0..mb.div_ceil(8) {
        // SAFETY: a plain malloc of BLOCK bytes; the pointer is checked before use and freed
        // below.
        let p = unsafe { libc::malloc(BLOCK) };
        if p.is_null() {
            // SAFETY: abort never returns; it is the foreign library's reaction being imitated.
            unsafe { libc::abort() };
        }
        // SAFETY: p points to BLOCK writable bytes.
        unsafe { std::ptr::write_bytes(p.cast::<u8>(), 1, BLOCK) };
        blocks.push(p);
    }
    for p in blocks {
        // SAFETY: each pointer came from malloc above and is freed once.
        unsafe { libc::free(p) };
    }
}

/// A worker's answer when an allocation fails under its address-space cap: the binary's global
/// allocator calls [`oom::allocation_failed`], which writes a prepared `MEMORY` reply of the
/// running job's kind on the protocol descriptor and ends the process (nothing can be
/// allocated any more, so the frames are serialised in advance by [`oom::arm`]). Outside a job,
/// or in a process that did not arm it (the server), it does nothing and the usual
/// allocation-failure abort follows.
pub mod oom {
    use std::sync::atomic::{AtomicI32, AtomicU8, Ordering};
    use std::sync::OnceLock;

    use super::{write_frame, Request, Response, WorkerError};

    static FD: AtomicI32 = AtomicI32::new(-1);
    /// 0: no job; 1 layout, 2 render, 3 annotate.
    static KIND: AtomicU8 = AtomicU8::new(0);
    static FRAMES: OnceLock<[Vec<u8>; 3]> = OnceLock::new();

    /// Prepares the three replies for a cap of `cap_mb` MiB, written to descriptor `fd`.
    pub fn arm(fd: i32, cap_mb: u64) {
        let err = |stage: &str| WorkerError::Memory {
            stage: stage.to_string(),
            cap_mb,
        };
        let frame = |r: Response| {
            let mut v = Vec::new();
            let _ = write_frame(&mut v, &r);
            v
        };
        let frames = [
            frame(Response::Layout(Err(err("the layout of this PDF")))),
            frame(Response::Render(Err(err("the rendering of this PDF")))),
            frame(Response::Annotate(Err(err("the annotation of this PDF")))),
        ];
        if FRAMES.set(frames).is_ok() {
            FD.store(fd, Ordering::SeqCst);
        }
    }

    pub(super) fn job_started(request: &Request) {
        let kind = match request {
            Request::Layout(_) => 1,
            Request::Render(_) => 2,
            Request::Annotate(_) => 3,
            Request::Ping => 0,
        };
        KIND.store(kind, Ordering::SeqCst);
    }

    pub(super) fn job_ended() {
        KIND.store(0, Ordering::SeqCst);
    }

    /// Called by the global allocator when an allocation failed. In an armed worker during a
    /// job: writes the job's `MEMORY` reply and exits; otherwise returns.
    pub fn allocation_failed() {
        let fd = FD.load(Ordering::SeqCst);
        let kind = KIND.load(Ordering::SeqCst);
        if fd < 0 || kind == 0 {
            return;
        }
        let Some(frames) = FRAMES.get() else { return };
        let frame = &frames[usize::from(kind - 1)];
        let mut done = 0;
        while done < frame.len() {
            // SAFETY: writes from a live buffer; no allocation happens here.
            let n = unsafe { libc::write(fd, frame[done..].as_ptr().cast(), frame.len() - done) };
            if n <= 0 {
                break;
            }
            done += n as usize;
        }
        // SAFETY: ends the process at once, without running anything that could allocate.
        unsafe { libc::_exit(70) }
    }
}

/// Sets this process's soft CPU-time limit to the CPU time used so far plus `budget` seconds
/// (never above the hard limit).
pub fn limit_own_cpu(budget: u64) {
    // SAFETY: getrusage/getrlimit fill the structs given; setrlimit reads one.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return;
        }
        let used = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec).max(0) as u64 + 1;
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_CPU, &mut lim) != 0 {
            return;
        }
        lim.rlim_cur = (used + budget).min(lim.rlim_max);
        libc::setrlimit(libc::RLIMIT_CPU, &lim);
    }
}

/// The worker's main loop: requests from `input`, responses to `output`, until `input` closes.
pub fn serve(
    input: &mut impl Read,
    output: &mut impl Write,
    pdfium_lib: Option<PathBuf>,
    hooks: Hooks,
) -> io::Result<()> {
    while let Some(request) = read_frame::<Request>(input)? {
        oom::job_started(&request);
        if !matches!(request, Request::Ping) {
            hooks.before_job();
        }
        let response = answer(&request, pdfium_lib.as_deref());
        write_frame(output, &response)?;
        oom::job_ended();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_pdf_crosses_the_pipe_as_one_byte_string_framed_as_before() {
        // The frame of a job is what it was when the bytes went as a sequence of numbers, so
        // a worker of either kind reads it.
        #[derive(serde::Serialize, serde::Deserialize)]
        struct AsSequence {
            pdf: Vec<u8>,
            range: super::PageRange,
            limits: super::Limits,
        }
        let pdf: Vec<u8> = (0..70_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let job = super::Job {
            pdf: pdf.clone(),
            range: super::PageRange::default(),
            limits: super::Limits::default(),
        };
        let old = AsSequence {
            pdf,
            range: job.range,
            limits: job.limits,
        };
        let frame = postcard::to_allocvec(&job).unwrap();
        assert_eq!(frame, postcard::to_allocvec(&old).unwrap());
        let back: super::Job = postcard::from_bytes(&frame).unwrap();
        assert_eq!(back.pdf, job.pdf);
        // A format without byte strings (JSON) still round-trips it.
        let json = serde_json::to_string(&job).unwrap();
        let back: super::Job = serde_json::from_str(&json).unwrap();
        assert_eq!(back.pdf, job.pdf);
    }

    #[test]
    fn a_frame_is_its_length_then_the_postcard_bytes_in_a_buffer_sized_once() {
        let job = super::Job {
            pdf: (0..300_000u32).map(|i| (i * 13 % 256) as u8).collect(),
            range: super::PageRange::default(),
            limits: super::Limits::default(),
        };
        let payload = postcard::to_allocvec(&job).unwrap();
        let frame = super::encode_frame(&job).unwrap();
        assert_eq!(frame[..4], (payload.len() as u32).to_le_bytes());
        assert_eq!(frame[4..], payload[..]);
        assert_eq!(
            frame.capacity(),
            frame.len(),
            "the buffer grew after sizing"
        );
        let mut written = Vec::new();
        super::write_frame(&mut written, &job).unwrap();
        assert_eq!(written, frame);
        let back: super::Job = super::read_frame(&mut &written[..]).unwrap().unwrap();
        assert_eq!(back.pdf, job.pdf);
    }

    #[test]
    fn a_frame_in_parts_is_the_frame_with_the_pdf_left_in_place() {
        let pdf: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 256) as u8).collect();
        for request in [
            super::Request::Layout(super::Job {
                pdf: pdf.clone(),
                range: super::PageRange {
                    start: Some(1),
                    end: Some(2),
                },
                limits: super::Limits::default(),
            }),
            super::Request::Annotate(super::AnnotateJob {
                pdf: pdf.clone(),
                links: Vec::new(),
            }),
            super::Request::Ping,
        ] {
            let whole = super::encode_frame(&request).unwrap();
            let parts = super::encode_frame_parts(&request, request.pdf()).unwrap();
            assert_eq!(
                [&parts.head[..], parts.bytes, &parts.tail[..]].concat(),
                whole
            );
            // The PDF is borrowed, not copied: the buffers hold only what surrounds it.
            assert_eq!(parts.bytes.as_ptr(), request.pdf().as_ptr());
            assert_eq!(
                parts.head.len() + parts.tail.len(),
                whole.len() - request.pdf().len()
            );
        }
        // A slice the value does not serialise leaves every byte in the head.
        let job = super::Request::Layout(super::Job {
            pdf: pdf.clone(),
            range: super::PageRange::default(),
            limits: super::Limits::default(),
        });
        let parts = super::encode_frame_parts(&job, &pdf).unwrap();
        assert!(parts.bytes.is_empty() && parts.tail.is_empty());
        assert_eq!(parts.head, super::encode_frame(&job).unwrap());
    }

    use super::*;

    #[test]
    fn frames_round_trip_and_end_cleanly() {
        let job = Job {
            pdf: b"%PDF-1.7 fake".to_vec(),
            range: PageRange {
                start: Some(2),
                end: None,
            },
            limits: Limits::default(),
        };
        let mut buf = Vec::new();
        write_frame(&mut buf, &job).unwrap();
        let reply: Reply = Err(WorkerError::TooManyTokens {
            tokens: 12,
            limit: 5,
        });
        write_frame(&mut buf, &reply).unwrap();
        let mut r = &buf[..];
        let back: Job = read_frame(&mut r).unwrap().unwrap();
        assert_eq!(back.pdf, job.pdf);
        assert_eq!(back.range, job.range);
        let back: Reply = read_frame(&mut r).unwrap().unwrap();
        let e = Error::from(back.unwrap_err());
        assert!(
            matches!(
                e,
                Error::TooManyTokens {
                    tokens: 12,
                    limit: 5
                }
            ),
            "{e}"
        );
        assert!(read_frame::<Job>(&mut r).unwrap().is_none());
    }

    #[test]
    fn oversized_or_truncated_frames_are_errors() {
        let mut r = &(u32::MAX.to_le_bytes())[..];
        assert!(read_frame::<Job>(&mut r).is_err());
        let mut buf = Vec::new();
        write_frame(&mut buf, &Limits::default()).unwrap();
        buf.pop();
        assert!(read_frame::<Limits>(&mut &buf[..]).is_err());
    }
}
