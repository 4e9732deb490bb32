/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_ds_plugin.c - the 389-ds plugin's schemes without a server.
 *
 * ds_config.c and ds_schemes.c linked with stand-ins for the two slapi
 * functions they call (the error log and slapi_ch_smprintf), so that the
 * sanitizers, valgrind and TSan see every path that tests/ds/test_ds389.sh
 * drives through a real server, and the hostile ones it cannot reach:
 *   - configuration: arguments, a named file that is missing, a target the
 *     caps refuse, the family target under a target of another family;
 *   - encode/compare round trips for each name, every PBKDF2 spelling and
 *     OpenLDAP's bodies of the three digests;
 *   - hostile stored values and passwords (too long, other family, over the
 *     caps, unknown digest length, a 1 MiB password): refused, logged with
 *     a reason, never with the value or the password;
 *   - eight threads comparing at once against one scheme;
 *   - the server's argv overwritten after init (it frees it when it
 *     restarts the plugin), and a reconfiguration while threads verify (a
 *     dynamic plugin restart calls the init function again).
 */
#include "config.h"

#include "kdfhash_ds.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <crypt.h>
#include <slapi-plugin.h>

#include <cmocka.h>

/* ---- stand-ins for libslapd ---- */

static pthread_mutex_t g_log_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_log[16384];

int
slapi_log_error(int level, char *subsystem, char *fmt, ...)
{
    char line[1024];
    va_list ap;
    size_t used;

    (void)level;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&g_log_lock);
    used = strlen(g_log);
    snprintf(g_log + used, sizeof g_log - used, "%s: %s", subsystem, line);
    pthread_mutex_unlock(&g_log_lock);
    return 0;
}

char *
slapi_ch_smprintf(const char *fmt, ...)
{
    char *out = NULL;
    va_list ap;

    va_start(ap, fmt);
    if (vasprintf(&out, fmt, ap) < 0)
        out = NULL;
    va_end(ap);
    return out;
}

/* ---- helpers ---- */

#define PW "Correct-Horse-1"

static char g_conf[64];

static void
reset_log(void)
{
    g_log[0] = '\0';
}

static void
scheme_init(struct kds_scheme *s, const char *name, int openldap)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->openldap_body = openldap;
    assert_int_equal(pthread_rwlock_init(&s->lock, NULL), 0);
    atomic_flag_clear(&s->said_outdated);
}

static int
configure(struct kds_scheme *s, const char *a1, const char *a2)
{
    char *argv[4] = {g_conf, (char *)"max.memory=off", (char *)a1, (char *)a2};
    int argc = a1 == NULL ? 2 : a2 == NULL ? 3 : 4;
    return kds_configure(s, argc, argv);
}

static struct kds_scheme g_argon2, g_bcrypt, g_pbkdf2;

static int
setup(void **state)
{
    FILE *f;
    int fd;

    (void)state;
    snprintf(g_conf, sizeof g_conf, "/tmp/kdfhash-dsconf.XXXXXX");
    fd = mkstemp(g_conf);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    /* Small costs: the test is about paths, not time. */
    fputs("target = argon2id m=8192,t=1,p=1\n"
          "min.argon2 = m=4096,t=1,p=1\n"
          "min.bcrypt = 4\n"
          "min.pbkdf2-sha1 = 1000\nmin.pbkdf2-sha256 = 1000\nmin.pbkdf2-sha512 = 1000\n"
          "max.argon2 = m=65536,t=4,p=4\n",
          f);
    fclose(f);
    scheme_init(&g_argon2, "ARGON2", 0);
    scheme_init(&g_bcrypt, "BCRYPT", 0);
    scheme_init(&g_pbkdf2, "KDF-PBKDF2", 1);
    if (configure(&g_argon2, NULL, NULL) != 0 ||
        configure(&g_bcrypt, "target=bcrypt cost=5", NULL) != 0 ||
        configure(&g_pbkdf2, "target=pbkdf2-sha256 i=2000", NULL) != 0)
        return -1;
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    unlink(g_conf);
    return 0;
}

/* The stored value after "{NAME}", as 389-ds hands it to compare. */
static const char *
body(const char *value, const char *name)
{
    size_t n = strlen(name);
    assert_int_equal(value[0], '{');
    assert_memory_equal(value + 1, name, n);
    assert_int_equal(value[n + 1], '}');
    return value + n + 2;
}

static void
assert_log_clean(const char *secret)
{
    assert_null(strstr(g_log, PW));
    if (secret != NULL)
        assert_null(strstr(g_log, secret));
}

/* ---- configuration ---- */

static void
test_config_errors(void **state)
{
    struct kds_scheme s;
    char *missing[1] = {(char *)"/nonexistent/kdfhash.conf"};

    (void)state;
    scheme_init(&s, "ARGON2", 0);
    reset_log();
    assert_int_equal(configure(&s, "bogus", NULL), -1);
    assert_non_null(strstr(g_log, "not key=value"));
    reset_log();
    assert_int_equal(configure(&s, "no.such.key=1", NULL), -1);
    assert_non_null(strstr(g_log, "plugin argument 2"));
    reset_log();
    assert_int_equal(kds_configure(&s, 1, missing), -1);
    assert_non_null(strstr(g_log, "/nonexistent/kdfhash.conf"));
    /* The default file, as the shipped LDIF names it, may be missing: the
     * plugin then runs on the built-in defaults (when it is present, it is
     * read; either way the server starts). */
    {
        char *dflt[1] = {(char *)KDF_DEFAULT_CONF};
        if (access(KDF_DEFAULT_CONF, F_OK) != 0)
            assert_int_equal(kds_configure(&s, 1, dflt), 0);
    }
    /* A target above the caps: the server must not start with it. */
    reset_log();
    assert_int_equal(configure(&s, "target=argon2id m=131072,t=1,p=1", NULL), -1);
    assert_non_null(strstr(g_log, "ARGON2: "));
}

