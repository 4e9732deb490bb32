/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pam.c - pam_kdfhash.so through the real libpam (reliability.md tests
 * 8, 9, 22 in part): a return-code matrix over every scheme, odd names,
 * empty/locked entries, nullok, hostile passwords and bad arguments, each
 * case also checking the module's syslog lines (one line at the expected
 * level per refusal, none holding a password, a hash or an unknown user's
 * name); the first-pass options; the other service functions; and the
 * upgrade hook (file and exec) as seen from a login.
 *
 * Stored hashes come from tests/pam_hashes.inc, made by independent
 * implementations (tests/pam_mkhashes.py).  The host is pam_host.c
 * (pam_start_confdir, no root, no preload).
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pam_fixture.h"
#include "pam_host.h"

static const char *
case_user(const char *u)
{
    if (strcmp(u, "@256") == 0)
        return g_name256;
    if (strcmp(u, "@255") == 0)
        return g_name255;
    if (strcmp(u, "@257") == 0)
        return g_name257;
    return u;
}

static void
case_shadow(const char *which, char *out, size_t cap)
{
    if (which == S_MAIN) {
        snprintf(out, cap, "%s", g_shadow);
    } else if (strcmp(which, S_MISSING) == 0) {
        snprintf(out, cap, "%s/nodir/shadow", g_dir);
    } else if (strcmp(which, S_DIR) == 0) {
        snprintf(out, cap, "%s", g_dir);
    } else {
        snprintf(out, cap, "%s/link", g_dir);
        unlink(out);
        assert_int_equal(symlink(g_shadow, out), 0);
    }
}

/* Secrets and names that must never reach a log line. */
static void
check_log_hygiene(const struct mcase *c, const char *user, const char *pw, size_t pw_len)
{
    if (pw_len >= 4)
        assert_false(host_log_contains(pw, pw_len > 64 ? 64 : pw_len));
    assert_false(host_log_contains(PW, strlen(PW)));
    for (int i = 0; i < H_COUNT; i++) {
        /* The digest end of every stored hash (salt + digest text). */
        size_t n = strlen(g_hash[i]);
        assert_false(host_log_contains(g_hash[i] + n - 16, 16));
    }
    if (c->expect == PAM_USER_UNKNOWN && strlen(user) >= 3)
        assert_false(host_log_contains(user, strlen(user)));
}

static void
run_case(const struct mcase *c)
{
    char shadow[600], line[2048];
    const char *lines[1];
    const char *user = case_user(c->user);
    struct host_conv conv;
    size_t pw_len;
    char *pw = make_pw(&c->pw, &pw_len);
    int rc;

    case_shadow(c->shadow, shadow, sizeof shadow);
    snprintf(line, sizeof line, "auth required %%M shadow=%s conf=%s upgrade=off %s %s",
             shadow, g_conf, TARGET, c->args);
    lines[0] = line;
    host_service(g_dir, lines, 1);

    memset(&conv, 0, sizeof conv);
    conv.pw = pw;
    conv.pw_len = pw_len;
    conv.rc = c->conv_rc;
    rc = host_auth(g_dir, user, &conv, c->flags);
    if (rc != c->expect)
        fail_msg("case \"%s\": got %d (%s), want %d", c->what, rc, pam_strerror(NULL, rc),
                 c->expect);
    if (c->log_prio == NOLOG) {
        if (host_log_count() != 0)
            fail_msg("case \"%s\": unexpected log line \"%s\"", c->what,
                     host_log_get(0)->text);
    } else if (host_log_count() != 1 || host_log_get(0)->prio != c->log_prio) {
        for (size_t i = 0; i < host_log_count(); i++)
            print_error("  log %d: %s\n", host_log_get(i)->prio, host_log_get(i)->text);
        fail_msg("case \"%s\": want one line at level %d, got %zu", c->what, c->log_prio,
                 host_log_count());
    }
    check_log_hygiene(c, user, pw, pw_len);
    /* Every case prompts exactly once (unknown users too: no oracle before
     * the prompt), except where the arguments are refused first. */
    if (c->expect != PAM_SERVICE_ERR)
        assert_int_equal(conv.calls, 1);
    explicit_bzero(pw, pw_len);
    free(pw);
}

