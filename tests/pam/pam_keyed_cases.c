/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_keyed_cases.c - test_pam's keyed-hash tests, through libpam: with
 * pepper = A an unkeyed entry and a cheap keyed one both log in and are
 * rewritten keyed with A; with pepper = B they move to B at the next login
 * and still log in; an entry whose key file is missing, unsafe or not a key
 * is refused (PAM_AUTH_ERR, one LOG_ERR line naming the key and the file)
 * and left as it was; a pepper whose key is missing never changes a login's
 * result (the upgrade fails, logged); a pepper with a target that cannot
 * take a key is a bad argument (the degraded mode: no upgrade, keys= still
 * honoured); without its key directory a keyed entry is refused, never
 * verified unkeyed; an administrator's (admins) keyed entry is rewritten
 * unkeyed at the next login, and logs in once the key is gone.
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

#include "pam_fixture.h"
#include "pam_host.h"

/* The first row of tests/vectors/argon2_keyed.inc: libargon2 with the
 * secret set, so its key and its entry come from outside kdfhash. */
#define KEY_A "5ykChnXa"
#define KEY_A_HEX "be56bbbc68821cc0109430afb092ebaefb9f3e98a223365596e3045093321fdc"
#define ENTRY_A                                                                          \
    "$argon2id$v=19$m=8,t=1,p=1,keyid=" KEY_A "$BytvzpWziZWqIKa7mpE2Rw$"                 \
    "qu4LCeWlzVNz1lcWXnreAvp2DWorDMGLmlwz17U0e40"
#define PW_A "\346\320\207\331\265\227\341\246\241\272\273\337"
#define KEY_B "GwDiJY9i"
#define KEY_B_HEX                                                                        \
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static char g_keys[600], g_file[600];

static void
write_key(const char *id, const char *hex, mode_t mode)
{
    char path[700], text[200];

    snprintf(path, sizeof path, "%s/%s", g_keys, id);
    snprintf(text, sizeof text, "kdfhash-key-v1 %s\n", hex);
    host_write(path, text, strlen(text));
    assert_int_equal(chmod(path, mode), 0);
}

static void
keyed_service(const char *pepper, const char *extra)
{
    char line[2048];
    const char *lines[1] = {line};
    int n = snprintf(line, sizeof line,
                     "auth required %%M shadow=%s conf=%s %s keys=%s pepper=%s upgrade=file "
                     "admins=none %s",
                     g_file, g_conf, TARGET, g_keys, pepper, extra);

    /* A cut line would test another service than the one meant. */
    assert_true(n > 0 && (size_t)n < sizeof line);
    host_service(g_dir, lines, 1);
}

