# SPDX-License-Identifier: BSD-3-Clause
#
# The tests' part of the build: test programs, script tests, fuzzers, checks.
# Included by Makefile.am (one non-recursive build): paths are from the top.

# Exit 0 pass, 77 skip (reason on stdout), else fail.  PROG_TESTS are built
# and run, SCRIPT_TESTS shipped and run; SOAK_TESTS only by check-soak.
check_PROGRAMS += $(PROG_TESTS)
TESTS += $(PROG_TESTS) $(SCRIPT_TESTS)
EXTRA_DIST += $(SCRIPT_TESTS)
# The map from each part of the product to its tests.
EXTRA_DIST += tests/README.md
if !HAVE_CMOCKA
# configure found no cmocka: make check stops once the product is built,
# before its first test program, naming the package (rather than at the
# first <cmocka.h>, or with a run of the script tests alone); so does
# whatever else builds the test programs (check-valgrind, bench).
check-am: check-cmocka
$(check_PROGRAMS) $(check_LTLIBRARIES): check-cmocka
endif
check-cmocka:
	@echo "make check: configure did not find cmocka (pkg-config cmocka): install libcmocka-dev (Fedora: libcmocka-devel), then run configure again" >&2; \
	exit 1
.PHONY: check-cmocka
AM_TESTS_ENVIRONMENT = top_srcdir='$(abs_top_srcdir)'; top_builddir='$(abs_top_builddir)'; \
	export top_srcdir top_builddir;
# Defaults for every test and bench program: cmocka, testlib/ and
# core/kdf_testing.h reach the objects of tests/, bench/ and testlib/ only
# (GNU make pattern-specific values), never the product's.
TEST_ONLY_CFLAGS = $(CMOCKA_CFLAGS) -DKDF_TEST_HOOKS -I$(top_srcdir)/testlib \
	-I$(top_srcdir)/tests -I$(top_srcdir)/tests/common
tests/%.o tests/%.lo bench/%.o testlib/%.lo: AM_CFLAGS += $(TEST_ONLY_CFLAGS)
TEST_LIBS = accounts/libkdfaccounts.la core/libkdfcore.la $(CMOCKA_LIBS) $(CRYPT_LIBS) $(PTHREAD_LIBS)
# Every program without an _LDADD of its own: the product's all have one.
LDADD = $(TEST_LIBS)
# For test code compiled outside tests/ and bench/.
TEST_CFLAGS = $(AM_CFLAGS) $(TEST_ONLY_CFLAGS)
noinst_HEADERS += \
	tests/common/bcrypt_common.h \
	tests/common/hex_common.h \
	tests/common/san_detect.h \
	tests/pam/pam_fixture.h \
	tests/pam/pam_hashes.h \
	tests/pam/pam_host.h \
	tests/writer/upgrade_testutil.h
EXTRA_DIST += \
	tests/pam/pam_hashes.inc \
	tests/unit/blake2b_hprime.inc \
	tests/unit/malformed.inc

# Allocation counting (testlib/alloc_count.h): the linker routes our objects'
# allocator calls to the counters; link both or neither.
check_LTLIBRARIES += testlib/liballoccount.la
testlib_liballoccount_la_SOURCES = testlib/alloc_count.c testlib/alloc_count.h
ALLOC_COUNT_WRAP = $(AM_LDFLAGS) -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free \
	-Wl,--wrap=posix_memalign,--wrap=aligned_alloc,--wrap=mmap
ALLOC_COUNT_LIBS = $(TEST_LIBS) testlib/liballoccount.la

### parser, policy, rehash
PROG_TESTS += tests/unit/test_parse
PROG_TESTS += tests/unit/test_b64
PROG_TESTS += tests/unit/test_noalloc
tests_unit_test_noalloc_LDFLAGS = $(ALLOC_COUNT_WRAP)
tests_unit_test_noalloc_LDADD = $(ALLOC_COUNT_LIBS)
PROG_TESTS += tests/unit/test_policy
tests_unit_test_policy_CPPFLAGS = $(AM_CPPFLAGS) -DTOP_SRCDIR='"$(abs_top_srcdir)"'
PROG_TESTS += tests/unit/test_rehash
PROG_TESTS += tests/unit/test_scrypt
tests_unit_test_rehash_LDFLAGS = $(ALLOC_COUNT_WRAP)
tests_unit_test_rehash_LDADD = $(ALLOC_COUNT_LIBS)

### sha, pbkdf2
PROG_TESTS += tests/unit/test_sha
PROG_TESTS += tests/unit/test_selftest
PROG_TESTS += tests/unit/test_pbkdf2
tests_unit_test_pbkdf2_CFLAGS = $(AM_CFLAGS)
tests_unit_test_pbkdf2_LDFLAGS = $(ALLOC_COUNT_WRAP)
tests_unit_test_pbkdf2_LDADD = $(ALLOC_COUNT_LIBS)
if HAVE_LIBCRYPTO
tests_unit_test_pbkdf2_CFLAGS += $(LIBCRYPTO_CFLAGS) -DTEST_WITH_LIBCRYPTO
tests_unit_test_pbkdf2_LDADD += $(LIBCRYPTO_LIBS)
endif
SOAK_TESTS += tests/soak/soak_pbkdf2.sh
EXTRA_DIST += tests/soak/soak_pbkdf2.sh

### bcrypt and the crypt(3) schemes
PROG_TESTS += tests/unit/test_bcrypt
PROG_TESTS += tests/unit/test_bcrypt_kat
tests_unit_test_bcrypt_kat_LDFLAGS = $(ALLOC_COUNT_WRAP)
tests_unit_test_bcrypt_kat_LDADD = $(ALLOC_COUNT_LIBS)
PROG_TESTS += tests/unit/test_legacy
PROG_TESTS += tests/unit/test_wrap
# 389-ds's values: the LDAP SHA row and the map from a value to a core string.
PROG_TESTS += tests/unit/test_ldap_sha
PROG_TESTS += tests/unit/test_ds_value
SOAK_TESTS += tests/soak/soak_bcrypt.sh
EXTRA_DIST += tests/soak/soak_bcrypt.sh

