# Entry points of the testbed. Everything builds through CMake + Ninja in one
# build directory per compile-time configuration:
#   build/<variant>[-native]   variant = release (default) | debug | tsan | asan | profile | sim
#   (profile: the execution profile's binaries, build/profile/bin/rundb-<cc> --profile;
#    sim: the many-core simulation, bin/sim/rundb-<cc>, docs/sim.md)
# Release binaries go to bin/rundb-<cc>, sim ones to bin/sim/rundb-<cc>; other
# variants to build/<variant>/bin.
#
#   make deps                 install Debian packages (if missing) and .venv
#   make check-cc             protocol code uses the core's primitives only (no raw atomics, no sim::)
#   make build                all protocols (make CC=silo: just one)
#   make tools                bench_fvs, bench_strife, bench_checker, check_history
#   make pipeline             bin/pipeline, the batching-and-reordering pipeline engine
#   make middletier           bin/middletier, middle-tier reordering in front of PostgreSQL (needs libpq-dev)
#   make test                 unit + stress tests (ctest) and harness tests (pytest)
#   make build-ci test-cpp-ci CI's release stage: every binary and tool, the stress and mutation
#                             programs, and every ctest tier but unit (CI runs it under ASan+UBSan)
#   make test-profile         the profile build's binaries (VARIANT=profile) against their contract
#   make test-sim             the simulation build's tests (VARIANT=sim, label sim; docs/sim.md)
#   make test-sanitizers      TSan stress tests and ASan+UBSan unit tests (make test-tsan, make test-asan: one of them)
#   make run                  the main job: the YCSB skew sweep at the small profile -> a figure
#   make demo                 a 2-second YCSB run of every protocol, as a table
#   make bench                engine benchmark (throughput, ns per transaction)
#   make bench-compare BEFORE=dir  the same points, before/after a change, interleaved
#   make bench-cost           ns per access per protocol, prefetch on/off, profile split
#   make bench-account        where a committed transaction's time goes at high contention
#   make fuzz                 flag fuzzer, long form: every value of every flag, many combinations (minutes; not in CI)
#   make soak                 verified soak: 10M checked transactions per protocol x workload (hours; not in CI)
#   make figures [PROFILE=smoke|small|paper|sim] [FIGS=id1,id2]  (default small, as ccbench's)
#   make fidelity [FIGS=id1,id2]  the named figures at small on a quiet machine, until decided -> paper_figures/FIDELITY.md
#   make clean
# Options: VARIANT=debug|tsan|asan|profile|sim, NATIVE=1 (-march=native), JOBS=N,
#   WORKLOADS="ycsb tpcc" (the workloads compiled into rundb; default all; also WORKLOADS_<variant>),
#   UNITY=0 (compile each rundb workload as its own translation unit: more CPU, more parallel),
#   OPT=-O1 (the optimization level of release, profile and sim; default -O2; also OPT_<variant>).

# The protocol registry, the only list of protocols (engine/cc/protocols.txt).
PROTOCOLS := $(shell awk '/^[a-z]/ {print $$1}' engine/cc/protocols.txt)
VARIANT ?= release
NATIVE ?= 0
JOBS ?= $(shell nproc)
# make figures' default profile, the same as ccbench's --profile default.
PROFILE ?= small
PY := .venv/bin/python
# The harness's console command (pyproject.toml), installed into .venv by `make deps`.
CCBENCH := .venv/bin/ccbench

# `make CC=silo` selects one protocol, `make CC="silo tictoc"` several (built
# side by side: the harness builds a figure's protocols so). Make's built-in
# CC (the C compiler) only counts when given on the command line.
ifeq ($(origin CC),command line)
  ifneq ($(or $(filter-out $(PROTOCOLS),$(CC)),$(if $(strip $(CC)),,empty)),)
    $(error CC=$(CC): $(or $(filter-out $(PROTOCOLS),$(CC)),an empty list) is not a protocol; allowed: $(PROTOCOLS))
  endif

  SELECTED := $(CC)
else
  SELECTED := $(PROTOCOLS)
endif

