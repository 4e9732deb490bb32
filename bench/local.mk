# SPDX-License-Identifier: BSD-3-Clause
#
# The benchmarks' part of the build (make bench): never built by make or make check.
# Included by Makefile.am (one non-recursive build): paths are from the top.

# Side-by-side ratios against the peer libraries, measured in the same run.
# EXTRA_PROGRAMS: `make` and `make check` never build them.
EXTRA_PROGRAMS += $(BENCH_PROGS)
CLEANFILES += $(BENCH_PROGS)
noinst_HEADERS += bench/bench_common.h
BENCH_PROGS += bench/bench_parse
BENCH_PROGS += bench/bench_bcrypt
bench_bench_bcrypt_LDFLAGS = $(ALLOC_COUNT_WRAP)
bench_bench_bcrypt_LDADD = $(ALLOC_COUNT_LIBS)
if HAVE_LIBCRYPTO
BENCH_PROGS += bench/bench_pbkdf2
bench_bench_pbkdf2_CFLAGS = $(AM_CFLAGS) $(LIBCRYPTO_CFLAGS)
bench_bench_pbkdf2_LDFLAGS = $(ALLOC_COUNT_WRAP)
bench_bench_pbkdf2_LDADD = $(ALLOC_COUNT_LIBS) $(LIBCRYPTO_LIBS)
endif
# A login keyed with a key from its file against one unkeyed (a ratio).
BENCH_PROGS += bench/bench_pepper
# With -H, a TPM key also through the module's child (keys/tpm_client.c).
bench_bench_pepper_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/pam_module
bench_bench_pepper_LDADD = pam_module/libkdfpam.la accounts/libkdftpm.la $(LDADD)
BENCH_PROGS += bench/bench_argon2
bench_bench_argon2_CFLAGS = $(AM_CFLAGS)
bench_bench_argon2_LDADD = $(LDADD)
if HAVE_LIBSODIUM
bench_bench_argon2_CFLAGS += $(LIBSODIUM_CFLAGS) -DBENCH_WITH_SODIUM
bench_bench_argon2_LDADD += $(LIBSODIUM_LIBS)
endif
if HAVE_LIBARGON2
bench_bench_argon2_CFLAGS += $(LIBARGON2_CFLAGS) -DBENCH_WITH_ARGON2
bench_bench_argon2_LDADD += $(LIBARGON2_LIBS)
endif
# The compromised-password list: build rate for 10 million entries (through
# cli/kdfhash), bytes per entry, open and lookup warm and cold, resident memory.
BENCH_PROGS += bench/bench_blocklist
bench_bench_blocklist_LDADD = accounts/libkdfaccounts.la core/libkdfcore.la $(PTHREAD_LIBS)
# A cheap bind's p99 beside expensive ones, with kept work areas and without.
BENCH_PROGS += bench/bench_workpool
bench: $(BENCH_PROGS) tests/pam/memstorm pam_module/pam_kdfhash.la
	@set -e; for b in $(BENCH_PROGS); do echo "== $$b"; ./$$b; done
	@# 100 logins at once (sshd's MaxStartups) at 64 MiB each in a 2 GiB
	@# cgroup with a 512 MiB budget: logins/s, latency, the cgroup's peak.
	@echo "== login storm (tests/pam/test_memstorm.sh, 100 logins, 2 GiB cgroup)"
	@$(AM_TESTS_ENVIRONMENT) KDF_STORM_N=100 KDF_STORM_MIB=2048 KDF_STORM_BUDGET_MIB=512 \
	    $(SHELL) $(srcdir)/tests/pam/test_memstorm.sh || true
	@$(MAKE) $(AM_MAKEFLAGS) bench-wrap
	@$(MAKE) $(AM_MAKEFLAGS) bench-tpm
	@$(MAKE) $(AM_MAKEFLAGS) bench-ds
# kdfhash wrap on a 10,000-user shadow file: entries/s at the default target
# and the directory profile, peak memory, a login's time during a wrap.
EXTRA_DIST += bench/wrap_shadow.py
BENCH_WRAP_USERS = 10000
bench-wrap: cli/kdfhash$(EXEEXT)
	@echo "== kdfhash wrap (bench/wrap_shadow.py, $(BENCH_WRAP_USERS) users)"
	@py='$(PYTHON3_SYSTEM)'; test -n "$$py" || py=/usr/bin/python3; \
	$$py $(srcdir)/bench/wrap_shadow.py --srcdir $(srcdir) --users $(BENCH_WRAP_USERS) \
	    cli/kdfhash$(EXEEXT)
