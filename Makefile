# polyvol has two builds over the same tree: the go command, and Bazel
# (offline, see docs/building.md). `make test` is what CI runs.

GO ?= go
BAZEL ?= bazel

# gazelle writes the BUILD files; it is installed into bin/ on first use.
GAZELLE_VERSION := v0.26.0
GAZELLE := bin/gazelle-$(GAZELLE_VERSION)

# staticcheck, the linter CI runs, is installed into bin/ on first use too.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := bin/staticcheck-$(STATICCHECK_VERSION)

FUZZTIME ?= 20s
# Shrinking a new interesting input may take this long (go test's default
# is 60s).
FUZZMINIMIZETIME ?= 60s
# make test fuzzes every target for this many inputs: a smoke test, not a
# search. A count, not a duration: with a duration of a few seconds, go test
# fails a target whose worker is still busy with one input at the deadline
# ("context deadline exceeded"), which made CI flaky.
SMOKE_FUZZTIME ?= 300x
SMOKE_FUZZMINIMIZETIME ?= 20x
# The reader of ISL notation (libisl through cgo) is fuzzed longer: with the
# check before ISL turned off, the fuzzer found libisl's unchecked division
# of a literal by zero ("[0//0", SIGFPE) from the seeds alone after
# 0.3-0.5 million executions in four of five runs (5-10 s on 2 cores).
SMOKE_ISL_FUZZTIME ?= 2000000x
# make fuzz-long runs every target for this many inputs.
LONG_FUZZTIME ?= 1000000x
BENCHTIME ?= 200ms
# The Python package's tests (python/tests) run with this interpreter, which
# needs pytest (Debian: python3-pytest, python3-venv; scripts/deps.sh test):
# Debian's own, where a python3 of another installation comes first on PATH.
PYTHON ?= $(shell if [ -x /usr/bin/python3 ]; then echo /usr/bin/python3; else echo python3; fi)

.PHONY: run build test deps-run deps-test fmt-check vet staticcheck gxx-check bazel-test fuzz-smoke fuzz-long python-version python-test go-test bazel-gen fuzz bench clean

# Predict the embedded default: star3d-r4 on A100-40GB, block 256,1,2.
run: deps-run
	$(GO) run . predict

# Install the Debian packages each goal needs when they are missing.
deps-run:
	@scripts/deps.sh run
deps-test:
	@scripts/deps.sh test

build:
	$(GO) build -o polyvol .
	$(BAZEL) build //...

# go test runs last so that its summary closes the output, which CI reads.
test: deps-test fmt-check vet staticcheck gxx-check bazel-test fuzz-smoke python-test go-test

fmt-check:
	@unformatted=$$(find . -path ./vendor -prune -o -name '*.go' -print | xargs -r gofmt -l); \
	if [ -n "$$unformatted" ]; then \
		echo "gofmt: these files need formatting:"; echo "$$unformatted"; exit 1; \
	fi

vet:
	$(GO) vet ./...

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

$(STATICCHECK):
	GOBIN=$(CURDIR)/bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv bin/staticcheck $@

# g++ compiles the C++ of the CUDA programs that polyvol cuda writes (the
# golden programs cli's TestCudaMatchesGolden compares it with) without the
# CUDA toolkit.
gxx-check:
	$(GO) test -tags gxx -run '^TestGxxSyntax$$' -count=1 ./cudagen

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(SMOKE_FUZZTIME) FUZZMINIMIZETIME=$(SMOKE_FUZZMINIMIZETIME)
	@echo "== ./isl FuzzRead, $(SMOKE_ISL_FUZZTIME)"
	$(GO) test -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(SMOKE_ISL_FUZZTIME) -fuzzminimizetime $(SMOKE_FUZZMINIMIZETIME) ./isl

# Every target for LONG_FUZZTIME inputs: hours on 2 cores, not part of make test.
fuzz-long:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(LONG_FUZZTIME)

# Bazel builds every target, tests included, and runs the small and medium
# tests in -short mode: it checks the BUILD files (sources, dependencies and
# test data) and the hermetic build, while go-test gives the full coverage.
# The large tests (accuracy, cli) are built but not run here: go-test runs
# them once. Exit status 4 means the build passed but there are no test
# targets.
bazel-test:
	$(BAZEL) test //... --test_output=errors --test_size_filters=small,medium --test_arg=-test.short || [ $$? -eq 4 ]

# The Python package against a binary built from this tree (bin/ is ignored
# by git); docs/python.md.
python-version:
	$(PYTHON) -m pytest --version

python-test:
	$(GO) build -o bin/polyvol .
	POLYVOL_BIN=$(CURDIR)/bin/polyvol $(PYTHON) -m pytest -q -p no:cacheprovider python/tests

# go test runs every test once without the race detector, which multiplies
# the time of the estimating packages five- to tenfold (./accuracy took 17
# minutes under it on a busy 2-core machine). The packages that run
# goroutines or share state between them (the worker pool, explore and
# layercond on it, the server, the supervisor, the counting budget shared
# by concurrent estimates, the ISL binding's context checks, the memory
# reader) run again under the race detector, in -short mode. Of footprint
# only the tests that share its state between goroutines (the budgets of
# concurrent estimates, the instruction cache) run again: its other tests
# start no goroutine, so the race detector could find nothing in them.
RACE_PACKAGES := ./pool ./explore ./layercond ./serve ./supervise ./isl ./procmem ./request
RACE_FOOTPRINT_TESTS := Concurrent$$
go-test:
	$(GO) test -timeout 30m ./...
	$(GO) test -race -short -timeout 30m $(RACE_PACKAGES)
	$(GO) test -race -short -run '$(RACE_FOOTPRINT_TESTS)' ./footprint

# Run after changing dependencies or adding, removing or renaming packages or
# files: go mod vendor deletes vendor/**/BUILD.bazel, gazelle writes them back.
bazel-gen: $(GAZELLE)
	$(GO) mod tidy
	$(GO) mod vendor
	$(GAZELLE)

$(GAZELLE):
	GOBIN=$(CURDIR)/bin $(GO) install github.com/bazelbuild/bazel-gazelle/cmd/gazelle@$(GAZELLE_VERSION)
	mv bin/gazelle $@

# Fuzz every Fuzz* target in the tree for FUZZTIME each; go test allows one
# -fuzz target per run.
fuzz:
	@targets=$$(grep -rEo --include='*_test.go' --exclude-dir=vendor '^func Fuzz[A-Za-z0-9_]*' . | sed 's/:func /:/'); \
	if [ -z "$$targets" ]; then echo "no fuzz targets"; fi; \
	for t in $$targets; do \
		pkg=$$(dirname "$${t%%:*}"); name=$${t##*:}; \
		echo "== $$pkg $$name"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) "$$pkg" || exit 1; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) ./...

clean:
	$(BAZEL) clean
	rm -f polyvol
