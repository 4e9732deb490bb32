/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_upgrade_cases.c - test_pam's upgrade tests: the hook as seen from a
 * login (doc/DESIGN.md "Policy" and "Writing a new hash: the file writer and
 * the exec hook").  Every outdated scheme is rewritten to the target with
 * only field 2 of that one line changed and the next login succeeds; equal
 * or stronger hashes, upgrade=off and bcrypt with a password over 72 bytes
 * leave the file as it was; a refused write, a failing exec hook and a held
 * lock never change the login's result (one LOG_WARNING line); the exec hook
 * gets the user as argv[1] and "old\nnew\n" on stdin.  The xcrypt-only
 * accounts (root by default, or through a listed group) are judged against,
 * and rewritten to, a scheme libxcrypt verifies instead.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <crypt.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pam_fixture.h"
#include "pam_host.h"

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
    H_bc2b,     H_bc2a,  H_bc2y,   H_bc2x,    H_a2i,      H_a2d,
    H_a2id_v16, H_pbk1,  H_pbk256, H_pbk512,  H_phc1,     H_phc256,
    H_phc512,   H_dj256, H_dj1,    H_sha512c, H_yescrypt, H_md5c,
    H_bcs256,   H_djbc,  H_djbcs,  H_dja2,    H_djscrypt,
};

void
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
        nh = fixture_field2(file, user);
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

/* path still holds exactly the n0 bytes b0. */
static void
assert_file_kept(const char *path, const char *b0, size_t n0)
{
    size_t n1;
    char *b1 = host_read(path, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(b0, b1, n0);
    free(b1);
}

/* Equal or stronger hashes, upgrade=off and the 72-byte bcrypt rule leave
 * the file byte for byte as it was. */
void
test_upgrade_untouched(void **state)
{
    char file[600];
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    size_t n0;
    char *b0, *x73 = malloc(74);
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
    assert_file_kept(file, b0, n0);
    free(b0);
    free(x73);
    unlink(file);
}

/* A failing upgrade never changes the login: hard-linked file (refused by
 * the writer) and a failing exec hook give PAM_SUCCESS + one warning. */
void
test_upgrade_failure(void **state)
{
    char file[600], link2[600], hook[600];
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    size_t n0;
    char *b0;
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
    assert_file_kept(file, b0, n0);
    unlink(link2);

    snprintf(hook, sizeof hook, "upgrade=exec:/bin/false");
    upgrade_service(file, hook);
    assert_int_equal(host_auth(g_dir, "u_pbk256", &conv, 0), PAM_SUCCESS);
    assert_int_equal(host_log_count(), 1);
    assert_int_equal(host_log_get(0)->prio, LOG_WARNING);
    assert_file_kept(file, b0, n0);
    free(b0);
    unlink(file);
}

/* The exec hook gets the user as argv[1] and "old\nnew\n" on stdin; the
 * shadow file is not touched by the module itself. */
void
test_upgrade_exec(void **state)
{
    char script[600], out[600], args[700], *text, *got, *nl;
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    size_t n0;
    char *b0;
    (void)state;

    snprintf(script, sizeof script, "%s/hook.sh", g_dir);
    snprintf(out, sizeof out, "%s/hook.out", g_dir);
    if (asprintf(&text, "#!/bin/sh\nprintf '%%s\\n' \"$1\" > %s\ncat >> %s\nexit 0\n",
                 out, out) < 0)
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
    assert_file_kept(g_shadow, b0, n0);
    free(got);
    free(b0);
}

static long
timed_login(const char *user, struct host_conv *conv)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(host_auth(g_dir, user, conv, 0), PAM_SUCCESS);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
}

/* Another process holds the lock (a classic fcntl lock, as lckpwdf takes):
 * the writer gives up after its bounded wait, nothing is written, the login
 * still succeeds, and it takes at most a bounded delay longer than the same
 * login with the lock free (a difference, so that slow runners such as
 * valgrind do not fail it). */