/* The directory profile: the built-in target under a file without one (and
 * when the directory's default file is missing), a file's target over it;
 * the kept work areas (workareas=). */
static void
test_directory_profile(void **state)
{
    char path[] = "/tmp/kdfhash-dsprof.XXXXXX";
    char *argv[3] = {path, NULL, NULL};
    struct kdf_workpool_stats ws;
    struct kds_scheme s;
    int fd;
    FILE *f;

    (void)state;
    fd = mkstemp(path);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("max.threads = 2\n", f);
    fclose(f);
    scheme_init(&s, "ARGON2", 0);
    assert_int_equal(kds_configure(&s, 1, argv), 0);
    assert_int_equal(s.conf.enc.scheme, KDF_SCHEME_ARGON2ID);
    assert_int_equal(s.conf.enc.m_kib, 19456);
    assert_int_equal(s.conf.enc.cost, 2);
    assert_int_equal(s.conf.enc.lanes, 1);
    assert_int_equal(s.conf.pol.max_threads, 2);
    kdf_workpool_stats(&ws);
    {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        assert_int_equal(ws.slots, n > 0 ? (unsigned)n : 1);
    }
    argv[1] = (char *)"target=argon2id m=65536,t=3,p=4";
    assert_int_equal(kds_configure(&s, 2, argv), 0);
    assert_int_equal(s.conf.enc.m_kib, 65536);
    assert_int_equal(s.conf.enc.lanes, 4);
    argv[1] = (char *)"workareas=2";
    assert_int_equal(kds_configure(&s, 2, argv), 0);
    kdf_workpool_stats(&ws);
    assert_int_equal(ws.slots, 2);
    argv[1] = (char *)"workareas=0";
    assert_int_equal(kds_configure(&s, 2, argv), 0);
    kdf_workpool_stats(&ws);
    assert_int_equal(ws.slots, 0);
    static const char *const bad[] = {"workareas=65", "workareas=01", "workareas=",
                                      "workareas=two", "workareas=-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        reset_log();
        argv[1] = (char *)bad[i];
        assert_int_equal(kds_configure(&s, 2, argv), -1);
        assert_non_null(strstr(g_log, "workareas must be 0..64 or cpus"));
    }
    argv[1] = (char *)"workareas=cpus";
    assert_int_equal(kds_configure(&s, 2, argv), 0);
    unlink(path);
    /* The directory's default file, as the shipped LDIF names it, may be
     * missing: the profile's target then. */
    if (access(KDS_DEFAULT_CONF, F_OK) != 0) {
        char *dflt[1] = {(char *)KDS_DEFAULT_CONF};
        assert_int_equal(kds_configure(&s, 1, dflt), 0);
        assert_int_equal(s.conf.enc.m_kib, 19456);
        assert_int_equal(s.conf.enc.lanes, 1);
    }
    kdf_workpool_set(0, 0);
}

/* The directory profile has one home (KDF_DIRECTORY_TARGET, kdfhash.h): the
 * plugin under the shipped /etc/dirsrv/kdfhash.conf, the plugin under no
 * file, the CLI's calibrate --rate (which parses the same macro) and the
 * default of min.argon2 all say OWASP's m=19456,t=2,p=1 (written here by
 * hand), so none of them can drift from the others. */
static void
test_profile_one_home(void **state)
{
    const char *top = getenv("top_srcdir");
    char path[512], err[160];
    char *argv[1] = {path};
    struct kds_scheme s;
    struct kdf_target t;
    struct kdf_policy pol;

    (void)state;
    assert_int_equal(kdf_target_parse(KDF_DIRECTORY_TARGET, &t, err, sizeof err), KDF_OK);
    assert_int_equal(t.scheme, KDF_SCHEME_ARGON2ID);
    assert_int_equal(t.m_kib, 19456);
    assert_int_equal(t.cost, 2);
    assert_int_equal(t.lanes, 1);
    assert_int_equal(t.salt_len, 16);
    assert_int_equal(t.dk_len, 32);
    kdf_policy_default(&pol);
    assert_int_equal(kdf_policy_bound_get(&pol, "min.argon2", 0), t.m_kib);
    assert_int_equal(kdf_policy_bound_get(&pol, "min.argon2", 1), t.cost);
    assert_int_equal(kdf_policy_bound_get(&pol, "min.argon2", 2), t.lanes);

    snprintf(path, sizeof path, "%s/packaging/dirsrv/kdfhash.conf", top ? top : ".");
    scheme_init(&s, "ARGON2", 0);
    assert_int_equal(kds_configure(&s, 1, argv), 0);
    assert_int_equal(s.conf.enc.scheme, t.scheme);
    assert_int_equal(s.conf.enc.m_kib, t.m_kib);
    assert_int_equal(s.conf.enc.cost, t.cost);
    assert_int_equal(s.conf.enc.lanes, t.lanes);
    assert_int_equal(s.conf.enc.salt_len, t.salt_len);
    assert_int_equal(s.conf.enc.dk_len, t.dk_len);
    kdf_workpool_set(0, 0);
}