### argon2, blake2b, simd
if HAVE_LIBARGON2
# The reference libargon2 as a differential peer; slow, so first.
PROG_TESTS += tests/unit/test_argon2_diff
tests_unit_test_argon2_diff_CFLAGS = $(AM_CFLAGS) $(LIBARGON2_CFLAGS)
tests_unit_test_argon2_diff_LDADD = $(LDADD) $(LIBARGON2_LIBS)
SOAK_TESTS += tests/soak/soak_argon2.sh
endif
EXTRA_DIST += tests/soak/soak_argon2.sh
PROG_TESTS += tests/unit/test_argon2
PROG_TESTS += tests/unit/test_pepper
PROG_TESTS += tests/unit/test_normalize
PROG_TESTS += tests/unit/test_simd
PROG_TESTS += tests/unit/test_blake2b
# Lane threads with more CPUs than this machine has, and failing to start.
PROG_TESTS += tests/unit/test_argon2_pool
tests_unit_test_argon2_pool_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=sysconf -Wl,--wrap=pthread_create \
	-Wl,--wrap=sched_getaffinity
# The work areas a server keeps between verifications.
PROG_TESTS += tests/unit/test_workpool
# The prefetch hint of every kernel: hint_probe.c once per ISA, its flags.
PROG_TESTS += tests/unit/test_hint
tests_unit_test_hint_CFLAGS = $(AM_CFLAGS)
tests_unit_test_hint_LDADD = tests/unit/libhint_ref.la
EXTRA_DIST += tests/unit/hint_probe.c
check_LTLIBRARIES += tests/unit/libhint_ref.la
tests_unit_libhint_ref_la_SOURCES = tests/unit/hint_probe.c
tests_unit_libhint_ref_la_CFLAGS = $(AM_CFLAGS) -I$(top_srcdir)/core/simd \
	-DHINT_ISA=ref -DHINT_HEADER='"blamka_ref.h"'
if HAVE_SSSE3
check_LTLIBRARIES += tests/unit/libhint_ssse3.la
tests_unit_libhint_ssse3_la_SOURCES = tests/unit/hint_probe.c
tests_unit_libhint_ssse3_la_CFLAGS = $(AM_CFLAGS) $(CFLAGS_SSSE3) -I$(top_srcdir)/core/simd \
	-DHINT_ISA=ssse3 -DHINT_HEADER='"blamka_ssse3.h"'
tests_unit_test_hint_CFLAGS += -DHINT_HAVE_SSSE3
tests_unit_test_hint_LDADD += tests/unit/libhint_ssse3.la
endif
if HAVE_AVX2
check_LTLIBRARIES += tests/unit/libhint_avx2.la
tests_unit_libhint_avx2_la_SOURCES = tests/unit/hint_probe.c
tests_unit_libhint_avx2_la_CFLAGS = $(AM_CFLAGS) $(CFLAGS_AVX2) -I$(top_srcdir)/core/simd \
	-DHINT_ISA=avx2 -DHINT_HEADER='"blamka_avx2.h"'
tests_unit_test_hint_CFLAGS += -DHINT_HAVE_AVX2
tests_unit_test_hint_LDADD += tests/unit/libhint_avx2.la
endif
if HAVE_AVX512F
check_LTLIBRARIES += tests/unit/libhint_avx512f.la
tests_unit_libhint_avx512f_la_SOURCES = tests/unit/hint_probe.c
tests_unit_libhint_avx512f_la_CFLAGS = $(AM_CFLAGS) $(CFLAGS_AVX512F) -I$(top_srcdir)/core/simd \
	-DHINT_ISA=avx512f -DHINT_HEADER='"blamka_avx512f.h"'
tests_unit_test_hint_CFLAGS += -DHINT_HAVE_AVX512F
tests_unit_test_hint_LDADD += tests/unit/libhint_avx512f.la
endif
tests_unit_test_hint_LDADD += $(TEST_LIBS)
EXTRA_DIST += tests/cross-run.sh scripts/cross-check.sh scripts/cross-sysroot.sh
# The real tree cross-built for Debian's release architectures, its test
# programs run under qemu-user (scripts/cross-check.sh).  The test command
# runs arm64 and s390x; check-cross all five.  CROSS_FLAGS: cross-check.sh's
# options (--core: the CPU- and byte-order-dependent programs alone).
CROSS_ARCHS = arm64 armhf i386 ppc64el s390x
CROSS_FLAGS =
check-cross:
	CROSS_DIR='$(abs_top_builddir)/_cross' $(SHELL) $(srcdir)/scripts/cross-check.sh $(CROSS_FLAGS) \
		$(CROSS_ARCHS)
check-cross-portable:
	CROSS_DIR='$(abs_top_builddir)/_cross' $(SHELL) $(srcdir)/scripts/cross-check.sh \
		--disable-simd $(CROSS_ARCHS)
# A CPU without ARMv8.2's SHA-512 (qemu's cortex-a53) and the portable
# code alone: the dispatch never runs an instruction the CPU lacks.  Only
# the core's programs (--core): nothing else depends on the CPU's features,
# and check-cross runs everything on arm64.
check-cross-baseline:
	CROSS_DIR='$(abs_top_builddir)/_cross' $(SHELL) $(srcdir)/scripts/cross-check.sh \
		--core --cpu cortex-a53 arm64
	CROSS_DIR='$(abs_top_builddir)/_cross' $(SHELL) $(srcdir)/scripts/cross-check.sh \
		--core --disable-simd arm64
check-aarch64:
	$(MAKE) $(AM_MAKEFLAGS) check-cross CROSS_ARCHS=arm64
# The test programs, for a run that cannot use the script tests.
print-prog-tests:
	@echo $(PROG_TESTS)
.PHONY: check-cross check-cross-portable check-cross-baseline check-aarch64 print-prog-tests

### the module through the real libpam
# No root, no preload: the hosts name the built .so by absolute path.
PAM_TEST_CFLAGS = $(AM_CFLAGS) $(PAM_CFLAGS) \
	-DKDF_PAM_MODULE='"$(abs_top_builddir)/pam_module/.libs/pam_kdfhash.so"'