void
test_upgrade_lock_busy(void **state)
{
    char file[600], lock[640], freefile[600];
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    int ready[2], status;
    size_t n0;
    char *b0, c;
    long free_ms, held_ms;
    pid_t pid, parent;
    (void)state;

    /* The reference: the same kind of login and upgrade, lock free. */
    snprintf(freefile, sizeof freefile, "%s/free_shadow", g_dir);
    copy_main(freefile);
    upgrade_service(freefile, "upgrade=file");
    free_ms = timed_login("u_bc2a", &conv);
    assert_int_equal(host_log_count_prio(LOG_NOTICE), 1);

    snprintf(file, sizeof file, "%s/busy_shadow", g_dir);
    snprintf(lock, sizeof lock, "%s.lock", file);
    copy_main(file);
    b0 = host_read(file, &n0);
    assert_int_equal(pipe(ready), 0);
    parent = getpid();
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct flock fl;
        int fd;
        /* Die with the parent: a failed assertion there must not leave this
         * lock holder paused forever (holding the test logs open).  The
         * getppid() check covers a parent that died before the prctl. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(1);
        fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        memset(&fl, 0, sizeof fl);
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        if (fd < 0 || fcntl(fd, F_SETLK, &fl) != 0 || write(ready[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    close(ready[1]);
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);

    upgrade_service(file, "upgrade=file");
    held_ms = timed_login("u_bc2b", &conv);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    print_message("[          ] login with the lock free %ld ms, held %ld ms\n", free_ms,
                  held_ms);
    assert_true(held_ms - free_ms < 1000);
    assert_int_equal(host_log_count(), 1);
    assert_int_equal(host_log_get(0)->prio, LOG_WARNING);
    assert_file_kept(file, b0, n0);
    free(b0);
    unlink(file);
    unlink(lock);
    unlink(freefile);
    snprintf(lock, sizeof lock, "%s.lock", freefile);
    unlink(lock);
}

/* A scheme that did not read every bit of every byte is never upgraded
 * from.  DES reads 8 bytes, so "password12XX" verifies against the DES of
 * "password1234" (as it does with pam_unix); DES and BSDi drop bit 7 of
 * each byte, so "p\xe1ssword" verifies against DES("password") and
 * "p\xe1ssword1234" against BSDi("password1234").  An upgrade would make
 * the typo the password, and the real one could not tell itself from it:
 * the DES family stays as it is, even for an 8-byte ASCII password.
 * md5crypt reads every byte and is upgraded.  Hashes by mkpasswd
 * (libxcrypt) and passlib. */
void
test_upgrade_truncating(void **state)
{
    static const char des12[] = "abJnggxhB/yWI";         /* password1234 */
    static const char des8[] = "cd1oWDitjpehA";          /* pass1234 */
    static const char bsdi[] = "_J9..efghozhWZW6RBiA";   /* password1234 */
    static const char md5[] = "$1$saltsalt$Esf4UW8VH5Hye.hp7EKud."; /* password1234 */
    static const struct {
        const char *user, *pw;
        size_t len;
    } typo[] = {
        {"des12", "password12XX", 12},
        {"des12", "password1234", 12},
        {"des8", "p\xe1ss1234", 8},
        {"des8", "pass1234", 8},
        {"bsdi", "p\xe1ssword1234", 12},
        {"bsdi", "password1234", 12},
    };
    char file[600], buf[512];
    struct host_conv conv = {"password1234", 12, PAM_SUCCESS, 0};
    size_t n0;
    char *b0, *h;
    int n;
    (void)state;

    snprintf(file, sizeof file, "%s/trunc_shadow", g_dir);
    n = snprintf(buf, sizeof buf,
                 "des12:%s:19000::::::\ndes8:%s:19000::::::\nbsdi:%s:19000::::::\n"
                 "md5:%s:19000::::::\n",
                 des12, des8, bsdi, md5);
    host_write(file, buf, (size_t)n);
    b0 = host_read(file, &n0);
    upgrade_service(file, "upgrade=file");

    /* Typos verify (DES semantics), and nothing is stored: not the typo,
     * nor the real password, which cannot be told from one. */
    for (size_t i = 0; i < sizeof typo / sizeof typo[0]; i++) {
        conv.pw = typo[i].pw;
        conv.pw_len = typo[i].len;
        host_log_reset();
        if (host_auth(g_dir, typo[i].user, &conv, 0) != PAM_SUCCESS)
            fail_msg("%s: case %zu did not verify", typo[i].user, i);
        assert_true(host_log_contains("did not read the whole password", 31));
        assert_file_kept(file, b0, n0);
    }

    /* A scheme that reads every byte is upgraded as usual. */
    conv.pw = "password1234";
    conv.pw_len = 12;
    assert_int_equal(host_auth(g_dir, "md5", &conv, 0), PAM_SUCCESS);
    h = fixture_field2(file, "md5");
    assert_true(strncmp(h, TARGET_PREFIX, strlen(TARGET_PREFIX)) == 0);
    free(h);
    free(b0);
    unlink(file);
}

/* ---- a broken configuration never locks anyone out ---------------------- */

/* One login of user under the module line args (shadow=file added): the
 * result, with the log's one line at LOG_ERR holding every needle. */
static void
degraded_login(const char *file, const char *user, const char *args, const char *needle1,
               const char *needle2)
{
    char line[2048];
    const char *lines[1] = {line};
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};

    snprintf(line, sizeof line, "auth required %%M shadow=%s %s", file, args);
    host_service(g_dir, lines, 1);
    assert_int_equal(host_auth(g_dir, user, &conv, 0), PAM_SUCCESS);
    if (host_log_count() != 1 || host_log_get(0)->prio != LOG_ERR) {
        for (size_t i = 0; i < host_log_count(); i++)
            print_error("  log %d: %s\n", host_log_get(i)->prio, host_log_get(i)->text);
        fail_msg("%s: want one LOG_ERR line, got %zu", args, host_log_count());
    }
    if (strstr(host_log_get(0)->text, needle1) == NULL ||
        strstr(host_log_get(0)->text, needle2) == NULL ||
        strstr(host_log_get(0)->text, "verifying with the built-in defaults; no upgrade") ==
            NULL)
        fail_msg("%s: log line \"%s\"", args, host_log_get(0)->text);
}