static void
test_matrix(void **state)
{
    size_t n = g_ncases;
    (void)state;
    assert_true(n >= 40);
    for (size_t i = 0; i < n; i++)
        run_case(&g_cases[i]);
    print_message("[          ] %zu return-code cases\n", n);
}

/* The over-cap refusals happen before any work: a 1000-lane Argon2 or a
 * 10^8-round PBKDF2 would take far longer than this. */
static void
test_caps_are_fast(void **state)
{
    struct timespec t0, t1;
    (void)state;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    run_case(&g_cases[0 + 0]); /* warm up the service file path */
    for (size_t i = 0; i < g_ncases; i++)
        if (strncmp(g_cases[i].what, "over-cap", 8) == 0)
            run_case(&g_cases[i]);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 2000);
}

/* ---- first-pass options and stacking ------------------------------------ */

/* preset NULL: our module alone; else pam_settok.so sets PAM_AUTHTOK to
 * preset first, standing for an earlier module that asked already. */
static int
first_pass(const char *args, const char *preset, struct host_conv *conv)
{
    char l0[256], l1[2048];
    const char *lines[2] = {l0, l1};
    snprintf(l0, sizeof l0, "auth required %%T authtok=%s", preset ? preset : "");
    snprintf(l1, sizeof l1, "auth required %%M shadow=%s conf=%s upgrade=off %s %s",
             g_shadow, g_conf, TARGET, args);
    if (preset != NULL)
        host_service(g_dir, lines, 2);
    else
        host_service(g_dir, lines + 1, 1);
    conv->calls = 0;
    return host_auth(g_dir, "u_a2id", conv, 0);
}

static void
test_first_pass(void **state)
{
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    (void)state;

    /* use_first_pass: the earlier password or nothing, never a prompt. */
    assert_int_equal(first_pass("use_first_pass", PW, &conv), PAM_SUCCESS);
    assert_int_equal(conv.calls, 0);
    assert_int_equal(first_pass("use_first_pass", WRONG, &conv), PAM_AUTH_ERR);
    assert_int_equal(conv.calls, 0);
    assert_int_equal(first_pass("use_first_pass", NULL, &conv), PAM_AUTH_ERR);
    assert_int_equal(conv.calls, 0);
    assert_int_equal(host_log_count(), 1);
    assert_int_equal(host_log_get(0)->prio, LOG_NOTICE);

    /* try_first_pass: the earlier password when there is one, else ask. */
    assert_int_equal(first_pass("try_first_pass", PW, &conv), PAM_SUCCESS);
    assert_int_equal(conv.calls, 0);
    assert_int_equal(first_pass("try_first_pass", WRONG, &conv), PAM_AUTH_ERR);
    assert_int_equal(conv.calls, 0);
    assert_int_equal(first_pass("try_first_pass", NULL, &conv), PAM_SUCCESS);
    assert_int_equal(conv.calls, 1);

    /* Neither option: always ask, whatever an earlier module left. */
    assert_int_equal(first_pass("", WRONG, &conv), PAM_SUCCESS);
    assert_int_equal(conv.calls, 1);
}

/* The first module prompts and publishes PAM_AUTHTOK; the second, with
 * use_first_pass, uses it against another file without prompting. */
