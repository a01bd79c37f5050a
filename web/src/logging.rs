/*!
Log set-up, the only place a `tracing` subscriber is installed: human-readable lines by
default, JSON lines with `--json-logs` (or `logging.json = true`). The filter is
`logging.level`, overridden by `RUST_LOG` when set. Logs go to stderr.
*/

use tracing_subscriber::EnvFilter;

pub fn init(level: &str, json: bool) {
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|v| EnvFilter::try_new(v).ok())
        .or_else(|| EnvFilter::try_new(level).ok())
        .unwrap_or_else(|| EnvFilter::new("info"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(std::io::stderr);
    let result = if json {
        builder.json().with_current_span(true).try_init()
    } else {
        builder.with_target(false).try_init()
    };
    if let Err(e) = result {
        eprintln!("logging already initialised: {e}");
    }
}
