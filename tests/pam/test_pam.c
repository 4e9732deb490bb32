/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pam.c - pam_kdfhash.so through the real libpam (doc/DESIGN.md
 * "The PAM module"): a return-code matrix over every scheme, odd names,
 * empty/locked entries, nullok, hostile passwords and bad arguments, each
 * case also checking the module's syslog lines (one line at the expected
 * level per refusal, none holding a password, a hash or an unknown user's
 * name); the first-pass options; the other service functions; and the
 * upgrade hook (file and exec) as seen from a login.
 *
 * Stored hashes come from tests/pam/pam_hashes.inc, made by independent
 * implementations (tests/pam/pam_mkhashes.py).  The host is pam_host.c
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "kdfhash.h"
#include "pam_fixture.h"
#include "pam_host.h"
#include "san_detect.h"

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

/* pam_unix's lines, which the module writes beside its own for a refusal
 * (journal.h): "authentication failure; ..." and "check pass; user
 * unknown".  Counted apart: the matrix's one line is the module's own. */
static int
unix_kind(const char *text)
{
    const char *m = strstr(text, "): ");

    if (m == NULL)
        return 0;
    if (strncmp(m + 3, "authentication failure; ", 24) == 0)
        return 1;
    if (strcmp(m + 3, "check pass; user unknown") == 0)
        return 2;
    return 0;
}

/* The refusals of the user's making: pam_unix's line, with user= unless
 * the user is unknown; then "check pass; user unknown" first. */
static void
check_unix_lines(const struct mcase *c, const char *user, const struct host_log *own)
{
    int refusal = own != NULL && own->prio == LOG_NOTICE &&
                  (c->expect == PAM_AUTH_ERR || c->expect == PAM_USER_UNKNOWN);
    size_t fail = 0, unknown = 0;

    for (size_t i = 0; i < host_log_count(); i++) {
        const char *t = host_log_get(i)->text;

        if (unix_kind(t) == 1) {
            fail++;
            assert_int_equal(host_log_get(i)->prio, LOG_NOTICE);
            if (c->expect == PAM_USER_UNKNOWN)
                assert_null(strstr(t, " user="));
            else if (strstr(t, "  user=") == NULL || strcmp(strstr(t, "  user=") + 7, user) != 0)
                fail_msg("case \"%s\": \"%s\" does not end in \"  user=%s\"", c->what, t,
                         user);
        } else if (unix_kind(t) == 2) {
            unknown++;
        }
    }
    if (fail != (size_t)refusal || unknown != (size_t)(refusal && c->expect == PAM_USER_UNKNOWN))
        fail_msg("case \"%s\": %zu pam_unix failure lines and %zu \"user unknown\", want %d",
                 c->what, fail, unknown, refusal);
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
    /* Secrets no freed block may hold (see pam_host.c): the password (not
     * the one-byte fills, which are no secret and match any 'x' run) and
     * the stored entry's digest end. */
    host_scan_reset();
    host_scan_secret(PW, strlen(PW));
    if (pw_len >= 6 && c->pw.kind != PW_FILL)
        host_scan_secret(pw, pw_len);
    for (int i = 0; i < H_COUNT; i++)
        if (strcmp(user + (strncmp(user, "u_", 2) == 0 ? 2 : 0), g_hash_id[i]) == 0)
            host_scan_secret(g_hash[i] + strlen(g_hash[i]) - 16, 16);
    rc = host_auth(g_dir, user, &conv, c->flags);
    if (host_scan_hits() != 0)
        fail_msg("case \"%s\": %zu freed blocks held a secret", c->what,
                 host_scan_hits());
    if (rc != c->expect)
        fail_msg("case \"%s\": got %d (%s), want %d", c->what, rc, pam_strerror(NULL, rc),
                 c->expect);
    {
        const struct host_log *own = NULL;
        size_t n = 0;

        for (size_t i = 0; i < host_log_count(); i++)
            if (unix_kind(host_log_get(i)->text) == 0) {
                own = host_log_get(i);
                n++;
            }
        if (c->log_prio == NOLOG) {
            if (host_log_count() != 0)
                fail_msg("case \"%s\": unexpected log line \"%s\"", c->what,
                         host_log_get(0)->text);
        } else if (n != 1 || own->prio != c->log_prio) {
            for (size_t i = 0; i < host_log_count(); i++)
                print_error("  log %d: %s\n", host_log_get(i)->prio, host_log_get(i)->text);
            fail_msg("case \"%s\": want one line at level %d, got %zu", c->what,
                     c->log_prio, n);
        }
        check_unix_lines(c, user, own);
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
    if (host_scan_active())
        print_message("[          ] freed blocks scanned for secrets in every case\n");
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
    /* Each over-cap entry costs one verification at the (cheap) target;
     * on valgrind's JIT that is slow, and the bound says nothing. */
    if (RUNNING_ON_VALGRIND)
        print_message("under valgrind: %ld ms (information only)\n",
                      (long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000));
    else
        assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 <
                    2000);
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
    snprintf(l1, sizeof l1, "auth required %%M shadow=%s conf=%s upgrade=off %s",
             g_shadow, g_conf, TARGET);
    snprintf(l2, sizeof l2,
             "auth required %%M shadow=%s conf=%s upgrade=off %s use_first_pass", other,
             g_conf, TARGET);
    host_service(g_dir, lines, 2);
    assert_int_equal(host_auth(g_dir, "u_a2id", &conv, 0), PAM_SUCCESS);
    assert_int_equal(conv.calls, 1);
    conv.pw = WRONG;
    conv.pw_len = strlen(WRONG);
    assert_int_equal(host_auth(g_dir, "u_a2id", &conv, 0), PAM_AUTH_ERR);
    assert_int_equal(conv.calls, 2);
}

