/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_wrap_cases.c - test_pam's wrapped entries (kdf_wrap(), `kdfhash
 * wrap`) seen from a login: the right password logs in and the entry is
 * rewritten as a direct hash at the target (reason "wrapped"), a wrong one
 * is refused and writes nothing, a locked wrapped entry stays locked, a
 * DES one is never unwrapped (a DES match never proves the whole
 * password), and migrate = yes moves one to yescrypt.  The legacy hashes
 * are the fixture's (independent implementations, pam_hashes.inc); the
 * wrapping is the core's, linked into this test.
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
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "kdfhash.h"
#include "pam_fixture.h"
#include "pam_host.h"

/* The legacy entries an old machine holds, by the fixture's ids. */
static const enum hash_id g_wrappable[] = {H_bc2b, H_bc2a, H_pbk256, H_phc256,
                                           H_pbk512, H_sha512c, H_yescrypt, H_md5c};

/* Wrap legacy at the module's test target (TARGET). */
static char *
wrap(const char *legacy)
{
    struct kdf_policy pol;
    char out[KDF_MAX_HASH_STR + 1], err[128];
    const char *why = NULL;

    kdf_policy_default(&pol);
    assert_int_equal(kdf_target_parse("argon2id m=256,t=1,p=1", &pol.target, err, sizeof err),
                     KDF_OK);
    assert_int_equal(kdf_policy_set(&pol, "min.argon2", "m=256,t=1,p=1", err, sizeof err),
                     KDF_OK);
    if (kdf_wrap(legacy, strlen(legacy), &pol.target, &pol, out, sizeof out, &why) != KDF_OK)
        fail_msg("cannot wrap %s: %s", legacy, why);
    return strdup(out);
}

/* Field 2 of user's line in file (malloc'd); the user must have one. */
static char *
field2_of(const char *file, const char *user)
{
    char *r = fixture_field2(file, user);

    assert_non_null(r);
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

static int
auth(const char *user, const char *pw)
{
    struct host_conv conv = {pw, strlen(pw), PAM_SUCCESS, 0};

    host_log_reset();
    return host_auth(g_dir, user, &conv, 0);
}

void
test_wrapped_unwrap(void **state)
{
    char file[600], *buf = NULL, *before, *after, *h;
    size_t cap = 0, len = 0, n0, n1;
    (void)state;

    snprintf(file, sizeof file, "%s/wrap_shadow", g_dir);
    for (size_t i = 0; i < sizeof g_wrappable / sizeof g_wrappable[0]; i++) {
        char *w = wrap(g_hash[g_wrappable[i]]);
        size_t need = strlen(w) + 64;

        buf = realloc(buf, cap += need);
        assert_non_null(buf);
        len += (size_t)snprintf(buf + len, cap - len, "w_%s:%s:19000:0:99999:7:::\n",
                                g_hash_id[g_wrappable[i]], w);
        free(w);
    }
    host_write(file, buf, len);
    free(buf);
    service(file, "");

    for (size_t i = 0; i < sizeof g_wrappable / sizeof g_wrappable[0]; i++) {
        char user[64];

        snprintf(user, sizeof user, "w_%s", g_hash_id[g_wrappable[i]]);
        /* A wrong password: refused, nothing written. */
        before = host_read(file, &n0);
        assert_int_equal(auth(user, WRONG), PAM_AUTH_ERR);
        after = host_read(file, &n1);
        assert_int_equal(n0, n1);
        assert_memory_equal(before, after, n0);
        free(after);
        free(before);

        /* The right one: logged in, and the entry is a direct hash now. */
        assert_int_equal(auth(user, PW), PAM_SUCCESS);
        if (!host_log_contains("from wrapped to argon2id (wrapped)", 34))
            fail_msg("%s: no unwrap notice (%s)", user,
                     host_log_count() ? host_log_get(0)->text : "no line");
        h = field2_of(file, user);
        if (strncmp(h, TARGET_PREFIX, strlen(TARGET_PREFIX)) != 0)
            fail_msg("%s: not unwrapped: %s", user, h);
        free(h);
        /* The next login changes nothing. */
        before = host_read(file, &n0);
        assert_int_equal(auth(user, PW), PAM_SUCCESS);
        assert_int_equal(host_log_count(), 0);
        after = host_read(file, &n1);
        assert_int_equal(n0, n1);
        assert_memory_equal(before, after, n0);
        free(after);
        free(before);
    }
    unlink(file);
}

/* DES reads 8 bytes of 7 bits: its wrapped entry logs in but stays as it
 * is.  A locked wrapped entry never logs in.  migrate = yes moves a
 * wrapped entry to yescrypt, the way back to pam_unix. */
void
test_wrapped_des_locked_migrate(void **state)
{
    static const char des12[] = "abJnggxhB/yWI"; /* password1234 (libxcrypt) */
    char file[600], buf[2048], *w_des = wrap(des12), *w_md5 = wrap(g_hash[H_md5c]), *h;
    char *before, *after;
    size_t n0, n1;
    int n;
    (void)state;

    snprintf(file, sizeof file, "%s/wrap2_shadow", g_dir);
    n = snprintf(buf, sizeof buf,
                 "wdes:%s:19000::::::\nwlocked:!%s:19000::::::\nwmig:%s:19000::::::\n", w_des,
                 w_md5, w_md5);
    assert_true(n > 0 && (size_t)n < sizeof buf);
    host_write(file, buf, (size_t)n);
    service(file, "");

    before = host_read(file, &n0);
    assert_int_equal(auth("wdes", "password1234"), PAM_SUCCESS);
    assert_true(host_log_contains("did not read the whole password", 31));
    assert_int_equal(auth("wdes", "password12XX"), PAM_SUCCESS); /* as DES itself */
    assert_int_equal(auth("wdes", "Password1234"), PAM_AUTH_ERR);
    assert_int_equal(auth("wlocked", PW), PAM_AUTH_ERR);
    after = host_read(file, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before);
    free(after);

    service(file, "target=yescrypt migrate=yes");
    assert_int_equal(auth("wmig", PW), PAM_SUCCESS);
    h = field2_of(file, "wmig");
    if (strncmp(h, "$y$", 3) != 0)
        fail_msg("wmig: not moved to yescrypt: %s", h);
    free(h);
    h = field2_of(file, "wlocked");
    assert_true(h[0] == '!' && strncmp(h + 1, "$kdfw$", 6) == 0);
    free(h);
    free(w_des);
    free(w_md5);
    unlink(file);
}
