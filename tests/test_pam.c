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

#include "pam_host.h"

#define PW "S3cret-p4ss!"
#define WRONG "S3cret-p4ss?"
#define TARGET "target=argon2id:m=256,t=1,p=1"
#define TARGET_PREFIX "$argon2id$v=19$m=256,t=1,p=1$"

enum hash_id {
#define PAM_HASH(id, h) H_##id,
#include "pam_hashes.inc"
#undef PAM_HASH
    H_COUNT
};
static const char *const g_hash[] = {
#define PAM_HASH(id, h) h,
#include "pam_hashes.inc"
#undef PAM_HASH
};
static const char *const g_hash_id[] = {
#define PAM_HASH(id, h) #id,
#include "pam_hashes.inc"
#undef PAM_HASH
};

static char *g_dir;       /* temp dir of the group */
static char g_shadow[512]; /* the main shadow file */
static char g_conf[512];   /* an empty kdfhash.conf */

/* ---- passwords ---------------------------------------------------------- */

enum pw_kind { PW_STD, PW_WRONG, PW_LIT, PW_FILL, PW_HIGH, PW_HIGH_BAD, PW_SSHD };

struct pwspec {
    enum pw_kind kind;
    const char *lit; /* PW_LIT */
    size_t len;      /* PW_FILL, PW_SSHD */
    char fill;       /* PW_FILL */
};

/* Builds the bytes of a password; returns a malloc'd buffer. */
static char *
make_pw(const struct pwspec *p, size_t *len)
{
    static const char sshd[] = "\b\n\r\177INCORRECT"; /* OpenSSH auth-pam.c */
    char *b;
    size_t n;

    switch (p->kind) {
    case PW_STD:
        n = strlen(PW);
        b = strdup(PW);
        break;
    case PW_WRONG:
        n = strlen(WRONG);
        b = strdup(WRONG);
        break;
    case PW_LIT:
        n = strlen(p->lit);
        b = strdup(p->lit);
        break;
    case PW_FILL:
        n = p->len;
        b = malloc(n + 1);
        memset(b, p->fill, n);
        break;
    case PW_HIGH:
    case PW_HIGH_BAD:
        n = 128;
        b = malloc(n + 1);
        for (size_t i = 0; i < n; i++)
            b[i] = (char)(0x80 + i);
        if (p->kind == PW_HIGH_BAD)
            b[77] ^= 1;
        break;
    case PW_SSHD:
    default:
        n = p->len;
        b = malloc(n + 1);
        for (size_t i = 0; i < n; i++)
            b[i] = sshd[i % (sizeof sshd - 1)];
        break;
    }
    b[n] = '\0';
    *len = n;
    return b;
}

/* ---- the main shadow file ----------------------------------------------- */

static char g_name256[257], g_name255[256], g_name257[258];

static void
append(char **buf, size_t *len, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&s, fmt, ap);
    va_end(ap);
    assert_true(n >= 0);
    *buf = realloc(*buf, *len + (size_t)n + 1);
    memcpy(*buf + *len, s, (size_t)n + 1);
    *len += (size_t)n;
    free(s);
}