# A login keyed by a TPM's key: swtpm on a loopback port, bench_pepper -T.
bench-tpm: bench/bench_pepper $(pkglibexec_PROGRAMS)
	@echo "== keyed by a TPM (swtpm, bench/bench_pepper -T)"
	@if ! grep -q '^#define HAVE_TPM 1' config.h; then echo "bench-tpm: skipped: built without TPM support"; \
	elif ! command -v swtpm >/dev/null 2>&1; then echo "bench-tpm: skipped: swtpm not installed"; \
	else d=$$(mktemp -d) && port=$$((20000 + $$$$ % 20000)) && \
	  swtpm socket --tpm2 --tpmstate dir=$$d --server type=tcp,port=$$port,bindaddr=127.0.0.1 \
	    --ctrl type=tcp,port=$$((port + 1)),bindaddr=127.0.0.1 --flags not-need-init,startup-clear \
	    --daemon --pid file=$$d/pid && sleep 0.3 && \
	  ./bench/bench_pepper -T swtpm:host=127.0.0.1,port=$$port -H $(abs_builddir)/pam_module/kdfhash-tpm-hmac; rc=$$?; \
	  kill $$(cat $$d/pid) 2>/dev/null; rm -rf $$d; exit $$rc; fi
# Binds through the 389-ds plugin against 389-ds's own PBKDF2-SHA512, in one
# throw-away server at the directory profile (root, 389-ds-base).
EXTRA_DIST += bench/ds_bind.sh bench/ds_bind_client.py
BENCH_DS_SECONDS = 5
bench-ds: all bench/bench_argon2
	@echo "== 389-ds binds (bench/ds_bind.sh)"
	@if test -f $(DS_PLUGIN_SO); then \
	  $(SHELL) $(srcdir)/bench/ds_bind.sh $(DS_PLUGIN_SO) ds_plugin/kdfhash-schemes.ldif \
	    $(srcdir)/packaging/dirsrv/kdfhash.conf bench/bench_argon2 $(BENCH_DS_SECONDS); \
	else echo "bench-ds: skipped: the plugin was not built (configure found no 389-ds-base-dev)"; fi
# Instructions per call (callgrind), stable on a noisy machine.  Valgrind
# 3.19 cannot read clang 14's DWARF 5: use gcc or CFLAGS='-gdwarf-4 -O2'.
BENCH_PARSE_FAMILIES = bcrypt argon2id pbkdf2-passlib pbkdf2-phc pbkdf2-django legacy-sha512
BENCH_CALLGRIND_N = 1000
bench-callgrind: bench/bench_parse
	@test -n "$(VALGRIND)" || { echo "bench-callgrind: valgrind not found"; exit 1; }
	@n=$(BENCH_CALLGRIND_N); out=bench-callgrind.out; \
	echo "instructions per call (callgrind, $$n calls each, inclusive of callees)"; echo; \
	echo "| family | kdf_parse | kdf_needs_rehash | crypt_checksalt | parse / checksalt |"; \
	echo "|---|---|---|---|---|"; \
	for fam in $(BENCH_PARSE_FAMILIES); do \
	  set --; \
	  for fn in kdf_parse kdf_needs_rehash crypt_checksalt; do \
	    $(VALGRIND) --tool=callgrind --callgrind-out-file=$$out --collect-atstart=no \
	      --toggle-collect=$$fn ./bench/bench_parse --callgrind $$fam $$n \
	      >/dev/null 2>&1 || { echo "valgrind failed on $$fam $$fn"; exit 1; }; \
	    ir=$$(awk '/^totals:/ { print $$2; exit }' $$out); \
	    set -- "$$@" "$$(awk -v i="$$ir" -v n=$$n 'BEGIN { printf "%.0f", i / n }')"; \
	  done; \
	  awk -v f=$$fam -v p=$$1 -v r=$$2 -v c=$$3 'BEGIN { \
	    printf "| %s | %d | %d | %d | %.2f |\n", f, p, r, c, (c > 0 ? p / c : 0) }'; \
	done; rm -f $$out
CLEANFILES += bench-callgrind.out
.PHONY: bench bench-callgrind bench-ds bench-tpm
