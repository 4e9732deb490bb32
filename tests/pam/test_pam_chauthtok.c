/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pam_chauthtok.c - password changes through the real libpam
 * (pam_start_confdir + pam_chauthtok), against shadow-style files whose
 * stored hashes come from independent implementations (pam_hashes.inc).
 *
 * Each case asserts the PAM result, the prompts the user saw, and the file
 * afterwards: field 2 at the target and verifying the new password (a
 * login through the module), field 3 set to today, every other byte kept,
 * "FILE-" holding the previous content; or the file unchanged byte for
 * byte after a refusal.  PAM_CHANGE_EXPIRED_AUTHTOK gives the semantics of
 * a caller that is not root (the current password is asked), so the suite
 * means the same as root and as a user; the root-only cases (no current
 * password asked) run when the test runs as root.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <crypt.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pam_host.h"
#define PAM_HASHES_STATIC_TABLE
#include "pam_hashes.h"

#define PW "S3cret-p4ss!"
#define NEWPW "n3w-Secret-pw"
#define TARGET "target=argon2id:m=256,t=1,p=1"
#define TARGET_PREFIX "$argon2id$v=19$m=256,t=1,p=1$"
#define EXPIRED PAM_CHANGE_EXPIRED_AUTHTOK

static char *g_dir;
static char g_file[600], g_conf[600];

/* ---- a scripted conversation ------------------------------------------- */

struct script {
    const char *answers[8]; /* answers to the echo-off prompts, in order */
    int n_prompts;          /* echo-off prompts seen */
    char prompts[8][64];    /* their text */
    int n_info, n_error;    /* PAM_TEXT_INFO / PAM_ERROR_MSG seen */
    char last_error[256];
    /* Called before echo-off prompt number n is answered: what another
     * process does while the user types. */
    void (*at_prompt)(struct script *s, int n);
    /* The answer to the user name prompt (echo on), given after
     * user_again answers of PAM_CONV_AGAIN (an event-driven application
     * not ready yet). */
    const char *user;
    int user_again;
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
        switch (msg[i]->msg_style) {
        case PAM_PROMPT_ECHO_OFF:
            if (s->n_prompts >= 8 || s->answers[s->n_prompts] == NULL) {
                for (int j = 0; j < i; j++)
                    free(r[j].resp);
                free(r);
                return PAM_CONV_ERR; /* the script did not expect this prompt */
            }
            snprintf(s->prompts[s->n_prompts], sizeof s->prompts[0], "%s", msg[i]->msg);
            if (s->at_prompt != NULL)
                s->at_prompt(s, s->n_prompts);
            r[i].resp = strdup(s->answers[s->n_prompts++]);
            break;
        case PAM_PROMPT_ECHO_ON:
            if (s->user == NULL)
                break; /* no answer, as to any other message */
            if (s->user_again > 0) {
                for (int j = 0; j < i; j++)
                    free(r[j].resp);
                free(r);
                s->user_again--;
                return PAM_CONV_AGAIN;
            }
            r[i].resp = strdup(s->user);
            break;
        case PAM_ERROR_MSG:
            s->n_error++;
            snprintf(s->last_error, sizeof s->last_error, "%s", msg[i]->msg);
            break;
        case PAM_TEXT_INFO:
            s->n_info++;
            break;
        default:
            break;
        }
    }
    *resp = r;
    return PAM_SUCCESS;
}

/* One pam_chauthtok(flags) of user through the service file. */
static int
change(const char *user, struct script *s, int flags)
{
    struct pam_conv conv = {script_conv, s};
    pam_handle_t *pamh = NULL;
    int rc, rc2;

    host_log_reset();
    rc = pam_start_confdir(HOST_SERVICE, user, &conv, g_dir, &pamh);
    assert_int_equal(rc, PAM_SUCCESS);
    rc = pam_chauthtok(pamh, flags);
    rc2 = pam_end(pamh, rc);
    assert_int_equal(rc2, PAM_SUCCESS);
    return rc;
}

/* A login through the module with password pw: PAM result. */
static int
login(const char *user, const char *pw)
{
    struct host_conv c = {pw, strlen(pw), PAM_SUCCESS, 0};
    return host_auth(g_dir, user, &c, 0);
}

/* ---- the file -------------------------------------------------------- */

static long
today(void)
{
    return (long)(time(NULL) / 86400);
}

static void
service(const char *args)
{
    char l1[2048], l2[2048];
    const char *lines[2] = {l1, l2};

    snprintf(l1, sizeof l1, "auth required %%M shadow=%s conf=%s %s", g_file, g_conf, TARGET);
    snprintf(l2, sizeof l2, "password required %%M shadow=%s conf=%s %s %s", g_file, g_conf,
             TARGET, args);
    host_service(g_dir, lines, 2);
}

/* The file of every case: users with independent hashes of PW and aging
 * fields of their own. */
static void
write_file(void)
{
    char buf[4096];
    long d = today();
    int n = snprintf(buf, sizeof buf,
                     "# a comment that must survive\n"
                     "root:*:19000:0:99999:7:::\n"
                     "alice:%s:%ld:0:99999:7:::\n"
                     "bob:%s:19000:0:99999:7:::\n"
                     "carol:%s:0:0:99999:7:::\n"
                     "young:%s:%ld:5:99999:7:::\n"
                     "gone:%s:19000:0:99999:7::%ld:\n"
                     "locked:!%s:19000:0:99999:7:::\n"
                     "empty::19000:0:99999:7:::\n"
                     "twofield:%s\n"
                     "zed:%s:19000:0:99999:7:::\r\n",
                     g_hash[H_a2id_target], d, g_hash[H_sha512c], g_hash[H_yescrypt],
                     g_hash[H_a2id_target], d, g_hash[H_bc2b], d - 1, g_hash[H_a2id_target],
                     g_hash[H_pbk256], g_hash[H_bc2b]);
    assert_true(n > 0 && (size_t)n < sizeof buf);
    host_write(g_file, buf, (size_t)n);
    chmod(g_file, 0640);
}

