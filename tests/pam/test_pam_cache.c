/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pam_cache.c - the offline cache (cache=store|validate|update|
 * forget, pam_kdfhash(8) OFFLINE CACHE) through the real libpam.
 *
 * store writes an $argon2id$ line "user:hash:today" into a 0600 file in a
 * 0700 directory it makes, keyed with the pepper (an admin's unkeyed),
 * keeps the hash of an entry that verifies and only refreshes its day;
 * validate accepts the right password, refuses a wrong one and an absent
 * user (at the cost of a verification: timed), an expired entry, hostile
 * lines and an unsafe file (each with a log line), and a caller that
 * cannot read the cache gets PAM_AUTHINFO_UNAVAIL and a clear log line;
 * update drops an entry only when the refused password still opens it,
 * forget always; a bad cache= value validates, a degraded store writes
 * nothing; `kdfhash audit --offline-cache` reports each entry's age
 * and the expired ones.  The documented stack runs as written, with this module
 * on a shadow-style file standing for pam_sss (online: the file; offline:
 * a file that is not there, PAM_AUTHINFO_UNAVAIL, as pam_sss answers).
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
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pam_host.h"

#define PW "S3cret-p4ss!"
#define PW2 "n3w-Secret-pw"
#define WRONG "S3cret-p4ss?"
#define TARGET "target=argon2id:m=256,t=1,p=1"
#define TARGET_PREFIX "$argon2id$v=19$m=256,t=1,p=1$"
/* The first key of pam_keyed_cases.c. */
#define KEY_A "5ykChnXa"
#define KEY_A_HEX "be56bbbc68821cc0109430afb092ebaefb9f3e98a223365596e3045093321fdc"

static char *g_dir;
static char g_cdir[600], g_cache[700], g_conf[600], g_keys[600], g_online[600];

static long
today(void)
{
    return (long)(time(NULL) / 86400);
}

/* Copy src into dst (cap bytes), "@ONLINE@" as g_online, "@H@" as h and
 * "@D@" as day. */
static void
expand(char *dst, size_t cap, const char *src, const char *h, long day)
{
    size_t n = 0;

    for (const char *p = src; *p; p++) {
        char num[24];
        const char *rep = NULL;
        size_t skip = 0;

        if (strncmp(p, "@ONLINE@", 8) == 0) {
            rep = g_online;
            skip = 8;
        } else if (strncmp(p, "@H@", 3) == 0) {
            rep = h;
            skip = 3;
        } else if (strncmp(p, "@D@", 3) == 0) {
            snprintf(num, sizeof num, "%ld", day);
            rep = num;
            skip = 3;
        }
        if (rep != NULL) {
            assert_true(n + strlen(rep) < cap);
            memcpy(dst + n, rep, strlen(rep));
            n += strlen(rep);
            p += skip - 1;
        } else {
            assert_true(n + 1 < cap);
            dst[n++] = *p;
        }
    }
    dst[n] = '\0';
}

/* The service: one line per row, each with the common arguments. */
static void
service(const char *const *rows, size_t n, const char *extra)
{
    char l[6][2048];
    const char *lines[6];

    assert_true(n <= 6);
    for (size_t i = 0; i < n; i++) {
        size_t k;

        expand(l[i], sizeof l[i] - 1100, rows[i], "", 0);
        k = strlen(l[i]);
        /* The online stand-in takes them too, harmlessly (no cache=). */
        snprintf(l[i] + k, sizeof l[i] - k, " conf=%s %s cache_file=%s keys=%s %s", g_conf,
                 TARGET, g_cache, g_keys, extra != NULL ? extra : "");
        lines[i] = l[i];
    }
    host_service(g_dir, lines, n);
}

static void
one(const char *mode_row, const char *extra)
{
    const char *rows[1] = {mode_row};

    service(rows, 1, extra);
}

/* An earlier module that set PAM_AUTHTOK, then mode_row. */
static void
after_token(const char *pw, const char *mode_row, const char *extra)
{
    char row[256];
    const char *rows[2] = {row, mode_row};

    snprintf(row, sizeof row, "auth required %%T authtok=%s", pw);
    service(rows, 2, extra);
}

static int
login(const char *user, const char *pw)
{
    struct host_conv c = {pw, strlen(pw), PAM_SUCCESS, 0};

    return host_auth(g_dir, user, &c, 0);
}

/* store, the way the stack runs it: an earlier module set PAM_AUTHTOK. */
static int
store(const char *user, const char *pw, const char *extra)
{
    after_token(pw, "auth [default=done] %M cache=store", extra);
    return login(user, "never-prompted");
}

/* The cache's line of user (malloc'd), NULL when none. */
static char *
line_of(const char *user)
{
    char *b, *r = NULL;
    size_t ul = strlen(user);

    if (access(g_cache, F_OK) != 0)
        return NULL;
    b = host_read(g_cache, NULL);
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

/* Field 2 of user's line (malloc'd). */
static char *
hash_of(const char *user)
{
    char *l = line_of(user), *h;

    assert_non_null(l);
    h = strndup(strchr(l, ':') + 1, strcspn(strchr(l, ':') + 1, ":"));
    free(l);
    return h;
}

static void
write_cache(const char *text)
{
    host_write(g_cache, text, strlen(text));
}

static void
assert_logged(const char *needle)
{
    if (!host_log_contains(needle, strlen(needle))) {
        for (size_t i = 0; i < host_log_count(); i++)
            print_error("log: %s\n", host_log_get(i)->text);
        print_error("no log line with \"%s\"\n", needle);
        fail();
    }
}

/* No log line may hold a password or a hash. */
static void
assert_log_clean(void)
{
    assert_false(host_log_contains(PW, strlen(PW)));
    assert_false(host_log_contains(PW2, strlen(PW2)));
    assert_false(host_log_contains("$argon2", 7));
}

/* ---- store ------------------------------------------------------------ */

static void
test_store(void **state)
{
    char want[64], *l, *h1;
    struct stat st, st2;

    (void)state;
    assert_int_equal(store("alice", PW, NULL), PAM_SUCCESS);
    assert_int_equal(stat(g_cdir, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(stat(g_cache, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    l = line_of("alice");
    assert_non_null(l);
    snprintf(want, sizeof want, ":%ld", today());
    assert_non_null(strstr(l, ":" TARGET_PREFIX));
    assert_string_equal(l + strlen(l) - strlen(want), want);
    assert_null(strstr(l, PW));
    assert_null(strstr(l, "$6$"));
    free(l);
    assert_logged("stored alice in the offline cache");
    assert_log_clean();
    h1 = hash_of("alice");

    /* The same password again: no rewrite. */
    assert_int_equal(store("alice", PW, NULL), PAM_SUCCESS);
    assert_int_equal(stat(g_cache, &st2), 0);
    assert_true(st.st_ino == st2.st_ino && st.st_mtim.tv_nsec == st2.st_mtim.tv_nsec &&
                st.st_mtim.tv_sec == st2.st_mtim.tv_sec);

    /* An old day: refreshed to today, the hash kept. */
    {
        char text[512];

        snprintf(text, sizeof text, "alice:%s:%ld\n", h1, today() - 20);
        write_cache(text);
        assert_int_equal(store("alice", PW, NULL), PAM_SUCCESS);
        l = line_of("alice");
        snprintf(text, sizeof text, "alice:%s:%ld", h1, today());
        assert_string_equal(l, text);
        free(l);
    }
    /* Another password (changed in the directory): a new hash. */
    assert_int_equal(store("alice", PW2, NULL), PAM_SUCCESS);
    l = hash_of("alice");
    assert_string_not_equal(l, h1);
    free(l);
    /* A second user gets a line of their own. */
    assert_int_equal(store("bob", PW, NULL), PAM_SUCCESS);
    l = line_of("bob");
    assert_non_null(l);
    free(l);
    free(h1);
}

/* Without PAM_AUTHTOK store stores nothing and never prompts. */
static void
test_store_without_token(void **state)
{
    struct host_conv c = {PW, strlen(PW), PAM_SUCCESS, 0};

    (void)state;
    one("auth [default=done] %M cache=store", NULL);
    assert_int_equal(host_auth(g_dir, "alice", &c, 0), PAM_IGNORE);
    assert_int_equal(c.calls, 0);
    assert_int_equal(access(g_cache, F_OK), -1);
}

/* A bad cache= value validates (it neither writes nor drops); a store
 * of a degraded line writes nothing. */
static void
test_bad_arguments(void **state)
{
    struct stat a, b;

    (void)state;
    assert_int_equal(store("alice", PW, NULL), PAM_SUCCESS);
    assert_int_equal(stat(g_cache, &a), 0);
    one("auth required %M cache=stor", NULL);
    assert_int_equal(login("alice", PW), PAM_SUCCESS);
    assert_logged("bad module argument \"cache=stor\"");
    assert_int_equal(login("alice", WRONG), PAM_AUTH_ERR);
    after_token(PW2, "auth [default=done] %M cache=store no-such-option", NULL);
    assert_int_equal(login("alice", "x"), PAM_IGNORE);
    assert_logged("alice not stored in the offline cache");
    assert_int_equal(stat(g_cache, &b), 0);
    assert_true(a.st_ino == b.st_ino && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);
}

/* ---- validate --------------------------------------------------------- */

static void
test_validate(void **state)
{
    (void)state;
    assert_int_equal(store("alice", PW, NULL), PAM_SUCCESS);
    one("auth required %M cache=validate", NULL);
    assert_int_equal(login("alice", PW), PAM_SUCCESS);
    assert_logged("alice authenticated offline");
    assert_int_equal(login("alice", WRONG), PAM_AUTH_ERR);
    assert_logged("offline authentication failure for alice");
    assert_true(host_fail_delay() > 0);
    assert_int_equal(login("nobody", PW), PAM_USER_UNKNOWN);
    assert_logged("no cached entry");
    assert_true(host_fail_delay() > 0);
    assert_log_clean();
    /* A missing cache: every user is absent. */
    assert_int_equal(unlink(g_cache), 0);
    assert_int_equal(login("alice", PW), PAM_USER_UNKNOWN);
}

static double
seconds_of(const char *user, const char *pw)
{
    struct timespec a, b;

    clock_gettime(CLOCK_MONOTONIC, &a);
    (void)login(user, pw);
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

/* An absent user costs a verification at the target, as a wrong password
 * does: with a target of some milliseconds the two take comparable time
 * (without the dummy the absent user would answer in microseconds). */
static void
test_validate_absent_costs_a_verification(void **state)
{
    const char *heavy = "target=argon2id:m=16384,t=3,p=1";
    double wrong = 0, absent = 0;

    (void)state;
    assert_int_equal(store("alice", PW, heavy), PAM_SUCCESS);
    one("auth required %M cache=validate", heavy);
    for (int i = 0; i < 3; i++) {
        wrong += seconds_of("alice", WRONG);
        absent += seconds_of("nobody", WRONG);
    }
    print_message("# wrong password %.1f ms, absent user %.1f ms\n", wrong / 3 * 1e3,
                  absent / 3 * 1e3);
    assert_true(wrong / 3 > 0.005);
    assert_true(absent > 0.5 * wrong);
}

static void
test_validate_expiry(void **state)
{
    char text[512], *h;

    (void)state;
    assert_int_equal(store("alice", PW, NULL), PAM_SUCCESS);
    h = hash_of("alice");
    one("auth required %M cache=validate", NULL);
    /* Default offline.max-age 30: 30 days old works, 31 does not. */
    snprintf(text, sizeof text, "alice:%s:%ld\n", h, today() - 30);
    write_cache(text);
    assert_int_equal(login("alice", PW), PAM_SUCCESS);
    snprintf(text, sizeof text, "alice:%s:%ld\n", h, today() - 31);
    write_cache(text);
    assert_int_equal(login("alice", PW), PAM_AUTH_ERR);
    assert_logged("offline cache entry of alice expired: last online login 31 days ago");
    one("auth required %M cache=validate", "offline.max-age=60");
    assert_int_equal(login("alice", PW), PAM_SUCCESS);
    snprintf(text, sizeof text, "alice:%s:%ld\n", h, today() - 3000);
    write_cache(text);
    assert_int_equal(login("alice", PW), PAM_AUTH_ERR);
    one("auth required %M cache=validate", "offline.max-age=off");
    assert_int_equal(login("alice", PW), PAM_SUCCESS);
    /* A day in the future never makes an entry that cannot expire. */
    snprintf(text, sizeof text, "alice:%s:%ld\n", h, today() + 5);
    write_cache(text);
    assert_int_equal(login("alice", PW), PAM_AUTH_ERR);
    assert_logged("dated in the future");
    /* A store counts the days from the last online login. */
    assert_int_equal(store("alice", PW, NULL), PAM_SUCCESS);
    one("auth required %M cache=validate", NULL);
    assert_int_equal(login("alice", PW), PAM_SUCCESS);
    free(h);
}

/* Lines this module never writes are refused, each with a log line, and
 * an unsafe file is not read at all. */
static void
test_validate_hostile(void **state)
{
    static const struct {
        const char *user, *text, *log;
    } rows[] = {
        {"nodate", "nodate:@H@\n", "no day of the last online login"},
        {"baddate", "baddate:@H@:12x\n", "no day of the last online login"},
        {"locked", "locked:!@H@:@D@\n", "offline cache entry of locked refused"},
        {"empty", "empty::@D@\n", "offline cache entry of empty refused"},
        {"junk", "junk:$junk$@D@:@D@\n", "offline cache entry of junk refused"},
        {"huge", "huge:$argon2id$v=19$m=4194304,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo:@D@\n",
         "offline cache entry of huge refused"},
        {"dup", "dup:@H@:@D@\ndup:@H@:@D@\n", "offline cache entry of dup refused"},
    };
    char text[1024], *h;
    struct stat st;

    (void)state;
    assert_int_equal(store("alice", PW, NULL), PAM_SUCCESS);
    h = hash_of("alice");
    one("auth required %M cache=validate", NULL);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        expand(text, sizeof text, rows[i].text, h, today());
        write_cache(text);
        assert_int_equal(login(rows[i].user, PW), PAM_AUTH_ERR);
        assert_logged(rows[i].log);
        assert_true(host_log_count_prio(LOG_ERR) >= 1);
        assert_log_clean();
    }
    /* The file others can read or write, or a symlink: not read. */
    snprintf(text, sizeof text, "alice:%s:%ld\n", h, today());
    write_cache(text);
    assert_int_equal(login("alice", PW), PAM_SUCCESS);
    assert_int_equal(chmod(g_cache, 0640), 0);
    assert_int_equal(login("alice", PW), PAM_AUTHINFO_UNAVAIL);
    assert_logged("offline cache");
    assert_logged("refused");
    assert_int_equal(chmod(g_cache, 0600), 0);
    assert_int_equal(chmod(g_cdir, 0777), 0);
    assert_int_equal(login("alice", PW), PAM_AUTHINFO_UNAVAIL);
    assert_int_equal(chmod(g_cdir, 0700), 0);
    {
        char real[800];

        snprintf(real, sizeof real, "%s/real", g_cdir);
        assert_int_equal(rename(g_cache, real), 0);
        assert_int_equal(symlink(real, g_cache), 0);
        assert_int_equal(login("alice", PW), PAM_AUTHINFO_UNAVAIL);
        assert_int_equal(unlink(g_cache), 0);
        assert_int_equal(unlink(real), 0);
    }
    assert_int_equal(lstat(g_cdir, &st), 0);
    free(h);
}

/* A caller that cannot read the cache (a screen locker runs as its
 * user): PAM_AUTHINFO_UNAVAIL with a log line that says so.  As root the
 * login runs in a child as nobody; otherwise the directory is made
 * unreadable, which is what the caller then meets. */
static void
test_validate_not_root(void **state)
{
    (void)state;
    assert_int_equal(store("alice", PW, NULL), PAM_SUCCESS);
    one("auth required %M cache=validate", NULL);
    if (geteuid() == 0) {
        char path[700];
        pid_t pid;
        int status;

        snprintf(path, sizeof path, "%s/%s", g_dir, HOST_SERVICE);
        assert_int_equal(chmod(g_dir, 0755), 0);
        assert_int_equal(chmod(path, 0644), 0);
        assert_int_equal(chmod(g_conf, 0644), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            int rc;

            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(90);
            rc = login("alice", PW);
            if (rc != PAM_AUTHINFO_UNAVAIL)
                _exit(91);
            if (!host_log_contains("only root can", 13))
                _exit(92);
            _exit(0);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        assert_int_equal(chmod(g_dir, 0700), 0);
    } else {
        assert_int_equal(chmod(g_cdir, 0), 0);
        assert_int_equal(login("alice", PW), PAM_AUTHINFO_UNAVAIL);
        assert_logged("only root can");
        assert_int_equal(chmod(g_cdir, 0700), 0);
    }
}

/* ---- keys ------------------------------------------------------------- */

static void
test_keyed(void **state)
{
    char path[700], text[200], *h;

    (void)state;
    snprintf(path, sizeof path, "%s/%s", g_keys, KEY_A);
    snprintf(text, sizeof text, "kdfhash-key-v1 %s\n", KEY_A_HEX);
    host_write(path, text, strlen(text));
    assert_int_equal(store("alice", PW, "pepper=" KEY_A " admins=root"), PAM_SUCCESS);
    h = hash_of("alice");
    assert_non_null(strstr(h, ",keyid=" KEY_A "$"));
    free(h);
    assert_logged("keyed");
    one("auth required %M cache=validate", "pepper=" KEY_A " admins=root");
    assert_int_equal(login("alice", PW), PAM_SUCCESS);
    assert_int_equal(login("alice", WRONG), PAM_AUTH_ERR);
    /* An administrator's entry never depends on the key. */
    assert_int_equal(store("alice", PW, "pepper=" KEY_A " admins=alice"), PAM_SUCCESS);
    h = hash_of("alice");
    assert_null(strstr(h, "keyid="));
    free(h);
    /* Without the key file a keyed entry is refused, never verified
     * unkeyed. */
    assert_int_equal(store("bob", PW, "pepper=" KEY_A " admins=root"), PAM_SUCCESS);
    assert_int_equal(unlink(path), 0);
    one("auth required %M cache=validate", "admins=root");
    assert_int_equal(login("bob", PW), PAM_AUTH_ERR);
    assert_logged("cannot verify bob offline");
    assert_int_equal(login("alice", PW), PAM_SUCCESS);
}

/* ---- update and forget ------------------------------------------------ */

static void
test_update_forget(void **state)
{
    char *l;

    (void)state;
    assert_int_equal(store("alice", PW, NULL), PAM_SUCCESS);
    assert_int_equal(store("bob", PW, NULL), PAM_SUCCESS);
    /* A typo online: the entry stays. */
    after_token(WRONG, "auth [default=die] %M cache=update", NULL);
    assert_int_equal(login("alice", "x"), PAM_AUTH_ERR);
    l = line_of("alice");
    assert_non_null(l);
    free(l);
    /* The directory refuses the password the cache holds: dropped. */
    after_token(PW, "auth [default=die] %M cache=update", NULL);
    assert_int_equal(login("alice", "x"), PAM_AUTH_ERR);
    assert_null(line_of("alice"));
    assert_logged("dropped alice from the offline cache");
    l = line_of("bob");
    assert_non_null(l);
    free(l);
    /* forget: whatever the password. */
    after_token(WRONG, "auth [default=die] %M cache=forget", NULL);
    assert_int_equal(login("bob", "x"), PAM_AUTH_ERR);
    assert_null(line_of("bob"));
    assert_int_equal(login("nobody", "x"), PAM_AUTH_ERR);
    assert_log_clean();
}

/* ---- the documented stack --------------------------------------------- */

/* pam_kdfhash(8), OFFLINE CACHE, with this module on g_online standing
 * for pam_sss: the control values are the ones the page gives. */
static const char *const g_stack[] = {
    ("auth [success=ok authinfo_unavail=1 auth_err=2 default=die] %M shadow=@ONLINE@ "
     "upgrade=off"),
    "auth [default=2] %M cache=store",
    "auth [success=done default=die] %M cache=validate try_first_pass",
    "auth [default=die] %M cache=update",
};

static void
online(const char *pw_hash_of_user)
{
    char text[512];

    snprintf(g_online, sizeof g_online, "%s/online", g_dir);
    if (pw_hash_of_user == NULL) {
        /* The directory unreachable: pam_sss answers PAM_AUTHINFO_UNAVAIL. */
        snprintf(g_online, sizeof g_online, "%s/unreachable", g_dir);
        service(g_stack, 4, NULL);
        return;
    }
    snprintf(text, sizeof text, "alice:%s:19000:0:99999:7:::\n", pw_hash_of_user);
    host_write(g_online, text, strlen(text));
    service(g_stack, 4, NULL);
}

static void
test_stack(void **state)
{
    char *h1, *h2, *l;

    (void)state;
    /* Two directory hashes, made by store into the cache and moved. */
    assert_int_equal(store("alice", PW2, NULL), PAM_SUCCESS);
    h2 = hash_of("alice");
    assert_int_equal(store("alice", PW, NULL), PAM_SUCCESS);
    h1 = hash_of("alice");
    assert_int_equal(unlink(g_cache), 0);

    online(h1);
    assert_int_equal(login("alice", PW), PAM_SUCCESS);
    l = line_of("alice");
    assert_non_null(l);
    assert_non_null(strstr(l, TARGET_PREFIX));
    free(l);
    assert_int_equal(login("alice", WRONG), PAM_AUTH_ERR);
    l = line_of("alice"); /* a typo online keeps the entry */
    assert_non_null(l);
    free(l);
    assert_int_equal(login("nobody", PW), PAM_USER_UNKNOWN);

    online(NULL);
    assert_int_equal(login("alice", PW), PAM_SUCCESS);
    assert_int_equal(login("alice", WRONG), PAM_AUTH_ERR);
    assert_true(host_fail_delay() > 0);
    assert_true(login("nobody", PW) != PAM_SUCCESS);

    /* The password changed in the directory: the old one online is
     * refused there and dropped here, so it no longer works offline. */
    online(h2);
    assert_int_equal(login("alice", PW), PAM_AUTH_ERR);
    assert_null(line_of("alice"));
    online(NULL);
    assert_int_equal(login("alice", PW), PAM_USER_UNKNOWN);
    online(h2);
    assert_int_equal(login("alice", PW2), PAM_SUCCESS);
    online(NULL);
    assert_int_equal(login("alice", PW2), PAM_SUCCESS);
    assert_int_equal(login("alice", PW), PAM_AUTH_ERR);
    /* A cache that cannot be written never refuses an accepted login. */
    online(h2);
    assert_int_equal(chmod(g_cdir, 0777), 0);
    assert_int_equal(login("alice", PW2), PAM_SUCCESS);
    assert_logged("not stored in the offline cache");
    assert_int_equal(chmod(g_cdir, 0700), 0);
    free(h1);
    free(h2);
}

/* ---- kdfhash audit --offline-cache ------------------------------------ */

/* The output of `kdfhash audit --offline-cache ARGS` (malloc'd). */
static char *
audit(const char *args)
{
    const char *top = getenv("top_builddir");
    char cmd[2048], chunk[4096];
    size_t n = 0, r;
    char *out = NULL;
    FILE *f;

    assert_non_null(top);
    snprintf(cmd, sizeof cmd, "'%s/cli/kdfhash' audit --offline-cache %s", top, args);
    f = popen(cmd, "r");
    assert_non_null(f);
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) {
        out = realloc(out, n + r + 1);
        assert_non_null(out);
        memcpy(out + n, chunk, r);
        n += r;
    }
    (void)pclose(f);
    assert_non_null(out);
    out[n] = '\0';
    return out;
}

static void
assert_has(const char *out, const char *needle)
{
    if (strstr(out, needle) == NULL) {
        print_error("%s\nno \"%s\" in the audit above\n", out, needle);
        fail();
    }
}

static void
test_audit(void **state)
{
    char text[2048], args[1600], *h, *out;

    (void)state;
    assert_int_equal(store("alice", PW, NULL), PAM_SUCCESS);
    h = hash_of("alice");
    expand(text, sizeof text,
           "alice:@H@:@D@\nold:@H@:1\nnodate:@H@\nlater:@H@:99999\n", h, today());
    write_cache(text);
    snprintf(args, sizeof args, "--conf '%s' '%s'", g_conf, g_cache);
    out = audit(args);
    assert_has(out, "alice argon2id v=19,m=256,t=1,p=1 rehash:too-cheap age:0\n");
    assert_has(out, " age:0\n");
    assert_has(out, " expired:");
    assert_has(out, " undated\n");
    assert_has(out, " future\n");
    assert_has(out, "# offline cache (offline.max-age 30 days)\nexpired: 2\nundated: 1\n");
    assert_has(out, "unkeyed: 4\n");
    assert_null(strstr(out, "$argon2"));
    free(out);
    snprintf(args, sizeof args, "--json --conf '%s' '%s'", g_conf, g_cache);
    out = audit(args);
    assert_has(out, "\"age_days\": 0, \"expired\": false");
    assert_has(out, "\"offline\": {\"max_age\": 30, \"expired\": 2, \"undated\": 1}");
    free(out);
    host_write(g_conf, "offline.max-age = off\n", 22);
    snprintf(args, sizeof args, "--conf '%s' '%s'", g_conf, g_cache);
    out = audit(args);
    assert_has(out, "# offline cache (offline.max-age off)\nexpired: 1\nundated: 1\n");
    free(out);
    free(h);
}

/* ---- fixture ---------------------------------------------------------- */

static int
setup(void **state)
{
    (void)state;
    g_dir = host_tmpdir();
    snprintf(g_cdir, sizeof g_cdir, "%s/cache", g_dir);
    snprintf(g_cache, sizeof g_cache, "%s/offline", g_cdir);
    snprintf(g_conf, sizeof g_conf, "%s/kdfhash.conf", g_dir);
    snprintf(g_keys, sizeof g_keys, "%s/keys", g_dir);
    snprintf(g_online, sizeof g_online, "%s/online", g_dir);
    host_write(g_conf, "", 0);
    assert_int_equal(mkdir(g_keys, 0700), 0);
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    (void)chmod(g_cdir, 0700);
    host_rmtree(g_cdir);
    host_rmtree(g_keys);
    (void)rmdir(g_cdir);
    (void)rmdir(g_keys);
    host_rmtree(g_dir);
    free(g_dir);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_store, setup, teardown),
        cmocka_unit_test_setup_teardown(test_store_without_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_validate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_validate_absent_costs_a_verification, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_validate_expiry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_validate_hostile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_validate_not_root, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keyed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_forget, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stack, setup, teardown),
        cmocka_unit_test_setup_teardown(test_audit, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
