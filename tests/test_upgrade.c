/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_upgrade.c - kdf_upgrade_file(): byte preservation (reliability.md
 * test 13), compare-and-swap, refusals and write-path security (test 19),
 * the bounded lock wait (test 18).
 *
 * Expected files are built by the generator from the parts it wrote (the
 * target line is kept as prefix / field 2 / suffix), never by parsing the
 * writer's output, so the writer's own line splitting is not the oracle.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <shadow.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "upgrade.h"

static char g_dir[256];
static char g_path[300];
static char g_lock[320];
static uint64_t g_rng = 0x9e3779b97f4a7c15u;

static uint32_t
rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 16);
}

static unsigned long long
ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000u + (unsigned long long)ts.tv_nsec / 1000000u;
}

/* ---- a growable byte buffer ---- */
struct buf {
    char *p;
    size_t n, cap;
};

static void
b_add(struct buf *b, const void *d, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void
b_str(struct buf *b, const char *s)
{
    b_add(b, s, strlen(s));
}

static void
write_file(const char *path, const void *d, size_t n, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, d, n), (ssize_t)n);
    assert_int_equal(fchmod(fd, mode), 0);
    close(fd);
}

static char *
read_file(const char *path, size_t *n)
{
    struct buf b = {0};
    char tmp[65536];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t r;

    assert_true(fd >= 0);
    while ((r = read(fd, tmp, sizeof tmp)) > 0)
        b_add(&b, tmp, (size_t)r);
    close(fd);
    if (b.p == NULL)
        b_add(&b, "", 0);
    *n = b.n;
    return b.p;
}

static void
assert_file_is(const char *path, const char *exp, size_t n)
{
    size_t got_n;
    char *got = read_file(path, &got_n);

    if (got_n != n || memcmp(got, exp, n) != 0) {
        size_t i = 0;
        while (i < n && i < got_n && got[i] == exp[i])
            i++;
        print_error("file differs at byte %zu (len %zu, expected %zu)\n", i, got_n, n);
        free(got);
        fail();
    }
    free(got);
}

/* Only the file and its lock may be in the directory: no temp left. */
static void
assert_no_temp(void)
{
    DIR *d = opendir(g_dir);
    struct dirent *de;

    assert_non_null(d);
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
            strcmp(de->d_name, "shadow") == 0 || strcmp(de->d_name, "shadow.lock") == 0)
            continue;
        print_error("unexpected file left: %s\n", de->d_name);
        closedir(d);
        fail();
    }
    closedir(d);
}

static void
rm_rf_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char p[600];

    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            rm_rf_dir(p);
            rmdir(p);
        } else
            unlink(p);
    }
    closedir(d);
}

static int
setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/kdf-upd-XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    snprintf(g_path, sizeof g_path, "%s/shadow", g_dir);
    snprintf(g_lock, sizeof g_lock, "%s/shadow.lock", g_dir);
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    rm_rf_dir(g_dir);
    rmdir(g_dir);
    return 0;
}