static void
test_family_target(void **state)
{
    struct kds_scheme s;

    (void)state;
    /* The policy's target is Argon2: BCRYPT makes bcrypt at its own
     * defaults, raised to min.bcrypt. */
    scheme_init(&s, "BCRYPT", 0);
    assert_int_equal(configure(&s, "min.bcrypt=13", NULL), 0);
    assert_int_equal(s.conf.enc.scheme, KDF_SCHEME_BCRYPT);
    assert_int_equal(s.conf.enc.cost, 13);
    /* ... and ARGON2 under a bcrypt target makes Argon2id, at least the
     * policy's Argon2 minimums. */
    scheme_init(&s, "ARGON2", 0);
    assert_int_equal(configure(&s, "target=bcrypt cost=10", "min.argon2=m=16384,t=2,p=1"), 0);
    assert_int_equal(s.conf.enc.scheme, KDF_SCHEME_ARGON2ID);
    assert_true(s.conf.enc.m_kib >= 16384);
    assert_true(s.conf.enc.cost >= 2);
    /* The policy's own target when it is of the family. */
    assert_int_equal(g_argon2.conf.enc.m_kib, 8192);
    assert_int_equal(g_pbkdf2.conf.enc.scheme, KDF_SCHEME_PBKDF2_SHA256);
    assert_int_equal(g_pbkdf2.conf.enc.cost, 2000);
}

/* ---- round trips ---- */

static void
round_trip(struct kds_scheme *s, const char *head)
{
    char *v = kds_encode(s, PW);
    const char *b;

    assert_non_null(v);
    b = body(v, s->name);
    assert_memory_equal(b, head, strlen(head));
    assert_int_equal(kds_compare(s, PW, b), 0);
    assert_int_equal(kds_compare(s, "Correct-Horse-2", b), 1);
    assert_int_equal(kds_compare(s, "", b), 1);
    free(v);
}

static void
test_round_trips(void **state)
{
    (void)state;
    reset_log();
    round_trip(&g_argon2, "$argon2id$v=19$m=8192,t=1,p=1$");
    round_trip(&g_bcrypt, "$2b$05$");
    round_trip(&g_pbkdf2, "$pbkdf2-sha256$2000$");
    assert_string_equal(g_log, "");
}

/* Every spelling of PBKDF2 the core reads, and OpenLDAP's bodies. */
static void
test_pbkdf2_spellings(void **state)
{
    static const char *targets[] = {
        "pbkdf2-sha1 i=1500",           "pbkdf2-sha256 i=1500",
        "pbkdf2-sha512 i=1500",         "pbkdf2-sha256 i=1500 format=phc",
        "pbkdf2-sha256 i=1500 format=django", "pbkdf2-sha512 i=1500 format=phc",
    };
    size_t i;

    (void)state;
    reset_log();
    for (i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        struct kdf_target t;
        char err[128], h[KDF_MAX_HASH_STR + 1];
        const char *second;

        assert_int_equal(kdf_target_parse(targets[i], &t, err, sizeof err), KDF_OK);
        assert_int_equal(kdf_hash(PW, strlen(PW), &t, h, sizeof h), KDF_OK);
        assert_int_equal(kds_compare(&g_pbkdf2, PW, h), 0);
        assert_int_equal(kds_compare(&g_pbkdf2, "x", h), 1);
        /* passlib's form without its head is OpenLDAP's body. */
        if (t.format == KDF_FMT_PASSLIB) {
            second = strchr(h + 1, '$');
            assert_non_null(second);
            assert_int_equal(kds_compare(&g_pbkdf2, PW, second + 1), 0);
            assert_int_equal(kds_compare(&g_pbkdf2, "x", second + 1), 1);
        }
        /* Not the other names' business. */
        assert_int_equal(kds_compare(&g_argon2, PW, h), 1);
    }
    assert_null(strstr(g_log, "$pbkdf2"));
    assert_log_clean(NULL);
}

/* ---- hostile input ---- */

static void
test_hostile_values(void **state)
{
    char big[KDF_MAX_HASH_STR + 100];
    char *bc = kds_encode(&g_bcrypt, PW);
    const char *over = "$argon2id$v=19$m=4194304,t=1,p=1$c2FsdHNhbHRzYWx0$"
                       "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

    (void)state;
    assert_non_null(bc);
    reset_log();
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(kds_compare(&g_argon2, PW, big), 1);
    assert_non_null(strstr(g_log, "longer than"));
    reset_log();
    assert_int_equal(kds_compare(&g_argon2, PW, ""), 1);
    assert_int_equal(kds_compare(&g_argon2, PW, "$argon2id$v=19$m=8192"), 1);
    assert_int_equal(kds_compare(&g_argon2, NULL, "$argon2id$"), 1);
    assert_int_equal(kds_compare(&g_argon2, PW, NULL), 1);
    /* A bcrypt value under {ARGON2}: another family, refused. */
    reset_log();
    assert_int_equal(kds_compare(&g_argon2, PW, body(bc, "BCRYPT")), 1);
    assert_non_null(strstr(g_log, "another scheme"));
    assert_log_clean(body(bc, "BCRYPT"));
    /* Over the caps: refused before any work, said without the value. */
    reset_log();
    assert_int_equal(kds_compare(&g_argon2, PW, over), 1);
    assert_non_null(strstr(g_log, "over the caps"));
    assert_log_clean("m=4194304");
    /* An OpenLDAP body of no digest's length. */
    reset_log();
    assert_int_equal(kds_compare(&g_pbkdf2, PW, "1000$c2FsdA$c2hvcnQ"), 1);
    assert_non_null(strstr(g_log, "no known digest length"));
    free(bc);
}