static void
write_main_shadow(void)
{
    char *b = NULL, *huge;
    size_t n = 0;

    append(&b, &n, "# a comment line\n\n   \n");
    /* A 70 KB line before the users: skipped, never matched. */
    huge = malloc(70001);
    memset(huge, 'A', 70000);
    huge[70000] = '\0';
    append(&b, &n, "u_huge:%s:19000:0:99999:7:::\n", huge);
    free(huge);
    append(&b, &n, "root::19000:0:99999:7:::\n");
    for (int i = 0; i < H_COUNT; i++)
        append(&b, &n, "u_%s:%s:19000:0:99999:7:::\n", g_hash_id[i], g_hash[i]);
    append(&b, &n, "u_empty::19000:0:99999:7:::\n");
    append(&b, &n, "u_star:*:19000:0:99999:7:::\n");
    append(&b, &n, "u_bang:!:19000:0:99999:7:::\n");
    append(&b, &n, "u_bang_valid:!%s:19000:0:99999:7:::\n", g_hash[H_bc2b]);
    append(&b, &n, "u_star_valid:*%s:19000:0:99999:7:::\n", g_hash[H_a2id]);
    append(&b, &n, "u_malformed:$2b$04$short:19000:0:99999:7:::\n");
    append(&b, &n, "u_unsupported:$9$abcdefgh$xyz:19000:0:99999:7:::\n");
    append(&b, &n, "+u_plus:%s:19000:0:99999:7:::\n", g_hash[H_pbk256]);
    append(&b, &n, "-u_minus:%s:19000:0:99999:7:::\n", g_hash[H_pbk256]);
    append(&b, &n, "#u_hash:%s:19000:0:99999:7:::\n", g_hash[H_pbk256]);
    append(&b, &n, "%s:%s:19000:0:99999:7:::\n", g_name256, g_hash[H_pbk256]);
    append(&b, &n, "%s:%s:19000:0:99999:7:::\n", g_name257, g_hash[H_pbk256]);
    append(&b, &n, "u_dup:%s:19000:0:99999:7:::\n", g_hash[H_pbk256]);
    append(&b, &n, "u_dup:%s:19000:0:99999:7:::\n", g_hash[H_pbk256]);
    append(&b, &n, "u_nocolon\n");
    append(&b, &n, "u_crlf:%s:19000:0:99999:7:::\r\n", g_hash[H_pbk256]);
    append(&b, &n, "u_crlf2:%s\r\n", g_hash[H_phc256]);
    append(&b, &n, "u_last:%s", g_hash[H_pbk1]); /* no final newline */
    host_write(g_shadow, b, n);
    free(b);
}

static int
group_setup(void **state)
{
    (void)state;
    memset(g_name256, 'L', 256);
    memset(g_name255, 'L', 255);
    memset(g_name257, 'M', 257);
    g_dir = host_tmpdir();
    snprintf(g_shadow, sizeof g_shadow, "%s/shadow", g_dir);
    snprintf(g_conf, sizeof g_conf, "%s/kdfhash.conf", g_dir);
    host_write(g_conf, "", 0);
    write_main_shadow();
    return 0;
}

static int
group_teardown(void **state)
{
    (void)state;
    host_rmtree(g_dir);
    free(g_dir);
    return 0;
}

/* ---- the matrix --------------------------------------------------------- */

#define NOLOG (-1)
#define S_MAIN NULL
#define S_MISSING "@missing"
#define S_DIR "@dir"
#define S_LINK "@link"

struct mcase {
    const char *what;
    const char *user; /* "@256", "@255", "@257": the long names */
    struct pwspec pw;
    const char *args; /* appended to the base arguments */
    const char *shadow;
    int flags;
    int conv_rc;
    int expect;
    int log_prio; /* the one expected line's level, or NOLOG */
};