/* ---- the generator ---- */
static const char b64c[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

static void
rand_hash(char *out, size_t cap)
{
    static const char *pre[] = {"$2b$05$", "$6$", "$5$rounds=5000$", "$1$",
                                "$argon2id$v=19$m=65536,t=2,p=1$", "$pbkdf2-sha256$29000$"};
    const char *p = pre[rnd() % 6];
    size_t n = strlen(p), tail = 20 + rnd() % 60;

    assert_true(n + tail < cap);
    memcpy(out, p, n);
    for (size_t i = 0; i < tail; i++)
        out[n + i] = b64c[rnd() % 64];
    out[n + tail] = '\0';
}

static const char *
rand_rest(void)
{
    static const char *rests[] = {":19000:0:99999:7:::", ":19000:0:99999:7::", /* 8 fields */
                                  ":19000:0:99999:7::::", /* 10 fields */
                                  ":18000::::::", ":0:0:99999:7:", /* 7 fields */
                                  ""};
    return rests[rnd() % 6];
}

/* One random non-target line (with its terminator) appended to b. */
static void
rand_line(struct buf *b, const char *target, int idx)
{
    char h[128], tmp[256];

    switch (rnd() % 14) {
    case 0:
        snprintf(tmp, sizeof tmp, "# comment %d %s:%s", idx, target, "$6$fake$fake");
        b_str(b, tmp);
        break;
    case 1: /* blank */
        break;
    case 2: /* leading blank: not the target */
        rand_hash(h, sizeof h);
        snprintf(tmp, sizeof tmp, " %s:%s:19000:0:99999:7:::", target, h);
        b_str(b, tmp);
        break;
    case 3: { /* NIS lines */
        static const char *nis[] = {"+", "+::::::::", "-@badguys::::::::", "+@staff"};
        if (rnd() % 2)
            snprintf(tmp, sizeof tmp, "%c%s::::::::", rnd() % 2 ? '+' : '-', target);
        else
            snprintf(tmp, sizeof tmp, "%s", nis[rnd() % 4]);
        b_str(b, tmp);
        break;
    }
    case 4: /* non-UTF-8 bytes and a NUL */
        b_add(b, "u\xff\xfe:\x80\x81\0x:19000::::::", 20);
        break;
    case 5: { /* an 8 KiB line */
        char *big = malloc(8200);
        memset(big, 'A', 8192);
        big[8192] = '\0';
        snprintf(tmp, sizeof tmp, "long%d:", idx);
        b_str(b, tmp);
        b_str(b, big);
        b_str(b, ":19000:0:99999:7:::");
        free(big);
        break;
    }
    case 6: /* names that are prefixes/extensions of the target */
        rand_hash(h, sizeof h);
        snprintf(tmp, sizeof tmp, "%s%s:%s%s", target, rnd() % 2 ? "x" : "_2", h, rand_rest());
        b_str(b, tmp);
        break;
    case 7:
        snprintf(tmp, sizeof tmp, "%.*s:%s", (int)strlen(target) - 1, target, "!locked:1::::::");
        b_str(b, tmp);
        break;
    case 8: /* a duplicated name elsewhere */
        b_str(b, "dup:*:19000::::::\ndup:!:19001::::::");
        break;
    case 9: /* no colon at all */
        b_str(b, target);
        break;
    default:
        rand_hash(h, sizeof h);
        snprintf(tmp, sizeof tmp, "user%d:%s%s", idx, h, rand_rest());
        b_str(b, tmp);
        break;
    }
}

static void
term(struct buf *b)
{
    b_str(b, rnd() % 4 == 0 ? "\r\n" : "\n");
}

/* Build a file with the target line at a random place; exp gets the file
 * as it must read after the upgrade. */
static void
gen_file(struct buf *in, struct buf *exp, const char *target, const char *old_h,
         const char *new_h)
{
    int nlines = 5 + (int)(rnd() % 120), at = (int)(rnd() % (unsigned)nlines);
    int last_unterminated = rnd() % 3 == 0;

    for (int i = 0; i < nlines; i++) {
        int is_last = i == nlines - 1;
        size_t before = in->n;

        if (i == at) {
            const char *rest = rand_rest();
            const char *t = is_last && last_unterminated ? "" : (rnd() % 4 == 0 ? "\r\n" : "\n");
            b_str(in, target);
            b_str(in, ":");
            b_str(exp, target);
            b_str(exp, ":");
            b_str(in, old_h);
            b_str(exp, new_h);
            b_str(in, rest);
            b_str(in, t);
            b_str(exp, rest);
            b_str(exp, t);
            continue;
        }
        rand_line(in, target, i);
        if (!(is_last && last_unterminated))
            term(in);
        b_add(exp, in->p + before, in->n - before);
    }
}

static void
test_byte_preservation_generated(void **state)
{
    static const mode_t modes[] = {0600, 0640, 0400, 0644, 0660};
    (void)state;

    for (int f = 0; f < 220; f++) {
        struct buf in = {0}, exp = {0};
        char target[64], old_h[128], new_h[128], err[256];
        struct stat before, after;
        mode_t mode = modes[rnd() % 5];
        uid_t uid = geteuid() == 0 ? (uid_t)(rnd() % 3 ? 0 : 1000 + rnd() % 100) : geteuid();
        gid_t gid = geteuid() == 0 ? (gid_t)(rnd() % 3 ? 42 : rnd() % 100) : getegid();

        snprintf(target, sizeof target, "%s%u", rnd() % 2 ? "alice" : "svc-", rnd() % 1000);
        rand_hash(old_h, sizeof old_h);
        snprintf(new_h, sizeof new_h, "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$%08x%08x",
                 rnd(), rnd());
        gen_file(&in, &exp, target, old_h, new_h);
        write_file(g_path, in.p, in.n, mode);
        assert_int_equal(chown(g_path, uid, gid), 0);
        assert_int_equal(stat(g_path, &before), 0);

        assert_int_equal(kdf_upgrade_file(g_path, NULL, target, old_h, new_h, 1000, err,
                                          sizeof err),
                         KDF_UPD_OK);
        assert_file_is(g_path, exp.p, exp.n);
        assert_int_equal(stat(g_path, &after), 0);
        assert_int_equal(after.st_mode, before.st_mode);
        assert_int_equal(after.st_uid, before.st_uid);
        assert_int_equal(after.st_gid, before.st_gid);
        assert_int_equal(after.st_nlink, 1);
        assert_true(after.st_ino != before.st_ino); /* a new file was renamed in */
        assert_no_temp();
        /* Again with the new hash as the old one: CAS now fails on the old. */
        assert_int_equal(kdf_upgrade_file(g_path, NULL, target, old_h, "$6$x$y", 1000, err,
                                          sizeof err),
                         KDF_UPD_CAS_FAILED);
        assert_file_is(g_path, exp.p, exp.n);
        free(in.p);
        free(exp.p);
        unlink(g_path);
    }
}

static const char base_file[] = "root:*:19000:0:99999:7:::\n"
                                "# the admin's comment\n"
                                "alice:$6$salt$oldhash:19000:0:99999:7:::\n"
                                "bob:$2b$05$abcdefghijklmnopqrstuuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01:1::::::\n"
                                "dup:$1$a$b:1::::::\n"
                                "dup:$1$a$b:1::::::\n";

static void
assert_unchanged_after(enum kdf_upd_status want, const char *user, const char *old_h,
                       const char *new_h)
{
    struct stat before, after;
    char err[256];

    assert_int_equal(stat(g_path, &before), 0);
    assert_int_equal(kdf_upgrade_file(g_path, g_lock, user, old_h, new_h, 500, err, sizeof err),
                     want);
    assert_true(err[0] != '\0');
    /* The reason never carries a hash. */
    assert_null(strstr(err, "$6$"));
    assert_null(strstr(err, "$argon2"));
    assert_file_is(g_path, base_file, sizeof base_file - 1);
    assert_int_equal(stat(g_path, &after), 0);
    assert_true(after.st_ino == before.st_ino);
    assert_true(after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
                after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    assert_no_temp();
}

static const char NEWH[] = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo";

static void
test_cas_and_not_found(void **state)
{
    (void)state;
    write_file(g_path, base_file, sizeof base_file - 1, 0640);
    assert_unchanged_after(KDF_UPD_CAS_FAILED, "alice", "$6$salt$otherhash", NEWH);
    assert_unchanged_after(KDF_UPD_CAS_FAILED, "alice", "$6$salt$oldhas", NEWH);
    assert_unchanged_after(KDF_UPD_CAS_FAILED, "alice", "$6$salt$oldhash:", NEWH);
    assert_unchanged_after(KDF_UPD_CAS_FAILED, "alice", "", NEWH);
    assert_unchanged_after(KDF_UPD_NOT_FOUND, "nobody", "$6$salt$oldhash", NEWH);
    assert_unchanged_after(KDF_UPD_NOT_FOUND, "alic", "$6$salt$oldhash", NEWH);
    assert_unchanged_after(KDF_UPD_NOT_FOUND, "dup", "$1$a$b", NEWH);
    /* Names the PAM lookup refuses are never found either. */
    assert_unchanged_after(KDF_UPD_NOT_FOUND, "", "", NEWH);
    assert_unchanged_after(KDF_UPD_NOT_FOUND, "alice:$6$salt$oldhash", "x", NEWH);
    assert_unchanged_after(KDF_UPD_NOT_FOUND, "+alice", "$6$salt$oldhash", NEWH);
    assert_unchanged_after(KDF_UPD_NOT_FOUND, "-alice", "$6$salt$oldhash", NEWH);
    assert_unchanged_after(KDF_UPD_NOT_FOUND, "al\nice", "$6$salt$oldhash", NEWH);
    {
        char longname[300];
        memset(longname, 'a', 257);
        longname[257] = '\0';
        assert_unchanged_after(KDF_UPD_NOT_FOUND, longname, "$6$salt$oldhash", NEWH);
    }
}

static void
test_bad_new_hash(void **state)
{
    static const char *bad[] = {"", "!$6$x$y", "*", "*LK*", "$6$a:b$c", "$6$a\nb",
                                "$6$a\rb", "$6$a b", "$6$a\tb", "$6$\x7f", "$6$\xc3\xa9"};
    char big[2000];
    (void)state;

    write_file(g_path, base_file, sizeof base_file - 1, 0640);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_unchanged_after(KDF_UPD_REFUSED, "alice", "$6$salt$oldhash", bad[i]);
    memset(big, 'A', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_unchanged_after(KDF_UPD_REFUSED, "alice", "$6$salt$oldhash", big);
}

static void
test_refuse_symlink_hardlink_special(void **state)
{
    char real[320], link2[320], err[256];
    (void)state;

    snprintf(real, sizeof real, "%s/real", g_dir);
    write_file(real, base_file, sizeof base_file - 1, 0600);
    assert_int_equal(symlink(real, g_path), 0);
    assert_int_equal(kdf_upgrade_file(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                      sizeof err),
                     KDF_UPD_REFUSED);
    assert_file_is(real, base_file, sizeof base_file - 1);
    {
        struct stat st;
        assert_int_equal(lstat(g_path, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
    }
    unlink(g_path);
    unlink(real);

    /* nlink == 2 */
    write_file(g_path, base_file, sizeof base_file - 1, 0600);
    snprintf(link2, sizeof link2, "%s/shadow.hard", g_dir);
    assert_int_equal(link(g_path, link2), 0);
    assert_int_equal(kdf_upgrade_file(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                      sizeof err),
                     KDF_UPD_REFUSED);
    assert_non_null(strstr(err, "hard link"));
    assert_file_is(g_path, base_file, sizeof base_file - 1);
    assert_file_is(link2, base_file, sizeof base_file - 1);
    unlink(link2);
    unlink(g_path);

    /* a FIFO (opening it must not hang) and a directory */
    assert_int_equal(mkfifo(g_path, 0600), 0);
    assert_int_equal(kdf_upgrade_file(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                      sizeof err),
                     KDF_UPD_REFUSED);
    unlink(g_path);
    assert_int_equal(mkdir(g_path, 0700), 0);
    assert_int_not_equal(kdf_upgrade_file(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500,
                                          err, sizeof err),
                         KDF_UPD_OK);
    rmdir(g_path);

    /* missing file */
    assert_int_equal(kdf_upgrade_file(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                      sizeof err),
                     KDF_UPD_IO_ERROR);
    assert_no_temp();
}

static void
test_size_bound(void **state)
{
    char err[256];
    int fd;
    unsigned long long t0;
    (void)state;

    fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)65 << 20), 0); /* sparse */
    close(fd);
    t0 = ms_now();
    assert_int_equal(kdf_upgrade_file(g_path, g_lock, "alice", "x", NEWH, 500, err, sizeof err),
                     KDF_UPD_REFUSED);
    assert_non_null(strstr(err, "MiB"));
    assert_true(ms_now() - t0 < 1000);
    assert_no_temp();
}

/* Files an attacker may have planted under names other writers use (and a
 * symlink under a name shaped like ours) are neither followed nor touched;
 * a stale temp of ours is swept. */
static void
test_planted_and_stale_temps(void **state)
{
    static const char *planted[] = {"shadow.tmp", "shadow+", "shadow-", "shadow.new",
                                    ".pam.shadow", "nshadow", ".shadow.kdfhash-short"};
    char p[400], outside[400], err[256];
    struct buf exp = {0};
    (void)state;

    write_file(g_path, base_file, sizeof base_file - 1, 0640);
    for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", g_dir, planted[i]);
        write_file(p, "planted\n", 8, 0666);
    }
    snprintf(outside, sizeof outside, "%s/outside", g_dir);
    write_file(outside, "outside\n", 8, 0644);
    snprintf(p, sizeof p, "%s/.shadow.kdfhash-AAAAAAAAAAAA", g_dir);
    assert_int_equal(symlink(outside, p), 0);
    snprintf(p, sizeof p, "%s/.shadow.kdfhash-Zz09Zz09Zz09", g_dir); /* stale temp */
    write_file(p, "stale\n", 6, 0600);

    assert_int_equal(kdf_upgrade_file(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 500, err,
                                      sizeof err),
                     KDF_UPD_OK);
    for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", g_dir, planted[i]);
        assert_file_is(p, "planted\n", 8);
        unlink(p);
    }
    assert_file_is(outside, "outside\n", 8);
    unlink(outside);
    snprintf(p, sizeof p, "%s/.shadow.kdfhash-AAAAAAAAAAAA", g_dir);
    assert_int_equal(unlink(p), 0); /* the symlink itself was left alone */
    snprintf(p, sizeof p, "%s/.shadow.kdfhash-Zz09Zz09Zz09", g_dir);
    assert_int_equal(access(p, F_OK), -1); /* swept */
    assert_no_temp();
    b_str(&exp, "root:*:19000:0:99999:7:::\n# the admin's comment\nalice:");
    b_str(&exp, NEWH);
    b_str(&exp, strchr(strstr(base_file, "alice:") + 6, ':'));
    assert_file_is(g_path, exp.p, exp.n);
    free(exp.p);
}