static void
test_stacked(void **state)
{
    char l1[2048], l2[2048], other[600];
    const char *lines[2] = {l1, l2};
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    char *text;
    (void)state;

    snprintf(other, sizeof other, "%s/other", g_dir);
    if (asprintf(&text, "u_a2id:%s:19000::::::\n", g_hash[H_phc512]) < 0)
        fail();
    host_write(other, text, strlen(text));
    free(text);
    snprintf(l1, sizeof l1, "auth required %%M shadow=%s conf=%s upgrade=off %s", g_shadow,
             g_conf, TARGET);
    snprintf(l2, sizeof l2, "auth required %%M shadow=%s conf=%s upgrade=off %s use_first_pass",
             other, g_conf, TARGET);
    host_service(g_dir, lines, 2);
    assert_int_equal(host_auth(g_dir, "u_a2id", &conv, 0), PAM_SUCCESS);
    assert_int_equal(conv.calls, 1);
    conv.pw = WRONG;
    conv.pw_len = strlen(WRONG);
    assert_int_equal(host_auth(g_dir, "u_a2id", &conv, 0), PAM_AUTH_ERR);
    assert_int_equal(conv.calls, 2);
}

/* setcred succeeds; account and session step aside (PAM_IGNORE, so the
 * stack's pam_permit decides); chauthtok is refused (MWG). */
static void
test_other_groups(void **state)
{
    char l[6][2048];
    const char *lines[6];
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    struct pam_conv pc = {host_conv_fn, &conv};
    pam_handle_t *pamh = NULL;
    (void)state;

    snprintf(l[0], sizeof l[0], "auth required %%M shadow=%s conf=%s upgrade=off", g_shadow,
             g_conf);
    snprintf(l[1], sizeof l[1], "account required %%M");
    snprintf(l[2], sizeof l[2], "account required pam_permit.so");
    snprintf(l[3], sizeof l[3], "session required %%M");
    snprintf(l[4], sizeof l[4], "session required pam_permit.so");
    snprintf(l[5], sizeof l[5], "password required %%M");
    for (int i = 0; i < 6; i++)
        lines[i] = l[i];
    host_service(g_dir, lines, 6);
    assert_int_equal(pam_start_confdir(HOST_SERVICE, "u_bc2b", &pc, g_dir, &pamh),
                     PAM_SUCCESS);
    assert_int_equal(pam_setcred(pamh, PAM_ESTABLISH_CRED), PAM_SUCCESS);
    assert_int_equal(pam_acct_mgmt(pamh, 0), PAM_SUCCESS);
    assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
    assert_int_equal(pam_close_session(pamh, 0), PAM_SUCCESS);
    host_log_reset();
    assert_int_not_equal(pam_chauthtok(pamh, 0), PAM_SUCCESS);
    assert_true(host_log_count_prio(LOG_ERR) >= 1);
    pam_end(pamh, PAM_SUCCESS);
}

/* ---- upgrades seen from a login ----------------------------------------- */

/* A private copy of the main file for one upgrade test. */
static void
copy_main(const char *to)
{
    size_t n;
    char *b = host_read(g_shadow, &n);
    host_write(to, b, n);
    free(b);
}

