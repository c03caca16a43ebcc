# feedrate - plain Makefile.
#
#   make                  build ./feedrate
#   make demo             build, then `feedrate run` on a generated dataset
#   make test             every test (Criterion suite + threaded stress driver)
#   make check            the fast subset (unit tests only)
#   make bench            benchmarks, built -O2 -DNDEBUG, ratios against peers
#   make static           a fully static ./feedrate for copying onto a VM
#   make install PREFIX=  install the binary (default /usr/local)
#   make deps             install the Debian -dev packages (or print how)
#   make fuzz FUZZ_SECONDS=N  libFuzzer targets (scripts/deps.sh --fuzz)
#   MPI=1                 build against Open MPI, for `mpirun ... feedrate`
#   SANITIZE=address,undefined | thread   build and test under sanitizers
#   V=1                   show the commands
#
# Each configuration builds in its own folder under build/, so sanitizer,
# bench and static objects never mix.

CC ?= cc
CFLAGS ?= -O2 -g
LDFLAGS ?=
PREFIX ?= /usr/local

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wvla -Wformat=2 -Wundef -Wpointer-arith -Wcast-align=strict \
	-Wno-missing-field-initializers
override CFLAGS += -std=gnu17 $(WARN) -D_GNU_SOURCE -pthread -MMD -MP -I. \
	-Istorage -Iaugment -Iformats -Iloader -Iworkloads -Igen -Ijudge -Imeasure \
	-Ireports -Icli
LIBS := -luring -ljpeg -lpng -lz -lzstd -ldeflate -ljansson -linih -lm -pthread
TEST_LIBS := -lcriterion -lseccomp -lcap

comma := ,
ifdef SANITIZE
CFG := $(subst $(comma),-,$(SANITIZE))
override CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
override LDFLAGS += -fsanitize=$(SANITIZE)
else
CFG ?= default
endif
# MPI=1: feedrate against Open MPI (Debian libopenmpi-dev), for mpirun;
# the other builds (make static too) have no MPI dependency
ifdef MPI
# only the sources that read FEEDRATE_MPI are built again (in $(B)); every
# other object is the plain build's of the same flags ($(B0)), so that the
# MPI binary `make test` launches costs a few files, not a second build
MPI_CFLAGS := -DFEEDRATE_MPI $(shell pkg-config --cflags ompi-c)
LIBS += $(shell pkg-config --libs ompi-c)
B0 := build/$(CFG)
override CFG := $(CFG)-mpi
endif
B := build/$(CFG)
# the MPI build the tests launch with mpirun, where Open MPI is installed
MPI_OK := $(shell pkg-config --exists ompi-c 2>/dev/null && \
	command -v mpirun >/dev/null && echo 1)

# `make test` and `make check` build on every CPU unless -j is given: the
# README's plain `make test` built one file at a time (half its build time
# on 2 vCPUs lost)
ifeq (,$(filter -j%,$(MAKEFLAGS)))
ifneq (,$(filter test check,$(MAKECMDGOALS)))
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif
endif

ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2)
endif

MODULES := storage augment formats loader workloads gen judge measure reports cli
LIB_SRC := $(filter-out cli/main.c,$(foreach m,$(MODULES),$(wildcard $(m)/*.c)))
# the Python runner of --pipeline torch|python:FILE, carried as bytes
GEN_OBJ := $(B)/gen/torch_runner_py.o $(B)/gen/wl_jobs.o
# the built-in workloads' job files, carried as text (imagenet first: the
# default workload heads the table)
JOB_FILES := workloads/jobs/imagenet.ini $(filter-out \
	workloads/jobs/imagenet.ini,$(sort $(wildcard workloads/jobs/*.ini)))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o) $(GEN_OBJ)
ifdef MPI
MPI_SRC := $(shell grep -l FEEDRATE_MPI $(LIB_SRC) cli/main.c)
LIB_OBJ := $(patsubst %.c,$(B)/%.o,$(filter $(MPI_SRC),$(LIB_SRC))) \
	$(patsubst %.c,$(B0)/%.o,$(filter-out $(MPI_SRC),$(LIB_SRC))) \
	$(GEN_OBJ)
endif
TEST_SRC := tests/harness.c $(wildcard tests/test_*.c)
STRESS_SRC := $(wildcard tests/stress*.c)
BENCH_SRC := $(wildcard tests/bench/*/bench_*.c)
BENCH_BIN := $(foreach s,$(BENCH_SRC),$(B)/bench/$(notdir $(s:.c=)))

.PHONY: all test check bench static install deps clean help stress demo
all: $(B)/feedrate
	$(Q)cp $(B)/feedrate feedrate.tmp && mv -f feedrate.tmp feedrate

$(B)/%.o: %.c
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(MPI_CFLAGS) -c -o $@ $<

ifdef MPI
$(B0)/%.o: %.c
	$(call say,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<
endif

# measure/torch_runner.py as a C array (od: no xxd needed)
$(B)/gen/torch_runner_py.c: measure/torch_runner.py
	$(call say,GEN,$@)
	@mkdir -p $(dir $@)
	$(Q){ echo '/* generated from $< by the Makefile; do not edit */'; \
	  echo '#include "measure_internal.h"'; \
	  echo 'const unsigned char ms_torch_runner_py[] = {'; \
	  od -An -v -tx1 $< | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo 'const unsigned long ms_torch_runner_py_len ='; \
	  echo '	sizeof(ms_torch_runner_py);'; } > $@.tmp && mv -f $@.tmp $@

$(B)/gen/torch_runner_py.o: $(B)/gen/torch_runner_py.c
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# workloads/jobs/NAME.ini as C arrays, NUL-terminated, and their table
$(B)/gen/wl_jobs.c: $(JOB_FILES) Makefile
	$(call say,GEN,$@)
	@mkdir -p $(dir $@)
	$(Q){ echo '/* generated from workloads/jobs/NAME.ini by the Makefile; do not edit */'; \
	  echo '#include "workloads_internal.h"'; \
	  i=0; for f in $(JOB_FILES); do \
	    echo "static const unsigned char job$$i[] = {"; \
	    od -An -v -tx1 $$f | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	    echo '0x00 };'; i=$$((i + 1)); done; \
	  echo 'const struct wl_job_text wl_job_builtins[] = {'; \
	  i=0; for f in $(JOB_FILES); do \
	    echo "	{ \"$$(basename $$f)\", job$$i, sizeof(job$$i) - 1 },"; \
	    i=$$((i + 1)); done; \
	  echo '};'; \
	  echo 'const size_t wl_job_nbuiltins ='; \
	  echo '	sizeof(wl_job_builtins) / sizeof(wl_job_builtins[0]);'; \
	} > $@.tmp && mv -f $@.tmp $@

$(B)/gen/wl_jobs.o: $(B)/gen/wl_jobs.c
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(B)/feedrate: $(if $(filter cli/main.c,$(MPI_SRC)),$(B),$(or $(B0),$(B)))/cli/main.o $(LIB_OBJ)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/unit: $(TEST_SRC:%.c=$(B)/%.o) $(LIB_OBJ)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LIBS) $(LIBS)

$(B)/stress: $(STRESS_SRC:%.c=$(B)/%.o) $(LIB_OBJ)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LIBS) $(LIBS)

define BENCH_RULE
$(B)/bench/$(notdir $(1:.c=)): $(B)/$(1:.c=.o) $(LIB_OBJ)
	$$(call say,LINK,$$@)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LIBS)