/* A typo in kdfhash.conf or in a module argument: the entries the module
 * wrote (Argon2, which pam_unix cannot read) still open, nothing is
 * rewritten although upgrade=file and the entry is outdated, and every
 * call says why at LOG_ERR with the file and line or the argument.  The
 * control login with the same entry and a good policy does rewrite it. */
void
test_degraded_no_upgrade(void **state)
{
    char file[600], conf[600], args[1400];
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    size_t n0;
    char *b0, *f;
    static const char typo[] = "# the admin's edit\ntargte = argon2id m=256,t=1,p=1\n";
    (void)state;

    snprintf(file, sizeof file, "%s/degraded_shadow", g_dir);
    snprintf(conf, sizeof conf, "%s/typo.conf", g_dir);
    host_write(conf, typo, sizeof typo - 1);
    assert_int_equal(chmod(conf, 0644), 0);
    copy_main(file);
    b0 = host_read(file, &n0);

    snprintf(args, sizeof args, "conf=%s upgrade=file", conf);
    degraded_login(file, "u_a2id", args, "typo.conf:2:", "unknown key 'targte'");
    degraded_login(file, "u_bc2b", args, "typo.conf:2:", "unknown key");
    /* Overrides do not mend a broken file: the built-in defaults verify. */
    snprintf(args, sizeof args, "conf=%s upgrade=file %s", conf, TARGET);
    degraded_login(file, "u_a2id", args, "typo.conf:2:", "targte");
    /* A bad argument, the others good: the same degraded run. */
    snprintf(args, sizeof args, "conf=%s upgrade=sometimes %s", g_conf, TARGET);
    degraded_login(file, "u_a2id", args, "upgrade=sometimes", "upgrade= takes");
    snprintf(args, sizeof args, "conf=%s upgrade=file frobnicate %s", g_conf, TARGET);
    degraded_login(file, "u_a2id", args, "\"frobnicate\"", "unknown option");
    snprintf(args, sizeof args,
             "conf=%s upgrade=file %s target=argon2id:m=4096,t=1,p=1 max.memory=2048", g_conf,
             TARGET);
    degraded_login(file, "u_a2id", args, "max.memory=2048", "below");
    snprintf(args, sizeof args, "conf=%s upgrade=file target=argon2id:m=256,t=1,p=1,q=2",
             g_conf);
    degraded_login(file, "u_a2id", args, "target=argon2id", "unknown parameter");
    assert_file_kept(file, b0, n0);

    /* Control: the built-in policy, loaded without error, does rewrite
     * the entry (m=256,t=2 is below its target); only the broken
     * configuration kept it. */
    snprintf(args, sizeof args, "auth required %%M shadow=%s conf=%s upgrade=file", file,
             g_conf);
    {
        const char *l1[1] = {args};
        host_service(g_dir, l1, 1);
    }
    assert_int_equal(host_auth(g_dir, "u_a2id", &conv, 0), PAM_SUCCESS);
    f = fixture_field2(file, "u_a2id");
    assert_non_null(f);
    assert_non_null(strstr(f, "$argon2id$v=19$m=65536,t=3,p=4$"));
    free(f);
    free(b0);
    unlink(file);
    unlink(conf);
}

/* The stand-ins for bad arguments that cannot simply be dropped: a
 * relative shadow= reads /etc/shadow (not the main file an earlier
 * shadow= named), and use_first_pass wins over try_first_pass (no
 * prompt: there is no earlier password here, so the login fails). */