static void
test_huge_password(void **state)
{
    size_t n = 1u << 20;
    char *pw = malloc(n + 1);
    char *v = kds_encode(&g_argon2, PW);

    (void)state;
    assert_non_null(pw);
    assert_non_null(v);
    memset(pw, 'p', n);
    pw[n] = '\0';
    reset_log();
    assert_int_equal(kds_compare(&g_argon2, pw, body(v, "ARGON2")), 1);
    assert_non_null(strstr(g_log, "max.password"));
    reset_log();
    assert_null(kds_encode(&g_argon2, pw));
    assert_non_null(strstr(g_log, "max.password"));
    free(pw);
    free(v);
}

static int
count(const char *hay, const char *needle)
{
    int n = 0;
    for (; (hay = strstr(hay, needle)) != NULL; hay++)
        n++;
    return n;
}

/* Outdated within the family (below the minimum, another variant): it
 * verifies, and is said once per scheme name; a value of the family the
 * name writes, at the target, is not. */
static void
test_outdated_said_once(void **state)
{
    static const char *cases[] = {"argon2id m=1024,t=1,p=1", "argon2i m=8192,t=1,p=1"};
    struct kdf_target t;
    char err[128], h[KDF_MAX_HASH_STR + 1];
    size_t i;

    (void)state;
    for (i = 0; i < 2; i++) {
        struct kds_scheme s;

        scheme_init(&s, "ARGON2", 0);
        assert_int_equal(configure(&s, NULL, NULL), 0);
        assert_int_equal(kdf_target_parse(cases[i], &t, err, sizeof err), KDF_OK);
        assert_int_equal(kdf_hash(PW, strlen(PW), &t, h, sizeof h), KDF_OK);
        reset_log();
        assert_int_equal(kds_compare(&s, PW, h), 0);
        assert_int_equal(kds_compare(&s, PW, h), 0);
        assert_int_equal(count(g_log, "ARGON2: some stored values are outdated"), 1);
    }
    /* bcrypt under an Argon2 target is what BCRYPT is for: at the cost
     * BCRYPT writes it is not outdated; below it, it is. */
    {
        struct kds_scheme s;
        char *v;

        scheme_init(&s, "BCRYPT", 0);
        assert_int_equal(configure(&s, "min.bcrypt=6", NULL), 0);
        assert_int_equal(s.conf.enc.cost, 12);
        v = kds_encode(&s, PW);
        assert_non_null(v);
        reset_log();
        assert_int_equal(kds_compare(&s, PW, body(v, "BCRYPT")), 0);
        assert_string_equal(g_log, "");
        free(v);
        assert_int_equal(kdf_target_parse("bcrypt cost=6", &t, err, sizeof err), KDF_OK);
        assert_int_equal(kdf_hash(PW, strlen(PW), &t, h, sizeof h), KDF_OK);
        assert_int_equal(kds_compare(&s, PW, h), 0);
        assert_int_equal(count(g_log, "BCRYPT: some stored values are outdated"), 1);
    }
}

/* A bind opened by the upgrade's pre-bind callback: a match on an outdated
 * value is noted for the post-bind callback, exactly as stored, and said
 * nowhere; a match outside a bind, or on a value at the target, notes
 * nothing; taking the note closes the bind and wipes the record. */