/* Field n (1-based) of user's line (malloc'd), NULL when absent. */
static char *
field(const char *user, int n)
{
    char *b = host_read(g_file, NULL), *r = NULL;
    size_t ul = strlen(user);

    for (char *line = b; line != NULL && *line;) {
        char *nl = strchr(line, '\n');
        if (strncmp(line, user, ul) == 0 && line[ul] == ':') {
            char *f = line;
            for (int i = 1; i < n && f != NULL; i++) {
                f = strchr(f, ':');
                if (f != NULL && (nl == NULL || f < nl))
                    f++;
                else
                    f = NULL;
            }
            if (f != NULL)
                r = strndup(f, strcspn(f, ":\r\n"));
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(b);
    return r;
}

static char *g_before;
static size_t g_before_len;

static void
snapshot(void)
{
    free(g_before);
    g_before = host_read(g_file, &g_before_len);
}

static void
assert_unchanged(void)
{
    size_t n;
    char *b = host_read(g_file, &n);
    assert_int_equal(n, g_before_len);
    assert_memory_equal(b, g_before, n);
    free(b);
}

/* user's field 2 is a new hash at the target, field 3 today, every other
 * line as before, FILE- holds the content before, and the new password
 * logs in while the old one no longer does. */
static void
assert_changed(const char *user, const char *prefix, const char *newpw, const char *oldpw)
{
    char *h = field(user, 2), *d = field(user, 3), want[32], bak[700];
    size_t n, bn;
    char *now = host_read(g_file, &n), *b;

    assert_non_null(h);
    if (strncmp(h, prefix, strlen(prefix)) != 0)
        fail_msg("%s: field 2 not at the target: %s", user, h);
    snprintf(want, sizeof want, "%ld", today());
    assert_non_null(d);
    assert_string_equal(d, want);
    /* The lines of the other users are byte for byte the same. */
    for (const char *line = g_before; *line;) {
        const char *nl = strchr(line, '\n');
        size_t ll = nl ? (size_t)(nl - line + 1) : strlen(line);
        if (!(strncmp(line, user, strlen(user)) == 0 && line[strlen(user)] == ':') &&
            memmem(now, n, line, ll) == NULL)
            fail_msg("line lost or changed: %.*s", (int)ll, line);
        line += ll;
    }
    snprintf(bak, sizeof bak, "%s-", g_file);
    b = host_read(bak, &bn);
    assert_int_equal(bn, g_before_len);
    assert_memory_equal(b, g_before, bn);
    free(b);
    assert_int_equal(login(user, newpw), PAM_SUCCESS);
    if (oldpw != NULL)
        assert_int_equal(login(user, oldpw), PAM_AUTH_ERR);
    free(h);
    free(d);
    free(now);
}

static int
setup(void **state)
{
    (void)state;
    g_dir = host_tmpdir();
    snprintf(g_file, sizeof g_file, "%s/shadow", g_dir);
    snprintf(g_conf, sizeof g_conf, "%s/kdfhash.conf", g_dir);
    host_write(g_conf, "", 0);
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
    host_rmtree(g_dir);
    free(g_dir);
    free(g_before);
    g_before = NULL;
    return 0;
}

static int
per_test(void **state)
{
    (void)state;
    write_file();
    snapshot();
    service("");
    return 0;
}

/* ---- the cases --------------------------------------------------------- */

/* The owner changes an upgraded (Argon2id) entry: current, new, retype. */
static void
test_user_changes_argon2(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    (void)state;
    assert_int_equal(change("alice", &s, EXPIRED), PAM_SUCCESS);
    assert_int_equal(s.n_prompts, 3);
    assert_non_null(strstr(s.prompts[0], "urrent"));
    assert_non_null(strstr(s.prompts[1], "ew"));
    assert_non_null(strstr(s.prompts[2], "etype"));
    assert_changed("alice", TARGET_PREFIX, NEWPW, PW);
}

/* Legacy entries the module verifies through libxcrypt change too. */
static void
test_user_changes_sha512crypt(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    (void)state;
    assert_int_equal(change("bob", &s, EXPIRED), PAM_SUCCESS);
    assert_changed("bob", TARGET_PREFIX, NEWPW, PW);
}

/* A wrong current password ends the change before any new one is asked,
 * as a refusal of the module's (PAM_AUTH_ERR, as pam_unix). */
static void
test_wrong_current(void **state)
{
    struct script s = {.answers = {"not-the-password", NEWPW, NEWPW}};
    (void)state;
    assert_int_equal(change("alice", &s, EXPIRED), PAM_AUTH_ERR);
    assert_int_equal(s.n_prompts, 1);
    assert_unchanged();
    assert_true(host_log_contains("wrong current password", 22));
}

/* Root changes another user's password without the current one. */
static void
test_root_changes(void **state)
{
    struct script s = {.answers = {NEWPW, NEWPW}};
    (void)state;
    if (getuid() != 0)
        skip();
    assert_int_equal(change("bob", &s, 0), PAM_SUCCESS);
    assert_int_equal(s.n_prompts, 2);
    assert_true(host_log_contains("by root", 7));
    assert_changed("bob", TARGET_PREFIX, NEWPW, PW);
}

/* "chage -d 0": field 3 is 0; the expired change sets it to today. */
static void
test_forced_change(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    char *d;
    (void)state;
    d = field("carol", 3);
    assert_string_equal(d, "0");
    free(d);
    assert_int_equal(change("carol", &s, EXPIRED), PAM_SUCCESS);
    assert_changed("carol", TARGET_PREFIX, NEWPW, PW);
}

/* Three different retypes: PAM_AUTHTOK_ERR, nothing written. */
static void
test_retype_mismatch(void **state)
{
    struct script s = {.answers = {PW, NEWPW, "x1-other", NEWPW, "x2-other", NEWPW, "x3-other"}};
    (void)state;
    assert_int_equal(change("alice", &s, EXPIRED), PAM_AUTHTOK_ERR);
    assert_int_equal(s.n_prompts, 7);
    assert_unchanged();
}

/* The same password again is no change (pam_unix's remark), three times. */
static void
test_same_password(void **state)
{
    struct script s = {.answers = {PW, PW, PW, PW, PW, PW, PW}};
    (void)state;
    assert_int_equal(change("alice", &s, EXPIRED), PAM_AUTHTOK_ERR);
    assert_non_null(strstr(s.last_error, "not been changed"));
    assert_unchanged();
}

/* Too short for minlen (6) from a user; the second try is good. */
static void
test_minlen(void **state)
{
    struct script s = {.answers = {PW, "abc", "abc", NEWPW, NEWPW}};
    (void)state;
    assert_int_equal(change("alice", &s, EXPIRED), PAM_SUCCESS);
    assert_non_null(strstr(s.last_error, "longer"));
    assert_changed("alice", TARGET_PREFIX, NEWPW, PW);
}

#define E5 "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9" /* 5 x U+00E9: 10 bytes */
#define D1 "e\xCC\x81"                                    /* U+0065 U+0301 */

/* Lengths are characters of the NFKC form: five composed accents (10
 * bytes) are too short for min.length 6, six decomposed ones (18 bytes)
 * are six; the hash is of the composed form, which then logs in. */
static void
test_length_chars(void **state)
{
    struct script s = {.answers = {PW, E5, E5, D1 D1 D1 D1 D1 D1, D1 D1 D1 D1 D1 D1}};
    (void)state;
    assert_int_equal(change("alice", &s, EXPIRED), PAM_SUCCESS);
    assert_non_null(strstr(s.last_error, "longer"));
    assert_int_equal(login("alice", E5 "\xC3\xA9"), PAM_SUCCESS);
}

/* min.length and max.length on the module's line; minlen= is a name for
 * min.length. */
static void
test_length_keys(void **state)
{
    char long65[66];
    struct script s = {.answers = {PW, "abcdefg", "abcdefg", long65, long65, "abcdefgh",
                                   "abcdefgh"}};
    struct script m = {.answers = {"abcdefgh", "abcdefg", "abcdefg"}};
    (void)state;
    memset(long65, 'x', 65);
    long65[65] = '\0';
    service("min.length=8 max.length=64");
    assert_int_equal(change("alice", &s, EXPIRED), PAM_SUCCESS);
    assert_int_equal(login("alice", "abcdefgh"), PAM_SUCCESS);
    service("min.length=8 minlen=7");
    assert_int_equal(change("alice", &m, EXPIRED), PAM_SUCCESS);
    assert_int_equal(login("alice", "abcdefg"), PAM_SUCCESS);
}

/* Root is not bound by minlen (pam_unix). */
static void
test_minlen_root(void **state)
{
    struct script s = {.answers = {"abc", "abc"}};
    (void)state;
    if (getuid() != 0)
        skip();
    assert_int_equal(change("alice", &s, 0), PAM_SUCCESS);
    assert_changed("alice", TARGET_PREFIX, "abc", PW);
}

/* Field 4: changed today with a minimum of 5 days: refused for the owner
 * after the current password, allowed for root. */
static void
test_minimum_age(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    struct script r = {.answers = {NEWPW, NEWPW}};
    (void)state;
    assert_int_equal(change("young", &s, EXPIRED), PAM_AUTHTOK_ERR);
    assert_non_null(strstr(s.last_error, "wait longer"));
    assert_int_equal(s.n_prompts, 1);
    assert_unchanged();
    if (getuid() != 0)
        return;
    assert_int_equal(change("young", &r, 0), PAM_SUCCESS);
    assert_changed("young", TARGET_PREFIX, NEWPW, PW);
}

/* Field 8 in the past: the account expired, no change. */
static void
test_account_expired(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    (void)state;
    assert_int_equal(change("gone", &s, EXPIRED), PAM_ACCT_EXPIRED);
    assert_unchanged();
}

/* A locked entry refuses its owner's change (and never verifies). */
static void
test_locked(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    (void)state;
    assert_int_equal(change("locked", &s, EXPIRED), PAM_AUTH_ERR);
    assert_int_equal(s.n_prompts, 1);
    assert_unchanged();
}

/* No line for the user: not ours, PAM_USER_UNKNOWN for the next module. */
static void
test_unknown_user(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    (void)state;
    assert_int_equal(change("nobody-here", &s, EXPIRED), PAM_USER_UNKNOWN);
    assert_int_equal(s.n_prompts, 0);
    assert_unchanged();
}

/* nullok and an empty field: no current password to ask. */
static void
test_nullok_empty(void **state)
{
    struct script s = {.answers = {NEWPW, NEWPW}};
    struct script t = {.answers = {"", NEWPW, NEWPW}};
    (void)state;
    /* Without nullok the empty field is a refusal of the module's. */
    assert_int_equal(change("empty", &t, EXPIRED), PAM_AUTH_ERR);
    assert_unchanged();
    service("nullok");
    assert_int_equal(change("empty", &s, EXPIRED), PAM_SUCCESS);
    assert_int_equal(s.n_prompts, 2);
    assert_changed("empty", TARGET_PREFIX, NEWPW, NULL);
}

/* Root's "passwd -l empty" (field 2 "" becomes "!") while the user is at
 * the "New password:" prompt. */
static void
lock_empty_at_new(struct script *s, int n)
{
    char *b;
    size_t len;
    char *p;

    (void)s;
    if (n != 0)
        return;
    b = host_read(g_file, &len);
    p = strstr(b, "\nempty::");
    assert_non_null(p);
    {
        size_t off = (size_t)(p - b) + strlen("\nempty:");
        char *nb = malloc(len + 2);

        assert_non_null(nb);
        memcpy(nb, b, off);
        nb[off] = '!';
        memcpy(nb + off + 1, b + off, len - off);
        host_write(g_file, nb, len + 1);
        free(nb);
    }
    free(b);
}

/* nullok and an empty field that root locks while the user types the new
 * password: the change is refused and the lock stays, as root left it. */
static void
test_nullok_empty_locked_meanwhile(void **state)
{
    struct script s = {.answers = {NEWPW, NEWPW}, .at_prompt = lock_empty_at_new};
    char *f;
    (void)state;
    service("nullok");
    assert_int_equal(change("empty", &s, EXPIRED), PAM_AUTHTOK_ERR);
    f = field("empty", 2);
    assert_non_null(f);
    assert_string_equal(f, "!");
    free(f);
    assert_true(host_log_contains("changed since it was checked", 28));
}

/* Another process (a useradd, a second passwd) asks for the lock the
 * writer takes for g_file, without waiting: 1 when it gets it at once. */
static int
lock_free_elsewhere(void)
{
    char lock[640];
    pid_t pid;
    int st;

    snprintf(lock, sizeof lock, "%s.lock", g_file);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        int fd = open(lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        int got = fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0; /* lckpwdf's kind of lock */

        if (got)
            unlink(lock);
        _exit(got ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st) == 0;
}

static int g_free_at_prompt[8];

static void
probe_lock_at_prompt(struct script *s, int n)
{
    (void)s;
    if (n < 8)
        g_free_at_prompt[n] = lock_free_elsewhere();
}

/* A change waiting at a prompt (a user who stopped her passwd there, or is
 * slow to type) holds no lock: another writer gets it at once at each of
 * the three prompts, and the change still goes through afterwards. */
static void
test_no_lock_at_prompts(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}, .at_prompt = probe_lock_at_prompt};
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    char lock[640];
    int fd;
    (void)state;

    /* The probe can see a held lock (an OFD lock, as the writer's). */
    snprintf(lock, sizeof lock, "%s.lock", g_file);
    fd = open(lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_OFD_SETLK, &fl), 0);
    assert_false(lock_free_elsewhere());
    close(fd);
    unlink(lock);

    memset(g_free_at_prompt, 0, sizeof g_free_at_prompt);
    assert_int_equal(change("alice", &s, EXPIRED), PAM_SUCCESS);
    assert_int_equal(s.n_prompts, 3);
    for (int i = 0; i < 3; i++)
        if (!g_free_at_prompt[i])
            fail_msg("the lock was held at prompt %d (%s)", i, s.prompts[i]);
    assert_changed("alice", TARGET_PREFIX, NEWPW, PW);
    /* and the writer's lock file is gone again */
    assert_int_equal(access(lock, F_OK), -1);
}