PAM_TEST_LIBS = $(CMOCKA_LIBS) $(PAM_LIBS)
# pam_host.c names the socket of the module's journal events (journal.c):
# the module finds it only when the program exports it.
PAM_HOST_EXPORT = $(AM_LDFLAGS) -Wl,--export-dynamic-symbol=kdf_pam_journal_socket_override
PAM_SETTOK = -DKDF_PAM_SETTOK='"$(abs_top_builddir)/tests/pam/.libs/pam_settok.so"'
# A test-only module that sets PAM_AUTHTOK (use_first_pass).
check_LTLIBRARIES += tests/pam/pam_settok.la
tests_pam_pam_settok_la_SOURCES = tests/pam/pam_settok.c
tests_pam_pam_settok_la_CFLAGS = $(AM_CFLAGS) $(PAM_CFLAGS)
tests_pam_pam_settok_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -rpath /nowhere
tests_pam_pam_settok_la_LIBADD = $(PAM_LIBS)
PROG_TESTS += tests/pam/test_dlopen
tests_pam_test_dlopen_CFLAGS = $(PAM_TEST_CFLAGS)
tests_pam_test_dlopen_LDADD = $(CMOCKA_LIBS)
EXTRA_tests_pam_test_dlopen_DEPENDENCIES = pam_module/pam_kdfhash.la
PROG_TESTS += tests/pam/test_pam
tests_pam_test_pam_SOURCES = \
	tests/pam/pam_cases.c \
	tests/pam/pam_fixture.c \
	tests/pam/pam_form_cases.c \
	tests/pam/pam_host.c \
	tests/pam/pam_keyed_cases.c \
	tests/pam/pam_upgrade_cases.c \
	tests/pam/pam_wrap_cases.c \
	tests/pam/test_pam.c
tests_pam_test_pam_CFLAGS = $(PAM_TEST_CFLAGS) $(PAM_SETTOK)
tests_pam_test_pam_LDADD = core/libkdfcore.la $(PAM_TEST_LIBS) $(CRYPT_LIBS)
tests_pam_test_pam_LDFLAGS = $(PAM_HOST_EXPORT)
EXTRA_tests_pam_test_pam_DEPENDENCIES = pam_module/pam_kdfhash.la tests/pam/pam_settok.la
PROG_TESTS += tests/pam/test_pam_cache
tests_pam_test_pam_cache_SOURCES = tests/pam/test_pam_cache.c tests/pam/pam_host.c
tests_pam_test_pam_cache_CFLAGS = $(PAM_TEST_CFLAGS) $(PAM_SETTOK)
tests_pam_test_pam_cache_LDADD = $(PAM_TEST_LIBS)
tests_pam_test_pam_cache_LDFLAGS = $(PAM_HOST_EXPORT)
EXTRA_tests_pam_test_pam_cache_DEPENDENCIES = pam_module/pam_kdfhash.la tests/pam/pam_settok.la \
	cli/kdfhash
PROG_TESTS += tests/pam/test_pam_hygiene
tests_pam_test_pam_hygiene_SOURCES = tests/pam/test_pam_hygiene.c tests/pam/pam_host.c
tests_pam_test_pam_hygiene_CFLAGS = $(PAM_TEST_CFLAGS)
tests_pam_test_pam_hygiene_LDADD = $(PAM_TEST_LIBS) $(PTHREAD_LIBS)
tests_pam_test_pam_hygiene_LDFLAGS = $(PAM_HOST_EXPORT)
EXTRA_tests_pam_test_pam_hygiene_DEPENDENCIES = pam_module/pam_kdfhash.la
PROG_TESTS += tests/pam/test_pam_chauthtok
tests_pam_test_pam_chauthtok_SOURCES = tests/pam/test_pam_chauthtok.c tests/pam/pam_host.c
tests_pam_test_pam_chauthtok_CFLAGS = $(PAM_TEST_CFLAGS) $(PAM_SETTOK)
tests_pam_test_pam_chauthtok_LDADD = $(PAM_TEST_LIBS) $(CRYPT_LIBS)
tests_pam_test_pam_chauthtok_LDFLAGS = $(PAM_HOST_EXPORT)
EXTRA_tests_pam_test_pam_chauthtok_DEPENDENCIES = pam_module/pam_kdfhash.la tests/pam/pam_settok.la
PROG_TESTS += tests/pam/test_pam_blocklist
tests_pam_test_pam_blocklist_SOURCES = tests/pam/test_pam_blocklist.c tests/pam/pam_host.c
tests_pam_test_pam_blocklist_CFLAGS = $(PAM_TEST_CFLAGS)
tests_pam_test_pam_blocklist_LDADD = $(PAM_TEST_LIBS)
tests_pam_test_pam_blocklist_LDFLAGS = $(PAM_HOST_EXPORT)
EXTRA_tests_pam_test_pam_blocklist_DEPENDENCIES = pam_module/pam_kdfhash.la cli/kdfhash
# The journal events through a stand-in journald, pam_unix's lines, and the
# man page's list of events.
PROG_TESTS += tests/pam/test_pam_journal
tests_pam_test_pam_journal_SOURCES = tests/pam/test_pam_journal.c tests/pam/pam_host.c
tests_pam_test_pam_journal_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/pam_module \
	-DTOP_SRCDIR='"$(abs_top_srcdir)"'
tests_pam_test_pam_journal_CFLAGS = $(PAM_TEST_CFLAGS)
# kdf_pam_event() itself too, for the event no login here can cause (busy).
tests_pam_test_pam_journal_LDADD = pam_module/libkdfpam.la $(TEST_LIBS) $(PAM_LIBS) \
	$(SELINUX_LIBS)
tests_pam_test_pam_journal_LDFLAGS = $(PAM_HOST_EXPORT)
EXTRA_tests_pam_test_pam_journal_DEPENDENCIES = pam_module/pam_kdfhash.la
# profile = fips: the module, and a test build of it (named pam_kdfhash.so,
# for the log's prefix) whose self-test is forced to fail and whose
# fips_enabled file is the test's.
PROG_TESTS += tests/pam/test_pam_fips
tests_pam_test_pam_fips_SOURCES = tests/pam/test_pam_fips.c tests/pam/pam_host.c
tests_pam_test_pam_fips_CFLAGS = $(PAM_TEST_CFLAGS) \
	-DKDF_PAM_FIPSFAIL='"$(abs_top_builddir)/tests/pam/fipsfail/.libs/pam_kdfhash.so"' \
	-DKDF_PAM_FIPS_FILE='"$(abs_top_builddir)/tests/pam/fipsfail/fips_enabled"'