static void
test_bind_note(void **state)
{
    struct kds_scheme s, *got;
    struct kdf_target t;
    char err[128], h[KDF_MAX_HASH_STR + 1], out[KDF_MAX_HASH_STR + 1];
    enum kdf_rehash why = KDF_REHASH_NO;
    char *v;

    (void)state;
    scheme_init(&s, "ARGON2", 0);
    assert_int_equal(configure(&s, NULL, NULL), 0);
    assert_int_equal(kdf_target_parse("argon2i m=8192,t=1,p=1", &t, err, sizeof err), KDF_OK);
    assert_int_equal(kdf_hash(PW, strlen(PW), &t, h, sizeof h), KDF_OK);

    reset_log();
    kds_bind_begin();
    assert_int_equal(kds_compare(&s, PW, h), 0);
    got = kds_bind_end(out, sizeof out, &why);
    assert_ptr_equal(got, &s);
    assert_string_equal(out, h);
    assert_int_equal(why, KDF_REHASH_OTHER_SCHEME);
    assert_string_equal(g_log, "");
    /* Taken once: the next end finds nothing, and the window is closed. */
    assert_null(kds_bind_end(out, sizeof out, NULL));
    assert_int_equal(kds_bind_note(&s, "x", 1, KDF_REHASH_TOO_CHEAP), -1);

    /* A wrong password notes nothing. */
    kds_bind_begin();
    assert_int_equal(kds_compare(&s, "Wrong-Horse-1", h), 1);
    assert_null(kds_bind_end(out, sizeof out, NULL));
    /* A value at the target notes nothing. */
    v = kds_encode(&s, PW);
    assert_non_null(v);
    kds_bind_begin();
    assert_int_equal(kds_compare(&s, PW, body(v, "ARGON2")), 0);
    assert_null(kds_bind_end(out, sizeof out, NULL));
    free(v);
    /* The first match of a bind is the one kept. */
    kds_bind_begin();
    assert_int_equal(kds_bind_note(&s, "first", 5, KDF_REHASH_TOO_CHEAP), 0);
    assert_int_equal(kds_bind_note(&s, "second", 6, KDF_REHASH_BUGGY), 0);
    assert_ptr_equal(kds_bind_end(out, sizeof out, &why), &s);
    assert_string_equal(out, "first");
    assert_int_equal(why, KDF_REHASH_TOO_CHEAP);
    /* A begin forgets what an earlier, unfinished bind noted. */
    kds_bind_begin();
    assert_int_equal(kds_bind_note(&s, "stale", 5, KDF_REHASH_TOO_CHEAP), 0);
    kds_bind_begin();
    assert_null(kds_bind_end(out, sizeof out, NULL));
    /* Too small a buffer takes nothing rather than a cut value. */
    kds_bind_begin();
    assert_int_equal(kds_bind_note(&s, "0123456789", 10, KDF_REHASH_TOO_CHEAP), 0);
    assert_null(kds_bind_end(out, 10, NULL));
}

/* Another thread's bind is its own: a note made there is not seen here. */
static void *
note_elsewhere(void *arg)
{
    kds_bind_begin();
    return (void *)(intptr_t)kds_bind_note(arg, "there", 5, KDF_REHASH_TOO_CHEAP);
}

static void
test_bind_note_per_thread(void **state)
{
    struct kds_scheme s;
    pthread_t th;
    void *rc = NULL;
    char out[16];

    (void)state;
    scheme_init(&s, "ARGON2", 0);
    kds_bind_begin();
    assert_int_equal(pthread_create(&th, NULL, note_elsewhere, &s), 0);
    assert_int_equal(pthread_join(th, &rc), 0);
    assert_int_equal((intptr_t)rc, 0);
    assert_null(kds_bind_end(out, sizeof out, NULL));
}

/* nsslapd-scheme-list-no-upgrade-hash, as 389-ds 3.1 spells it. */
static void
test_name_listed(void **state)
{
    (void)state;
    assert_true(kds_name_listed("CRYPT,CLEAR,ARGON2", "ARGON2"));
    assert_true(kds_name_listed("argon2", "ARGON2"));
    assert_true(kds_name_listed(" CLEAR , kdf-pbkdf2 ", "KDF-PBKDF2"));
    assert_false(kds_name_listed("CRYPT,CLEAR", "ARGON2"));
    assert_false(kds_name_listed("ARGON2ID,ARGON", "ARGON2"));
    assert_false(kds_name_listed("", "ARGON2"));
    assert_false(kds_name_listed(NULL, "ARGON2"));
    assert_false(kds_name_listed(",,,", "ARGON2"));
}

/* ---- threads ---- */

struct worker {
    const char *right, *wrong;
    int bad;
};

static void *
worker(void *arg)
{
    struct worker *w = arg;
    int i;

    for (i = 0; i < 6; i++)
        if (kds_compare(&g_argon2, PW, w->right) != 0 ||
            kds_compare(&g_argon2, PW, w->wrong) != 1)
            w->bad++;
    return NULL;
}

static void
test_threads(void **state)
{
    char *a = kds_encode(&g_argon2, PW), *b = kds_encode(&g_argon2, "other");
    pthread_t th[8];
    struct worker w[8];
    int i;

    (void)state;
    assert_non_null(a);
    assert_non_null(b);
    for (i = 0; i < 8; i++) {
        w[i].right = body(a, "ARGON2");
        w[i].wrong = body(b, "ARGON2");
        w[i].bad = 0;
        assert_int_equal(pthread_create(&th[i], NULL, worker, &w[i]), 0);
    }
    for (i = 0; i < 8; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(w[i].bad, 0);
    }
    free(a);
    free(b);
}

/* ---- the configuration's lifetime ---- */

/* 389-ds frees the plugin's argv (plugin_free()) when it deletes or
 * restarts the plugin, and the memory is then someone else's: nothing the
 * scheme uses may still point into it.  The memory gate's file shows which
 * path the core opens: the one configured, not what later lies in that
 * memory. */
