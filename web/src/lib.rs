/*!
Quire's HTTP service (GROBID's interface) as a library, so that the `quire` binary stays a thin
command line: `config` (the service configuration), `app` (shared state, request middleware,
CORS), `training` (training runs in child processes, live model swap), `params` (form and multipart parameters), `error` (`ApiError`, the only error
response), `routes/` (one module per endpoint family), `admin` (the admin server), `cmd/` (the
subcommands), `logging` and `sandbox` (how layout workers and training processes are
confined: namespaces, user, capabilities, Landlock, seccomp).
*/

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod admin;
pub mod allocator;
pub mod app;
pub mod cmd;
pub mod config;
pub mod error;
pub mod logging;
pub mod params;
pub mod routes;
pub mod sandbox;
pub mod server;
pub mod training;
