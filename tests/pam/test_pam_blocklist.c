/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pam_blocklist.c - the compromised-password list through the real
 * libpam (pam_start_confdir): a change to a listed password refused with
 * pam_pwquality's words (a user), warned about and allowed (root); a login
 * with a listed password succeeds and the account group then answers
 * PAM_NEW_AUTHTOK_REQD, with a LOG_NOTICE line; an unlisted one is left
 * alone; a missing or group-writable list is a LOG_ERR, never a refused
 * login, and a change is allowed (blocklist-missing = allow) or refused
 * (refuse).  The list is built by the CLI (top_builddir/cli/kdfhash).
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

#define PW "S3cret-p4ss!" /* alice's password, listed in g_list */
#define LISTED "listed-Pw-2024"
#define NEWPW "n3w-Secret-pw"
#define TARGET "target=argon2id:m=256,t=1,p=1"
#define EXPIRED PAM_CHANGE_EXPIRED_AUTHTOK

static char *g_dir;
static char g_file[600], g_conf[600], g_list[600], g_unlisted[600];

/* Prompts answered in order; every error message kept. */
struct script {
    const char *answers[8];
    int n;
    char errors[2048];
};

static int
script_conv(int num_msg, const struct pam_message **msg, struct pam_response **resp,
            void *appdata)
{
    struct script *s = appdata;
    struct pam_response *r = calloc((size_t)num_msg, sizeof *r);

    if (r == NULL)
        return PAM_BUF_ERR;
    for (int i = 0; i < num_msg; i++) {
        if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF) {
            if (s->n >= 8 || s->answers[s->n] == NULL) {
                for (int j = 0; j < i; j++)
                    free(r[j].resp);
                free(r);
                return PAM_CONV_ERR;
            }
            r[i].resp = strdup(s->answers[s->n++]);
        } else if (msg[i]->msg_style == PAM_ERROR_MSG) {
            strncat(s->errors, msg[i]->msg, sizeof s->errors - strlen(s->errors) - 2);
            strcat(s->errors, "\n");
        }
    }
    *resp = r;
    return PAM_SUCCESS;
}

