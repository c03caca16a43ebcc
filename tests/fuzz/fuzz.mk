# fuzz.mk - libFuzzer targets (included by the top Makefile).
#
#   make fuzz                  every target for FUZZ_SECONDS (default 60)
#   make fuzz FUZZ_SECONDS=600 FUZZ_TARGETS="jpeg list"
#   make fuzz-build            build only: build/fuzz/fuzz_<name>
#
# Built with clang -fsanitize=fuzzer,address,undefined (the fuzzer runtime
# is Debian's libclang-rt-14-dev). The module sources are compiled into
# build/fuzz/libfeedrate.a, so a target links only the objects it uses.
# Each target reads the committed seeds in tests/fuzz/corpus/<name>/ and
# keeps the inputs it finds in build/fuzz/corpus/<name>/ (the repository's
# seeds are never written); a crash is written to build/fuzz/crash/ and
# fails the make. A crash becomes a regression test: the input goes to
# tests/fixtures/fuzz/ and tests/test_fuzz_regress.c replays it.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_RSS_MB ?= 2048
FZ := build/fuzz
FUZZ_ALL := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_ALL)
# longest input per target: JPEGs need room for a few scans, the text
# parsers only a few lines
FUZZ_MAX_LEN_jpeg := 65536
FUZZ_MAX_LEN_list := 4096
FUZZ_MAX_LEN_sysroot := 4096
FUZZ_MAX_LEN_tfrecord := 4096
FUZZ_MAX_LEN_protobuf := 4096
FUZZ_MAX_LEN_mds := 8192
FUZZ_MAX_LEN_tar := 8192
FUZZ_MAX_LEN_ini := 16384
FUZZ_MAX_LEN_npy := 1024
FUZZ_MAX_LEN_zip := 4096
FUZZ_MAX_LEN_idx := 4096
FUZZ_MAX_LEN_DEFAULT := 256

FUZZ_CFLAGS := -std=gnu17 -g -O1 -fno-omit-frame-pointer -D_GNU_SOURCE \
	-pthread -MMD -MP -I. -Istorage -Iaugment -Iformats -Iloader -Iworkloads -Igen \
	-Ijudge -Imeasure -Ireports -Icli -Wall -Wextra -Wno-missing-field-initializers \
	-fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FZ)/obj/%.o) $(FZ)/obj/gen/wl_jobs.o

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_TARGETS:%=$(FZ)/fuzz_%)

$(FZ)/obj/%.o: %.c
	$(call say,FUZZCC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# the built-in job files (the top Makefile generates the C)
$(FZ)/obj/gen/wl_jobs.o: $(B)/gen/wl_jobs.c
	$(call say,FUZZCC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FZ)/libfeedrate.a: $(FUZZ_LIB_OBJ)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FZ)/fuzz_%: tests/fuzz/fuzz_%.c $(FZ)/libfeedrate.a
	$(call say,FUZZLD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(FZ)/libfeedrate.a $(LIBS)

fuzz_max_len = $(or $(FUZZ_MAX_LEN_$(1)),$(FUZZ_MAX_LEN_DEFAULT))
define FUZZ_RUN
	@mkdir -p $(FZ)/corpus/$(1) $(FZ)/crash
	@echo "fuzz: $(1) for $(FUZZ_SECONDS) s"
	$(Q)$(FZ)/fuzz_$(1) -max_total_time=$(FUZZ_SECONDS) \
		-rss_limit_mb=$(FUZZ_RSS_MB) -timeout=10 -print_final_stats=1 \
		-max_len=$(call fuzz_max_len,$(1)) \
		-artifact_prefix=$(FZ)/crash/$(1)- \
		$(FZ)/corpus/$(1) tests/fuzz/corpus/$(1)

endef
fuzz: fuzz-build
	$(foreach t,$(FUZZ_TARGETS),$(call FUZZ_RUN,$(t)))

-include $(shell find $(FZ) -name '*.d' 2>/dev/null)
