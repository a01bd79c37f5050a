#!/usr/bin/env bash
# The console's browser test (tests/browser/console_test.py), run by .ci/run after the suite.
# Installs what it needs through the package managers (Debian's chromium, Playwright from
# PyPI); where no browser can be installed it says so and skips (exit 0).
# Usage: tests/browser/run.sh [QUIRE_BINARY] [SCREENSHOT_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN="${1:-target/debug/quire}"
skip() { echo "browser test skipped: $*"; exit 0; }

[ -x "$BIN" ] || skip "no quire binary at $BIN (build it first)"
[ -f vendor/pdfium/libpdfium.so ] || skip "no libpdfium (make pdfium)"
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian's chromium"
    apt-get update -q >/dev/null 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 \
      || skip "apt-get could not install chromium"
  else
    skip "no chromium and no apt-get as root to install it"
  fi
fi
if ! python3 -c 'import playwright' >/dev/null 2>&1; then
  echo "installing Playwright (PyPI)"
  python3 -m pip install --quiet playwright >/dev/null 2>&1 || skip "pip could not install playwright"
fi
CHROMIUM="$(command -v chromium)" exec python3 tests/browser/console_test.py "$BIN" "${2:-}"