void
test_degraded_stand_ins(void **state)
{
    char line[2048];
    const char *lines[1] = {line};
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    int rc;
    (void)state;

    snprintf(line, sizeof line, "auth required %%M shadow=%s conf=%s upgrade=off %s "
             "shadow=etc/shadow", g_shadow, g_conf, TARGET);
    host_service(g_dir, lines, 1);
    rc = host_auth(g_dir, "u_bc2b", &conv, 0); /* not in /etc/shadow */
    assert_int_not_equal(rc, PAM_SUCCESS);
    assert_int_not_equal(rc, PAM_SERVICE_ERR);
    assert_true(host_log_count() >= 1);
    assert_int_equal(host_log_get(0)->prio, LOG_ERR);
    assert_non_null(strstr(host_log_get(0)->text, "reading /etc/shadow"));

    snprintf(line, sizeof line, "auth required %%M shadow=%s conf=%s upgrade=off %s "
             "use_first_pass try_first_pass", g_shadow, g_conf, TARGET);
    host_service(g_dir, lines, 1);
    conv.calls = 0;
    assert_int_equal(host_auth(g_dir, "u_bc2b", &conv, 0), PAM_AUTH_ERR);
    assert_int_equal(conv.calls, 0);
    assert_int_equal(host_log_count_prio(LOG_ERR), 1);
    assert_true(host_log_contains("exclusive", 9));
}

/* ---- xcrypt-only: root stays on a scheme libxcrypt reads --------------- */

/* A fresh file of the xcrypt-only cases: root with root_hash, alice with a
 * $6$ entry, and member (a user of the host in a group of its own, see
 * test_xcrypt_only_group) with member_hash. */
static void
xo_file(const char *file, const char *root_hash, const char *member,
        const char *member_hash)
{
    char buf[2048];
    int n = snprintf(buf, sizeof buf,
                     "root:%s:19000:0:99999:7:::\n"
                     "alice:%s:19000:0:99999:7:::\n"
                     "%s:%s:19000:0:99999:7:::\n",
                     root_hash, g_hash[H_sha512c], member ? member : "nomember",
                     member_hash ? member_hash : "*");
    assert_true(n > 0 && (size_t)n < sizeof buf);
    host_write(file, buf, (size_t)n);
}

/* A successful login of user; then field 2 (malloc'd). */
static char *
xo_login(const char *file, const char *user)
{
    struct host_conv conv = {PW, strlen(PW), PAM_SUCCESS, 0};
    assert_int_equal(host_auth(g_dir, user, &conv, 0), PAM_SUCCESS);
    return fixture_field2(file, user);
}

/* The entry is yescrypt at libxcrypt's default cost and libxcrypt itself
 * (so sulogin, which calls crypt(3)) verifies PW against it. */
static void
assert_xcrypt_yescrypt(const char *who, const char *h)
{
    struct crypt_data cd;
    const char *r;

    assert_non_null(h);
    if (strncmp(h, "$y$j9T$", 7) != 0)
        fail_msg("%s: not yescrypt at cost 5: %.16s...", who, h);
    memset(&cd, 0, sizeof cd);
    r = crypt_r(PW, h, &cd);
    assert_non_null(r);
    assert_string_equal(r, h);
}

/* The one NOTICE (or INFO) line of the last login contains needle. */
static void
assert_logged(int prio, const char *needle)
{
    for (size_t i = 0; i < host_log_count(); i++)
        if (host_log_get(i)->prio == prio && strstr(host_log_get(i)->text, needle) != NULL)
            return;
    fail_msg("no line at %d with \"%s\" (%zu lines; first: %s)", prio, needle,
             host_log_count(), host_log_count() ? host_log_get(0)->text : "");
}

/* By default root is xcrypt-only: an Argon2id entry at the target logs in
 * and moves back to yescrypt; the next login keeps it there; a $6$ entry
 * is upgraded to yescrypt, not to the Argon2id target; alice's $6$ still
 * goes to the target. */
