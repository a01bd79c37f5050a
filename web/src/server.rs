/*!
The HTTP servers (API and admin), assembled from actix-web's own parts (actix-server's
listener, actix-http's HTTP/1 service, the application) instead of `actix_web::HttpServer`,
for two things `HttpServer` does not let an application change:

- **`Expect: 100-continue`**: `HttpServer` answers `100 Continue` to every such request before
  any application code runs, so a client announcing a body far over `limits.max_upload_mb`
  was invited to send it. Here the expect step ([`expect_continue`]) reads the declared
  `Content-Length` first and answers `413 [PAYLOAD_TOO_LARGE] …` instead of `100` when it is
  over the limit.
- **Responses the HTTP/1 layer writes itself** (`400` for a malformed request, `408` when a
  request head does not arrive within `server.header_timeout_s`, `431` for header fields over
  the buffer) have empty bodies, written by actix-http's dispatcher with no hook. Every
  connection is wrapped in [`CodedErrors`], which recognises exactly those responses (the
  status line of one of the three, `content-length: 0`, the head alone at the start of a
  write) and writes them with the interface's `[CODE] message` body; the application's own
  400s always carry a body, so nothing else is touched.

- **A connection budget**: connections that fill every slot without ever completing a request
  head (a slow-connection flood) would keep a probe such as `/api/isalive` waiting in the
  backlog until `server.header_timeout_s` ends them. Once more than half of the server's
  connection slots are open, a connection whose first request head has not arrived within a
  second is closed ([`Budget`]): a real client sends its head at once, so only the flood pays.

Listeners are made with socket2 as actix-web makes them (`SO_REUSEADDR`, the configured
backlog), so the bound port is known before the servers run (port 0 in tests).
*/

use std::fmt;
use std::future::Future as _;
use std::io;
use std::net::{TcpListener, ToSocketAddrs as _};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_http::body::{BoxBody, MessageBody};
use actix_http::{HttpMessage as _, HttpService, KeepAlive, Request, Response, StatusCode};
use actix_server::Server;
use actix_service::{
    fn_service, map_config, IntoServiceFactory, ServiceFactory, ServiceFactoryExt,
};
use actix_web::dev::AppConfig;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// Connection-level settings of one server.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub max_connections: usize,
    /// Worker threads; 0 keeps actix's default (one per core).
    pub workers: usize,
    /// How long a request head may take to arrive (`408` after it).
    pub header_timeout: Duration,
    /// The largest body any route accepts: an `Expect: 100-continue` request announcing more
    /// gets `413` instead of `100`.
    pub max_body_bytes: u64,
}

/// A listening socket on `host:port` with `backlog`, as actix-web makes them.
pub fn listener(host: &str, port: u16, backlog: u32) -> io::Result<TcpListener> {
    let addr = (host, port)
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| io::Error::new(io::ErrorKind::AddrNotAvailable, "no address"))?;
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(i32::try_from(backlog).unwrap_or(i32::MAX))?;
    Ok(socket.into())
}

/// An HTTP/1 server of the application `factory` makes (one per worker) on `lst`.
pub fn serve<F, I, S, B>(
    name: &str,
    lst: TcpListener,
    settings: Settings,
    factory: F,
) -> io::Result<Server>
where
    F: Fn() -> I + Send + Clone + 'static,
    I: IntoServiceFactory<S, Request>,
    S: ServiceFactory<Request, Config = AppConfig> + 'static,
    S::Error: Into<actix_web::Error> + 'static,
    S::InitError: fmt::Debug,
    S::Response: Into<Response<B>> + 'static,
    <S::Service as actix_service::Service<Request>>::Future: 'static,
    S::Service: 'static,
    B: MessageBody + 'static,
{
    let addr = lst.local_addr()?;
    let mut builder = Server::build().max_concurrent_connections(settings.max_connections);
    if settings.workers > 0 {
        builder = builder.workers(settings.workers);
    }
    let max_body = settings.max_body_bytes;
    let workers = if settings.workers > 0 {
        settings.workers
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    };
    let open = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let pressure = (settings.max_connections.saturating_mul(workers) / 2).max(1);
    builder
        .listen(name, lst, move || {
            let open = open.clone();
            let app = factory()
                .into_factory()
                .map_err(|err| err.into().error_response());
            fn_service(move |io: TcpStream| {
                let budget = Budget::new(open.clone(), pressure);
                async move {
                    let peer = io.peer_addr().ok();
                    let _ = io.set_nodelay(true);
                    Ok::<_, actix_http::error::DispatchError>((
                        CodedErrors::new(io).with_budget(budget),
                        peer,
                    ))
                }
            })
            .and_then(
                HttpService::build()
                    .keep_alive(KeepAlive::Timeout(Duration::from_secs(5)))
                    .client_request_timeout(settings.header_timeout)
                    .client_disconnect_timeout(Duration::from_secs(2))
                    .local_addr(addr)
                    .expect(fn_service(move |req: Request| async move {
                        expect_continue(req, max_body)
                    }))
                    .h1(map_config(app, |_| AppConfig::default())),
            )
        })
        .map(actix_server::ServerBuilder::run)
}