endef
$(foreach s,$(BENCH_SRC),$(eval $(call BENCH_RULE,$(s))))

# Criterion crashes under ThreadSanitizer: a TSan build runs the plain-C
# stress driver only.
ifneq (,$(findstring thread,$(SANITIZE)))
test: $(B)/feedrate $(B)/stress
	$(Q)FEEDRATE_BIN=$(B)/feedrate tests/run_tests.sh --stress $(B)/stress
else
test: $(B)/feedrate $(B)/unit $(B)/stress $(if $(MPI_OK),mpi-bin)
	$(Q)FEEDRATE_BIN=$(B)/feedrate FEEDRATE_SANITIZE=$(SANITIZE) \
		$(if $(MPI_OK),FEEDRATE_MPI_BIN=build/default-mpi/feedrate) \
		tests/run_tests.sh --unit $(B)/unit --stress $(B)/stress
endif

# the MPI binary the cluster tests launch (unsanitized: Open MPI's own
# allocations would fill a sanitizer's report)
.PHONY: mpi-bin
# in the plain build its objects are this make's, made first (two makes
# must not write one object at once)
mpi-bin: $(if $(filter build/default,$(B)),$(B)/cli/main.o $(LIB_OBJ))
	$(Q)$(MAKE) --no-print-directory MPI=1 SANITIZE= CFG=default \
		build/default-mpi/feedrate

check: $(B)/feedrate $(B)/unit
	$(Q)FEEDRATE_BIN=$(B)/feedrate FEEDRATE_FAST=1 tests/run_tests.sh \
		--unit $(B)/unit

# The README's option list, made from the option table (cli/options.c);
# tests/test_cli_table.c checks the README against it.
.PHONY: readme-options
readme-options: $(B)/feedrate
	$(Q)$(B)/feedrate help-options --markdown > README.options.tmp
	$(Q)awk 'FNR == NR { t = t $$0 "\n"; next } \
		/<!-- options:end -->/ { printf "%s", t; skip = 0 } \
		!skip { print } /<!-- options:begin -->/ { skip = 1 }' \
		README.options.tmp README.md > README.md.tmp && \
		mv -f README.md.tmp README.md && rm -f README.options.tmp

# The README's first command: a run on a small generated dataset.
demo: all
	./feedrate run

stress: $(B)/stress
	$(Q)$(B)/stress

bench:
	$(Q)$(MAKE) --no-print-directory CFG=bench SANITIZE= \
		CFLAGS="-O2 -DNDEBUG -g" build/bench/feedrate \
		$(foreach s,$(BENCH_SRC),build/bench/bench/$(notdir $(s:.c=)))
	$(Q)FEEDRATE_BIN=build/bench/feedrate BENCH_BIN_DIR=build/bench/bench \
		tests/bench/run_bench.sh

static:
	$(Q)$(MAKE) --no-print-directory CFG=static SANITIZE= \
		LDFLAGS="-static" build/static/feedrate
	$(Q)cp build/static/feedrate feedrate.tmp && mv -f feedrate.tmp feedrate
	@printf 'feedrate: static binary (ldd: %s)\n' \
		"$$(ldd feedrate 2>&1 | tr -d '\t' | head -n 1)"

install: all
	install -D -m 0755 feedrate $(DESTDIR)$(PREFIX)/bin/feedrate

deps:
	$(Q)scripts/deps.sh

clean:
	rm -rf build feedrate

help:
	@sed -n '3,15p' Makefile | sed 's/^# \{0,1\}//'

include tests/fuzz/fuzz.mk
-include $(shell find $(B) $(B0) -name '*.d' 2>/dev/null)