static void
test_argv_not_kept(void **state)
{
    char a[64], b[64], *argv[3];
    struct kds_scheme s;
    char *v;
    size_t i;

    (void)state;
    snprintf(a, sizeof a, "/tmp/kdf-dsgate-%ld-A", (long)getpid());
    snprintf(b, sizeof b, "/tmp/kdf-dsgate-%ld-B", (long)getpid());
    unlink(a);
    unlink(b);
    argv[0] = strdup(g_conf);
    argv[1] = strdup("max.memory=65536");
    argv[2] = malloc(sizeof "memgate=" + strlen(a));
    assert_non_null(argv[0]);
    assert_non_null(argv[1]);
    assert_non_null(argv[2]);
    snprintf(argv[2], sizeof "memgate=" + strlen(a), "memgate=%s", a);
    scheme_init(&s, "ARGON2", 0);
    assert_int_equal(kds_configure(&s, 3, argv), 0);
    /* The server's memory, reused: another path, other settings. */
    memcpy(argv[2] + strlen("memgate="), b, strlen(b));
    for (i = 0; argv[1][i] != '\0'; i++)
        argv[1][i] = 'x';
    memset(argv[0], 'y', strlen(argv[0]));
    v = kds_encode(&s, PW);
    assert_non_null(v);
    assert_int_equal(kds_compare(&s, PW, body(v, "ARGON2")), 0);
    assert_int_equal(kds_compare(&s, "Correct-Horse-2", body(v, "ARGON2")), 1);
    assert_int_equal(access(a, F_OK), 0);
    assert_int_not_equal(access(b, F_OK), 0);
    free(v);
    for (i = 0; i < 3; i++)
        free(argv[i]);
    kdf_memgate_set_path(NULL);
    unlink(a);
    unlink(b);
}

/* A password longer than the built-in max.password (4096), allowed by the
 * plugin's arguments: a worker that saw any half-written policy (the
 * defaults before the arguments) would refuse it. */
#define LONG_PW_LEN 5000

struct reconf_worker {
    struct kds_scheme *s;
    const char *pw, *wrong, *right_value;
    atomic_int *stop;
    atomic_int calls;
    int bad;
};

static void *
reconf_worker(void *arg)
{
    struct reconf_worker *w = arg;

    while (!atomic_load(w->stop)) {
        char *v;

        if (kds_compare(w->s, w->pw, w->right_value) != 0 ||
            kds_compare(w->s, w->wrong, w->right_value) != 1)
            w->bad++;
        /* A value made while the configuration changes is made whole at
         * one of the two configurations, and verifies. */
        v = kds_encode(w->s, w->pw);
        if (v == NULL || (strncmp(v, "{KDF-PBKDF2}$pbkdf2-sha256$1000$", 32) != 0 &&
                          strncmp(v, "{KDF-PBKDF2}$pbkdf2-sha512$1001$", 32) != 0) ||
            kds_compare(w->s, w->pw, v + strlen("{KDF-PBKDF2}")) != 0)
            w->bad++;
        free(v);
        atomic_fetch_add(&w->calls, 1);
    }
    return NULL;
}

/* A dynamic plugin restart calls the init function again while binds run:
 * two threads verify and encode in a loop while the main thread
 * reconfigures; every answer stays right (and under TSan, race-free). */