/* Stacked after a module that set PAM_AUTHTOK (pam_pwquality's place):
 * use_authtok takes it without a prompt; without one it is an error. */
static void
test_use_authtok(void **state)
{
    char l[3][2048];
    const char *lines[3] = {l[0], l[1], l[2]};
    struct script s = {.answers = {PW}};
    struct script t = {.answers = {PW}};
    (void)state;
    snprintf(l[0], sizeof l[0], "auth required %%M shadow=%s conf=%s %s", g_file, g_conf,
             TARGET);
    snprintf(l[1], sizeof l[1], "password required %%T authtok=%s", NEWPW);
    snprintf(l[2], sizeof l[2], "password required %%M shadow=%s conf=%s %s use_authtok",
             g_file, g_conf, TARGET);
    host_service(g_dir, lines, 3);
    assert_int_equal(change("alice", &s, EXPIRED), PAM_SUCCESS);
    assert_int_equal(s.n_prompts, 1); /* the current password only */
    assert_changed("alice", TARGET_PREFIX, NEWPW, PW);

    write_file();
    snapshot();
    service("use_authtok");
    assert_int_equal(change("alice", &t, EXPIRED), PAM_AUTHTOK_ERR);
    assert_unchanged();
}

/* The target may be a crypt(3) scheme pam_unix reads: the new hash is a
 * yescrypt that libxcrypt itself verifies. */