fn plain(status: StatusCode, body: String) -> Response<BoxBody> {
    let mut res = Response::with_body(status, body);
    res.headers_mut().insert(
        actix_http::header::CONTENT_TYPE,
        actix_http::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    res.map_into_boxed_body()
}

/// The expect step: a declared body over `max_body` bytes gets `413` (and the client never
/// sends it); any other request gets `100 Continue`.
pub fn expect_continue(req: Request, max_body: u64) -> Result<Request, Response<BoxBody>> {
    let declared = req
        .headers()
        .get(actix_http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    match declared {
        Some(len) if len > max_body => Err(plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "[PAYLOAD_TOO_LARGE] the request body is larger than {max_body} bytes \
                 (Content-Length {len}); raise `limits.max_upload_mb`"
            ),
        )),
        _ => Ok(req),
    }
}

/// The coded body for a response the HTTP/1 layer wrote itself: `buf` must be exactly one
/// head with `content-length: 0` and one of the three status lines it writes.
pub fn coded_error(buf: &[u8]) -> Option<Vec<u8>> {
    const KINDS: [(&[u8], &str, &str); 3] = [
        (
            b"HTTP/1.1 400 Bad Request\r\n",
            "BAD_REQUEST",
            "the request is not well-formed HTTP/1.1",
        ),
        (
            b"HTTP/1.1 408 Request Timeout\r\n",
            "REQUEST_TIMEOUT",
            "the request head did not arrive within `server.header_timeout_s`",
        ),
        (
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n",
            "REQUEST_HEADER_FIELDS_TOO_LARGE",
            "the request's header fields are too large",
        ),
    ];
    let (status, code, message) = KINDS.iter().find(|(s, _, _)| buf.starts_with(s))?;
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    if end != buf.len() {
        return None;
    }
    let head = std::str::from_utf8(&buf[status.len()..end - 2]).ok()?;
    let mut lines: Vec<&str> = head.split("\r\n").filter(|l| !l.is_empty()).collect();
    let before = lines.len();
    lines.retain(|l| !l.eq_ignore_ascii_case("content-length: 0"));
    if lines.len() + 1 != before {
        return None;
    }
    let body = format!("[{code}] {message}");
    let mut out = Vec::with_capacity(buf.len() + body.len() + 64);
    out.extend_from_slice(status);
    for l in lines {
        out.extend_from_slice(l.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(
        format!(
            "content-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(body.as_bytes());
    Some(out)
}

/// A connection whose empty 400, 408 and 431 responses from the HTTP/1 layer are written with
/// a coded body ([`coded_error`]); every other byte passes through unchanged.
pub struct CodedErrors<T> {
    io: T,
    /// A rewritten response being written: its bytes, how many are out, and how many bytes of
    /// the caller's buffer it stands for.
    pending: Option<(Vec<u8>, usize, usize)>,
    budget: Option<Budget>,
}

impl<T> CodedErrors<T> {
    pub fn new(io: T) -> Self {
        CodedErrors {
            io,
            pending: None,
            budget: None,
        }
    }

    /// Counts this connection in `budget` and closes it under pressure (see [`Budget`]).
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = Some(budget);
        self
    }
}

/// How long a connection has to deliver its first request head while the server is under
/// pressure.
const HEAD_GRACE: Duration = Duration::from_secs(1);

/// One connection's share of its server's connection budget: counted while open; while more
/// than `pressure` connections are open, it is closed if its first request head has not
/// arrived [`HEAD_GRACE`] after it was accepted (checked every [`HEAD_GRACE`] until it does).
pub struct Budget {
    open: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    pressure: usize,
    /// The first request head has arrived (a blank line was read).
    head_seen: bool,
    /// The last bytes read, to find a blank line split over two reads.
    tail: Vec<u8>,
    check: Pin<Box<tokio::time::Sleep>>,
}

impl Budget {
    pub fn new(open: std::sync::Arc<std::sync::atomic::AtomicUsize>, pressure: usize) -> Budget {
        open.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Budget {
            open,
            pressure,
            head_seen: false,
            tail: Vec::new(),
            check: Box::pin(tokio::time::sleep(HEAD_GRACE)),
        }
    }

    /// Whether this connection must be closed now (its timer is re-armed otherwise).
    fn shed(&mut self, cx: &mut Context<'_>) -> bool {
        if self.head_seen {
            return false;
        }
        while self.check.as_mut().poll(cx).is_ready() {
            if self.open.load(std::sync::atomic::Ordering::SeqCst) > self.pressure {
                return true;
            }
            let next = tokio::time::Instant::now() + HEAD_GRACE;
            self.check.as_mut().reset(next);
        }
        false
    }

    /// Notes bytes read: the first blank line ends the first request head.
    fn saw(&mut self, bytes: &[u8]) {
        if self.head_seen || bytes.is_empty() {
            return;
        }
        self.tail.extend_from_slice(bytes);
        if self.tail.windows(4).any(|w| w == b"\r\n\r\n")
            || self.tail.windows(2).any(|w| w == b"\n\n")
        {
            self.head_seen = true;
            self.tail = Vec::new();
        } else if self.tail.len() > 3 {
            self.tail.drain(..self.tail.len() - 3);
        }
    }
}

impl Drop for Budget {
    fn drop(&mut self) {
        self.open.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for CodedErrors<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(budget) = this.budget.as_mut() {
            if budget.shed(cx) {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "no request head within the grace period while the server is full",
                )));
            }
        }
        let before = buf.filled().len();
        let res = Pin::new(&mut this.io).poll_read(cx, buf);
        if let (Some(budget), Poll::Ready(Ok(()))) = (this.budget.as_mut(), &res) {
            budget.saw(&buf.filled()[before..]);
        }
        res
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for CodedErrors<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let pending = match this.pending.take() {
            Some(p) => p,
            None => match coded_error(buf) {
                Some(bytes) => (bytes, 0, buf.len()),
                None => return Pin::new(&mut this.io).poll_write(cx, buf),
            },
        };
        let (bytes, written, stands_for) = this.pending.insert(pending);
        while *written < bytes.len() {
            match Pin::new(&mut this.io).poll_write(cx, &bytes[*written..]) {
                Poll::Ready(Ok(0)) => {
                    this.pending = None;
                    return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                }
                Poll::Ready(Ok(n)) => *written += n,
                Poll::Ready(Err(e)) => {
                    this.pending = None;
                    return Poll::Ready(Err(e));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        let n = *stands_for;
        this.pending = None;
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_http_layers_empty_errors_get_coded_bodies() {
        let head = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\
                     connection: close\r\ndate: Fri, 27 Nov 2026 16:00:00 GMT\r\n\r\n";
        let out = String::from_utf8(coded_error(head).expect("rewritten")).expect("utf-8");
        let body = "[REQUEST_HEADER_FIELDS_TOO_LARGE] the request's header fields are too large";
        assert!(
            out.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"),
            "{out}"
        );
        assert!(out.contains("connection: close\r\n"), "{out}");
        assert!(
            out.contains(&format!("content-length: {}\r\n", body.len())),
            "{out}"
        );
        assert!(!out.contains("content-length: 0"), "{out}");
        assert!(out.ends_with(&format!("\r\n\r\n{body}")), "{out}");
        let bad = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n";
        assert!(String::from_utf8(coded_error(bad).unwrap())
            .unwrap()
            .ends_with("[BAD_REQUEST] the request is not well-formed HTTP/1.1"));
    }

    #[test]
    fn other_responses_pass_unchanged() {
        // The application's own 400 has a body; a 200; a head split over two writes.
        for buf in [
            &b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n[BAD_REQUEST"[..],
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 5\r\n\r\n",
            b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\n",
        ] {
            assert_eq!(coded_error(buf), None, "{}", String::from_utf8_lossy(buf));
        }
    }

    #[test]
    fn a_declared_body_over_the_limit_is_refused_before_it_is_sent() {
        let req = |len: &str| {
            let mut r = Request::new();
            r.headers_mut().insert(
                actix_http::header::CONTENT_LENGTH,
                actix_http::header::HeaderValue::from_str(len).unwrap(),
            );
            r
        };
        let refused = expect_continue(req("2000"), 1000).expect_err("413");
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert!(expect_continue(req("1000"), 1000).is_ok());
        assert!(expect_continue(Request::new(), 1000).is_ok());
    }
}