tests_pam_test_pam_fips_LDADD = $(PAM_TEST_LIBS)
tests_pam_test_pam_fips_LDFLAGS = $(PAM_HOST_EXPORT)
EXTRA_tests_pam_test_pam_fips_DEPENDENCIES = pam_module/pam_kdfhash.la \
	tests/pam/fipsfail/pam_kdfhash.la
check_LTLIBRARIES += tests/pam/fipsfail/pam_kdfhash.la
tests_pam_fipsfail_pam_kdfhash_la_SOURCES = pam_module/pam_kdfhash.c tests/pam/fipsfail_hook.c
tests_pam_fipsfail_pam_kdfhash_la_CFLAGS = $(AM_CFLAGS) $(PAM_CFLAGS) \
	-DKDF_PAM_FIPS_ENABLED='"$(abs_top_builddir)/tests/pam/fipsfail/fips_enabled"'
tests_pam_fipsfail_pam_kdfhash_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
	-rpath /nowhere
tests_pam_fipsfail_pam_kdfhash_la_LIBADD = $(pam_module_pam_kdfhash_la_LIBADD)
SCRIPT_TESTS += tests/pam/test_pamtester.sh
SCRIPT_TESTS += tests/pam/test_pam_audit.sh
EXTRA_DIST += tests/pam/audit_reader.py
# test_pam_audit.sh's LD_PRELOAD shim: the stand-in recorder of libaudit's
# messages and a lost compare-and-swap; plain, as faultinject.so.
check_PROGRAMS += tests/pam/audit_shim.so
tests_pam_audit_shim_so_SOURCES = tests/pam/audit_shim.c
tests_pam_audit_shim_so_CFLAGS = $(KDF_STD) $(WARN_CFLAGS) -fPIC
tests_pam_audit_shim_so_LDFLAGS = -Xcompiler -shared -Xcompiler -fPIC
tests_pam_audit_shim_so_LDADD = -ldl
SCRIPT_TESTS += tests/pam/test_pam_update.sh
SCRIPT_TESTS += tests/pam/test_fail2ban.sh
SCRIPT_TESTS += tests/pam/test_tpm.sh
EXTRA_DIST += tests/common/etc_ns.sh
EXTRA_DIST += tests/pam/pam_mkhashes.py
PROG_TESTS += tests/pam/test_memgate
# The module's verdict, for the one wait of a busy refusal and its dummy.
tests_pam_test_memgate_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/pam_module
tests_pam_test_memgate_LDADD = pam_module/libkdfpam.la $(TEST_LIBS)
if HAVE_DIRSRV
# The 389-ds plugin's schemes, with stand-ins for libslapd.
PROG_TESTS += tests/ds/test_ds_plugin
tests_ds_test_ds_plugin_SOURCES = tests/ds/test_ds_plugin.c ds_plugin/ds_config.c ds_plugin/ds_wrap.c ds_plugin/ds_stats.c \
	ds_plugin/ds_fair.c ds_plugin/ds_pending.c ds_plugin/ds_schemes.c ds_plugin/kdfhash_ds.h
tests_ds_test_ds_plugin_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/ds_plugin
tests_ds_test_ds_plugin_CFLAGS = $(AM_CFLAGS) $(DIRSRV_CFLAGS) $(CMOCKA_CFLAGS)
# The storm gate: a correct user's compares beside a storm of wrong ones.
PROG_TESTS += tests/ds/test_ds_fair
tests_ds_test_ds_fair_SOURCES = tests/ds/test_ds_fair.c ds_plugin/ds_config.c ds_plugin/ds_stats.c \
	ds_plugin/ds_fair.c ds_plugin/ds_pending.c ds_plugin/ds_schemes.c ds_plugin/kdfhash_ds.h
tests_ds_test_ds_fair_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/ds_plugin
tests_ds_test_ds_fair_CFLAGS = $(AM_CFLAGS) $(DIRSRV_CFLAGS) $(CMOCKA_CFLAGS)
endif
EXTRA_DIST += tests/ds/test_ds_plugin.c tests/ds/test_ds_fair.c
# Which binds may re-encode their entry's value (no server, no libslapd).
PROG_TESTS += tests/ds/test_ds_scope
tests_ds_test_ds_scope_SOURCES = tests/ds/test_ds_scope.c ds_plugin/ds_scope.c \
	ds_plugin/kdfhash_ds.h
tests_ds_test_ds_scope_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/ds_plugin
tests_ds_test_ds_scope_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
check_PROGRAMS += tests/pam/memstorm
tests_pam_memstorm_SOURCES = tests/pam/memstorm.c tests/pam/pam_host.c
tests_pam_memstorm_CFLAGS = $(PAM_TEST_CFLAGS)
tests_pam_memstorm_LDADD = $(PAM_TEST_LIBS)
tests_pam_memstorm_LDFLAGS = $(PAM_HOST_EXPORT)
EXTRA_tests_pam_memstorm_DEPENDENCIES = pam_module/pam_kdfhash.la
SCRIPT_TESTS += tests/pam/test_memstorm.sh
SCRIPT_TESTS += tests/lint/test_hardening.sh
SCRIPT_TESTS += tests/scripts/test_rollback.sh
SCRIPT_TESTS += tests/scripts/test_stranded.sh
SCRIPT_TESTS += tests/scripts/test_unix_options.sh
SCRIPT_TESTS += tests/scripts/test_maintscripts.sh
SCRIPT_TESTS += tests/scripts/test_downgrade_check.sh
SCRIPT_TESTS += tests/scripts/test_selinux_policy.sh
SCRIPT_TESTS += tests/realprog/test_realprog.sh
EXTRA_DIST += tests/realprog/README tests/realprog/matrix.py
check_PROGRAMS += tests/pam/pam_timing
tests_pam_pam_timing_SOURCES = tests/pam/pam_timing.c tests/pam/pam_host.c
tests_pam_pam_timing_CFLAGS = $(PAM_TEST_CFLAGS)
tests_pam_pam_timing_LDADD = $(PAM_LIBS) -lm
tests_pam_pam_timing_LDFLAGS = $(PAM_HOST_EXPORT)
EXTRA_tests_pam_pam_timing_DEPENDENCIES = pam_module/pam_kdfhash.la
SCRIPT_TESTS += tests/pam/test_pam_timing.sh
# Its smoke run (KDF_SKIP_MEASUREMENTS), against a stand-in pam_timing.
SCRIPT_TESTS += tests/pam/test_timing_smoke.sh
SOAK_TESTS += tests/soak/soak_pam_timing.sh
EXTRA_DIST += tests/soak/soak_pam_timing.sh
# A timing test runs alone, after every other test (a variable names the
# target so that automake still writes its recipe).
PAM_TIMING_LOG = tests/pam/test_pam_timing.sh.log
$(PAM_TIMING_LOG): $(filter-out $(PAM_TIMING_LOG),$(TEST_LOGS))
# The helper's rate limit, driven the way an attacker drives it, against a
# test build with the installed delay (2 s) and the test build's records.
check_PROGRAMS += tests/pam/kdfhash-chkpwd-rate
SCRIPT_TESTS += tests/pam/test_chkpwd_rate.sh
tests_pam_kdfhash_chkpwd_rate_SOURCES = $(pam_module_kdfhash_chkpwd_SOURCES)
tests_pam_kdfhash_chkpwd_rate_CFLAGS = $(AM_CFLAGS) $(AUDIT_CFLAGS) -DKDF_CHKPWD_TEST \
	-DKDF_CHKPWD_STATE_DIR='"/etc/kdfhash-chkpwd-test"'
