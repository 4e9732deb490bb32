/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pamwrap.c - a subset of the return-code matrix through cwrap's
 * pam_wrapper + libpamtest (the SSSD/Samba way):
 * libpam_wrapper.so preloaded with PAM_WRAPPER=1 redirects libpam to the
 * service files in PAM_WRAPPER_SERVICE_DIR.  The program re-executes itself
 * with that environment when started without it, so `make check` needs no
 * wrapper script.  Debian 12's libpamtest (1.1.4) run_pamtest() takes five
 * arguments.
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
#include <unistd.h>

#include <cmocka.h>
#include <libpamtest.h>

#define PW "S3cret-p4ss!"
#define SERVICE "kdfwrap"

#define PAM_HASHES_STATIC_TABLE
#include "pam_hashes.h"

static char g_dir[512];

static void
write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(99);
    }
}

/* pam_wrapper copies the service directory once, when it is loaded: every
 * service file is written before the re-exec. */
static void
service(const char *name, const char *args)
{
    char path[600], text[2048];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    snprintf(text, sizeof text,
             "auth required " KDF_PAM_MODULE " shadow=%s/shadow conf=%s/kdfhash.conf "
             "upgrade=off target=argon2id:m=256,t=1,p=1 %s\n"
             "account required pam_permit.so\n",
             g_dir, g_dir, args);
    write_file(path, text);
}

static int
prepare(void)
{
    char path[600], *text;
    snprintf(path, sizeof path, "%s/shadow", g_dir);
    if (asprintf(&text,
                 "root::19000::::::\n"
                 "bc:%s:19000:0:99999:7:::\n"
                 "a2:%s:19000:0:99999:7:::\n"
                 "pb:%s:19000:0:99999:7:::\n"
                 "sha:%s:19000:0:99999:7:::\n"
                 "empty::19000:0:99999:7:::\n"
                 "locked:!%s:19000:0:99999:7:::\n",
                 g_hash[H_bc2b], g_hash[H_a2id], g_hash[H_phc256], g_hash[H_sha512c],
                 g_hash[H_bc2b]) < 0)
        return -1;
    write_file(path, text);
    free(text);
    snprintf(path, sizeof path, "%s/kdfhash.conf", g_dir);
    write_file(path, "");
    service(SERVICE, "");
    service(SERVICE "_nullok", "nullok");
    service(SERVICE "_bad", "frobnicate");
    /* libpam reads "other" as the fallback for every service. */
    snprintf(path, sizeof path, "%s/other", g_dir);
    write_file(path, "auth required pam_deny.so\n");
    return 0;
}

static void
expect(const char *svc, const char *user, const char *pw, int flags, int want)
{
    const char *answers[] = {pw, NULL};
    struct pamtest_conv_data conv;
    struct pam_testcase tests[] = {
        pam_test_flags(PAMTEST_AUTHENTICATE, want, flags),
    };
    enum pamtest_err perr;

    memset(&conv, 0, sizeof conv);
    conv.in_echo_off = answers;
    perr = run_pamtest(svc, user, &conv, tests, NULL);
    if (perr != PAMTEST_ERR_OK)
        fail_msg("%s: %s (got %d, want %d)", user, pamtest_strerror(perr), tests[0].op_rv,
                 want);
}

static void
test_schemes(void **state)
{
    (void)state;
    expect(SERVICE, "bc", PW, 0, PAM_SUCCESS);
    expect(SERVICE, "bc", "nope", 0, PAM_AUTH_ERR);
    expect(SERVICE, "a2", PW, 0, PAM_SUCCESS);
    expect(SERVICE, "a2", "nope", 0, PAM_AUTH_ERR);
    expect(SERVICE, "pb", PW, 0, PAM_SUCCESS);
    expect(SERVICE, "pb", "nope", 0, PAM_AUTH_ERR);
    expect(SERVICE, "sha", PW, 0, PAM_SUCCESS);
    expect(SERVICE, "sha", "nope", 0, PAM_AUTH_ERR);
}

static void
test_refusals(void **state)
{
    (void)state;
    expect(SERVICE, "nosuchuser", PW, 0, PAM_USER_UNKNOWN);
    expect(SERVICE, "locked", PW, 0, PAM_AUTH_ERR);
    expect(SERVICE, "empty", "", 0, PAM_AUTH_ERR);
    expect(SERVICE, "bc:x", PW, 0, PAM_USER_UNKNOWN);
    expect(SERVICE "_nullok", "empty", "", 0, PAM_SUCCESS);
    expect(SERVICE "_nullok", "empty", "", PAM_DISALLOW_NULL_AUTHTOK, PAM_AUTH_ERR);
    expect(SERVICE "_nullok", "nosuchuser", "", 0, PAM_USER_UNKNOWN); /* CVE-2020-27780 */
    /* A bad argument is logged and skipped; the entry still opens
     * (degraded mode), and the wrong password is still refused. */
    expect(SERVICE "_bad", "bc", PW, 0, PAM_SUCCESS);
    expect(SERVICE "_bad", "bc", "wrong-" PW, 0, PAM_AUTH_ERR);
}

/* Without the wrapper in place, set it up and run again. */
static void
reexec(char **argv)
{
    const char *asan = getenv("ASAN_OPTIONS");
    char *opts;

    if (getenv("PAM_WRAPPER") != NULL)
        return;
    setenv("PAM_WRAPPER", "1", 1);
    setenv("PAM_WRAPPER_SERVICE_DIR", g_dir, 1);
    setenv("LD_PRELOAD", "libpam_wrapper.so", 1);
    /* The wrapper dlopens libpam with RTLD_DEEPBIND, which ASan refuses;
     * 1.1.4 reads its switch under uid_wrapper's name (later releases under
     * its own), so set both. */
    setenv("UID_WRAPPER_DISABLE_DEEPBIND", "1", 1);
    setenv("PAM_WRAPPER_DISABLE_DEEPBIND", "1", 1);
    /* ASan wants its runtime first in the preload order; the wrapper only
     * interposes libpam, so the order does not matter here. */
    if (asprintf(&opts, "%s%sverify_asan_link_order=0", asan ? asan : "",
                 asan ? ":" : "") < 0)
        exit(99);
    setenv("ASAN_OPTIONS", opts, 1);
    execv("/proc/self/exe", argv);
    perror("execv /proc/self/exe");
    exit(99);
}

int
main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schemes),
        cmocka_unit_test(test_refusals),
    };
    const char *dir = getenv("PAM_WRAPPER_SERVICE_DIR");
    int rc;
    (void)argc;

    if (dir == NULL) {
        const char *tmp = getenv("TMPDIR");
        snprintf(g_dir, sizeof g_dir, "%s/kdfwrap.XXXXXX",
                 tmp && tmp[0] == '/' ? tmp : "/tmp");
        if (mkdtemp(g_dir) == NULL) {
            perror("mkdtemp");
            return 99;
        }
        if (prepare() != 0)
            return 99;
        reexec(argv);
    }
    snprintf(g_dir, sizeof g_dir, "%s", dir);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    {
        char cmd[700];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
        if (system(cmd) != 0)
            rc = rc ? rc : 1;
    }
    return rc;
}