static void
test_same_hash_no_rewrite_and_default_lock(void **state)
{
    struct stat before, after;
    char err[256];
    (void)state;

    write_file(g_path, base_file, sizeof base_file - 1, 0640);
    assert_int_equal(stat(g_path, &before), 0);
    assert_int_equal(access(g_lock, F_OK), -1);
    assert_int_equal(kdf_upgrade_file(g_path, NULL, "alice", "$6$salt$oldhash", "$6$salt$oldhash",
                                      500, err, sizeof err),
                     KDF_UPD_OK);
    assert_int_equal(stat(g_path, &after), 0);
    assert_true(after.st_ino == before.st_ino);
    assert_file_is(g_path, base_file, sizeof base_file - 1);
    /* lock_path NULL means "<path>.lock", created 0600 */
    assert_int_equal(stat(g_lock, &after), 0);
    assert_int_equal(after.st_mode & 0777, 0600);
}

/* ---- the lock: bounded wait against OFD and classic (lckpwdf) locks ---- */
static void
hold_classic_lock_in_child(int *to_child, int *from_child, pid_t *pid)
{
    int a[2], b[2];
    char c;

    assert_int_equal(pipe(a), 0);
    assert_int_equal(pipe(b), 0);
    *pid = fork();
    assert_true(*pid >= 0);
    if (*pid == 0) {
        int fd = open(g_lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if (fd < 0 || fcntl(fd, F_SETLKW, &fl) < 0) /* glibc lckpwdf's call */
            _exit(1);
        if (write(b[1], "L", 1) != 1 || read(a[0], &c, 1) != 1)
            _exit(1);
        _exit(0);
    }
    close(a[0]);
    close(b[1]);
    assert_int_equal(read(b[0], &c, 1), 1);
    *to_child = a[1];
    *from_child = b[0];
}

static void
test_lock_busy_bounded(void **state)
{
    char err[256];
    int to_child, from_child, st, fd;
    pid_t pid;
    unsigned long long t0, dt;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    (void)state;

    write_file(g_path, base_file, sizeof base_file - 1, 0640);
    /* classic lock held by another process */
    hold_classic_lock_in_child(&to_child, &from_child, &pid);
    t0 = ms_now();
    assert_int_equal(kdf_upgrade_file(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 300, err,
                                      sizeof err),
                     KDF_UPD_LOCK_BUSY);
    dt = ms_now() - t0;
    assert_true(dt >= 290 && dt <= 500);
    assert_file_is(g_path, base_file, sizeof base_file - 1);
    assert_int_equal(write(to_child, "x", 1), 1);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(to_child);
    close(from_child);

    /* an OFD lock on another open file description, even in this process */
    fd = open(g_lock, O_WRONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_OFD_SETLK, &fl), 0);
    t0 = ms_now();
    assert_int_equal(kdf_upgrade_file(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 0, err,
                                      sizeof err),
                     KDF_UPD_LOCK_BUSY);
    assert_true(ms_now() - t0 <= 200);
    assert_file_is(g_path, base_file, sizeof base_file - 1);
    close(fd); /* releases it */

    /* a holder that lets go after ~150 ms: the bounded wait gets it */
    hold_classic_lock_in_child(&to_child, &from_child, &pid);
    t0 = ms_now();
    {
        struct timespec ts = {0, 150 * 1000000L};
        pid_t releaser = fork();
        assert_true(releaser >= 0);
        if (releaser == 0) {
            nanosleep(&ts, NULL);
            _exit(write(to_child, "x", 1) == 1 ? 0 : 1);
        }
        assert_int_equal(kdf_upgrade_file(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 3000,
                                          err, sizeof err),
                         KDF_UPD_OK);
        dt = ms_now() - t0;
        assert_true(dt >= 140 && dt < 1500);
        assert_int_equal(waitpid(releaser, &st, 0), releaser);
    }
    assert_int_equal(waitpid(pid, &st, 0), pid);
    close(to_child);
    close(from_child);
    assert_no_temp();
}