/* Field 2 of user's line in file (malloc'd), NULL when absent. */
static char *
field2(const char *file, const char *user)
{
    char *b = host_read(file, NULL), *r = NULL;
    size_t ul = strlen(user);
    for (char *line = b; line != NULL && *line;) {
        char *nl = strchr(line, '\n');
        if (strncmp(line, user, ul) == 0 && line[ul] == ':') {
            char *f = line + ul + 1;
            size_t fl = strcspn(f, ":\r\n");
            r = strndup(f, fl);
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(b);
    return r;
}

static void
upgrade_service(const char *file, const char *args)
{
    char line[2048];
    const char *lines[1] = {line};
    snprintf(line, sizeof line, "auth required %%M shadow=%s conf=%s %s %s", file, g_conf,
             TARGET, args);
    host_service(g_dir, lines, 1);
}

static const enum hash_id g_outdated[] = {
    H_bc2b, H_bc2a, H_bc2y, H_bc2x, H_a2i, H_a2d, H_a2id_v16, H_pbk1, H_pbk256, H_pbk512,
    H_phc1, H_phc256, H_phc512, H_dj256, H_dj1, H_sha512c, H_yescrypt, H_md5c,
};

static void
test_upgrade_file(void **state)
{
    char file[600], user[64];
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    size_t before_len, after_len;
    (void)state;

    snprintf(file, sizeof file, "%s/up_shadow", g_dir);
    copy_main(file);
    upgrade_service(file, "upgrade=file");
    for (size_t i = 0; i < sizeof g_outdated / sizeof g_outdated[0]; i++) {
        enum hash_id id = g_outdated[i];
        char *before = host_read(file, &before_len), *after, *nh;

        snprintf(user, sizeof user, "u_%s", g_hash_id[id]);
        conv.pw = PW;
        conv.pw_len = strlen(PW);
        /* A wrong password never upgrades. */
        conv.pw = WRONG;
        conv.pw_len = strlen(WRONG);
        assert_int_equal(host_auth(g_dir, user, &conv, 0), PAM_AUTH_ERR);
        after = host_read(file, &after_len);
        assert_int_equal(before_len, after_len);
        assert_memory_equal(before, after, before_len);
        free(after);

        conv.pw = PW;
        conv.pw_len = strlen(PW);
        assert_int_equal(host_auth(g_dir, user, &conv, 0), PAM_SUCCESS);
        if (host_log_count_prio(LOG_NOTICE) != 1 || host_log_count() != 1)
            fail_msg("%s: want one notice, got %zu lines (%s)", user, host_log_count(),
                     host_log_count() ? host_log_get(0)->text : "");
        nh = field2(file, user);
        assert_non_null(nh);
        if (strncmp(nh, TARGET_PREFIX, strlen(TARGET_PREFIX)) != 0)
            fail_msg("%s: not upgraded: %s", user, nh);
        /* Only field 2 of that line changed. */
        after = host_read(file, &after_len);
        assert_int_equal(after_len, before_len - strlen(g_hash[id]) + strlen(nh));
        {
            const char *p = strstr(before, g_hash[id]);
            size_t off = (size_t)(p - before);
            assert_non_null(p);
            assert_memory_equal(before, after, off);
            assert_memory_equal(after + off, nh, strlen(nh));
            assert_string_equal(p + strlen(g_hash[id]), after + off + strlen(nh));
        }
        /* The next login succeeds with the new hash and changes nothing. */
        assert_int_equal(host_auth(g_dir, user, &conv, 0), PAM_SUCCESS);
        assert_int_equal(host_log_count(), 0);
        free(before);
        free(after);
        free(nh);
    }
    unlink(file);
}

/* Equal or stronger hashes, upgrade=off and the 72-byte bcrypt rule leave
 * the file byte for byte as it was. */
static void
test_upgrade_untouched(void **state)
{
    char file[600];
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    size_t n0, n1;
    char *b0, *b1, *x73 = malloc(74);
    (void)state;

    snprintf(file, sizeof file, "%s/keep_shadow", g_dir);
    copy_main(file);
    b0 = host_read(file, &n0);
    upgrade_service(file, "upgrade=file");
    assert_int_equal(host_auth(g_dir, "u_a2id_target", &conv, 0), PAM_SUCCESS);
    assert_int_equal(host_log_count(), 0);
    assert_int_equal(host_auth(g_dir, "u_a2id_strong", &conv, 0), PAM_SUCCESS);
    assert_int_equal(host_log_count(), 0);
    memset(x73, 'x', 73);
    x73[73] = '\0';
    conv.pw = x73;
    conv.pw_len = 73;
    assert_int_equal(host_auth(g_dir, "u_pw72", &conv, 0), PAM_SUCCESS);
    assert_int_equal(host_log_count(), 1);
    assert_int_equal(host_log_get(0)->prio, LOG_NOTICE);
    assert_non_null(strstr(host_log_get(0)->text, "skipped"));
    conv.pw = PW;
    conv.pw_len = strlen(PW);
    upgrade_service(file, "upgrade=off");
    assert_int_equal(host_auth(g_dir, "u_bc2b", &conv, 0), PAM_SUCCESS);
    assert_int_equal(host_log_count(), 0);
    b1 = host_read(file, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(b0, b1, n0);
    free(b0);
    free(b1);
    free(x73);
    unlink(file);
}

/* A failing upgrade never changes the login: hard-linked file (refused by
 * the writer) and a failing exec hook give PAM_SUCCESS + one warning. */
static void
test_upgrade_failure(void **state)
{
    char file[600], link2[600], hook[600];
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    size_t n0, n1;
    char *b0, *b1;
    (void)state;

    snprintf(file, sizeof file, "%s/fail_shadow", g_dir);
    snprintf(link2, sizeof link2, "%s/fail_shadow2", g_dir);
    copy_main(file);
    assert_int_equal(link(file, link2), 0);
    b0 = host_read(file, &n0);
    upgrade_service(file, "upgrade=file");
    assert_int_equal(host_auth(g_dir, "u_bc2b", &conv, 0), PAM_SUCCESS);
    assert_int_equal(host_log_count(), 1);
    assert_int_equal(host_log_get(0)->prio, LOG_WARNING);
    b1 = host_read(file, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(b0, b1, n0);
    free(b1);
    unlink(link2);

    snprintf(hook, sizeof hook, "upgrade=exec:/bin/false");
    upgrade_service(file, hook);
    assert_int_equal(host_auth(g_dir, "u_pbk256", &conv, 0), PAM_SUCCESS);
    assert_int_equal(host_log_count(), 1);
    assert_int_equal(host_log_get(0)->prio, LOG_WARNING);
    b1 = host_read(file, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(b0, b1, n0);
    free(b0);
    free(b1);
    unlink(file);
}

/* The exec hook gets the user as argv[1] and "old\nnew\n" on stdin; the
 * shadow file is not touched by the module itself. */
static void
test_upgrade_exec(void **state)
{
    char script[600], out[600], args[700], *text, *got, *nl;
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    size_t n0, n1;
    char *b0, *b1;
    (void)state;

    snprintf(script, sizeof script, "%s/hook.sh", g_dir);
    snprintf(out, sizeof out, "%s/hook.out", g_dir);
    if (asprintf(&text, "#!/bin/sh\nprintf '%%s\\n' \"$1\" > %s\ncat >> %s\nexit 0\n", out,
                 out) < 0)
        fail();
    host_write(script, text, strlen(text));
    free(text);
    assert_int_equal(chmod(script, 0700), 0);
    b0 = host_read(g_shadow, &n0);
    snprintf(args, sizeof args, "upgrade=exec:%s", script);
    upgrade_service(g_shadow, args);
    assert_int_equal(host_auth(g_dir, "u_dj256", &conv, 0), PAM_SUCCESS);
    assert_int_equal(host_log_count(), 1);
    assert_int_equal(host_log_get(0)->prio, LOG_NOTICE);
    got = host_read(out, NULL);
    nl = strchr(got, '\n');
    assert_non_null(nl);
    assert_memory_equal(got, "u_dj256\n", 8);
    assert_memory_equal(got + 8, g_hash[H_dj256], strlen(g_hash[H_dj256]));
    assert_int_equal(got[8 + strlen(g_hash[H_dj256])], '\n');
    assert_memory_equal(got + 9 + strlen(g_hash[H_dj256]), TARGET_PREFIX,
                        strlen(TARGET_PREFIX));
    b1 = host_read(g_shadow, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(b0, b1, n0);
    free(got);
    free(b0);
    free(b1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix),
        cmocka_unit_test(test_caps_are_fast),
        cmocka_unit_test(test_first_pass),
        cmocka_unit_test(test_stacked),
        cmocka_unit_test(test_other_groups),
        cmocka_unit_test(test_upgrade_file),
        cmocka_unit_test(test_upgrade_untouched),
        cmocka_unit_test(test_upgrade_failure),
        cmocka_unit_test(test_upgrade_exec),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}