# The workloads compiled into the rundb binaries (workloads/workloads.txt):
# WORKLOADS="ycsb tpcc", or per variant WORKLOADS_<variant> (e.g. in the
# environment: CI's sim and profile variants build only what their tests and
# figures run, scripts/run-tests.sh); default all. A binary refuses the others
# (exit 2, naming the ones it has).
ALL_WORKLOADS := $(shell awk -F'|' '/^[a-z]/ {gsub(/ /, "", $$1); print $$1}' workloads/workloads.txt)
WORKLOADS ?= $(or $(WORKLOADS_$(VARIANT)),$(ALL_WORKLOADS))
ifneq ($(filter-out $(ALL_WORKLOADS),$(WORKLOADS)),)
  $(error WORKLOADS: unknown workload(s) $(filter-out $(ALL_WORKLOADS),$(WORKLOADS)); allowed: $(ALL_WORKLOADS))
endif
ifeq ($(strip $(WORKLOADS)),)
  $(error WORKLOADS is empty; allowed: one or more of $(ALL_WORKLOADS))
endif

# The optimization level of the variants of build type Release (release,
# profile, sim): OPT=-O1, or per variant OPT_<variant> (CI's sim variant
# compiles at -O1, scripts/run-tests.sh: its results are the same as at -O2,
# docs/sim.md "Tests"); default -O2. debug, tsan and asan set their own.
OPT ?= $(or $(OPT_$(VARIANT)),-O2)
ifeq ($(filter $(OPT),-O0 -O1 -O2 -O3 -Os -Og),)
  $(error OPT=$(OPT) is not one of -O0|-O1|-O2|-O3|-Os|-Og)
endif

ifeq ($(filter $(VARIANT),release debug tsan asan profile sim),)
  $(error VARIANT=$(VARIANT) is not one of release|debug|tsan|asan|profile|sim)
endif
UNITY ?= 1
ifeq ($(filter $(UNITY),0 1),)
  $(error UNITY=$(UNITY) must be 0 or 1)
endif
ifeq ($(filter $(NATIVE),0 1),)
  $(error NATIVE=$(NATIVE) must be 0 or 1)
endif

BUILD_TYPE_release := Release
BUILD_TYPE_debug := Debug
BUILD_TYPE_tsan := RelWithDebInfo
BUILD_TYPE_asan := Debug
BUILD_TYPE_profile := Release
BUILD_TYPE_sim := Release
SANITIZE_release := none
SANITIZE_debug := none
SANITIZE_tsan := thread
SANITIZE_asan := address
SANITIZE_profile := none
SANITIZE_sim := none

suffix := $(if $(filter 1,$(NATIVE)),-native,)
BUILD_DIR := build/$(VARIANT)$(suffix)
BIN_DIR := $(if $(and $(filter release,$(VARIANT)),$(filter 0,$(NATIVE))),$(CURDIR)/bin,$(if $(and $(filter sim,$(VARIANT)),$(filter 0,$(NATIVE))),$(CURDIR)/bin/sim,$(CURDIR)/$(BUILD_DIR)/bin))
# The selected protocols as a CMake list (semicolons).
empty :=
space := $(empty) $(empty)
CMAKE_PROTOCOLS := $(subst $(space),;,$(strip $(PROTOCOLS)))

.PHONY: all deps check-cc configure build tools pipeline middletier build-all build-ci test test-cpp test-cpp-ci test-python test-profile test-sim test-sanitizers test-tsan test-asan build-tests-tsan build-tests-asan run demo bench bench-compare bench-cost bench-account fuzz soak protocols figures clean
all: build

deps:
	@scripts/install-deps.sh

# Protocol code (engine/cc/, engine/cc_helpers/, engine/txn/) uses the core's primitives only: no raw
# std::atomic, no sim:: call (CONTRIBUTING.md, "How to add a protocol").
check-cc:
	@bash scripts/check-cc-primitives.sh

configure:
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE_$(VARIANT)) \
	  -DCCB_SANITIZE=$(SANITIZE_$(VARIANT)) -DCCB_NATIVE=$(if $(filter 1,$(NATIVE)),ON,OFF) \
	  -DCCB_PROFILE=$(if $(filter profile,$(VARIANT)),ON,OFF) \
	  -DCCB_SIM=$(if $(filter sim,$(VARIANT)),ON,OFF) -DCCB_UNITY_RUNDB=$(if $(filter 1,$(UNITY)),ON,OFF) \
	  -DCCB_PROTOCOLS="$(CMAKE_PROTOCOLS)" -DCCB_RUNDB_WORKLOADS="$(subst $(space),;,$(strip $(WORKLOADS)))" \
	  -DCCB_OPT_LEVEL=$(OPT) -DCCB_BIN_DIR=$(BIN_DIR) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target $(addprefix rundb-,$(SELECTED))