/* reliability.md test 18: for /etc/shadow the lock is glibc's own
 * /etc/.pwd.lock, and a real lckpwdf() in another process keeps us out.
 * Only a lookup of a user that does not exist: /etc/shadow is never written. */
static void
test_etc_shadow_uses_lckpwdf_lock(void **state)
{
    int a[2], b[2], st;
    char c, err[256];
    pid_t pid;
    unsigned long long t0, dt;
    enum kdf_upd_status r;
    (void)state;

    if (geteuid() != 0 || access("/etc/shadow", R_OK) != 0) {
        print_message("not root: lckpwdf() interplay on /etc/.pwd.lock not checked\n");
        skip();
    }
    assert_int_equal(pipe(a), 0);
    assert_int_equal(pipe(b), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (lckpwdf() != 0 || write(b[1], "L", 1) != 1 || read(a[0], &c, 1) != 1)
            _exit(1);
        ulckpwdf();
        _exit(0);
    }
    assert_int_equal(read(b[0], &c, 1), 1);
    t0 = ms_now();
    assert_int_equal(kdf_upgrade_file("/etc/shadow", NULL, "kdfhash-no-such-user", "x", NEWH, 200,
                                      err, sizeof err),
                     KDF_UPD_LOCK_BUSY);
    dt = ms_now() - t0;
    assert_true(dt >= 190 && dt <= 400);
    assert_int_equal(write(a[1], "x", 1), 1);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    r = kdf_upgrade_file("/etc/shadow", NULL, "kdfhash-no-such-user", "x", NEWH, 200, err,
                         sizeof err);
    assert_int_equal(r, KDF_UPD_NOT_FOUND);
    close(a[0]);
    close(a[1]);
    close(b[0]);
    close(b[1]);
}