/* setcred succeeds; account and session step aside (PAM_IGNORE, so the
 * stack's pam_permit decides); chauthtok is implemented. */
static void
test_other_groups(void **state)
{
    char l[6][2048];
    const char *lines[6];
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    struct pam_conv pc = {host_conv_fn, &conv};
    pam_handle_t *pamh = NULL;
    (void)state;

    snprintf(l[0], sizeof l[0], "auth required %%M shadow=%s conf=%s upgrade=off",
             g_shadow, g_conf);
    snprintf(l[1], sizeof l[1], "account required %%M");
    snprintf(l[2], sizeof l[2], "account required pam_permit.so");
    snprintf(l[3], sizeof l[3], "session required %%M");
    snprintf(l[4], sizeof l[4], "session required pam_permit.so");
    snprintf(l[5], sizeof l[5], "password required %%M shadow=%s conf=%s", g_shadow, g_conf);
    for (int i = 0; i < 6; i++)
        lines[i] = l[i];
    host_service(g_dir, lines, 6);
    assert_int_equal(pam_start_confdir(HOST_SERVICE, "u_bc2b", &pc, g_dir, &pamh),
                     PAM_SUCCESS);
    assert_int_equal(pam_setcred(pamh, PAM_ESTABLISH_CRED), PAM_SUCCESS);
    assert_int_equal(pam_acct_mgmt(pamh, 0), PAM_SUCCESS);
    assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
    assert_int_equal(pam_close_session(pamh, 0), PAM_SUCCESS);
    /* The password group is the module's too (test_pam_chauthtok has the
     * cases): the conversation answers PW to every prompt, so the "new"
     * password is the old one, refused three times, nothing written. */
    host_log_reset();
    assert_int_equal(pam_chauthtok(pamh, PAM_CHANGE_EXPIRED_AUTHTOK), PAM_AUTHTOK_ERR);
    assert_true(host_log_contains("not been changed", 16));
    pam_end(pamh, PAM_SUCCESS);
}

/* The main file, our module alone, upgrade=off, the low-cost target. */
static void
one_module_line(const char *args)
{
    char line[2048];
    const char *lines[1] = {line};
    snprintf(line, sizeof line, "auth required %%M shadow=%s conf=%s upgrade=off %s %s",
             g_shadow, g_conf, TARGET, args);
    host_service(g_dir, lines, 1);
}

/* A failure asks libpam for pam_unix's 2 s delay (which libpam varies by
 * up to half: the mean of three uniform draws, base x [0.5, 1.5]); nodelay
 * asks for none.  Wrong passwords, unknown users
 * and locked entries alike. */