/* Field 2 of user's line (malloc'd). */
static char *
entry_of(const char *user)
{
    char *b = host_read(g_file, NULL), *r = NULL;
    size_t ul = strlen(user);

    for (char *line = b; line != NULL && *line;) {
        char *nl = strchr(line, '\n');

        if (strncmp(line, user, ul) == 0 && line[ul] == ':') {
            r = strndup(line + ul + 1, strcspn(line + ul + 1, ":\n"));
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(b);
    assert_non_null(r);
    return r;
}

static int
login(const char *user, const char *pw)
{
    struct host_conv conv = {pw, strlen(pw), PAM_SUCCESS, 0};

    return host_auth(g_dir, user, &conv, 0);
}

static void
assert_keyed_with(const char *user, const char *id)
{
    static const char target[] = "$argon2id$v=19$m=256,t=1,p=1,";
    char want[64], *e = entry_of(user);

    snprintf(want, sizeof want, ",keyid=%s$", id);
    if (strstr(e, want) == NULL || strncmp(e, target, sizeof target - 1) != 0)
        fail_msg("%s: want the target keyed with %s, got %s", user, id, e);
    free(e);
}

static void
setup_files(void)
{
    char text[1024];

    snprintf(g_keys, sizeof g_keys, "%s/keys", g_dir);
    snprintf(g_file, sizeof g_file, "%s/keyed_shadow", g_dir);
    (void)mkdir(g_keys, 0700);
    write_key(KEY_A, KEY_A_HEX, 0600);
    snprintf(text, sizeof text,
             "u_plain:%s:19000:0:99999:7:::\nu_keyed:%s:19000:0:99999:7:::\n",
             g_hash[H_a2id], ENTRY_A);
    host_write(g_file, text, strlen(text));
}

void
test_keyed_rotation(void **state)
{
    char path[700], *before, *after;
    (void)state;

    setup_files();
    /* pepper = A: both move to the target keyed with A, and log in again. */
    keyed_service(KEY_A, "");
    assert_int_equal(login("u_keyed", PW_A), PAM_SUCCESS);
    assert_true(host_log_contains("upgraded u_keyed", strlen("upgraded u_keyed")));
    assert_keyed_with("u_keyed", KEY_A);
    assert_int_equal(login("u_plain", PW), PAM_SUCCESS);
    assert_true(host_log_contains("(pepper)", strlen("(pepper)")));
    assert_keyed_with("u_plain", KEY_A);
    assert_int_equal(login("u_plain", WRONG), PAM_AUTH_ERR);
    assert_int_equal(login("u_plain", PW), PAM_SUCCESS);
    assert_int_equal(host_log_count(), 0); /* nothing left to upgrade */

    /* pepper = B: rotation at the next login of each. */
    write_key(KEY_B, KEY_B_HEX, 0640);
    keyed_service(KEY_B, "");
    assert_int_equal(login("u_plain", PW), PAM_SUCCESS);
    assert_keyed_with("u_plain", KEY_B);
    assert_keyed_with("u_keyed", KEY_A); /* not logged in yet: still A */
    assert_int_equal(login("u_keyed", PW_A), PAM_SUCCESS);
    assert_keyed_with("u_keyed", KEY_B);
    assert_int_equal(login("u_plain", PW), PAM_SUCCESS);

    /* The key of B's entries is lost: the right password is refused, once
     * logged at LOG_ERR with the key and the file, the entry kept. */
    snprintf(path, sizeof path, "%s/%s", g_keys, KEY_B);
    assert_int_equal(unlink(path), 0);
    keyed_service(KEY_A, "");
    before = host_read(g_file, NULL);
    assert_int_equal(login("u_plain", PW), PAM_AUTH_ERR);
    assert_int_equal(host_log_count_prio(LOG_ERR), 1);
    assert_true(host_log_contains("keyed with key " KEY_B, strlen("keyed with key " KEY_B)));
    assert_true(host_log_contains("/" KEY_B ": missing", strlen("/" KEY_B ": missing")));
    after = host_read(g_file, NULL);
    assert_string_equal(before, after);
    free(after);

    /* A key file others may read, or that is not a key: refused alike. */
    write_key(KEY_B, KEY_B_HEX, 0644);
    assert_int_equal(login("u_plain", PW), PAM_AUTH_ERR);
    assert_true(host_log_contains("readable by others", strlen("readable by others")));
    write_key(KEY_B, "0123", 0600);
    assert_int_equal(login("u_plain", PW), PAM_AUTH_ERR);
    assert_true(host_log_contains("not a key file", strlen("not a key file")));
    after = host_read(g_file, NULL);
    assert_string_equal(before, after);
    free(after);
    free(before);

    /* The pepper's own key is missing: the login keeps its result, the
     * upgrade fails with a warning, the entry stays keyed with B. */
    write_key(KEY_B, KEY_B_HEX, 0600);
    keyed_service("AAAAAAAA", "");
    assert_int_equal(login("u_plain", PW), PAM_SUCCESS);
    assert_int_equal(host_log_count_prio(LOG_WARNING), 1);
    assert_true(host_log_contains("/AAAAAAAA: missing", strlen("/AAAAAAAA: missing")));
    assert_keyed_with("u_plain", KEY_B);
}

/* A pepper with a bcrypt target is a bad module argument: the module runs
 * degraded (built-in defaults, no upgrade), but keys= holds: the keyed entry
 * still logs in with its key, the unkeyed one too, and nothing is
 * rewritten.  Without keys= the default directory has no such key: refused,
 * never verified unkeyed. */
void
test_keyed_bad_pepper(void **state)
{
    char line[2048], *before, *after;
    const char *lines[1] = {line};
    (void)state;

    setup_files();
    snprintf(line, sizeof line,
             "auth required %%M shadow=%s conf=%s keys=%s pepper=%s target=bcrypt",
             g_file, g_conf, g_keys, KEY_A);
    host_service(g_dir, lines, 1);
    before = host_read(g_file, NULL);
    assert_int_equal(login("u_keyed", PW_A), PAM_SUCCESS);
    assert_true(host_log_contains("cannot take a key", strlen("cannot take a key")));
    assert_int_equal(login("u_plain", PW), PAM_SUCCESS); /* no upgrade when degraded */
    after = host_read(g_file, NULL);
    assert_string_equal(before, after);
    free(after);
    snprintf(line, sizeof line, "auth required %%M shadow=%s conf=%s", g_file, g_conf);
    host_service(g_dir, lines, 1);
    assert_int_equal(login("u_keyed", PW_A), PAM_AUTH_ERR);
    assert_true(host_log_contains("keyed with key " KEY_A, strlen("keyed with key " KEY_A)));
    after = host_read(g_file, NULL);
    assert_string_equal(before, after);
    free(before);
    free(after);
}

/* A key held by a TPM, reached through tpm_helper=PATH: here a shell
 * script standing in for kdfhash-tpm-hmac, so that every way the child can
 * end is tried without a TPM.  A child that never answers is killed at the
 * deadline and the right password refused (LOG_ERR naming the key); an
 * error reply, a missing program and a garbled answer are refused alike,
 * the entry untouched; an answer with the secret logs in, and the request
 * the child read names the handle, the entry's salt and the TCTI. */
static void
fake_helper(const char *path, const char *body)
{
    char text[1024];

    snprintf(text, sizeof text, "#!/bin/sh\n%s\n", body);
    host_write(path, text, strlen(text));
    assert_int_equal(chmod(path, 0700), 0);
}

void
test_keyed_tpm_child(void **state)
{
    char key[700], prog[700], req[700], extra[800], *before, *after;
    (void)state;

    setup_files();
    snprintf(key, sizeof key, "%s/%s", g_keys, KEY_A);
    host_write(key, "kdfhash-tpm-v1 0x81006b00 swtpm:port=9\n",
               strlen("kdfhash-tpm-v1 0x81006b00 swtpm:port=9\n"));
    assert_int_equal(chmod(key, 0600), 0);
    snprintf(prog, sizeof prog, "%s/tpm-child", g_dir);
    snprintf(req, sizeof req, "%s/tpm-request", g_dir);
    snprintf(extra, sizeof extra, "tpm_helper=%s", prog);
    keyed_service(KEY_A, extra);
    before = host_read(g_file, NULL);
#ifdef HAVE_TPM
    char body[1024], *got;

    /* Never answers: killed at the 5 s deadline. */
    fake_helper(prog, "exec sleep 60");
    assert_int_equal(login("u_keyed", PW_A), PAM_AUTH_ERR);
    assert_int_equal(host_log_count_prio(LOG_ERR), 1);
    assert_true(host_log_contains("keyed with key " KEY_A, strlen("keyed with key " KEY_A)));
    assert_true(host_log_contains("no answer within 5000 ms", strlen("no answer within 5000 ms")));
    /* The TPM's own error, passed on. */
    fake_helper(prog, "cat >/dev/null; echo 'error TPM2_HMAC: the handle is wrong'; exit 1");
    assert_int_equal(login("u_keyed", PW_A), PAM_AUTH_ERR);
    assert_true(host_log_contains("TPM2_HMAC: the handle is wrong",
                                  strlen("TPM2_HMAC: the handle is wrong")));
    /* A garbled answer (too short a secret) and a program that is not there. */
    fake_helper(prog, "echo 'ok 0123'");
    assert_int_equal(login("u_keyed", PW_A), PAM_AUTH_ERR);
    assert_true(host_log_contains("gave no answer", strlen("gave no answer")));
    assert_int_equal(unlink(prog), 0);
    assert_int_equal(login("u_keyed", PW_A), PAM_AUTH_ERR);
    assert_true(host_log_contains("cannot execute", strlen("cannot execute")));
    after = host_read(g_file, NULL);
    assert_string_equal(before, after);
    free(after);
    /* The secret: the login succeeds (and the upgrade asks again, for the
     * new salt). */
    snprintf(body, sizeof body, "cat >>%s; echo 'ok %s'", req, KEY_A_HEX);
    fake_helper(prog, body);
    assert_int_equal(login("u_keyed", PW_A), PAM_SUCCESS);
    got = host_read(req, NULL);
    /* ENTRY_A's salt, BytvzpWziZWqIKa7mpE2Rw, in hex. */
    assert_non_null(strstr(got, "kdfhash-tpm-req-v1 0x81006b00 "
                                "072b6fce95b38995aa20a6bb9a913647 swtpm:port=9\n"));
    free(got);
    assert_keyed_with("u_keyed", KEY_A);
#else
    fake_helper(prog, "echo never run; exit 1");
    assert_int_equal(login("u_keyed", PW_A), PAM_AUTH_ERR);
    assert_true(host_log_contains("built without TPM support",
                                  strlen("built without TPM support")));
    after = host_read(g_file, NULL);
    assert_string_equal(before, after);
    free(after);
#endif
    free(before);
}

/* admins: the pepper is dropped for administrators.  Their entry keyed at
 * the target is rewritten unkeyed after a successful login (logged as an
 * upgrade, "pepper; admins"), a cheap keyed one moves to the unkeyed
 * target, an unkeyed one the policy keeps stays as it is (no rewrite for
 * the pepper), and all log in once the key is gone.  A user not in the
 * list is keyed as before. */
void
test_keyed_admins(void **state)
{
    static const char target[] = "$argon2id$v=19$m=256,t=1,p=1$";
    char path[700], *e, *plain;
    (void)state;

    setup_files();
    /* Not yet an administrator: u_keyed moves to the target keyed with A. */
    keyed_service(KEY_A, "");
    assert_int_equal(login("u_keyed", PW_A), PAM_SUCCESS);
    assert_keyed_with("u_keyed", KEY_A);
    keyed_service(KEY_A, "admins=u_keyed,u_plain");
    plain = entry_of("u_plain");
    assert_int_equal(login("u_keyed", PW_A), PAM_SUCCESS);
    assert_true(host_log_contains("upgraded u_keyed from argon2id to argon2id (pepper; admins)",
                                  strlen("upgraded u_keyed from argon2id to argon2id (pepper; "
                                         "admins)")));
    e = entry_of("u_keyed");
    if (strncmp(e, target, sizeof target - 1) != 0 || strstr(e, "keyid=") != NULL)
        fail_msg("u_keyed: want the unkeyed target, got %s", e);
    free(e);
    assert_int_equal(login("u_keyed", PW_A), PAM_SUCCESS);
    assert_int_equal(host_log_count(), 0); /* nothing left to rewrite */
    assert_int_equal(login("u_plain", PW), PAM_SUCCESS);
    assert_int_equal(host_log_count(), 0);
    e = entry_of("u_plain");
    assert_string_equal(e, plain);
    free(e);
    free(plain);
    /* A cheap keyed entry of an administrator: to the unkeyed target. */
    setup_files();
    assert_int_equal(login("u_keyed", PW_A), PAM_SUCCESS);
    assert_true(host_log_contains("(too-cheap; admins)", strlen("(too-cheap; admins)")));
    e = entry_of("u_keyed");
    if (strncmp(e, target, sizeof target - 1) != 0 || strstr(e, "keyid=") != NULL)
        fail_msg("u_keyed: want the unkeyed target, got %s", e);
    free(e);
    /* The key is lost: the administrators still log in. */
    snprintf(path, sizeof path, "%s/%s", g_keys, KEY_A);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(login("u_keyed", PW_A), PAM_SUCCESS);
    assert_int_equal(login("u_plain", PW), PAM_SUCCESS);
    assert_int_equal(login("u_plain", WRONG), PAM_AUTH_ERR);
    /* Not an administrator: keyed with the pepper, as without the list. */
    write_key(KEY_A, KEY_A_HEX, 0600);
    keyed_service(KEY_A, "admins=u_keyed");
    assert_int_equal(login("u_plain", PW), PAM_SUCCESS);
    assert_keyed_with("u_plain", KEY_A);
    /* A listed group no name service has (the default list's @wheel on
     * Debian), for a user without a passwd entry: no member, so keyed,
     * also where an NSS service that is listed but not running (sss
     * without sssd) makes glibc answer ENOENT instead of "none". */
    setup_files();
    keyed_service(KEY_A, "admins=root,@nosuchgroup-kdf");
    assert_int_equal(login("u_plain", PW), PAM_SUCCESS);
    assert_keyed_with("u_plain", KEY_A);
}