tests_pam_kdfhash_chkpwd_rate_LDADD = $(pam_module_kdfhash_chkpwd_LDADD)
# A test build of the helper takes a shadow path from argv: never installed.
EXTRA_DIST += tests/pam/test_pam_nonroot.sh
if HAVE_PAMTEST
check_PROGRAMS += tests/pam/test_pam_nonroot tests/pam/kdfhash-chkpwd-test
TESTS += tests/pam/test_pam_nonroot.sh
tests_pam_test_pam_nonroot_CFLAGS = $(AM_CFLAGS) $(PAM_CFLAGS)
tests_pam_test_pam_nonroot_LDADD = $(PAM_LIBS)
EXTRA_tests_pam_test_pam_nonroot_DEPENDENCIES = pam_module/pam_kdfhash.la
tests_pam_kdfhash_chkpwd_test_SOURCES = $(pam_module_kdfhash_chkpwd_SOURCES)
# Its records live in /etc/kdfhash-chkpwd-test, which the tests create in
# their private copy of /etc (tests/common/etc_ns.sh), never in the machine's.
tests_pam_kdfhash_chkpwd_test_CFLAGS = $(AM_CFLAGS) $(AUDIT_CFLAGS) -DKDF_CHKPWD_TEST \
	-DKDF_CHKPWD_TTY_SLEEP=1 -DKDF_CHKPWD_FAIL_DELAY_MS=300 \
	-DKDF_CHKPWD_STATE_DIR='"/etc/kdfhash-chkpwd-test"' \
	-DKDF_CHKPWD_KEYS_DIR='"/etc/kdfhash-chkpwd-test/keys"'
tests_pam_kdfhash_chkpwd_test_LDADD = $(pam_module_kdfhash_chkpwd_LDADD)
PROG_TESTS += tests/pam/test_pamwrap
tests_pam_test_pamwrap_CFLAGS = $(PAM_TEST_CFLAGS) $(PAMTEST_CFLAGS)
tests_pam_test_pamwrap_LDADD = $(PAMTEST_LIBS) $(PAM_TEST_LIBS)
EXTRA_tests_pam_test_pamwrap_DEPENDENCIES = pam_module/pam_kdfhash.la
endif

### the upgrade writer
# Its objects come from the module's library (pam_module/libkdfpam.la).
UPGRADE_TEST_CFLAGS = $(AM_CFLAGS) $(SELINUX_CFLAGS) -I$(top_srcdir)/pam_module
UPGRADE_TEST_LIBS = pam_module/libkdfpam.la $(TEST_LIBS) $(SELINUX_LIBS)
PROG_TESTS += tests/unit/test_shadow_line
tests_unit_test_shadow_line_CFLAGS = $(UPGRADE_TEST_CFLAGS)
tests_unit_test_shadow_line_LDADD = $(UPGRADE_TEST_LIBS)
EXTRA_tests_unit_test_shadow_line_DEPENDENCIES = cli/kdfhash
PROG_TESTS += tests/writer/test_upgrade
tests_writer_test_upgrade_CFLAGS = $(UPGRADE_TEST_CFLAGS)
tests_writer_test_upgrade_LDADD = $(UPGRADE_TEST_LIBS)
PROG_TESTS += tests/writer/test_upgrade_lock
tests_writer_test_upgrade_lock_CFLAGS = $(UPGRADE_TEST_CFLAGS)
tests_writer_test_upgrade_lock_LDADD = $(UPGRADE_TEST_LIBS)
PROG_TESTS += tests/writer/test_upgrade_exec
tests_writer_test_upgrade_exec_CFLAGS = $(UPGRADE_TEST_CFLAGS)
tests_writer_test_upgrade_exec_LDADD = $(UPGRADE_TEST_LIBS)
PROG_TESTS += tests/writer/test_write_line
tests_writer_test_write_line_CFLAGS = $(UPGRADE_TEST_CFLAGS)
tests_writer_test_write_line_LDADD = $(UPGRADE_TEST_LIBS)
PROG_TESTS += tests/writer/test_write_batch
tests_writer_test_write_batch_CFLAGS = $(UPGRADE_TEST_CFLAGS)
tests_writer_test_write_batch_LDADD = $(UPGRADE_TEST_LIBS)
check_PROGRAMS += tests/writer/upgrade_torture tests/writer/upgrade_faultdrv tests/writer/upgrade_hook \
	tests/writer/faultinject.so
