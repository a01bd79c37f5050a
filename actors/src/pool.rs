/*!
Request admission, GROBID's engine pool: at most `concurrency` requests are processed at once.
A request waits at most `poolMaxWait` for a slot; after that it is refused with
[`Error::Busy`] carrying the client wait the caller gave (the web layer passes the interface's
suggested wait for its endpoint and sends it as `Retry-After` on a 503). A slot is a guard: dropping it frees it.
*/

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::metrics::metrics;
use crate::Error;

/// Slot counts, as `/api/health` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PoolStats {
    pub active: usize,
    pub idle: usize,
    pub max: usize,
    pub waiting: usize,
}

/// The processing pool. Cheap to clone.
#[derive(Clone)]
pub struct Pool {
    slots: Arc<Semaphore>,
    waiting: Arc<AtomicUsize>,
    max: usize,
    max_wait: Duration,
}

/// A processing slot; released when dropped.
pub struct PoolGuard {
    _permit: OwnedSemaphorePermit,
}

impl Drop for PoolGuard {
    fn drop(&mut self) {
        metrics().pool_active.dec();
    }
}

/// Counts a waiting request while it waits.
struct Waiting(Arc<AtomicUsize>);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
        metrics().pool_waiting.dec();
    }
}

impl Pool {
    pub fn new(concurrency: usize, max_wait: Duration) -> Pool {
        let max = concurrency.max(1);
        metrics().pool_max.set(max as i64);
        Pool {
            slots: Arc::new(Semaphore::new(max)),
            waiting: Arc::new(AtomicUsize::new(0)),
            max,
            max_wait,
        }
    }

    /// Takes a slot for `what` (the metric's label, the refusal's subject), waiting at most
    /// `max_wait`; refuses with `Busy` and `retry_after_s` after that.
    pub async fn acquire(&self, what: &str, retry_after_s: u64) -> Result<PoolGuard, Error> {
        let waiting = {
            self.waiting.fetch_add(1, Ordering::SeqCst);
            metrics().pool_waiting.inc();
            Waiting(self.waiting.clone())
        };
        let permit = tokio::time::timeout(self.max_wait, self.slots.clone().acquire_owned()).await;
        drop(waiting);
        match permit {
            Ok(Ok(permit)) => {
                metrics().pool_active.inc();
                Ok(PoolGuard { _permit: permit })
            }
            // The semaphore is never closed; treat it like a timeout all the same.
            Ok(Err(_)) | Err(_) => {
                metrics().pool_rejected.with_label_values(&[what]).inc();
                Err(Error::Busy {
                    what: format!("{what}: all {} processing slots", self.max),
                    retry_after_s,
                })
            }
        }
    }

    pub fn stats(&self) -> PoolStats {
        let idle = self.slots.available_permits();
        PoolStats {
            active: self.max.saturating_sub(idle),
            idle,
            max: self.max,
            waiting: self.waiting.load(Ordering::SeqCst),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_pool_refuses_after_the_wait_and_frees_slots_on_drop() {
        let pool = Pool::new(1, Duration::from_millis(50));
        let held = pool
            .acquire("processHeaderDocument", 2)
            .await
            .expect("free slot");
        assert_eq!(
            pool.stats(),
            PoolStats {
                active: 1,
                idle: 0,
                max: 1,
                waiting: 0
            }
        );
        let started = std::time::Instant::now();
        let refused = pool
            .acquire("processHeaderDocument", 2)
            .await
            .err()
            .expect("busy");
        assert!(started.elapsed() >= Duration::from_millis(45));
        assert!(
            matches!(
                refused,
                Error::Busy {
                    retry_after_s: 2,
                    ..
                }
            ),
            "{refused}"
        );
        drop(held);
        assert_eq!(pool.stats().idle, 1);
        assert!(pool.acquire("processDate", 1).await.is_ok());
    }

    #[tokio::test]
    async fn a_waiting_request_gets_the_slot_when_it_frees_in_time() {
        let pool = Pool::new(1, Duration::from_millis(500));
        let held = pool.acquire("processDate", 1).await.expect("free slot");
        let p2 = pool.clone();
        let waiter = tokio::spawn(async move { p2.acquire("processDate", 1).await.is_ok() });
        tokio::time::sleep(Duration::from_millis(30)).await;
        assert_eq!(pool.stats().waiting, 1);
        drop(held);
        assert!(waiter.await.unwrap_or(false));
    }
}
