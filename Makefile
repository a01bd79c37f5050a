# Quire: the two set-up commands.
#   make run   install libpdfium if absent, build release, start the service on 8070/8071
#   make test  install libpdfium if absent, then fmt, clippy and the whole test suite (gated
#              tests that lack a model, libpdfium or ../shared are counted as skipped at the
#              end; with CI=true they fail instead)
# libpdfium comes from PyPI's pypdfium2 wheel (a plain C library; no Python at run time);
# fetching it needs only python3 with pip (Debian: python3-pip), unpacking uses Python's zipfile.

PYPDFIUM_VERSION := 5.15.2
PDFIUM_DIR := vendor/pdfium
PDFIUM := $(PDFIUM_DIR)/libpdfium.so
CONFIG ?= config.toml

.PHONY: run test build pdfium clean-pdfium

run: $(PDFIUM)
	cargo run --release -p quire-web --bin quire -- serve --config $(CONFIG)

build: $(PDFIUM)
	cargo build --release --workspace

test: $(PDFIUM)
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	.ci/cargo-test --workspace

pdfium: $(PDFIUM)

$(PDFIUM):
	@mkdir -p wheel $(PDFIUM_DIR)
	python3 -m pip download --quiet --no-deps --only-binary=:all: \
		pypdfium2==$(PYPDFIUM_VERSION) -d wheel/
	python3 -c 'import glob, sys, zipfile; \
		z = zipfile.ZipFile(glob.glob(sys.argv[1])[0]); \
		[open(sys.argv[2] + "/" + n.split("/")[-1], "wb").write(z.read(n)) \
		 for n in ("pypdfium2_raw/libpdfium.so", "pypdfium2_raw/version.json")]' \
		'wheel/pypdfium2-$(PYPDFIUM_VERSION)-*.whl' $(PDFIUM_DIR)
	@test -s $(PDFIUM) && echo "installed $(PDFIUM)"

clean-pdfium:
	rm -rf wheel $(PDFIUM_DIR)