tests_writer_upgrade_torture_CFLAGS = $(UPGRADE_TEST_CFLAGS)
tests_writer_upgrade_torture_LDADD = $(UPGRADE_TEST_LIBS)
tests_writer_upgrade_faultdrv_CFLAGS = $(UPGRADE_TEST_CFLAGS)
tests_writer_upgrade_faultdrv_LDADD = $(UPGRADE_TEST_LIBS) -ldl
tests_writer_upgrade_hook_LDADD =
# The LD_PRELOAD fault shim: a plain shared object without the sanitizers,
# so that it loads in front of any test program.
tests_writer_faultinject_so_SOURCES = tests/writer/faultinject.c
tests_writer_faultinject_so_CFLAGS = $(KDF_STD) $(WARN_CFLAGS) -fPIC
tests_writer_faultinject_so_LDFLAGS = -Xcompiler -shared -Xcompiler -fPIC
tests_writer_faultinject_so_LDADD = -ldl
SCRIPT_TESTS += tests/writer/test_upgrade_concurrency.sh
SCRIPT_TESTS += tests/writer/test_upgrade_crash.sh
SCRIPT_TESTS += tests/writer/test_wrap_crash.sh
SCRIPT_TESTS += tests/writer/test_upgrade_faults.sh
# kdfhash-update's test build writes any absolute path (pam_module/update.c).
check_PROGRAMS += tests/writer/kdfhash-update-test
tests_writer_kdfhash_update_test_SOURCES = $(pam_module_kdfhash_update_SOURCES)
tests_writer_kdfhash_update_test_CFLAGS = $(UPGRADE_TEST_CFLAGS) -DKDF_UPDATE_TEST
tests_writer_kdfhash_update_test_LDADD = $(pam_module_kdfhash_update_LDADD)
SCRIPT_TESTS += tests/writer/test_update_helper.sh
SCRIPT_TESTS += tests/writer/test_update_crash.sh
EXTRA_DIST += tests/writer/upgrade_common.sh
SOAK_TESTS += tests/soak/soak_upgrade.sh
EXTRA_DIST += tests/soak/soak_upgrade.sh

### secrets: stack, core dumps, constant time, memory
PROG_TESTS += tests/unit/test_secrets_stack
PROG_TESTS += tests/unit/test_ct
tests_unit_test_ct_LDADD = $(LDADD) -lm
check_PROGRAMS += tests/pam/secrets_core_host
tests_pam_secrets_core_host_CFLAGS = $(PAM_TEST_CFLAGS)
tests_pam_secrets_core_host_LDADD = $(TEST_LIBS) $(PAM_LIBS)
EXTRA_tests_pam_secrets_core_host_DEPENDENCIES = pam_module/pam_kdfhash.la
SCRIPT_TESTS += tests/pam/test_secrets_core.sh
PROG_TESTS += tests/unit/test_memload
SOAK_TESTS += tests/soak/soak_secrets.sh
EXTRA_DIST += tests/soak/soak_secrets.sh

### the CLI, the man pages, bash completion
SCRIPT_TESTS += tests/cli/test_cli.sh
SCRIPT_TESTS += tests/cli/test_cli_calibrate.sh
SCRIPT_TESTS += tests/cli/test_cli_keys.sh
SCRIPT_TESTS += tests/cli/test_cli_blocklist.sh
SCRIPT_TESTS += tests/cli/test_cli_tpm_child.sh
SCRIPT_TESTS += tests/cli/test_cli_selftest.sh
SCRIPT_TESTS += tests/cli/test_cli_wrap.sh
SCRIPT_TESTS += tests/cli/test_cli_metrics.sh
SCRIPT_TESTS += tests/lint/test_man.sh
SCRIPT_TESTS += tests/lint/test_man_examples.sh
SCRIPT_TESTS += tests/lint/test_comments.sh
SCRIPT_TESTS += tests/lint/test_tests_map.sh
SCRIPT_TESTS += tests/lint/test_readme.sh
SCRIPT_TESTS += tests/lint/test_layers.sh
SCRIPT_TESTS += tests/lint/test_includes.sh
SCRIPT_TESTS += tests/lint/test_function_length.sh
SCRIPT_TESTS += tests/lint/test_circles.sh
EXTRA_DIST += tests/lint/graph.py
SCRIPT_TESTS += tests/lint/test_scheme_lists.sh
SCRIPT_TESTS += tests/lint/test_version.sh
SCRIPT_TESTS += tests/cli/test_bash_completion.sh
dist_noinst_DATA += tests/data/demo.passwords tests/data/demo.shadow
EXTRA_DIST += tests/data/gen-demo-shadow.py

### known-answer vectors
# Committed; `make regen-vectors` must reproduce them byte for byte.
dist_noinst_DATA += \
	tests/vectors/argon2.inc \
	tests/vectors/argon2_argon2cli.inc \
	tests/vectors/argon2_keyed.inc \
	tests/vectors/bcrypt.inc \
	tests/vectors/ldap_sha.inc \
	tests/vectors/legacy.inc \
	tests/vectors/pbkdf2.inc \
	tests/vectors/scrypt.inc \
	tests/vectors/sha_vectors.inc \
	tests/vectors/webapp.inc
EXTRA_DIST += tests/vectors/gen-sha-vectors.py tests/vectors/gen-vectors.py
EXTRA_DIST += tests/vectors/gen-ldap-sha-vectors.py
EXTRA_DIST += tests/vectors/gen-selftest-vectors.py tests/vectors/selftest.inc
SCRIPT_TESTS += tests/lint/test_vectors_regen.sh
# The strings web applications export (webapp.inc), through kdfhash.h alone.
PROG_TESTS += tests/unit/test_webapp_kat
regen-vectors:
	@py='$(PYTHON3_SYSTEM)'; test -n "$$py" || py=/usr/bin/python3; \
	$$py $(srcdir)/tests/vectors/gen-vectors.py --out $(srcdir)/tests/vectors
regen-sha-vectors:
	@py='$(PYTHON3_SYSTEM)'; test -n "$$py" || py=/usr/bin/python3; \
	$$py $(srcdir)/tests/vectors/gen-sha-vectors.py > $(srcdir)/tests/vectors/sha_vectors.inc
# Needs 389-ds-base's pwdhash, the oracle every row must satisfy.
regen-ldap-sha-vectors:
	@py='$(PYTHON3_SYSTEM)'; test -n "$$py" || py=/usr/bin/python3; \
	$$py $(srcdir)/tests/vectors/gen-ldap-sha-vectors.py > $(srcdir)/tests/vectors/ldap_sha.inc
# ACVP_DIR: a checkout's gen-val/json-files/PBKDF-1.0 (NIST ACVP-Server).
regen-selftest-vectors:
	@py='$(PYTHON3_SYSTEM)'; test -n "$$py" || py=/usr/bin/python3; \
	test -n '$(ACVP_DIR)' || { echo "set ACVP_DIR=.../ACVP-Server/gen-val/json-files/PBKDF-1.0" >&2; exit 1; }; \
	$$py $(srcdir)/tests/vectors/gen-selftest-vectors.py '$(ACVP_DIR)/prompt.json' \
		'$(ACVP_DIR)/expectedResults.json' > $(srcdir)/tests/vectors/selftest.inc