static void
test_fail_delay(void **state)
{
    struct host_conv conv = {WRONG, strlen(WRONG), PAM_SUCCESS, 0};
    static const char *const users[] = {"u_bc2b", "nobody-here", "u_bang_valid"};
    (void)state;

    one_module_line("");
    for (size_t i = 0; i < sizeof users / sizeof users[0]; i++) {
        assert_int_not_equal(host_auth(g_dir, users[i], &conv, 0), PAM_SUCCESS);
        if (host_fail_delay() < 1000000 || host_fail_delay() > 3000000)
            fail_msg("%s: delay %ld us", users[i], host_fail_delay());
    }
    one_module_line("nodelay");
    for (size_t i = 0; i < sizeof users / sizeof users[0]; i++) {
        assert_int_not_equal(host_auth(g_dir, users[i], &conv, 0), PAM_SUCCESS);
        assert_int_equal(host_fail_delay(), 0);
    }
}

/* An event-driven application's conversation: PAM_CONV_AGAIN (not ready
 * yet) user_again times at the user name prompt, pw_again times at the
 * password prompt, then the answer. */
struct again_conv {
    const char *user, *pw;
    int user_again, pw_again;
};

static int
again_conv_fn(int num_msg, const struct pam_message **msg, struct pam_response **resp,
              void *appdata)
{
    struct again_conv *a = appdata;
    const char *answer;
    int *again;

    if (num_msg != 1)
        return PAM_CONV_ERR;
    if (msg[0]->msg_style == PAM_PROMPT_ECHO_ON) {
        answer = a->user;
        again = &a->user_again;
    } else if (msg[0]->msg_style == PAM_PROMPT_ECHO_OFF) {
        answer = a->pw;
        again = &a->pw_again;
    } else {
        return PAM_CONV_ERR;
    }
    if (*again > 0) {
        (*again)--;
        return PAM_CONV_AGAIN;
    }
    *resp = calloc(1, sizeof **resp);
    if (*resp == NULL)
        return PAM_BUF_ERR;
    (*resp)->resp = strdup(answer);
    if ((*resp)->resp == NULL) {
        free(*resp);
        *resp = NULL;
        return PAM_BUF_ERR;
    }
    return PAM_SUCCESS;
}

/* PAM_CONV_AGAIN at the user name or the password prompt: the module
 * answers PAM_INCOMPLETE, as pam_unix does, and logs nothing of its own
 * above LOG_DEBUG for it (nothing failed; libpam itself logs "conversation
 * failed" for the password prompt); the application's next
 * pam_authenticate() resumes the stack at the module and logs in. */
static void
test_conv_again(void **state)
{
    static const int rounds[][2] = {{1, 0}, {0, 1}, {2, 1}};
    (void)state;

    one_module_line("");
    for (size_t i = 0; i < sizeof rounds / sizeof rounds[0]; i++) {
        struct again_conv a = {"u_bc2b", PW, rounds[i][0], rounds[i][1]};
        struct pam_conv pc = {again_conv_fn, &a};
        pam_handle_t *pamh = NULL;

        assert_int_equal(pam_start_confdir(HOST_SERVICE, NULL, &pc, g_dir, &pamh),
                         PAM_SUCCESS);
        for (int k = 0; k < rounds[i][0] + rounds[i][1]; k++) {
            host_log_reset();
            assert_int_equal(pam_authenticate(pamh, 0), PAM_INCOMPLETE);
            for (size_t n = 0; n < host_log_count(); n++) {
                const struct host_log *g = host_log_get(n);
                if (g->prio != LOG_DEBUG && strstr(g->text, "conversation failed") == NULL)
                    fail_msg("round %zu, call %d logged: %s", i, k, g->text);
            }
        }
        assert_int_equal(a.user_again + a.pw_again, 0);
        assert_int_equal(pam_authenticate(pamh, 0), PAM_SUCCESS);
        assert_int_equal(pam_end(pamh, PAM_SUCCESS), PAM_SUCCESS);
    }
}