/* ---- test 19: an inotify watcher never sees a temp more permissive than
 * the target (umask 0, so a wrong creation mode would show) ---- */
struct watch {
    int ifd;
    volatile int stop;
    int bad, seen;
};

static void *
watcher(void *arg)
{
    struct watch *w = arg;
    char evbuf[8192] __attribute__((aligned(8)));

    while (!w->stop) {
        struct pollfd pfd = {.fd = w->ifd, .events = POLLIN};
        ssize_t n;
        if (poll(&pfd, 1, 20) <= 0)
            continue;
        n = read(w->ifd, evbuf, sizeof evbuf);
        for (ssize_t off = 0; off < n;) {
            struct inotify_event *ev = (struct inotify_event *)(evbuf + off);
            char p[600];
            struct stat st;
            if (ev->len > 0 && strstr(ev->name, ".kdfhash-") != NULL) {
                snprintf(p, sizeof p, "%s/%s", g_dir, ev->name);
                if (lstat(p, &st) == 0) {
                    w->seen++;
                    if ((st.st_mode & 0777 & ~0600u) != 0)
                        w->bad++;
                }
            }
            off += (ssize_t)(sizeof *ev + ev->len);
        }
    }
    return NULL;
}

static void
test_temp_never_more_permissive(void **state)
{
    struct watch w = {0};
    pthread_t th;
    mode_t old_umask = umask(0);
    char err[256], prev[128], next[128];
    (void)state;

    write_file(g_path, base_file, sizeof base_file - 1, 0600);
    w.ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    assert_true(w.ifd >= 0);
    assert_true(inotify_add_watch(w.ifd, g_dir, IN_CREATE | IN_ATTRIB | IN_MODIFY) >= 0);
    assert_int_equal(pthread_create(&th, NULL, watcher, &w), 0);
    snprintf(prev, sizeof prev, "$6$salt$oldhash");
    for (int i = 0; i < 30; i++) {
        snprintf(next, sizeof next, "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$%04d", i);
        assert_int_equal(kdf_upgrade_file(g_path, g_lock, "alice", prev, next, 500, err,
                                          sizeof err),
                         KDF_UPD_OK);
        snprintf(prev, sizeof prev, "%s", next);
    }
    w.stop = 1;
    pthread_join(th, NULL);
    close(w.ifd);
    umask(old_umask);
    assert_int_equal(w.bad, 0);
    assert_no_temp();
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_byte_preservation_generated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cas_and_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_new_hash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuse_symlink_hardlink_special, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_planted_and_stale_temps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_hash_no_rewrite_and_default_lock, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_lock_busy_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_temp_never_more_permissive, setup, teardown),
        cmocka_unit_test(test_etc_shadow_uses_lckpwdf_lock),
    };
    /* KDF_TEST_SEED=<n> replays a run. */
    if (getenv("KDF_TEST_SEED") != NULL)
        g_rng = strtoull(getenv("KDF_TEST_SEED"), NULL, 10);
    else
        g_rng ^= (uint64_t)time(NULL) * 0x2545f4914f6cdd1du;
    if (g_rng == 0)
        g_rng = 1;
    printf("# seed %llu\n", (unsigned long long)g_rng);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