# The front-end and checker tools: bench_fvs, bench_strife, bench_tsgen, bench_checker,
# check_history (into the variant's bin directory).
TOOL_TARGETS := bench_fvs bench_strife bench_tsgen bench_checker check_history
tools: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target $(TOOL_TARGETS)

# The pipeline engine of the batching-and-reordering paper (bin/pipeline;
# docs/pipeline.md).
pipeline: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target pipeline

# Middle-tier batching and reordering in front of a real PostgreSQL server
# (bin/middletier; docs/middletier.md).
middletier: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target middletier

# Everything (binaries, tools, test executables) of one variant.
build-all: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# CI's release stage (scripts/run-tests.sh): every binary and tool, and the
# programs of the tiers CI runs in this variant: stress and mutation (the
# contract and verify tiers run the binaries). CI builds and runs the unit
# tier's programs once, under ASan+UBSan (test-asan), not also here.
CI_RELEASE_LABELS := stress|mutation|contract|verify
build-ci: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target $(addprefix rundb-,$(SELECTED)) $(TOOL_TARGETS) pipeline \
	  middletier test_executables_stress test_executables_mutation
test-cpp-ci:
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 600 -L "$(CI_RELEASE_LABELS)"

test: deps
	@$(MAKE) --no-print-directory build-all VARIANT=$(VARIANT)
	@$(MAKE) --no-print-directory test-cpp test-python VARIANT=$(VARIANT)

test-cpp:
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 600

# The harness's tests on PYTEST_WORKERS pytest-xdist workers: most of them wait
# (subprocesses, Ray's start-up, a PostgreSQL server), so more workers than
# cores. Tests that build in the repository's build directories, and the Ray
# cluster's, each keep to one worker (xdist_group; --dist loadgroup).
# PYTEST_WORKERS=0: one process (CI, where pytest runs beside the release
# ctest: 3 workers there overloaded the 2 cores, CONTRIBUTING.md "CI time").
PYTEST_WORKERS ?= 3
test-python:
	@$(PY) -m pytest -q $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadgroup) tests/python



# The profile build's contract (tests/engine/profile_test.sh) for the
# protocols strife-fig07 profiles first: NO_WAIT (Strife's residual) and Silo.
PROFILE_TEST_PROTOCOLS := nowait silo
test-profile: deps
	@$(MAKE) --no-print-directory configure VARIANT=profile
	@cmake --build build/profile -j $(JOBS) --target $(addprefix rundb-,$(PROFILE_TEST_PROTOCOLS))
	@cd build/profile && ctest --output-on-failure -L profile -R "profile_contract_($(subst $(space),|,$(PROFILE_TEST_PROTOCOLS)))$$"

# The simulation build's tests (tests/sim, label sim; docs/sim.md): the sim
# unit tests and the sim binaries they run (sim_test_programs: every
# serializable protocol of the registry, and NoCC), with every workload of
# the registry compiled in (the --verify matrix runs them all), $(JOBS) at a
# time (each simulation runs on one OS thread).
test-sim: deps
	@$(MAKE) --no-print-directory configure VARIANT=sim WORKLOADS="$(ALL_WORKLOADS)"
	@cmake --build build/sim -j $(JOBS) --target sim_test_programs
	@cd build/sim && ctest --output-on-failure -j $(JOBS) -L sim --timeout 900

# The sanitizer tiers. Each variant builds only the test programs its tier
# runs (test_executables_<tier>, tests/CMakeLists.txt), no rundb binaries:
# the stress programs under TSan, the unit programs under ASan+UBSan. The
# stress tests run one at a time (each runs more threads than the machine has
# cores); the single-threaded unit tests run $(JOBS) at a time.
TIER_tsan := stress
TIER_asan := unit
CTEST_ENV_tsan := TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
CTEST_ENV_asan := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
CTEST_JOBS_tsan := 1
CTEST_JOBS_asan := $(JOBS)
test-sanitizers: test-tsan test-asan
test-tsan test-asan: test-%: build-tests-%
	@cd build/$* && $(CTEST_ENV_$*) ctest --output-on-failure -j $(CTEST_JOBS_$*) -L $(TIER_$*) --timeout 900
build-tests-tsan build-tests-asan: build-tests-%: deps
	@$(MAKE) --no-print-directory configure VARIANT=$*
	@cmake --build build/$* -j $(JOBS) --target test_executables_$(TIER_$*)