/* A built list of the passwords in text (one a line), at path. */
static void
build_list(const char *path, const char *text)
{
    const char *top = getenv("top_builddir");
    char cmd[2048];
    FILE *f;

    assert_non_null(top);
    snprintf(cmd, sizeof cmd, "'%s/cli/kdfhash' blocklist build -o '%s' - >/dev/null", top,
             path);
    f = popen(cmd, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(pclose(f), 0);
}

static void
conf(const char *text)
{
    host_write(g_conf, text, strlen(text));
    chmod(g_conf, 0644);
}

static void
list_conf(const char *list, const char *missing)
{
    char buf[1536];

    snprintf(buf, sizeof buf, "blocklist = %s\nblocklist-missing = %s\n", list, missing);
    conf(buf);
}

static void
write_shadow(void)
{
    char buf[2048];
    int n = snprintf(buf, sizeof buf, "alice:%s:19000:0:99999:7:::\n", g_hash[H_a2id_target]);

    host_write(g_file, buf, (size_t)n);
    chmod(g_file, 0640);
}

static int
setup(void **state)
{
    char l[4][2048];
    const char *lines[4] = {l[0], l[1], l[2], l[3]};

    (void)state;
    g_dir = host_tmpdir();
    snprintf(g_file, sizeof g_file, "%s/shadow", g_dir);
    snprintf(g_conf, sizeof g_conf, "%s/kdfhash.conf", g_dir);
    snprintf(g_list, sizeof g_list, "%s/listed.blk", g_dir);
    snprintf(g_unlisted, sizeof g_unlisted, "%s/unlisted.blk", g_dir);
    build_list(g_list, "123456\n" PW "\n" LISTED "\n");
    build_list(g_unlisted, "123456\n" LISTED "\n");
    snprintf(l[0], sizeof l[0], "auth required %%M shadow=%s conf=%s %s", g_file, g_conf,
             TARGET);
    snprintf(l[1], sizeof l[1], "account required %%M");
    snprintf(l[2], sizeof l[2], "account required pam_permit.so");
    snprintf(l[3], sizeof l[3], "password required %%M shadow=%s conf=%s %s", g_file, g_conf,
             TARGET);
    host_service(g_dir, lines, 4);
    return 0;
}

static int
teardown(void **state)
{
    char bak[700];

    (void)state;
    snprintf(bak, sizeof bak, "%s-", g_file);
    unlink(bak);
    unlink(g_file);
    unlink(g_conf);
    unlink(g_list);
    unlink(g_unlisted);
    host_rmtree(g_dir);
    free(g_dir);
    return 0;
}

static int
per_test(void **state)
{
    (void)state;
    write_shadow();
    chmod(g_list, 0644);
    return 0;
}

/* pam_authenticate then pam_acct_mgmt in one handle, as login and su do:
 * the results in *auth and *acct. */
static void
login(const char *pw, int *auth, int *acct, struct script *s)
{
    struct pam_conv conv = {script_conv, s};
    pam_handle_t *pamh = NULL;

    s->answers[0] = pw;
    host_log_reset();
    assert_int_equal(pam_start_confdir(HOST_SERVICE, "alice", &conv, g_dir, &pamh),
                     PAM_SUCCESS);
    *auth = pam_authenticate(pamh, 0);
    *acct = *auth == PAM_SUCCESS ? pam_acct_mgmt(pamh, 0) : -1;
    assert_int_equal(pam_end(pamh, *acct), PAM_SUCCESS);
}

static int
change(struct script *s, int flags)
{
    struct pam_conv conv = {script_conv, s};
    pam_handle_t *pamh = NULL;
    int rc;

    host_log_reset();
    assert_int_equal(pam_start_confdir(HOST_SERVICE, "alice", &conv, g_dir, &pamh),
                     PAM_SUCCESS);
    rc = pam_chauthtok(pamh, flags);
    assert_int_equal(pam_end(pamh, rc), PAM_SUCCESS);
    return rc;
}

static int
logged(int prio, const char *text)
{
    for (size_t i = 0; i < host_log_count(); i++)
        if (host_log_get(i)->prio == prio && strstr(host_log_get(i)->text, text) != NULL)
            return 1;
    return 0;
}

/* A user's listed new password is refused with the reason and what to do;
 * the next, unlisted one is taken. */
static void
test_change_refused(void **state)
{
    struct script s = {.answers = {PW, LISTED, LISTED, NEWPW, NEWPW}};
    int auth, acct;

    (void)state;
    list_conf(g_list, "allow");
    assert_int_equal(change(&s, EXPIRED), PAM_SUCCESS);
    assert_non_null(strstr(s.errors, "BAD PASSWORD: it appears in a list of compromised "
                                     "passwords; choose another one"));
    assert_true(logged(LOG_NOTICE, "new password for alice refused"));
    memset(&s, 0, sizeof s);
    login(NEWPW, &auth, &acct, &s);
    assert_int_equal(auth, PAM_SUCCESS);
}

/* Root is warned and may set it (pam_pwquality without enforce_for_root). */
static void
test_change_root_warned(void **state)
{
    struct script s = {.answers = {LISTED, LISTED}};
    int auth, acct;

    (void)state;
    if (getuid() != 0)
        skip();
    list_conf(g_list, "allow");
    assert_int_equal(change(&s, 0), PAM_SUCCESS);
    assert_non_null(strstr(s.errors, "BAD PASSWORD: it appears in a list of compromised"));
    assert_true(logged(LOG_NOTICE, "root sets a password of alice that is in the blocklist"));
    memset(&s, 0, sizeof s);
    login(LISTED, &auth, &acct, &s);
    assert_int_equal(auth, PAM_SUCCESS);
}

/* A listed password logs in, and the account group asks for a change. */
static void
test_login_listed(void **state)
{
    struct script s = {0};
    int auth, acct;

    (void)state;
    list_conf(g_list, "allow");
    login(PW, &auth, &acct, &s);
    assert_int_equal(auth, PAM_SUCCESS);
    assert_int_equal(acct, PAM_NEW_AUTHTOK_REQD);
    assert_true(logged(LOG_NOTICE, "password of alice is in the blocklist: change required"));
    assert_non_null(strstr(s.errors, "required to change it now"));
    assert_false(host_log_contains(PW, strlen(PW)));
    /* A wrong password is not looked up: the result is a failure. */
    memset(&s, 0, sizeof s);
    login("wrong-" PW, &auth, &acct, &s);
    assert_int_equal(auth, PAM_AUTH_ERR);
    assert_false(logged(LOG_NOTICE, "blocklist"));
}

/* An unlisted password, or no list: the account group adds nothing. */
static void
test_login_unlisted(void **state)
{
    struct script s = {0};
    int auth, acct;

    (void)state;
    list_conf(g_unlisted, "allow");
    login(PW, &auth, &acct, &s);
    assert_int_equal(auth, PAM_SUCCESS);
    assert_int_equal(acct, PAM_SUCCESS);
    assert_int_equal(host_log_count_prio(LOG_ERR), 0);
    conf("");
    memset(&s, 0, sizeof s);
    login(PW, &auth, &acct, &s);
    assert_int_equal(auth, PAM_SUCCESS);
    assert_int_equal(acct, PAM_SUCCESS);
}

/* A list that cannot be used: LOG_ERR, the login unaffected, a change
 * allowed (allow) or refused (refuse). */
static void
test_missing_list(void **state)
{
    char missing[700];
    struct script s = {0};
    int auth, acct;

    (void)state;
    snprintf(missing, sizeof missing, "%s/none.blk", g_dir);
    list_conf(missing, "refuse");
    login(PW, &auth, &acct, &s);
    assert_int_equal(auth, PAM_SUCCESS);
    assert_int_equal(acct, PAM_SUCCESS);
    assert_true(logged(LOG_ERR, "blocklist cannot be used"));
    memset(&s, 0, sizeof s);
    s.answers[0] = PW;
    s.answers[1] = s.answers[2] = NEWPW;
    assert_int_equal(change(&s, EXPIRED), PAM_AUTHTOK_ERR);
    assert_non_null(strstr(s.errors, "compromised passwords cannot be read"));
    assert_true(logged(LOG_ERR, "blocklist-missing = refuse"));

    list_conf(missing, "allow");
    memset(&s, 0, sizeof s);
    s.answers[0] = PW;
    s.answers[1] = s.answers[2] = NEWPW;
    assert_int_equal(change(&s, EXPIRED), PAM_SUCCESS);
    assert_true(logged(LOG_ERR, "blocklist cannot be used"));
}

/* A list others may write (truncate under our mapping): refused at open. */
static void
test_unsafe_list(void **state)
{
    struct script s = {0};
    int auth, acct;

    (void)state;
    chmod(g_list, 0666);
    list_conf(g_list, "allow");
    login(PW, &auth, &acct, &s);
    assert_int_equal(auth, PAM_SUCCESS);
    assert_int_equal(acct, PAM_SUCCESS);
    assert_true(logged(LOG_ERR, "writable by group or others"));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_change_refused, per_test),
        cmocka_unit_test_setup(test_change_root_warned, per_test),
        cmocka_unit_test_setup(test_login_listed, per_test),
        cmocka_unit_test_setup(test_login_unlisted, per_test),
        cmocka_unit_test_setup(test_missing_list, per_test),
        cmocka_unit_test_setup(test_unsafe_list, per_test),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