/* debug adds LOG_DEBUG lines, still without a password or a hash. */
static void
test_debug(void **state)
{
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    (void)state;
    one_module_line("debug");
    assert_int_equal(host_auth(g_dir, "u_a2id", &conv, 0), PAM_SUCCESS);
    assert_true(host_log_count_prio(LOG_DEBUG) >= 1);
    assert_int_equal(host_log_count_prio(LOG_DEBUG), host_log_count());
    assert_false(host_log_contains(PW, strlen(PW)));
    assert_false(host_log_contains(g_hash[H_a2id] + strlen(g_hash[H_a2id]) - 16, 16));
    conv.pw = WRONG;
    conv.pw_len = strlen(WRONG);
    assert_int_equal(host_auth(g_dir, "nosuchuser", &conv, 0), PAM_USER_UNKNOWN);
    /* pam_unix's two lines (journal.h) and ours */
    assert_int_equal(host_log_count_prio(LOG_NOTICE), 3);
    assert_false(host_log_contains("nosuchuser", 10));
    assert_false(host_log_contains(WRONG, strlen(WRONG)));
}

/* Without conf=, a missing KDF_DEFAULT_CONF is the defaults (an
 * explicit missing conf= is PAM_SERVICE_ERR: see the matrix). */
static void
test_default_conf(void **state)
{
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    char line[2048];
    const char *lines[1] = {line};
    (void)state;
    if (access(KDF_DEFAULT_CONF, F_OK) == 0)
        skip(); /* an installed conf is the admin's, not this test's */
    snprintf(line, sizeof line, "auth required %%M shadow=%s upgrade=off", g_shadow);
    host_service(g_dir, lines, 1);
    assert_int_equal(host_auth(g_dir, "u_phc512", &conv, 0), PAM_SUCCESS);
    assert_int_equal(host_log_count(), 0);
}

/* The Argon2 work area cannot be had (RLIMIT_AS below the entry's 64 MiB):
 * PAM_BUF_ERR, no crash.  Run in a child, whose limit does not matter. */
static void
test_nomem(void **state)
{
    if (kdf_test_emulated()) {
        print_message("%s\n", KDF_EMULATED_WHY);
        skip();
    }
#ifdef KDF_UNDER_ASAN
    (void)state;
    skip(); /* ASan reserves terabytes of address space: RLIMIT_AS cannot apply */
#else
    int status;
    pid_t pid;
    (void)state;

    if (RUNNING_ON_VALGRIND) {
        /* Memcheck maps shadow memory for every mapping the module's load
         * makes, inside the same RLIMIT_AS: the margin below would measure
         * valgrind, not the module (the plain run tests it). */
        print_message("under valgrind: RLIMIT_AS limits memcheck's shadow memory too\n");
        skip();
    }
    one_module_line("");
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
        struct rlimit rl;
        long pages = 0;
        FILE *f = fopen("/proc/self/statm", "r");
        if (f == NULL || fscanf(f, "%ld", &pages) != 1)
            _exit(100);
        fclose(f);
        /* What the process maps now, plus 32 MiB for libpam, the module
         * and a thread: half of what the entry needs. */
        rl.rlim_cur = rl.rlim_max =
            (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (32u << 20);
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(101);
        _exit(host_auth(g_dir, "u_a2id_64m", &conv, 0));
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), PAM_BUF_ERR);
#endif
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
        cmocka_unit_test(test_fail_delay),
        cmocka_unit_test(test_conv_again),
        cmocka_unit_test(test_debug),
        cmocka_unit_test(test_default_conf),
        cmocka_unit_test(test_nomem),
        cmocka_unit_test(test_upgrade_file),
        cmocka_unit_test(test_upgrade_untouched),
        cmocka_unit_test(test_upgrade_truncating),
        cmocka_unit_test(test_wrapped_unwrap),
        cmocka_unit_test(test_wrapped_des_locked_migrate),
        cmocka_unit_test(test_upgrade_failure),
        cmocka_unit_test(test_upgrade_exec),
        cmocka_unit_test(test_upgrade_lock_busy),
        cmocka_unit_test(test_degraded_no_upgrade),
        cmocka_unit_test(test_degraded_stand_ins),
        cmocka_unit_test(test_xcrypt_only_root),
        cmocka_unit_test(test_xcrypt_only_none),
        cmocka_unit_test(test_xcrypt_only_group),
        cmocka_unit_test(test_keyed_rotation),
        cmocka_unit_test(test_keyed_bad_pepper),
        cmocka_unit_test(test_keyed_tpm_child),
        cmocka_unit_test(test_keyed_admins),
        cmocka_unit_test(test_form_pam_unix_entries),
        cmocka_unit_test(test_form_at_target),
        cmocka_unit_test(test_form_xcrypt_only),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