.PHONY: regen-vectors regen-sha-vectors regen-ldap-sha-vectors regen-selftest-vectors

### fuzz
# Custom rules, not libtool: clang's -fsanitize=fuzzer brings its own main().
EXTRA_DIST += \
	tests/fuzz/corpus_chkpwd \
	tests/fuzz/corpus_ds_values \
	tests/fuzz/corpus_parse \
	tests/fuzz/corpus_policy \
	tests/fuzz/corpus_shadow \
	tests/fuzz/corpus_writer \
	tests/fuzz/fuzz_chkpwd.c \
	tests/fuzz/fuzz_common.h \
	tests/fuzz/fuzz_ds_values.c \
	tests/fuzz/fuzz_parse.c \
	tests/fuzz/fuzz_policy.c \
	tests/fuzz/fuzz_shadow.c \
	tests/fuzz/fuzz_writer.c \
	tests/fuzz/run_fuzzer.sh \
	tests/fuzz/test_fuzz_chkpwd.sh \
	tests/fuzz/test_fuzz_ds_values.sh \
	tests/fuzz/test_fuzz_parse.sh \
	tests/fuzz/test_fuzz_policy.sh \
	tests/fuzz/test_fuzz_shadow.sh \
	tests/fuzz/test_fuzz_writer.sh
if HAVE_LIBFUZZER
# The whole core for the fuzzers below, without config.h: portable kernels
# only, so no file needs -m flags (alg_blamka.c's self-test goes unused).
FUZZ_CORE_CFLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g -O1 \
	$(KDF_STD) $(WARN_CFLAGS) -Wno-unused-function -D_GNU_SOURCE -DKDF_CORE_BUILD \
	-I$(top_srcdir)/core -I$(top_srcdir)/accounts -I$(top_srcdir)/keys -I$(top_srcdir)/pam_module