static void
test_target_yescrypt(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    struct crypt_data cd;
    char *h;
    (void)state;
    service("target=yescrypt:cost=1");
    assert_int_equal(change("alice", &s, EXPIRED), PAM_SUCCESS);
    h = field("alice", 2);
    assert_non_null(h);
    assert_true(strncmp(h, "$y$", 3) == 0);
    memset(&cd, 0, sizeof cd);
    assert_string_equal(crypt_r(NEWPW, h, &cd), h);
    free(h);
    assert_changed("alice", "$y$", NEWPW, PW);
}

static void service_raw(const char *args);

/* root's line given the entry h (the fixture's root is locked). */
static void
set_root_entry(const char *h)
{
    size_t n;
    char *b = host_read(g_file, &n), *out;
    static const char locked[] = "root:*:";
    char *p = strstr(b, locked);

    assert_non_null(p);
    assert_true(asprintf(&out, "%.*sroot:%s:%s", (int)(p - b), b, h, p + strlen(locked)) > 0);
    host_write(g_file, out, strlen(out));
    free(out);
    free(b);
    snapshot();
}

/* root is xcrypt-only by default: its new password is yescrypt at
 * libxcrypt's default cost, which sulogin verifies through crypt(3), not
 * the Argon2id target; the log says why.  Asked with the current password
 * (any caller), and by root without it (passwd root, chpasswd). */
static void
test_root_new_password_xcrypt(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    struct script r = {.answers = {PW, PW}};
    struct crypt_data cd;
    char *h;
    (void)state;

    set_root_entry(g_hash[H_a2id_target]);
    assert_int_equal(change("root", &s, EXPIRED), PAM_SUCCESS);
    assert_true(host_log_contains("xcrypt-only: the new password of root is written as "
                                  "yescrypt",
                                  60));
    h = field("root", 2);
    assert_non_null(h);
    memset(&cd, 0, sizeof cd);
    assert_string_equal(crypt_r(NEWPW, h, &cd), h);
    free(h);
    assert_changed("root", "$y$j9T$", NEWPW, PW);
    if (getuid() != 0)
        return;
    snapshot();
    assert_int_equal(change("root", &r, 0), PAM_SUCCESS);
    assert_changed("root", "$y$j9T$", PW, NEWPW);
}

/* xcrypt-only = none: root's new password is at the target. */
static void
test_root_new_password_none(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    char args[1400];
    (void)state;

    set_root_entry(g_hash[H_a2id_target]);
    snprintf(args, sizeof args, "conf=%s %s xcrypt-only=none", g_conf, TARGET);
    service_raw(args);
    assert_int_equal(change("root", &s, EXPIRED), PAM_SUCCESS);
    assert_changed("root", TARGET_PREFIX, NEWPW, PW);
}

/* Both lines of the service under the module arguments args (a broken
 * configuration, for the degraded cases). */
static void
service_raw(const char *args)
{
    char l1[2048], l2[2048];
    const char *lines[2] = {l1, l2};

    snprintf(l1, sizeof l1, "auth required %%M shadow=%s %s", g_file, args);
    snprintf(l2, sizeof l2, "password required %%M shadow=%s %s", g_file, args);
    host_service(g_dir, lines, 2);
}

/* The change's one LOG_ERR line names the cause and the degraded mode. */
static void
assert_degraded_logged(const char *needle)
{
    int found = 0;

    for (size_t i = 0; i < host_log_count(); i++)
        if (host_log_get(i)->prio == LOG_ERR && strstr(host_log_get(i)->text, needle) &&
            strstr(host_log_get(i)->text, "verifying with the built-in defaults; no upgrade"))
            found = 1;
    if (!found)
        fail_msg("no LOG_ERR line with \"%s\"", needle);
}

