/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_form_cases.c - test_pam's Unicode tests: one password typed with a
 * composed accent on one keyboard and a decomposed one on another is one
 * password (normalize = nfkc, the default).  Entries made from raw bytes
 * (pam_unix's sha512crypt, libxcrypt here; or our own under normalize = no)
 * still verify, with either spelling; the first login moves the entry onto
 * the NFKC form, and after that neither spelling rewrites it again.  A wrong
 * password never changes the file.  An xcrypt-only account (root) keeps the
 * bytes as typed: sulogin hashes what the console sends, never a form.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <crypt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "pam_fixture.h"
#include "pam_host.h"

#define CAFE_NFC "caf\xC3\xA9-S3cret"  /* U+00E9 */
#define CAFE_NFD "cafe\xCC\x81-S3cret" /* U+0065 U+0301 */
#define CAFE_WRONG "caf\xC3\xA8-S3cret" /* U+00E8 */

/* A sha512crypt entry of pw, made by libxcrypt (as pam_unix makes them). */
static char *
sha512c(const char *pw)
{
    struct crypt_data cd;
    const char *r;

    memset(&cd, 0, sizeof cd);
    r = crypt_r(pw, "$6$formsalt$", &cd);
    assert_non_null(r);
    assert_int_equal(r[0], '$');
    return strdup(r);
}

static void
write_file(const char *file, const char *user, const char *hash)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s:%s:19000:0:99999:7:::\n", user, hash);

    assert_true(n > 0 && (size_t)n < sizeof buf);
    host_write(file, buf, (size_t)n);
}

/* Field 2 of the file's one line (malloc'd). */
static char *
entry(const char *file)
{
    char *b = host_read(file, NULL), *f = strchr(b, ':'), *r;

    assert_non_null(f);
    r = strndup(f + 1, strcspn(f + 1, ":"));
    free(b);
    return r;
}

static void
service(const char *file, const char *args)
{
    char line[2048];
    const char *lines[1] = {line};

    snprintf(line, sizeof line, "auth required %%M shadow=%s conf=%s %s upgrade=file %s", file,
             g_conf, TARGET, args);
    host_service(g_dir, lines, 1);
}

/* A login of user with pw: its PAM status; *changed says whether the entry
 * was rewritten; *log the first log line's text ("" when none). */
static int
login(const char *file, const char *user, const char *pw, int *changed, char *log, size_t cap)
{
    struct host_conv conv = {pw, strlen(pw), PAM_SUCCESS, 0};
    char *before = entry(file), *after;
    int rc = host_auth(g_dir, user, &conv, 0);

    after = entry(file);
    *changed = strcmp(before, after) != 0;
    snprintf(log, cap, "%.400s", host_log_count() ? host_log_get(0)->text : "");
    free(before);
    free(after);
    return rc;
}

static void
assert_has(const char *log, const char *needle)
{
    if (strstr(log, needle) == NULL)
        fail_msg("want \"%s\" in the log, got \"%s\"", needle, log);
}

/* pam_unix's entries of either spelling: a login with the other spelling
 * succeeds and upgrades; then both spellings log in and nothing is
 * rewritten (the decomposed one matches the NFKC entry in its NFKC form). */
void
test_form_pam_unix_entries(void **state)
{
    const char *spell[2] = {CAFE_NFD, CAFE_NFC};
    char file[600], log[512];
    int changed;
    (void)state;

    snprintf(file, sizeof file, "%s/form_shadow", g_dir);
    service(file, "");
    for (int made = 0; made < 2; made++) {
        const char *other = spell[1 - made];
        char *h = sha512c(spell[made]);

        write_file(file, "alice", h);
        free(h);
        assert_int_equal(login(file, "alice", CAFE_WRONG, &changed, log, sizeof log),
                         PAM_AUTH_ERR);
        assert_false(changed);
        assert_int_equal(login(file, "alice", other, &changed, log, sizeof log), PAM_SUCCESS);
        assert_true(changed);
        assert_has(log, "upgraded alice from sha512crypt");
        for (int again = 0; again < 2; again++) {
            assert_int_equal(login(file, "alice", spell[again], &changed, log, sizeof log),
                             PAM_SUCCESS);
            assert_false(changed);
            assert_int_equal(host_log_count(), 0);
        }
    }
    unlink(file);
}

/* An entry at the target made from decomposed bytes (normalize = no, as
 * before this release): under nfkc the composed spelling logs in through
 * the NFD form and the entry moves to the NFKC form (password-form). */
void
test_form_at_target(void **state)
{
    char file[600], log[512], *h = sha512c(CAFE_NFD);
    int changed;
    (void)state;

    snprintf(file, sizeof file, "%s/form_target_shadow", g_dir);
    write_file(file, "alice", h);
    free(h);
    service(file, "normalize=no");
    assert_int_equal(login(file, "alice", CAFE_NFC, &changed, log, sizeof log), PAM_AUTH_ERR);
    assert_int_equal(login(file, "alice", CAFE_NFD, &changed, log, sizeof log), PAM_SUCCESS);
    assert_true(changed); /* now at the target, of the decomposed bytes */
    h = entry(file);
    if (strncmp(h, TARGET_PREFIX, strlen(TARGET_PREFIX)) != 0)
        fail_msg("not at the target: %s", h);
    free(h);

    service(file, "");
    assert_int_equal(login(file, "alice", CAFE_WRONG, &changed, log, sizeof log),
                     PAM_AUTH_ERR);
    assert_false(changed);
    assert_int_equal(login(file, "alice", CAFE_NFC, &changed, log, sizeof log), PAM_SUCCESS);
    assert_true(changed);
    assert_has(log, "(password-form)");
    assert_int_equal(login(file, "alice", CAFE_NFD, &changed, log, sizeof log), PAM_SUCCESS);
    assert_false(changed);
    assert_int_equal(login(file, "alice", CAFE_NFC, &changed, log, sizeof log), PAM_SUCCESS);
    assert_false(changed);
    /* The way back: normalize = no still reads the NFKC entry as typed. */
    service(file, "normalize=no");
    assert_int_equal(login(file, "alice", CAFE_NFC, &changed, log, sizeof log), PAM_SUCCESS);
    assert_int_equal(login(file, "alice", CAFE_NFD, &changed, log, sizeof log), PAM_AUTH_ERR);
    unlink(file);
}

/* root is xcrypt-only: its entry stays of the bytes typed, which is what
 * sulogin will hash. */
void
test_form_xcrypt_only(void **state)
{
    struct crypt_data cd;
    char file[600], log[512], *h = sha512c(CAFE_NFD);
    int changed;
    (void)state;

    snprintf(file, sizeof file, "%s/form_root_shadow", g_dir);
    write_file(file, "root", h);
    free(h);
    service(file, "min.argon2=m=8,t=1,p=1");
    assert_int_equal(login(file, "root", CAFE_NFD, &changed, log, sizeof log), PAM_SUCCESS);
    assert_true(changed);
    h = entry(file);
    if (strncmp(h, "$y$", 3) != 0)
        fail_msg("root not on yescrypt: %s", h);
    memset(&cd, 0, sizeof cd);
    assert_string_equal(crypt_r(CAFE_NFD, h, &cd), h); /* sulogin's check */
    free(h);
    /* The composed spelling logs in (NFD form) and rewrites nothing. */
    assert_int_equal(login(file, "root", CAFE_NFC, &changed, log, sizeof log), PAM_SUCCESS);
    assert_false(changed);
    unlink(file);
}