FUZZ_CORE_SRCS = $(addprefix $(srcdir)/,$(filter %.c,$(core_libkdfcore_la_SOURCES)))
FUZZ_CORE_DEPS = $(FUZZ_CORE_SRCS) $(wildcard $(srcdir)/core/*.h $(srcdir)/core/simd/*.h \
	$(srcdir)/accounts/*.h $(srcdir)/pam_module/*.h)
# The shadow-line reading, for the fuzzers of the module's lookup and writer.
FUZZ_ACCOUNTS_SRCS = $(addprefix $(srcdir)/,$(filter %.c,$(accounts_libkdfaccounts_la_SOURCES)))
FUZZ_CORE_LIBS = $(CRYPT_LIBS) $(PTHREAD_LIBS) $(UNISTRING_LIBS)
tests/fuzz/fuzz_parse: $(srcdir)/tests/fuzz/fuzz_parse.c $(FUZZ_CORE_DEPS)
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CORE_CFLAGS) $(srcdir)/tests/fuzz/fuzz_parse.c \
		$(FUZZ_CORE_SRCS) -o $@ $(FUZZ_CORE_LIBS)
FUZZ_SHADOW_SRCS = $(srcdir)/tests/fuzz/fuzz_shadow.c $(srcdir)/pam_module/lookup.c \
	$(srcdir)/pam_module/verdict.c $(srcdir)/pam_module/options.c \
	$(srcdir)/keys/tpm_client.c \
	$(srcdir)/pam_module/spawn.c $(FUZZ_ACCOUNTS_SRCS)
FUZZ_POLICY_SRCS = $(srcdir)/tests/fuzz/fuzz_policy.c
FUZZ_CHKPWD_SRCS = $(srcdir)/tests/fuzz/fuzz_chkpwd.c $(srcdir)/pam_module/chkpwd_args.c
FUZZ_WRITER_SRCS = $(srcdir)/tests/fuzz/fuzz_writer.c $(srcdir)/pam_module/write.c \
	$(srcdir)/pam_module/upgrade_exec.c $(srcdir)/pam_module/spawn.c \
	$(srcdir)/pam_module/lookup.c $(FUZZ_ACCOUNTS_SRCS)
tests/fuzz/fuzz_shadow: $(FUZZ_SHADOW_SRCS) $(FUZZ_CORE_DEPS)
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CORE_CFLAGS) $(FUZZ_SHADOW_SRCS) $(FUZZ_CORE_SRCS) -o $@ \
	$(FUZZ_CORE_LIBS)
tests/fuzz/fuzz_policy: $(FUZZ_POLICY_SRCS) $(FUZZ_CORE_DEPS)
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CORE_CFLAGS) $(FUZZ_POLICY_SRCS) $(FUZZ_CORE_SRCS) -o $@ \
	$(FUZZ_CORE_LIBS)
tests/fuzz/fuzz_chkpwd: $(FUZZ_CHKPWD_SRCS) $(srcdir)/pam_module/chkpwd_args.h
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CORE_CFLAGS) $(FUZZ_CHKPWD_SRCS) -o $@
tests/fuzz/fuzz_writer: $(FUZZ_WRITER_SRCS) $(FUZZ_CORE_DEPS)
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CORE_CFLAGS) $(FUZZ_WRITER_SRCS) $(FUZZ_CORE_SRCS) -o $@ \
	$(FUZZ_CORE_LIBS)
CLEANFILES += tests/fuzz/fuzz_parse tests/fuzz/fuzz_shadow tests/fuzz/fuzz_policy \
	tests/fuzz/fuzz_writer tests/fuzz/fuzz_chkpwd
TESTS += tests/fuzz/test_fuzz_parse.sh tests/fuzz/test_fuzz_shadow.sh tests/fuzz/test_fuzz_policy.sh \
	tests/fuzz/test_fuzz_writer.sh tests/fuzz/test_fuzz_chkpwd.sh
tests/fuzz/test_fuzz_parse.sh.log tests/fuzz/test_fuzz_parse.log: tests/fuzz/fuzz_parse
tests/fuzz/test_fuzz_shadow.sh.log tests/fuzz/test_fuzz_shadow.log: tests/fuzz/fuzz_shadow
tests/fuzz/test_fuzz_policy.sh.log tests/fuzz/test_fuzz_policy.log: tests/fuzz/fuzz_policy
tests/fuzz/test_fuzz_writer.sh.log tests/fuzz/test_fuzz_writer.log: tests/fuzz/fuzz_writer
tests/fuzz/test_fuzz_chkpwd.sh.log tests/fuzz/test_fuzz_chkpwd.log: tests/fuzz/fuzz_chkpwd
SOAK_TESTS += tests/fuzz/test_fuzz_parse.sh tests/fuzz/test_fuzz_shadow.sh tests/fuzz/test_fuzz_policy.sh \
	tests/fuzz/test_fuzz_writer.sh tests/fuzz/test_fuzz_chkpwd.sh
FUZZ_SOAK_DEPS = tests/fuzz/fuzz_parse tests/fuzz/fuzz_shadow tests/fuzz/fuzz_policy \
	tests/fuzz/fuzz_writer tests/fuzz/fuzz_chkpwd
if HAVE_DIRSRV
# The plugin's sources need slapi-plugin.h and config.h (they include it
# unconditionally); the two libslapd functions are the target's own.
FUZZ_DS_SRCS = $(srcdir)/tests/fuzz/fuzz_ds_values.c $(srcdir)/ds_plugin/ds_config.c \
	$(srcdir)/ds_plugin/ds_fair.c $(srcdir)/ds_plugin/ds_pending.c $(srcdir)/ds_plugin/ds_schemes.c \
	$(srcdir)/ds_plugin/ds_stats.c
tests/fuzz/fuzz_ds_values: $(FUZZ_DS_SRCS) $(srcdir)/ds_plugin/kdfhash_ds.h $(FUZZ_CORE_DEPS)
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CORE_CFLAGS) $(DIRSRV_CFLAGS) -I$(top_builddir) \
	-I$(top_srcdir)/ds_plugin -I$(top_srcdir)/tests/fuzz $(FUZZ_DS_SRCS) $(FUZZ_CORE_SRCS) \
	-o $@ $(FUZZ_CORE_LIBS)
CLEANFILES += tests/fuzz/fuzz_ds_values
TESTS += tests/fuzz/test_fuzz_ds_values.sh
tests/fuzz/test_fuzz_ds_values.sh.log tests/fuzz/test_fuzz_ds_values.log: tests/fuzz/fuzz_ds_values
SOAK_TESTS += tests/fuzz/test_fuzz_ds_values.sh
FUZZ_SOAK_DEPS += tests/fuzz/fuzz_ds_values
endif
endif
distclean-local: distclean-local-fuzz
distclean-local-fuzz:
	-rm -rf tests/fuzz/fuzz_*.corpus
.PHONY: distclean-local-fuzz

### check-soak, check-valgrind, check-threads
# Outside the fuzz conditional: automake warns on a rule both in and out.
check-soak: all $(FUZZ_SOAK_DEPS)
	@set -e; for t in $(SOAK_TESTS); do echo "== $$t"; $(AM_TESTS_ENVIRONMENT) $(srcdir)/$$t; done
check-soak: export KDF_FUZZ_SECONDS = 600
EXTRA_DIST += tests/check-valgrind.sh tests/valgrind.supp
check-valgrind: $(check_PROGRAMS) $(check_LTLIBRARIES)
	@$(AM_TESTS_ENVIRONMENT) VALGRIND='$(VALGRIND)' LIBTOOL='$(LIBTOOL)' \
	SAN_CFLAGS='$(SAN_CFLAGS)' $(SHELL) $(srcdir)/tests/check-valgrind.sh \
	$(filter $(check_PROGRAMS),$(TESTS))
CLEANFILES += tests/*/*.valgrind.log
# For --enable-sanitizers=thread: the tests whose code under test starts
# threads (test_bcrypt's only drive its differential, and take minutes).
THREADED_TESTS = tests/unit/test_argon2 tests/unit/test_argon2_pool tests/unit/test_workpool \
	tests/unit/test_bcrypt_kat \
	tests/writer/test_upgrade_lock
if HAVE_DIRSRV
THREADED_TESTS += tests/ds/test_ds_plugin tests/ds/test_ds_fair
endif
check-threads:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(THREADED_TESTS)'
.PHONY: check-soak check-valgrind check-threads

# The 389-ds plugin in two real servers in replication on 127.0.0.1 (root,
# 389-ds-base installed; tests/ds/test_ds389.sh says why it skips otherwise).
# Time-boxed: the servers of a hung run are stopped, the stage fails.
KDF_DS_TIMEOUT = 900
DS_PLUGIN_SO = ds_plugin/.libs/libkdfhash-pwdstorage-plugin.so
EXTRA_DIST += tests/ds/test_ds389.sh tests/ds/ds-lib.sh tests/ds/upgrade-cases.sh \
	tests/ds/sssd-cases.sh tests/ds/rollback-cases.sh tests/ds/storm-cases.sh \
	tests/ds/wrap-cases.sh
# check-ds.log keeps its "ds: N passed, M failed" for scripts/summarize.sh.
CLEANFILES += check-ds.log
check-ds: all
	@start=$$(date +%s); rc=0; \
	KDF_PAM_MODULE='$(abs_top_builddir)/pam_module/.libs/pam_kdfhash.so' \
	KDF_CLI='$(abs_top_builddir)/cli/kdfhash' \
	timeout --kill-after=30 $(KDF_DS_TIMEOUT) $(SHELL) $(srcdir)/tests/ds/test_ds389.sh \
		$(DS_PLUGIN_SO) ds_plugin/kdfhash-schemes.ldif >check-ds.log 2>&1 || rc=$$?; \
	cat check-ds.log; \
	echo "check-ds: $$(( $$(date +%s) - start )) s (time box $(KDF_DS_TIMEOUT) s)"; \
	case $$rc in 0|77) exit 0 ;; 124|137) echo "check-ds: over its time box" >&2 ;; esac; \
	exit $$rc
.PHONY: check-ds

# scripts/fresh-root.sh (a new Debian 12 minbase root per run, where CI runs
# the README's two commands) leaves no root copy, mount or process behind
# (root; .ci/run runs it on the host first).
EXTRA_DIST += scripts/fresh-root.sh tests/scripts/test_fresh_root.sh
check-fresh-root:
	$(SHELL) $(srcdir)/tests/scripts/test_fresh_root.sh
.PHONY: check-fresh-root