static void
test_reconfigure_while_verifying(void **state)
{
    char *one[4] = {g_conf, (char *)"max.memory=off", (char *)"max.password=8192",
                    (char *)"target=pbkdf2-sha256 i=1000"};
    char *two[4] = {g_conf, (char *)"max.memory=off", (char *)"max.password=8192",
                    (char *)"target=pbkdf2-sha512 i=1001"};
    static struct kds_scheme s;
    struct reconf_worker w[2];
    pthread_t th[2];
    atomic_int stop = 0;
    char *pw = malloc(LONG_PW_LEN + 1), *wrong = malloc(LONG_PW_LEN + 1), *v;
    int i, n;

    (void)state;
    assert_non_null(pw);
    assert_non_null(wrong);
    memset(pw, 'p', LONG_PW_LEN);
    pw[LONG_PW_LEN] = '\0';
    memcpy(wrong, pw, LONG_PW_LEN + 1);
    wrong[LONG_PW_LEN - 1] = 'q';
    scheme_init(&s, "KDF-PBKDF2", 1);
    assert_int_equal(kds_configure(&s, 4, one), 0);
    v = kds_encode(&s, pw);
    assert_non_null(v);
    for (i = 0; i < 2; i++) {
        w[i].s = &s;
        w[i].pw = pw;
        w[i].wrong = wrong;
        w[i].right_value = body(v, "KDF-PBKDF2");
        w[i].stop = &stop;
        atomic_init(&w[i].calls, 0);
        w[i].bad = 0;
        assert_int_equal(pthread_create(&th[i], NULL, reconf_worker, &w[i]), 0);
    }
    /* Both running before the first reconfiguration, and each through a
     * number of rounds while they go on. */
    while (atomic_load(&w[0].calls) < 1 || atomic_load(&w[1].calls) < 1)
        usleep(1000);
    for (n = 0; n < 400 || atomic_load(&w[0].calls) < 20 || atomic_load(&w[1].calls) < 20; n++)
        assert_int_equal(kds_configure(&s, 4, n % 2 ? one : two), 0);
    atomic_store(&stop, 1);
    for (i = 0; i < 2; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    print_message("%d reconfigurations; rounds %d and %d; wrong answers %d and %d\n", n,
                  atomic_load(&w[0].calls), atomic_load(&w[1].calls), w[0].bad, w[1].bad);
    assert_int_equal(w[0].bad, 0);
    assert_int_equal(w[1].bad, 0);
    /* A refused reconfiguration keeps what was in force. */
    reset_log();
    assert_int_equal(configure(&s, "bogus", NULL), -1);
    assert_int_equal(kds_compare(&s, pw, body(v, "KDF-PBKDF2")), 0);
    free(v);
    free(pw);
    free(wrong);
}

/* ---- KDF-WRAPPED, and a replace of a value by its wrap (ds_wrap.c) ---- */

/* A $6$ value of libxcrypt's, as {CRYPT} holds it, and its wrap at the
 * test's target, as {KDF-WRAPPED} holds it. */
static void
wrapped_pair(const char *salt, char *old, size_t ocap, char *new, size_t ncap)
{
    struct crypt_data cd;
    struct kdf_policy pol;
    char w[KDF_MAX_HASH_STR + 1];
    const char *why = NULL, *h;

    memset(&cd, 0, sizeof cd);
    h = crypt_r(PW, salt, &cd);
    assert_non_null(h);
    assert_true(strncmp(h, "$6$", 3) == 0);
    snprintf(old, ocap, "{CRYPT}%s", h);
    kdf_policy_default(&pol);
    assert_int_equal(kdf_target_parse("argon2id m=8192,t=1,p=1", &pol.target, NULL, 0), KDF_OK);
    pol.max_memory_kib = 0;
    assert_int_equal(kdf_wrap(h, strlen(h), &pol.target, &pol, w, sizeof w, &why), KDF_OK);
    snprintf(new, ncap, "{KDF-WRAPPED}%s", w);
}

static void
test_wrapped_scheme(void **state)
{
    char old[256], new[KDF_MAX_HASH_STR + 32];
    struct kds_scheme s;

    (void)state;
    wrapped_pair("$6$rounds=5000$wrapsaltwrapsalt$", old, sizeof old, new, sizeof new);
    scheme_init(&s, "KDF-WRAPPED", 0);
    s.wrapped = 1;
    assert_int_equal(configure(&s, NULL, NULL), 0);
    /* Verified with the old value's password, not another. */
    assert_int_equal(kds_compare(&s, PW, new + strlen("{KDF-WRAPPED}")), 0);
    assert_int_equal(kds_compare(&s, "Wrong-Horse-1", new + strlen("{KDF-WRAPPED}")), 1);
    /* Never makes a value: the next bind's re-encode picks another name. */
    reset_log();
    assert_null(kds_encode(&s, PW));
    assert_non_null(strstr(g_log, "not encoded"));
    /* A direct value is not one of its values, nor a wrapped value one of
     * ARGON2's: each is refused with a reason. */
    {
        char *direct = kds_encode(&g_argon2, PW);

        assert_non_null(direct);
        reset_log();
        assert_int_equal(kds_compare(&s, PW, direct + strlen("{ARGON2}")), 1);
        assert_non_null(strstr(g_log, "another scheme"));
        free(direct);
    }
    reset_log();
    assert_int_equal(kds_compare(&g_argon2, PW, new + strlen("{KDF-WRAPPED}")), 1);
    assert_non_null(strstr(g_log, "another scheme"));
    assert_null(strstr(g_log, PW));
    pthread_rwlock_destroy(&s.lock);
}

static LDAPMod *
mod(int op, const char *type, const char *v1, const char *v2)
{
    static struct berval bv[8][2];
    static struct berval *bvp[8][3];
    static LDAPMod m[8];
    static int next;
    int i = next++ % 8;

    bv[i][0].bv_val = (char *)v1;
    bv[i][0].bv_len = v1 != NULL ? strlen(v1) : 0;
    bv[i][1].bv_val = (char *)v2;
    bv[i][1].bv_len = v2 != NULL ? strlen(v2) : 0;
    bvp[i][0] = v1 != NULL ? &bv[i][0] : NULL;
    bvp[i][1] = v2 != NULL ? &bv[i][1] : NULL;
    bvp[i][2] = NULL;
    m[i].mod_op = op | LDAP_MOD_BVALUES;
    m[i].mod_type = (char *)type;
    m[i].mod_bvalues = bvp[i];
    return &m[i];
}

static void
test_wrap_modify(void **state)
{
    char old[256], new[KDF_MAX_HASH_STR + 32], other[256], onew[KDF_MAX_HASH_STR + 32];

    (void)state;
    wrapped_pair("$6$rounds=5000$wrapsaltwrapsalt$", old, sizeof old, new, sizeof new);
    wrapped_pair("$6$rounds=5000$othersaltothersa$", other, sizeof other, onew, sizeof onew);
    assert_int_equal(kds_wrap_replaces(old, strlen(old), new, strlen(new)), 1);
    /* A wrap of another value (another salt: another password) is a change. */
    assert_int_equal(kds_wrap_replaces(old, strlen(old), onew, strlen(onew)), 0);
    assert_int_equal(kds_wrap_replaces(other, strlen(other), new, strlen(new)), 0);
    /* Not tagged, or not a wrap at all. */
    assert_int_equal(kds_wrap_replaces(old, strlen(old), new + 13, strlen(new + 13)), 0);
    assert_int_equal(kds_wrap_replaces(old, strlen(old), old, strlen(old)), 0);
    assert_int_equal(kds_wrap_replaces(old, strlen(old), "{KDF-WRAPPED}", 13), 0);
    /* A NUL inside a value (LDAP values are counted strings). */
    assert_int_equal(kds_wrap_replaces(old, strlen(old) + 1, new, strlen(new)), 0);
    {
        LDAPMod *ok1[] = {mod(LDAP_MOD_DELETE, "userPassword", old, NULL),
                          mod(LDAP_MOD_ADD, "userPassword", new, NULL), NULL};
        LDAPMod *ok2[] = {mod(LDAP_MOD_ADD, "userpassword", new, NULL),
                          mod(LDAP_MOD_DELETE, "unhashed#user#password", "x", NULL),
                          mod(LDAP_MOD_DELETE, "USERPASSWORD", old, NULL),
                          mod(LDAP_MOD_REPLACE, "modifiersName", "cn=directory manager", NULL),
                          NULL};

        assert_int_equal(kds_wrap_modify(ok1), 1);
        assert_int_equal(kds_wrap_modify(ok2), 1);
    }
    {
        LDAPMod *replace[] = {mod(LDAP_MOD_REPLACE, "userPassword", new, NULL), NULL};
        LDAPMod *only_add[] = {mod(LDAP_MOD_ADD, "userPassword", new, NULL), NULL};
        LDAPMod *two_old[] = {mod(LDAP_MOD_DELETE, "userPassword", old, other),
                              mod(LDAP_MOD_ADD, "userPassword", new, NULL), NULL};
        LDAPMod *two_new[] = {mod(LDAP_MOD_DELETE, "userPassword", old, NULL),
                              mod(LDAP_MOD_ADD, "userPassword", new, onew), NULL};
        LDAPMod *third[] = {mod(LDAP_MOD_DELETE, "userPassword", old, NULL),
                            mod(LDAP_MOD_ADD, "userPassword", new, NULL),
                            mod(LDAP_MOD_ADD, "userPassword", "{CLEAR}x", NULL), NULL};
        LDAPMod *none[] = {mod(LDAP_MOD_REPLACE, "mail", "a@example.com", NULL), NULL};

        assert_int_equal(kds_wrap_modify(replace), 0);
        assert_int_equal(kds_wrap_modify(only_add), 0);
        assert_int_equal(kds_wrap_modify(two_old), 0);
        assert_int_equal(kds_wrap_modify(two_new), 0);
        assert_int_equal(kds_wrap_modify(third), 0);
        assert_int_equal(kds_wrap_modify(none), 0);
        assert_int_equal(kds_wrap_modify(NULL), 0);
    }
}

/* ---- the counters (ds_stats.c) ---- */

static void
test_counters(void **state)
{
    uint64_t before[KDS_ST_COUNT];
    struct kds_stat_pair pool[KDS_STAT_POOL_N];
    char *v = kds_encode(&g_argon2, PW);

    (void)state;
    assert_non_null(v);
    for (int i = 0; i < KDS_ST_COUNT; i++)
        before[i] = kds_stat_get((enum kds_stat)i);
    assert_int_equal(kds_compare(&g_argon2, PW, v + strlen("{ARGON2}")), 0);
    assert_int_equal(kds_compare(&g_argon2, "Wrong-Horse-1", v + strlen("{ARGON2}")), 1);
    assert_int_equal(kds_compare(&g_argon2, PW, "$argon2id$not-a-hash"), 1);
    assert_int_equal(kds_stat_get(KDS_ST_COMPARES) - before[KDS_ST_COMPARES], 3);
    assert_int_equal(kds_stat_get(KDS_ST_MATCHES) - before[KDS_ST_MATCHES], 1);
    assert_int_equal(kds_stat_get(KDS_ST_MISMATCHES) - before[KDS_ST_MISMATCHES], 1);
    assert_int_equal(kds_stat_get(KDS_ST_REFUSED) - before[KDS_ST_REFUSED], 1);
    assert_int_equal(kds_stat_get(KDS_ST_UPGRADES) - before[KDS_ST_UPGRADES], 0);
    /* Every counter has its own attribute name, and so has each pool figure. */
    for (int i = 0; i < KDS_ST_COUNT; i++) {
        assert_non_null(kds_stat_attr((enum kds_stat)i));
        assert_true(strncmp(kds_stat_attr((enum kds_stat)i), "kdfhash", 7) == 0);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(kds_stat_attr((enum kds_stat)i),
                                    kds_stat_attr((enum kds_stat)j));
    }
    assert_null(kds_stat_attr(KDS_ST_COUNT));
    assert_int_equal(kds_stat_pool(pool), KDS_STAT_POOL_N);
    for (int i = 0; i < KDS_STAT_POOL_N; i++)
        assert_true(strncmp(pool[i].attr, "kdfhashWorkArea", 15) == 0);
    free(v);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_directory_profile),
        cmocka_unit_test(test_profile_one_home),
        cmocka_unit_test(test_family_target),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_pbkdf2_spellings),
        cmocka_unit_test(test_hostile_values),
        cmocka_unit_test(test_huge_password),
        cmocka_unit_test(test_outdated_said_once),
        cmocka_unit_test(test_bind_note),
        cmocka_unit_test(test_bind_note_per_thread),
        cmocka_unit_test(test_name_listed),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_argv_not_kept),
        cmocka_unit_test(test_reconfigure_while_verifying),
        cmocka_unit_test(test_wrapped_scheme),
        cmocka_unit_test(test_wrap_modify),
        cmocka_unit_test(test_counters),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