#define STD {PW_STD, NULL, 0, 0}
#define BAD {PW_WRONG, NULL, 0, 0}
#define LIT(s) {PW_LIT, s, 0, 0}
#define FILL(c, n) {PW_FILL, NULL, n, c}
#define SSHD(n) {PW_SSHD, NULL, n, 0}
#define HIGH {PW_HIGH, NULL, 0, 0}
#define HIGH_BAD {PW_HIGH_BAD, NULL, 0, 0}
#define RIGHT(id) {"right " #id, "u_" #id, STD, "", S_MAIN, 0, PAM_SUCCESS, PAM_SUCCESS, NOLOG}
#define WRONGPW(id) \
    {"wrong " #id, "u_" #id, BAD, "", S_MAIN, 0, PAM_SUCCESS, PAM_AUTH_ERR, LOG_NOTICE}
#define REFUSE(what, user, pw, args, expect, prio) \
    {what, user, pw, args, S_MAIN, 0, PAM_SUCCESS, expect, prio}

static const struct mcase g_cases[] = {
    /* every scheme, right and wrong */
    RIGHT(bc2b), WRONGPW(bc2b), RIGHT(bc2a), WRONGPW(bc2a), RIGHT(bc2y), WRONGPW(bc2y),
    RIGHT(bc2x), WRONGPW(bc2x), RIGHT(a2id), WRONGPW(a2id), RIGHT(a2id_p4), RIGHT(a2i),
    WRONGPW(a2i), RIGHT(a2d), WRONGPW(a2d), RIGHT(a2id_v16), WRONGPW(a2id_v16),
    RIGHT(pbk1), WRONGPW(pbk1), RIGHT(pbk256), WRONGPW(pbk256), RIGHT(pbk512),
    WRONGPW(pbk512), RIGHT(phc1), WRONGPW(phc1), RIGHT(phc256), WRONGPW(phc256),
    RIGHT(phc512), WRONGPW(phc512), RIGHT(dj256), WRONGPW(dj256), RIGHT(dj1), WRONGPW(dj1),
    RIGHT(sha512c), WRONGPW(sha512c), RIGHT(yescrypt), WRONGPW(yescrypt), RIGHT(md5c),
    WRONGPW(md5c),
    /* file layout: CRLF, two fields, no final newline */
    RIGHT(crlf), RIGHT(crlf2), RIGHT(last),
    /* unknown users and unusable files */
    REFUSE("unknown user", "nosuchuser", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    {"missing file", "u_bc2b", STD, "", S_MISSING, 0, PAM_SUCCESS, PAM_AUTHINFO_UNAVAIL,
     LOG_ERR},
    {"directory as file", "u_bc2b", STD, "", S_DIR, 0, PAM_SUCCESS, PAM_AUTHINFO_UNAVAIL,
     LOG_ERR},
    {"symlinked file", "u_bc2b", STD, "", S_LINK, 0, PAM_SUCCESS, PAM_AUTHINFO_UNAVAIL,
     LOG_ERR},
    {"odd name, missing file", "a:b", STD, "", S_MISSING, 0, PAM_SUCCESS, PAM_USER_UNKNOWN,
     LOG_NOTICE},
    /* broken, unsupported, duplicated and over-cap entries */
    REFUSE("malformed entry", "u_malformed", STD, "", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("unsupported entry", "u_unsupported", STD, "", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("duplicate name", "u_dup", STD, "", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("over-cap bcrypt 17", "u_cap_bcrypt", STD, "", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("over-cap argon2 p=1000", "u_cap_argon2", STD, "", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("over-cap pbkdf2 1e8", "u_cap_pbkdf2", STD, "", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("over max.bcrypt=4", "u_bc2y", STD, "max.bcrypt=4", PAM_AUTH_ERR, LOG_ERR),
    REFUSE("over max.password=8", "u_bc2b", STD, "max.password=8", PAM_AUTH_ERR,
           LOG_NOTICE),
    /* empty field x nullok x PAM_DISALLOW_NULL_AUTHTOK x typed password */
    REFUSE("empty, no nullok", "u_empty", LIT(""), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("empty, nullok", "u_empty", LIT(""), "nullok", PAM_SUCCESS, NOLOG),
    {"empty, nullok, DISALLOW", "u_empty", LIT(""), "nullok", S_MAIN,
     PAM_DISALLOW_NULL_AUTHTOK, PAM_SUCCESS, PAM_AUTH_ERR, LOG_NOTICE},
    {"empty, DISALLOW", "u_empty", LIT(""), "", S_MAIN, PAM_DISALLOW_NULL_AUTHTOK,
     PAM_SUCCESS, PAM_AUTH_ERR, LOG_NOTICE},
    REFUSE("empty, nullok, typed x", "u_empty", LIT("x"), "nullok", PAM_AUTH_ERR,
           LOG_NOTICE),
    REFUSE("root empty, nullok", "root", LIT(""), "nullok", PAM_SUCCESS, NOLOG),
    /* CVE-2020-27780: unknown user + nullok + root without password */
    REFUSE("CVE-2020-27780", "pam_unix_non_existent:", LIT(""), "nullok",
           PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("CVE-2020-27780 valid name", "nosuchuser", LIT(""), "nullok", PAM_USER_UNKNOWN,
           LOG_NOTICE),
    /* locked */
    REFUSE("locked *", "u_star", STD, "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("locked !", "u_bang", STD, "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("locked ! + valid bcrypt", "u_bang_valid", STD, "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("locked * + valid argon2id", "u_star_valid", STD, "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("locked !, nullok, empty", "u_bang", LIT(""), "nullok", PAM_AUTH_ERR,
           LOG_NOTICE),
    /* odd names */
    REFUSE("name with ':'", "u_bc2b:x", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("name with newline", "u_bc2b\n", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("name +", "+u_plus", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("name -", "-u_minus", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("comment line name", "#u_hash", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("empty name", "", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("256-byte name", "@256", STD, "", PAM_SUCCESS, NOLOG),
    REFUSE("257-byte name", "@257", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("prefix of a 256-byte name", "@255", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("prefix of u_bc2b", "u_bc2", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("line without ':'", "u_nocolon", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("name on a 70 KB line", "u_huge", STD, "", PAM_USER_UNKNOWN, LOG_NOTICE),
    /* the conversation */
    {"conversation error", "u_bc2b", STD, "", S_MAIN, 0, PAM_CONV_ERR, PAM_CONV_ERR,
     LOG_ERR},
    /* (the one line of these two is libpam's own "conversation failed") */
    {"conversation again", "u_bc2b", STD, "", S_MAIN, 0, PAM_CONV_AGAIN, PAM_INCOMPLETE,
     LOG_ERR},
    /* module arguments */
    REFUSE("unknown option", "u_bc2b", STD, "frobnicate", PAM_SERVICE_ERR, LOG_ERR),
    REFUSE("bad upgrade=", "u_bc2b", STD, "upgrade=sometimes", PAM_SERVICE_ERR, LOG_ERR),
    REFUSE("relative shadow=", "u_bc2b", STD, "shadow=etc/shadow", PAM_SERVICE_ERR,
           LOG_ERR),
    REFUSE("missing explicit conf=", "u_bc2b", STD, "conf=/nonexistent/kdfhash.conf",
           PAM_SERVICE_ERR, LOG_ERR),
    REFUSE("unknown policy key", "u_bc2b", STD, "max.bogus=3", PAM_SERVICE_ERR, LOG_ERR),
    REFUSE("flag with a value", "u_bc2b", STD, "nullok=1", PAM_SERVICE_ERR, LOG_ERR),
    REFUSE("bad target", "u_bc2b", STD, "target=md5", PAM_SERVICE_ERR, LOG_ERR),
    REFUSE("use_ and try_first_pass", "u_bc2b", STD, "use_first_pass try_first_pass",
           PAM_SERVICE_ERR, LOG_ERR),
    /* hostile passwords (reliability.md test 8) */
    REFUSE("0-byte password", "u_bc2b", LIT(""), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("hash of the empty password", "u_pw0", LIT(""), "", PAM_SUCCESS, NOLOG),
    REFUSE("1-byte password", "u_pw1", LIT("a"), "", PAM_SUCCESS, NOLOG),
    REFUSE("1-byte wrong", "u_pw1", LIT("b"), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("bcrypt 72 bytes", "u_pw72", FILL('x', 72), "", PAM_SUCCESS, NOLOG),
    REFUSE("bcrypt 73 bytes (cut at 72)", "u_pw72", FILL('x', 73), "", PAM_SUCCESS,
           NOLOG),
    REFUSE("bcrypt 71 bytes", "u_pw72", FILL('x', 71), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("4096 bytes", "u_pw4096", FILL('p', 4096), "", PAM_SUCCESS, NOLOG),
    REFUSE("4097 bytes", "u_pw4096", FILL('p', 4097), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("1 MiB", "u_pw4096", FILL('p', 1 << 20), "", PAM_AUTH_ERR, LOG_NOTICE),
    REFUSE("1 MiB, unknown user", "nosuchuser", FILL('p', 1 << 20), "", PAM_USER_UNKNOWN,
           LOG_NOTICE),
    REFUSE("sshd junk, unknown user", "nosuchuser", SSHD(12), "",
           PAM_USER_UNKNOWN, LOG_NOTICE),
    REFUSE("sshd junk, known user", "u_a2id", SSHD(12), "", PAM_AUTH_ERR,
           LOG_NOTICE),
    REFUSE("sshd junk 1000, known", "u_bc2b", SSHD(1000), "", PAM_AUTH_ERR,
           LOG_NOTICE),
    REFUSE("bytes 0x80-0xff", "u_pwhigh", HIGH, "", PAM_SUCCESS, NOLOG),
    REFUSE("bytes 0x80-0xff, one bit off", "u_pwhigh", HIGH_BAD, "",
           PAM_AUTH_ERR, LOG_NOTICE),
};

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
    size_t n = sizeof g_cases / sizeof g_cases[0];
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
    for (size_t i = 0; i < sizeof g_cases / sizeof g_cases[0]; i++)
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
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