# The main job: the testbed's YCSB skew sweep at the small profile ->
# paper_figures/small/ycsb-theta.png and its table. The harness builds the
# binaries the figure uses (make CC=<cc> for each) and no others, so a fresh
# machine compiles four protocols before the first run, not all of them.
# It ends with the figure's path and three commands to try next (README.md, "A five-minute tour").
run: deps
	@$(CCBENCH) run ycsb-theta --profile small
	@$(CCBENCH) report --profile small >/dev/null
	@echo "report: paper_figures/small/REPORT.md (every profile's: paper_figures/REPORT.md); table: results/tables/small/ycsb-theta.csv"
	@echo "figure: paper_figures/small/ycsb-theta.png (and .pdf)"
	@echo "try next:"
	@echo "  .venv/bin/ccbench list    # every figure id; make figures FIGS=<id> makes one"
	@echo "  .venv/bin/ccbench versus silo tictoc --workload=ycsb --theta=0.9 --threads=2 --duration=1"
	@echo "  bin/rundb-silo --workload=ycsb --theta=0.9 --threads=2 --duration=1 --verify --out=results/verified.json"

# The engine benchmarks and the soak are ccbench subcommands on the figures'
# runner and result store (scripts/ccbench/run/bench.py, soak.py); their grids
# are configs/bench/<grid>.yaml.

# A quick look at every protocol (2 s each): configs/bench/demo.yaml.
demo: deps build
	@$(CCBENCH) bench demo

# The engine benchmark grid (configs/bench/bench.yaml), then bench_fvs and bench_strife.
bench: deps build tools
	@$(CCBENCH) bench bench

# The per-protocol cost per access of docs/protocols.md ("Cost per access"):
# make bench-cost [COST_ARGS="--rows N --theta T --repeats N --duration S"]
bench-cost: deps build
	@$(MAKE) --no-print-directory build VARIANT=profile
	@$(CCBENCH) cost $(COST_ARGS)

# Where a committed transaction's worker time goes where the protocols work
# hardest (configs/bench/account.yaml; ACCOUNT_ARGS="--protocols silo,tictoc --rerun").
# (The harness builds the release and profile binaries the grid's protocols need.)
bench-account: deps
	@$(CCBENCH) account $(ACCOUNT_ARGS)

# Before/after a change, interleaved: make bench-compare BEFORE=<dir> [AFTER=bin] [GRID=quick|bench]
# (BEFORE: a copy of bin/ taken before the change; the grids: configs/bench/).
bench-compare: deps build
	@test -n "$(BEFORE)" || { echo "bench-compare: BEFORE=<dir of rundb-<cc> binaries> is required" >&2; exit 2; }
	@$(CCBENCH) compare $(BEFORE) $(or $(AFTER),bin) --grid $(or $(GRID),quick)

# Every serializable protocol x every workload at high contention with
# --verify until 10M transactions per pair are checked (ccbench soak;
# SOAK_ARGS="--txns=N --chunk=N --threads=N ..." to change it).

# The flag fuzzer of the contract tier (tests/tools/flag_fuzz.py; ctest
# flag_fuzz runs its short form) over every value of every flag and 300
# random combinations per binary: one rundb binary per conflict rule, the
# pipeline, the tools (and bin/middletier, without a server, when built).
# SEED=N picks another reproducible set of cases.
FUZZ_PROTOCOLS := nowait silo bcc dora
SEED ?= 1
fuzz: deps
	@$(MAKE) --no-print-directory configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target $(addprefix rundb-,$(FUZZ_PROTOCOLS)) pipeline bench_fvs \
	  bench_strife bench_checker check_history
	@$(PY) tests/tools/flag_fuzz.py --depth=full --seed=$(SEED) $(addprefix $(BIN_DIR)/rundb-,$(FUZZ_PROTOCOLS)) \
	  $(addprefix $(BIN_DIR)/,pipeline bench_fvs bench_strife bench_checker check_history) \
	  $(wildcard $(BIN_DIR)/middletier)
soak: deps build
	@$(CCBENCH) soak $(SOAK_ARGS)

# The protocol registry, one per line (the harness checks figure configs against it).
protocols:
	@printf '%s\n' $(PROTOCOLS)

figures: deps
	@$(CCBENCH) figures --profile $(PROFILE) $(if $(FIGS),$(FIGS),--all)

# The fidelity check (docs/harness.md, "Fidelity"): ccbench fidelity's named figures (or FIGS) at the small
# profile, each point on a quiet machine, repetitions added until the claims are decided.
.PHONY: fidelity
fidelity: deps
	@$(CCBENCH) fidelity $(FIGS)

clean:
	rm -rf build bin