/* A typo in kdfhash.conf does not stop password changes (root's passwd
 * USER and chpasswd, a user's own expired change): the new hash is
 * yescrypt at libxcrypt's default cost ($y$j9T$), which pam_unix reads
 * and which needs no policy to be right, and libxcrypt verifies it. */
static void
test_degraded_conf(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    struct script r = {.answers = {NEWPW, NEWPW}};
    struct crypt_data cd;
    char conf[700], args[1400], *h;
    static const char typo[] = "targte = argon2id m=256,t=1,p=1\n";
    (void)state;

    snprintf(conf, sizeof conf, "%s/typo.conf", g_dir);
    host_write(conf, typo, sizeof typo - 1);
    assert_int_equal(chmod(conf, 0644), 0);
    snprintf(args, sizeof args, "conf=%s %s", conf, TARGET);
    service_raw(args);
    assert_int_equal(change("alice", &s, EXPIRED), PAM_SUCCESS);
    assert_degraded_logged("typo.conf:1: unknown key 'targte'");
    h = field("alice", 2);
    assert_non_null(h);
    if (strncmp(h, "$y$j9T$", 7) != 0)
        fail_msg("degraded change wrote %.12s..., not yescrypt at cost 5", h);
    memset(&cd, 0, sizeof cd);
    assert_string_equal(crypt_r(NEWPW, h, &cd), h);
    free(h);
    assert_changed("alice", "$y$j9T$", NEWPW, PW);
    if (getuid() == 0) {
        assert_int_equal(change("bob", &r, 0), PAM_SUCCESS);
        assert_degraded_logged("typo.conf:1:");
        assert_true(host_log_contains("(yescrypt) by root", 18));
    }
    unlink(conf);
}

/* The same for a bad module argument on the password line. */
static void
test_degraded_argument(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    char args[1400];
    (void)state;

    snprintf(args, sizeof args, "conf=%s %s upgrade=sometimes", g_conf, TARGET);
    service_raw(args);
    assert_int_equal(change("alice", &s, EXPIRED), PAM_SUCCESS);
    assert_degraded_logged("\"upgrade=sometimes\"");
    assert_changed("alice", "$y$j9T$", NEWPW, PW);
}

/* upgrade=off, the rollback switch: a password change under an Argon2
 * target is written as yescrypt, which pam_unix reads, and says so. */
static void
test_upgrade_off_writes_xcrypt(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    char args[1400];
    int found = 0;
    (void)state;

    snprintf(args, sizeof args, "conf=%s %s upgrade=off", g_conf, TARGET);
    service_raw(args);
    assert_int_equal(change("alice", &s, EXPIRED), PAM_SUCCESS);
    for (size_t i = 0; i < host_log_count(); i++)
        if (host_log_get(i)->prio == LOG_NOTICE &&
            strstr(host_log_get(i)->text, "upgrade=off: a new password is written as yescrypt"))
            found = 1;
    assert_true(found);
    assert_changed("alice", "$y$j9T$", NEWPW, PW);
}

/* A file of two fields has no field 3 to set: field 2 changes alone; a
 * CRLF line keeps its CR. */
static void
test_odd_lines(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    struct script t = {.answers = {PW, NEWPW, NEWPW}};
    char *h, *b;
    (void)state;
    assert_int_equal(change("twofield", &s, EXPIRED), PAM_SUCCESS);
    h = field("twofield", 2);
    assert_true(strncmp(h, TARGET_PREFIX, strlen(TARGET_PREFIX)) == 0);
    free(h);
    assert_int_equal(change("zed", &t, EXPIRED), PAM_SUCCESS);
    b = host_read(g_file, NULL);
    assert_non_null(strstr(b, ":::\r\n"));
    free(b);
    assert_int_equal(login("zed", NEWPW), PAM_SUCCESS);
}