void
test_xcrypt_only_root(void **state)
{
    char file[600], *h;
    (void)state;

    snprintf(file, sizeof file, "%s/xo_shadow", g_dir);
    xo_file(file, g_hash[H_a2id_target], NULL, NULL);
    /* The test's cheap target under minimums it meets, as a real target
     * meets the real ones: not too cheap, only unreadable by libxcrypt. */
    upgrade_service(file, "upgrade=file min.argon2=m=8,t=1,p=1");
    h = xo_login(file, "root");
    assert_xcrypt_yescrypt("root from argon2id", h);
    assert_logged(LOG_NOTICE, "migrated root from argon2id to yescrypt (xcrypt-only)");
    free(h);
    /* At the libxcrypt target: kept, and said so. */
    h = xo_login(file, "root");
    assert_xcrypt_yescrypt("root again", h);
    assert_logged(LOG_INFO, "kept root on yescrypt (xcrypt-only)");
    assert_int_equal(host_log_count_prio(LOG_NOTICE), 0);
    free(h);

    xo_file(file, g_hash[H_sha512c], NULL, NULL);
    h = xo_login(file, "root");
    assert_xcrypt_yescrypt("root from $6$", h);
    assert_logged(LOG_NOTICE, "upgraded root from sha512crypt to yescrypt (legacy; xcrypt-only)");
    free(h);

    h = xo_login(file, "alice");
    if (strncmp(h, TARGET_PREFIX, strlen(TARGET_PREFIX)) != 0)
        fail_msg("alice: not at the target: %s", h);
    free(h);
    unlink(file);
}

/* xcrypt-only = none: root is a user like any other. */
void
test_xcrypt_only_none(void **state)
{
    char file[600], *h;
    (void)state;

    snprintf(file, sizeof file, "%s/xo_none_shadow", g_dir);
    xo_file(file, g_hash[H_sha512c], NULL, NULL);
    upgrade_service(file, "upgrade=file xcrypt-only=none");
    h = xo_login(file, "root");
    if (strncmp(h, TARGET_PREFIX, strlen(TARGET_PREFIX)) != 0)
        fail_msg("root with xcrypt-only=none: not at the target: %s", h);
    free(h);
    unlink(file);
}

/* Does the machine's name service fail (rather than find nothing) when
 * asked for group name? */
static int
group_lookup_fails(const char *name)
{
    struct group gr, *res = NULL;
    char buf[4096];

    return getgrnam_r(name, &gr, buf, sizeof buf, &res) != 0;
}

/* A user listed through a group (primary group of its passwd entry, as
 * getgrouplist(3) reports it) is kept on libxcrypt; the same user with
 * another group listed is not.  The user is any account of the host other
 * than root whose primary group has a name. */
void
test_xcrypt_only_group(void **state)
{
    char file[600], args[256], user[64] = "", group[64] = "", *h;
    struct passwd *pw;
    (void)state;

    setpwent();
    while ((pw = getpwent()) != NULL) {
        struct group *gr = pw->pw_uid != 0 ? getgrgid(pw->pw_gid) : NULL;
        if (gr != NULL && strlen(pw->pw_name) < sizeof user && strlen(gr->gr_name) < 33 &&
            strcmp(gr->gr_name, "root") != 0 &&
            strspn(pw->pw_name, "abcdefghijklmnopqrstuvwxyz0123456789_-") ==
                strlen(pw->pw_name)) {
            snprintf(user, sizeof user, "%s", pw->pw_name);
            snprintf(group, sizeof group, "%s", gr->gr_name);
            break;
        }
    }
    endpwent();
    if (user[0] == '\0')
        skip();

    snprintf(file, sizeof file, "%s/xo_group_shadow", g_dir);
    xo_file(file, g_hash[H_a2id_target], user, g_hash[H_sha512c]);
    snprintf(args, sizeof args, "upgrade=file xcrypt-only=root,@%s", group);
    upgrade_service(file, args);
    h = xo_login(file, user);
    assert_xcrypt_yescrypt(user, h);
    free(h);

    /* A group no name service has: the user is not in it and moves to the
     * target.  But where a name service cannot answer (nsswitch.conf names
     * sss and sssd is not running: glibc's getgrnam_r() then fails with
     * ENOENT instead of finding nothing), the module cannot tell whether
     * the group exists there, and keeps the user on libxcrypt: the fail-safe
     * side.  Whichever this machine does, the module must do the same. */
    xo_file(file, g_hash[H_a2id_target], user, g_hash[H_sha512c]);
    upgrade_service(file, "upgrade=file xcrypt-only=root,@nosuchgroup-kdf");
    h = xo_login(file, user);
    if (group_lookup_fails("nosuchgroup-kdf"))
        assert_xcrypt_yescrypt(user, h);
    else if (strncmp(h, TARGET_PREFIX, strlen(TARGET_PREFIX)) != 0)
        fail_msg("%s outside the listed group: not at the target: %s", user, h);
    free(h);
    unlink(file);
}
