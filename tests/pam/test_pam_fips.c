/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pam_fips.c - profile = fips through the real libpam.  A module whose
 * self-test fails (a test build of it, tests/pam/fipsfail_hook.c) steps
 * aside with one LOG_CRIT line, however often the stack names it, and the
 * next module of the stack (here the module itself, as pam_unix would)
 * decides: the right password logs in, a wrong one does not; root's
 * password reset is written by libxcrypt instead.  Under fips an
 * Argon2 entry still verifies, is logged as not FIPS-approved and moves to
 * the PBKDF2-SHA-512 target.  A kernel in FIPS mode (the test build's
 * fips_enabled file) with another profile gets one LOG_NOTICE line.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "pam_host.h"
#define PAM_HASHES_STATIC_TABLE
#include "pam_hashes.h"

#ifndef KDF_PAM_FIPSFAIL
#error "KDF_PAM_FIPSFAIL (the test build of the module) must be defined"
#endif

#define PW "S3cret-p4ss!"
#define FIPS_CONF                                                                          \
    "target = pbkdf2-sha512 i=1000\nmin.pbkdf2-sha512 = 1000\nprofile = fips\n"

static char *g_dir;
static char g_file[600], g_conf[600];

static void
write_text(const char *path, const char *text, mode_t mode)
{
    host_write(path, text, strlen(text));
    chmod(path, mode);
}

static void
write_shadow(const char *hash)
{
    char buf[2048];

    snprintf(buf, sizeof buf, "alice:%s:19000:0:99999:7:::\n", hash);
    write_text(g_file, buf, 0640);
}

/* The service: n lines, %F standing for the failing module, %A for the
 * shadow= and conf= arguments. */
static void
stack(const char *const *rows, size_t n)
{
    char l[4][2048];
    const char *lines[4] = {l[0], l[1], l[2], l[3]};

    assert_true(n <= 4);
    for (size_t i = 0; i < n; i++) {
        char args[1300];
        const char *r = rows[i];
        size_t o = 0;

        snprintf(args, sizeof args, "shadow=%s conf=%s", g_file, g_conf);
        for (; *r != '\0' && o + 1 < sizeof l[i]; r++) {
            const char *sub = NULL;

            if (r[0] == '%' && r[1] == 'F')
                sub = KDF_PAM_FIPSFAIL;
            else if (r[0] == '%' && r[1] == 'A')
                sub = args;
            if (sub != NULL) {
                o += (size_t)snprintf(l[i] + o, sizeof l[i] - o, "%s", sub);
                r++;
            } else {
                l[i][o++] = *r;
            }
        }
        assert_true(o < sizeof l[i]);
        l[i][o] = '\0';
    }
    host_service(g_dir, lines, n);
}

static int
login(const char *pw)
{
    struct host_conv c = {.pw = pw, .pw_len = strlen(pw)};

    return host_auth(g_dir, "alice", &c, 0);
}

static size_t
lines_with(int prio, const char *needle)
{
    size_t n = 0;

    for (size_t i = 0; i < host_log_count(); i++) {
        const struct host_log *g = host_log_get(i);
        if (g->prio == prio && strstr(g->text, needle) != NULL)
            n++;
    }
    return n;
}

/* The test: a self-test forced to fail steps aside, locking no one out. */
static void
test_selftest_failure_steps_aside(void **state)
{
    static const char *const rows[] = {"auth required %F %A upgrade=off",
                                       "auth required %F %A upgrade=off",
                                       "auth required %M %A upgrade=off"};

    (void)state;
    write_text(g_conf, FIPS_CONF, 0644);
    write_shadow(g_hash[H_pbk512]);
    stack(rows, 3);
    assert_int_equal(login(PW), PAM_SUCCESS);
    /* Logged once, though the failing module was asked twice. */
    assert_int_equal(lines_with(LOG_CRIT, "profile = fips: self-test hmac-sha256 failed"), 1);
    assert_int_equal(lines_with(LOG_CRIT, "steps aside (PAM_IGNORE)"), 1);
    assert_int_equal(host_log_count_prio(LOG_CRIT), 1);
    /* Stepping aside is no way in: the next module refuses a wrong one. */
    assert_int_equal(login("wrong-" PW), PAM_AUTH_ERR);
    assert_int_equal(lines_with(LOG_NOTICE, "authentication failure for alice"), 1);
}

/* A password change with a failed self-test: our algorithms are refused,
 * and root's reset is written by libxcrypt (yescrypt), as in degraded
 * mode: root can still reset a password. */