/* The file's owner and mode survive the rewrite. */
static void
test_mode_kept(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    struct stat st;
    (void)state;
    assert_int_equal(change("alice", &s, EXPIRED), PAM_SUCCESS);
    assert_int_equal(stat(g_file, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
}

/* ---- remember=N: the password history of /etc/security/opasswd -------- */

static char g_opw[700];

/* The other users' lines of the history file, with what pam_unix leaves:
 * a comment, an MD5-crypt entry, a line without its final '\n'. */
#define OPW_OTHERS "# kept as it is\n" \
                   "daemon:1:1:$1$abcdefgh$J4ATeRN5vB9VCsDF5vXQB.\n" \
                   "nobodyx:5:2:$1$a$b,$1$c$d\n" \
                   "zz:7:1:$1$zzzzzzzz$zzzzzzzzzzzzzzzzzzzzzz"

/* "nobody", in every passwd(5) (the history line needs a uid), gets an
 * entry of PW at the target, and the history file its other lines. */
static void
remember_setup(const char *extra_args)
{
    char line[1200], args[1400];
    size_t n;
    char *b = host_read(g_file, &n);
    int k = snprintf(line, sizeof line, "nobody:%s:19000:0:99999:7:::\n", g_hash[H_a2id_target]);

    assert_true(k > 0 && (size_t)k < sizeof line);
    b = realloc(b, n + (size_t)k);
    assert_non_null(b);
    memcpy(b + n, line, (size_t)k);
    host_write(g_file, b, n + (size_t)k);
    chmod(g_file, 0640);
    free(b);
    snapshot();
    snprintf(g_opw, sizeof g_opw, "%s/opasswd", g_dir);
    rmdir(g_opw); /* left by a failed test_remember_unreadable */
    host_write(g_opw, OPW_OTHERS, strlen(OPW_OTHERS));
    chmod(g_opw, 0600);
    snprintf(args, sizeof args, "opasswd=%s %s", g_opw, extra_args);
    service(args);
}

/* The user's line of the history file (malloc'd), NULL when none; the
 * other lines must be exactly OPW_OTHERS's. */
static char *
opw_line(const char *user)
{
    size_t n, ul = strlen(user);
    char *b = host_read(g_opw, &n), *r = NULL;
    const char *others[] = {"# kept as it is\n", "daemon:1:1:$1$abcdefgh$J4ATeRN5vB9VCsDF5vXQB.\n",
                            "nobodyx:5:2:$1$a$b,$1$c$d\n",
                            "zz:7:1:$1$zzzzzzzz$zzzzzzzzzzzzzzzzzzzzzz"};

    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (memmem(b, n, others[i], strlen(others[i])) == NULL)
            fail_msg("history line lost or changed: %s", others[i]);
    for (char *line = b; line != NULL && *line;) {
        char *nl = strchr(line, '\n');
        if (strncmp(line, user, ul) == 0 && line[ul] == ':') {
            r = strndup(line, nl != NULL ? (size_t)(nl - line) : strlen(line));
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(b);
    return r;
}

/* What the history stores of a field: itself, ',' written ';'. */
static char *
opw_entry(const char *h)
{
    char *e = strdup(h);
    for (char *p = e; *p; p++)
        if (*p == ',')
            *p = ';';
    return e;
}

/* remember=2: each change adds the replaced field to the user's line in
 * pam_unix's format; the previous password and the one before are
 * refused with pam_unix's words, a new one is taken, and the third
 * password back is free again.  The other users' lines stay. */
static void
test_remember(void **state)
{
    struct script a = {.answers = {PW, NEWPW, NEWPW}};
    struct script b = {.answers = {NEWPW, PW, PW, "third-Pass-3", "third-Pass-3"}};
    struct script c = {.answers = {"third-Pass-3", NEWPW, NEWPW, PW, PW, "fourth-Pass-4",
                                   "fourth-Pass-4"}};
    struct script d = {.answers = {"fourth-Pass-4", PW, PW}};
    char *h0, *h1, *h2, *l, want[1200], *e0, *e1, *e2;
    struct stat st;
    (void)state;

    remember_setup("remember=2");
    h0 = field("nobody", 2);
    assert_int_equal(change("nobody", &a, EXPIRED), PAM_SUCCESS);
    assert_changed("nobody", TARGET_PREFIX, NEWPW, PW);
    e0 = opw_entry(h0);
    l = opw_line("nobody");
    snprintf(want, sizeof want, "nobody:65534:1:%s", e0);
    assert_non_null(l);
    assert_string_equal(l, want);
    free(l);
    assert_int_equal(stat(g_opw, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);

    /* Back to the previous password: refused, asked again. */
    snapshot();
    h1 = field("nobody", 2);
    assert_int_equal(change("nobody", &b, EXPIRED), PAM_SUCCESS);
    assert_string_equal(b.last_error, "Password has been already used. Choose another.");
    assert_true(host_log_contains("Password has been already used", 30));
    assert_changed("nobody", TARGET_PREFIX, "third-Pass-3", NEWPW);
    e1 = opw_entry(h1);
    l = opw_line("nobody");
    snprintf(want, sizeof want, "nobody:65534:2:%s,%s", e0, e1);
    assert_string_equal(l, want);
    free(l);

    /* Both earlier passwords refused; the current one by "not changed". */
    snapshot();
    h2 = field("nobody", 2);
    assert_int_equal(change("nobody", &c, EXPIRED), PAM_SUCCESS);
    assert_int_equal(c.n_error, 2);
    assert_changed("nobody", TARGET_PREFIX, "fourth-Pass-4", "third-Pass-3");
    e2 = opw_entry(h2);
    l = opw_line("nobody");
    snprintf(want, sizeof want, "nobody:65534:2:%s,%s", e1, e2);
    assert_string_equal(l, want);
    free(l);

    /* PW has left the history of 2: it is taken again. */
    snapshot();
    assert_int_equal(change("nobody", &d, EXPIRED), PAM_SUCCESS);
    assert_int_equal(d.n_error, 0);
    assert_changed("nobody", TARGET_PREFIX, PW, "fourth-Pass-4");
    free(h0);
    free(h1);
    free(h2);
    free(e0);
    free(e1);
    free(e2);
    unlink(g_opw);
}

/* A history pam_unix kept before the module was enabled (MD5-crypt of the
 * old passwords) is checked too. */
static void
test_remember_pam_unix_history(void **state)
{
    struct script s = {.answers = {PW, "older-Pass-0", "older-Pass-0", NEWPW, NEWPW}};
    struct crypt_data cd;
    char line[400];
    const char *md5;
    size_t n;
    char *b;
    (void)state;

    remember_setup("remember=5");
    memset(&cd, 0, sizeof cd);
    md5 = crypt_r("older-Pass-0", "$1$saltsalt$", &cd);
    assert_non_null(md5);
    snprintf(line, sizeof line, "nobody:65534:1:%s\n", md5);
    b = host_read(g_opw, &n);
    b = realloc(b, n + strlen(line) + 2);
    memmove(b + strlen(line), b, n);
    memcpy(b, line, strlen(line));
    host_write(g_opw, b, n + strlen(line));
    free(b);
    assert_int_equal(change("nobody", &s, EXPIRED), PAM_SUCCESS);
    assert_string_equal(s.last_error, "Password has been already used. Choose another.");
    assert_changed("nobody", TARGET_PREFIX, NEWPW, PW);
    b = opw_line("nobody");
    assert_non_null(strstr(b, "nobody:65534:2:$1$saltsalt$"));
    free(b);
    unlink(g_opw);
}

/* No history file yet: the first change creates it, 0600. */
static void
test_remember_creates_file(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    struct stat st;
    char *l;
    (void)state;

    remember_setup("remember=3");
    unlink(g_opw);
    assert_int_equal(change("nobody", &s, EXPIRED), PAM_SUCCESS);
    assert_int_equal(stat(g_opw, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    l = host_read(g_opw, NULL);
    assert_int_equal(strncmp(l, "nobody:65534:1:$argon2id$v=19$m=256;t=1;p=1$", 44), 0);
    free(l);
    unlink(g_opw);
}

/* A history that cannot be read refuses the change, as pam_unix does; the
 * shadow file is untouched. */
static void
test_remember_unreadable(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    (void)state;

    remember_setup("remember=2");
    unlink(g_opw);
    assert_int_equal(mkdir(g_opw, 0700), 0);
    assert_int_equal(change("nobody", &s, EXPIRED), PAM_AUTHTOK_ERR);
    assert_unchanged();
    assert_true(host_log_contains("cannot check old passwords", 26));
    rmdir(g_opw);
}

/* Without remember=N a history the file keeps for the user is not checked,
 * and the log says so (pam_unix's remember=N is invisible to the module). */
static void
test_history_unchecked_noted(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}};
    char line[200];
    size_t n;
    char *b;
    (void)state;

    remember_setup("");
    /* After the last line, which has no final newline. */
    snprintf(line, sizeof line, "\nnobody:65534:1:$1$saltsalt$0123456789012345678901\n");
    b = host_read(g_opw, &n);
    b = realloc(b, n + strlen(line));
    memcpy(b + n, line, strlen(line));
    host_write(g_opw, b, n + strlen(line));
    free(b);
    assert_int_equal(change("nobody", &s, EXPIRED), PAM_SUCCESS);
    assert_true(host_log_contains("does not check without remember=N", 33));
    unlink(g_opw);
}

/* ---- keys: a pepper whose key is missing, administrators, history ------ */

/* The first row of tests/vectors/argon2_keyed.inc (libargon2 with the
 * secret set): a key, and an entry keyed with it of PW_A. */
#define KEY_A "5ykChnXa"
#define KEY_A_HEX "be56bbbc68821cc0109430afb092ebaefb9f3e98a223365596e3045093321fdc"
#define ENTRY_A_OPW                                                                      \
    "$argon2id$v=19$m=8;t=1;p=1;keyid=" KEY_A "$BytvzpWziZWqIKa7mpE2Rw$"                 \
    "qu4LCeWlzVNz1lcWXnreAvp2DWorDMGLmlwz17U0e40"
#define PW_A "\346\320\207\331\265\227\341\246\241\272\273\337"

static char g_keys[700];

/* An empty key directory; both lines of the service get keys= and args. */
static void
keys_service(const char *args)
{
    char a[1600];

    snprintf(g_keys, sizeof g_keys, "%s/keys", g_dir);
    (void)mkdir(g_keys, 0700);
    assert_int_equal(chmod(g_keys, 0700), 0);
    snprintf(a, sizeof a, "conf=%s %s keys=%s %s", g_conf, TARGET, g_keys, args);
    service_raw(a);
}

static void
write_key_a(void)
{
    char path[800];
    static const char text[] = "kdfhash-key-v1 " KEY_A_HEX "\n";

    snprintf(path, sizeof path, "%s/%s", g_keys, KEY_A);
    host_write(path, text, strlen(text));
    assert_int_equal(chmod(path, 0600), 0);
}

static void
remove_key_a(void)
{
    char path[800];

    snprintf(path, sizeof path, "%s/%s", g_keys, KEY_A);
    (void)unlink(path);
}

/* The one LOG_ERR line of a change whose pepper key is missing names the
 * user, the key and its file, and says what to do. */
static void
assert_unkeyed_logged(const char *user, const char *id)
{
    char want[1200];

    assert_int_equal(host_log_count_prio(LOG_ERR), 1);
    snprintf(want, sizeof want, "pepper key %s cannot be read (%s/%s: missing): the new "
             "password of %s is written unkeyed", id, g_keys, id, user);
    if (!host_log_contains(want, strlen(want)))
        fail_msg("not logged: %s", want);
    assert_true(host_log_contains("restore the key file", 20));
}

/* A pepper whose key file is gone never fails a change: the user's own,
 * the forced one of "chage -d 0" and root's are written unkeyed at the
 * target (the prefix has no keyid=), and log in. */
static void
test_change_pepper_missing(void **state)
{
    struct script a = {.answers = {PW, NEWPW, NEWPW}};
    struct script c = {.answers = {PW, NEWPW, NEWPW}};
    struct script r = {.answers = {NEWPW, NEWPW}};
    (void)state;

    keys_service("pepper=AAAAAAAA admins=none");
    assert_int_equal(change("alice", &a, EXPIRED), PAM_SUCCESS);
    assert_unkeyed_logged("alice", "AAAAAAAA");
    assert_changed("alice", TARGET_PREFIX, NEWPW, PW);
    snapshot();
    assert_int_equal(change("carol", &c, EXPIRED), PAM_SUCCESS);
    assert_unkeyed_logged("carol", "AAAAAAAA");
    assert_changed("carol", TARGET_PREFIX, NEWPW, PW);
    if (getuid() != 0)
        return;
    snapshot();
    assert_int_equal(change("bob", &r, 0), PAM_SUCCESS);
    assert_unkeyed_logged("bob", "AAAAAAAA");
    assert_true(host_log_contains("by root", 7));
    assert_changed("bob", TARGET_PREFIX, NEWPW, PW);
}

/* admins: with the key at hand, a user's new password is keyed, an
 * administrator's is not (said once, at LOG_NOTICE); root, xcrypt-only,
 * stays on yescrypt. */
static void
test_change_admin_unkeyed(void **state)
{
    struct script a = {.answers = {PW, NEWPW, NEWPW}};
    struct script b = {.answers = {PW, NEWPW, NEWPW}};
    struct script r = {.answers = {PW, NEWPW, NEWPW}};
    char *h;
    (void)state;

    keys_service("pepper=" KEY_A " admins=bob");
    write_key_a();
    assert_int_equal(change("alice", &a, EXPIRED), PAM_SUCCESS);
    h = field("alice", 2);
    assert_non_null(strstr(h, ",keyid=" KEY_A "$"));
    free(h);
    assert_int_equal(login("alice", NEWPW), PAM_SUCCESS);
    snapshot();
    assert_int_equal(change("bob", &b, EXPIRED), PAM_SUCCESS);
    assert_int_equal(host_log_count_prio(LOG_NOTICE), 2); /* this and "password changed" */
    assert_true(host_log_contains("admins: the new password of bob is written without the "
                                  "pepper (key " KEY_A ")",
                                  68));
    h = field("bob", 2);
    assert_null(strstr(h, "keyid="));
    free(h);
    /* Unkeyed, it logs in with the key gone. */
    remove_key_a();
    assert_changed("bob", TARGET_PREFIX, NEWPW, PW);
    write_key_a();
    set_root_entry(g_hash[H_a2id_target]);
    assert_int_equal(change("root", &r, EXPIRED), PAM_SUCCESS);
    assert_changed("root", "$y$j9T$", NEWPW, PW);
    remove_key_a();
}

/* remember=N with a history entry keyed with a key that is gone: it cannot
 * be checked, so no new password passes (the one it holds, or another),
 * with a remark for the user and a LOG_ERR line naming the user, the key
 * and its file; root's change is not checked and goes through. */
static void
test_remember_key_lost(void **state)
{
    struct script a = {.answers = {PW, PW_A, PW_A}};
    struct script b = {.answers = {PW, NEWPW, NEWPW}};
    struct script r = {.answers = {NEWPW, NEWPW}};
    char line[400], args[900], want[1200];
    size_t n;
    char *buf;
    (void)state;

    snprintf(g_keys, sizeof g_keys, "%s/keys", g_dir);
    (void)mkdir(g_keys, 0700);
    snprintf(args, sizeof args, "remember=2 keys=%s", g_keys);
    remember_setup(args);
    snprintf(line, sizeof line, "nobody:65534:1:%s\n", ENTRY_A_OPW);
    buf = host_read(g_opw, &n);
    buf = realloc(buf, n + strlen(line) + 1);
    memmove(buf + strlen(line), buf, n);
    memcpy(buf, line, strlen(line));
    host_write(g_opw, buf, n + strlen(line));
    free(buf);

    /* With the key, the entry is checked: PW_A is refused as used (and
     * asked again, which the script does not answer). */
    write_key_a();
    assert_int_not_equal(change("nobody", &a, EXPIRED), PAM_SUCCESS);
    assert_true(host_log_contains("new password for nobody refused: Password has been "
                                  "already used",
                                  63));
    assert_unchanged();
    remove_key_a();
    memset(&a, 0, sizeof a);
    a.answers[0] = PW;
    a.answers[1] = a.answers[2] = PW_A;
    snprintf(want, sizeof want, "keyed with key %s, which cannot be read (%s/%s: missing)",
             KEY_A, g_keys, KEY_A);
    for (int i = 0; i < 2; i++) {
        struct script *s = i == 0 ? &a : &b;

        assert_int_equal(change("nobody", s, EXPIRED), PAM_AUTHTOK_ERR);
        assert_string_equal(s->last_error,
                            "Your earlier passwords cannot be checked; ask your administrator.");
        assert_int_equal(s->n_prompts, 3); /* asked once: no other password can pass */
        assert_int_equal(host_log_count_prio(LOG_ERR), 1);
        assert_true(host_log_contains("password change for nobody refused: earlier "
                                      "passwords cannot be checked",
                                      69));
        if (!host_log_contains(want, strlen(want)))
            fail_msg("not logged: %s", want);
        assert_unchanged();
    }
    if (getuid() == 0) {
        assert_int_equal(change("nobody", &r, 0), PAM_SUCCESS);
        assert_changed("nobody", TARGET_PREFIX, NEWPW, PW);
    }
    unlink(g_opw);
}

/* A conversation not ready for the user name (PAM_CONV_AGAIN) gets
 * PAM_INCOMPLETE, as from pam_unix's authentication: nothing failed, so
 * nothing is logged above LOG_DEBUG and the file is untouched; the
 * application's next call resumes the change at the module and completes
 * it. */
static void
test_conv_again(void **state)
{
    struct script s = {.answers = {PW, NEWPW, NEWPW}, .user = "alice", .user_again = 2};
    struct pam_conv conv = {script_conv, &s};
    pam_handle_t *pamh = NULL;
    (void)state;
    assert_int_equal(pam_start_confdir(HOST_SERVICE, NULL, &conv, g_dir, &pamh), PAM_SUCCESS);
    for (int i = 0; i < 2; i++) {
        host_log_reset();
        assert_int_equal(pam_chauthtok(pamh, EXPIRED), PAM_INCOMPLETE);
        assert_int_equal(s.n_prompts, 0);
        for (size_t k = 0; k < host_log_count(); k++)
            if (host_log_get(k)->prio != LOG_DEBUG)
                fail_msg("logged: %s", host_log_get(k)->text);
        assert_unchanged();
    }
    assert_int_equal(pam_chauthtok(pamh, EXPIRED), PAM_SUCCESS);
    assert_int_equal(s.n_prompts, 3);
    assert_int_equal(pam_end(pamh, PAM_SUCCESS), PAM_SUCCESS);
    assert_changed("alice", TARGET_PREFIX, NEWPW, PW);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_user_changes_argon2, per_test),
        cmocka_unit_test_setup(test_user_changes_sha512crypt, per_test),
        cmocka_unit_test_setup(test_wrong_current, per_test),
        cmocka_unit_test_setup(test_root_changes, per_test),
        cmocka_unit_test_setup(test_forced_change, per_test),
        cmocka_unit_test_setup(test_retype_mismatch, per_test),
        cmocka_unit_test_setup(test_same_password, per_test),
        cmocka_unit_test_setup(test_length_chars, per_test),
        cmocka_unit_test_setup(test_length_keys, per_test),
        cmocka_unit_test_setup(test_minlen, per_test),
        cmocka_unit_test_setup(test_minlen_root, per_test),
        cmocka_unit_test_setup(test_minimum_age, per_test),
        cmocka_unit_test_setup(test_account_expired, per_test),
        cmocka_unit_test_setup(test_locked, per_test),
        cmocka_unit_test_setup(test_unknown_user, per_test),
        cmocka_unit_test_setup(test_nullok_empty, per_test),
        cmocka_unit_test_setup(test_nullok_empty_locked_meanwhile, per_test),
        cmocka_unit_test_setup(test_no_lock_at_prompts, per_test),
        cmocka_unit_test_setup(test_use_authtok, per_test),
        cmocka_unit_test_setup(test_target_yescrypt, per_test),
        cmocka_unit_test_setup(test_odd_lines, per_test),
        cmocka_unit_test_setup(test_mode_kept, per_test),
        cmocka_unit_test_setup(test_degraded_conf, per_test),
        cmocka_unit_test_setup(test_degraded_argument, per_test),
        cmocka_unit_test_setup(test_upgrade_off_writes_xcrypt, per_test),
        cmocka_unit_test_setup(test_remember, per_test),
        cmocka_unit_test_setup(test_remember_pam_unix_history, per_test),
        cmocka_unit_test_setup(test_remember_creates_file, per_test),
        cmocka_unit_test_setup(test_remember_unreadable, per_test),
        cmocka_unit_test_setup(test_history_unchecked_noted, per_test),
        cmocka_unit_test_setup(test_root_new_password_xcrypt, per_test),
        cmocka_unit_test_setup(test_root_new_password_none, per_test),
        cmocka_unit_test_setup(test_conv_again, per_test),
        cmocka_unit_test_setup(test_change_pepper_missing, per_test),
        cmocka_unit_test_setup(test_change_admin_unkeyed, per_test),
        cmocka_unit_test_setup(test_remember_key_lost, per_test),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