static void
test_selftest_failure_change(void **state)
{
    static const char *const rows[] = {"password required %F %A"};
    struct host_conv c = {.pw = "N3w-pass-phrase", .pw_len = 15};
    struct pam_conv conv = {host_conv_fn, &c};
    pam_handle_t *pamh = NULL;
    char *after;
    int rc;

    (void)state;
    if (getuid() != 0)
        skip(); /* a user's own change asks for the old password first */
    write_text(g_conf, FIPS_CONF, 0644);
    write_shadow(g_hash[H_pbk512]);
    stack(rows, 1);
    host_log_reset();
    assert_int_equal(pam_start_confdir(HOST_SERVICE, "alice", &conv, g_dir, &pamh),
                     PAM_SUCCESS);
    rc = pam_chauthtok(pamh, 0);
    assert_int_equal(pam_end(pamh, rc), PAM_SUCCESS);
    assert_int_equal(rc, PAM_SUCCESS);
    assert_int_equal(lines_with(LOG_CRIT, "profile = fips: self-test hmac-sha256 failed"), 1);
    after = host_read(g_file, NULL);
    if (strncmp(after, "alice:$y$", 9) != 0)
        fail_msg("not written by libxcrypt: %.40s", after);
    free(after);
}

/* With nothing after it, a module that steps aside decides nothing: libpam
 * refuses a stack where every module ignored the request. */
static void
test_selftest_failure_alone(void **state)
{
    static const char *const rows[] = {"auth required %F %A"};

    (void)state;
    write_text(g_conf, FIPS_CONF, 0644);
    write_shadow(g_hash[H_pbk512]);
    stack(rows, 1);
    assert_int_not_equal(login(PW), PAM_SUCCESS);
    assert_int_equal(lines_with(LOG_CRIT, "self-test hmac-sha256 failed"), 1);
}

/* An Argon2 entry verifies under fips, is named, and moves to the target. */
static void
test_other_scheme_moves(void **state)
{
    static const char *const rows[] = {"auth required %M %A"};
    size_t n;
    char *text;

    (void)state;
    write_text(g_conf, FIPS_CONF, 0644);
    write_shadow(g_hash[H_a2id]);
    stack(rows, 1);
    assert_int_equal(login(PW), PAM_SUCCESS);
    assert_int_equal(lines_with(LOG_NOTICE, "alice verified with argon2id, not FIPS-approved"),
                     1);
    assert_int_equal(lines_with(LOG_NOTICE, "upgraded alice from argon2id to pbkdf2-sha512"),
                     1);
    text = host_read(g_file, &n);
    assert_non_null(strstr(text, "alice:$pbkdf2-sha512$1000$"));
    free(text);
    /* Moved: the next login says nothing of FIPS. */
    assert_int_equal(login(PW), PAM_SUCCESS);
    assert_int_equal(lines_with(LOG_NOTICE, "FIPS"), 0);
}

/* The kernel in FIPS mode and another profile: one notice. */
static void
test_fips_enabled_notice(void **state)
{
    static const char *const rows[] = {"auth required %F %A upgrade=off",
                                       "auth required %F %A upgrade=off"};

    (void)state;
    write_text(g_conf, "target = pbkdf2-sha512 i=1000\nmin.pbkdf2-sha512 = 1000\n", 0644);
    write_shadow(g_hash[H_pbk512]);
    stack(rows, 2);
    write_text(KDF_PAM_FIPS_FILE, "0\n", 0644);
    assert_int_equal(login(PW), PAM_SUCCESS);
    assert_int_equal(lines_with(LOG_NOTICE, "fips_enabled = 1"), 0);
    write_text(KDF_PAM_FIPS_FILE, "1\n", 0644);
    assert_int_equal(login(PW), PAM_SUCCESS);
    assert_int_equal(lines_with(LOG_NOTICE, "the kernel runs in FIPS mode (fips_enabled = 1) "
                                            "and the policy's profile is not fips"),
                     1);
    /* Not a self-test failure: the profile is not fips, none ran. */
    assert_int_equal(host_log_count_prio(LOG_CRIT), 0);
    /* Under fips, no notice. */
    write_text(g_conf, FIPS_CONF, 0644);
    stack((const char *const[]){"auth required %M %A upgrade=off"}, 1);
    assert_int_equal(login(PW), PAM_SUCCESS);
    assert_int_equal(lines_with(LOG_NOTICE, "fips_enabled"), 0);
    unlink(KDF_PAM_FIPS_FILE);
}

static int
setup(void **state)
{
    (void)state;
    g_dir = host_tmpdir();
    snprintf(g_file, sizeof g_file, "%s/shadow", g_dir);
    snprintf(g_conf, sizeof g_conf, "%s/kdfhash.conf", g_dir);
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    host_rmtree(g_dir);
    free(g_dir);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_selftest_failure_steps_aside),
        cmocka_unit_test(test_selftest_failure_change),
        cmocka_unit_test(test_selftest_failure_alone),
        cmocka_unit_test(test_other_scheme_moves),
        cmocka_unit_test(test_fips_enabled_notice),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
