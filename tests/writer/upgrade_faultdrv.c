/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upgrade_faultdrv.c - drives kdf_write_hash() through injected syscall
 * failures and the durability-order trace; run by
 * tests/writer/test_upgrade_faults.sh.
 *
 *   upgrade_faultdrv sweep DIR   with tests/writer/faultinject.so preloaded: for
 *       every call of open, openat, fcntl, fchown, fchmod, write, fsync,
 *       close and rename(at) made by one upgrade, and for several errnos
 *       each (plus short writes and a lock that stays busy), run the upgrade
 *       with that one call failed.  Pass: the file is byte-identical with
 *       the same inode (or, where the failed call does not matter, exactly
 *       the upgraded file), no temp is left, the status says so, and the
 *       calls that must fail closed (fchown, fchmod, write, rename, fsync of
 *       the temp) always do.
 *   upgrade_faultdrv fsize DIR   RLIMIT_FSIZE = 1 KiB on a 4 KiB file, with
 *       SIGXFSZ ignored (EFBIG -> I/O error) and at its default (the writer
 *       dies before the rename): file intact, temp not more permissive than
 *       the target and swept by the next upgrade.
 *   upgrade_faultdrv once DIR    one upgrade, for strace.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "upgrade.h"

static char g_dir[400], g_path[500], g_lock[520];
static char g_orig[8192], g_new[8192];
static size_t g_orig_n, g_new_n;
static struct stat g_st;

static const char OLDH[] = "$6$rounds=5000$saltsalt$0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";
static const char NEWH[] = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$bmV3bmV3bmV3bmV3bmV3bmV3";

static void (*p_setup)(const char *, unsigned long, int, int);
static void (*p_arm)(int);
static unsigned long (*p_calls)(const char *);
static unsigned long (*p_fired)(void);

/* The test file: ~4 KiB, CRLF and LF lines, a comment, alice in the middle;
 * g_new is the same bytes with alice's field 2 replaced. */
static void
build_content(void)
{
    size_t o = 0, n = 0;
    char line[256];

    for (int i = 0; i < 40; i++) {
        int l;
        if (i == 20) {
            l = snprintf(line, sizeof line, "alice:%s:19000:0:99999:7:::\r\n", OLDH);
            memcpy(g_orig + o, line, (size_t)l);
            o += (size_t)l;
            l = snprintf(line, sizeof line, "alice:%s:19000:0:99999:7:::\r\n", NEWH);
            memcpy(g_new + n, line, (size_t)l);
            n += (size_t)l;
            continue;
        }
        if (i % 10 == 3)
            l = snprintf(line, sizeof line, "# comment line %d\n", i);
        else
            l = snprintf(line, sizeof line, "user%02d:$2b$05$%053d:1800%d:0:99999:7:::\n", i, i,
                         i % 10);
        memcpy(g_orig + o, line, (size_t)l);
        memcpy(g_new + n, line, (size_t)l);
        o += (size_t)l;
        n += (size_t)l;
    }
    g_orig_n = o;
    g_new_n = n;
}

static void
reset_file(void)
{
    FILE *f;

    unlink(g_path);
    f = fopen(g_path, "w");
    if (f == NULL || fwrite(g_orig, 1, g_orig_n, f) != g_orig_n || fclose(f) != 0 ||
        chmod(g_path, 0640) != 0 || stat(g_path, &g_st) != 0) {
        perror("reset");
        exit(1);
    }
}

/* 0: path holds the same bytes as (d, n); 1: different or unreadable. */
static int
path_differs(const char *path, const char *d, size_t n)
{
    static char buf[16384];
    FILE *f = fopen(path, "r");
    size_t got;

    if (f == NULL)
        return 1;
    got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return got != n || memcmp(buf, d, n) != 0;
}

static int
file_differs(const char *d, size_t n)
{
    return path_differs(g_path, d, n);
}

/* Count entries that are neither the file, its backup nor its lock. */
static int
count_temps(int max_mode_ok)
{
    DIR *d = opendir(g_dir);
    struct dirent *de;
    int n = 0;

    while (d != NULL && (de = readdir(d)) != NULL) {
        char p[1000];
        struct stat st;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
            strcmp(de->d_name, "shadow") == 0 || strcmp(de->d_name, "shadow-") == 0 ||
            strcmp(de->d_name, "shadow.lock") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", g_dir, de->d_name);
        if (max_mode_ok && lstat(p, &st) == 0 && (st.st_mode & 0777 & ~0640u) != 0) {
            fprintf(stderr, "FAIL: temp %s has mode %o\n", de->d_name, (unsigned)st.st_mode & 0777);
            n += 1000;
        }
        n++;
    }
    if (d != NULL)
        closedir(d);
    return n;
}

struct point {
    const char *func;
    int errs[6];
    int strict; /* every injection must fail the upgrade */
};

static const struct point points[] = {
    {"open", {EACCES, EMFILE, EIO, ENOSPC, 0}, 1},
    {"openat", {EACCES, EMFILE, EIO, ENOSPC, EDQUOT, 0}, 0},
    {"fcntl", {EIO, ENOLCK, 0}, 0},
    {"fchown", {EPERM, EIO, 0}, 1},
    {"fchmod", {EPERM, EIO, 0}, 1},
    {"write", {ENOSPC, EIO, EFBIG, EDQUOT, 0}, 1},
    {"fsync", {EIO, ENOSPC, 0}, 0},
    {"close", {EIO, 0}, 0},
    {"rename", {EIO, ENOSPC, EACCES, EXDEV, EBUSY, 0}, 1},
};

static int g_bad;

/* One upgrade with (func, nth, err, mode) injected; check the invariants. */
static enum kdf_write_status
one(const char *func, unsigned long nth, int err, int mode, unsigned wait_ms)
{
    char msg[256];
    enum kdf_write_status st;
    struct stat now;
    int temps;

    reset_file();
    p_setup(func, nth, err, mode);
    p_arm(1);
    st = kdf_write_hash(g_path, g_lock, "alice", OLDH, NEWH, wait_ms, msg, sizeof msg);
    p_arm(0);
    temps = count_temps(0);
    if (func != NULL && p_fired() == 0) {
        fprintf(stderr, "FAIL %s #%lu: injection did not fire\n", func, nth);
        g_bad++;
    }
    if (temps != 0) {
        fprintf(stderr, "FAIL %s #%lu errno %d: %d temp(s) left\n", func, nth, err, temps);
        g_bad++;
    }
    if (strstr(msg, OLDH) != NULL || strstr(msg, NEWH) != NULL) {
        fprintf(stderr, "FAIL: a hash in the error text\n");
        g_bad++;
    }
    if (st == KDF_WRITE_OK) {
        char bak[sizeof g_path + 2];
        snprintf(bak, sizeof bak, "%s-", g_path);
        if (file_differs(g_new, g_new_n) || stat(g_path, &now) != 0 ||
            (now.st_mode & 07777) != 0640) {
            fprintf(stderr, "FAIL %s #%lu errno %d: ok but the file is wrong\n", func, nth, err);
            g_bad++;
        }
        /* The backup holds the content before the write. */
        if (path_differs(bak, g_orig, g_orig_n)) {
            fprintf(stderr, "FAIL %s #%lu errno %d: ok but the backup is wrong\n", func, nth,
                    err);
            g_bad++;
        }
    } else {
        if (file_differs(g_orig, g_orig_n) || stat(g_path, &now) != 0 ||
            now.st_ino != g_st.st_ino) {
            fprintf(stderr, "FAIL %s #%lu errno %d: %s but the file changed\n", func, nth, err,
                    kdf_write_status_str(st));
            g_bad++;
        }
        if (msg[0] == '\0') {
            fprintf(stderr, "FAIL %s #%lu: no reason given\n", func, nth);
            g_bad++;
        }
    }
    return st;
}

static int
sweep(void)
{
    int total = 0, closed = 0, benign = 0, busy;
    unsigned long long t0;

    p_setup = (void (*)(const char *, unsigned long, int, int))dlsym(RTLD_DEFAULT, "fi_setup");
    p_arm = (void (*)(int))dlsym(RTLD_DEFAULT, "fi_arm");
    p_calls = (unsigned long (*)(const char *))dlsym(RTLD_DEFAULT, "fi_calls");
    p_fired = (unsigned long (*)(void))dlsym(RTLD_DEFAULT, "fi_fired");
    if (p_setup == NULL || p_arm == NULL || p_calls == NULL || p_fired == NULL) {
        printf("tests/writer/faultinject.so is not loaded (LD_PRELOAD)\n");
        return 77;
    }
    /* a clean run to count the calls of each function */
    if (one(NULL, 0, 0, 0, 1000) != KDF_WRITE_OK || g_bad != 0) {
        fprintf(stderr, "FAIL: the clean run did not upgrade\n");
        return 1;
    }
    if (p_calls("write") == 0) {
        printf("the shim sees no calls (a static sanitizer runtime intercepts first)\n");
        return 77;
    }
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
        unsigned long calls;
        one(NULL, 0, 0, 0, 1000);
        calls = p_calls(points[i].func);
        printf("# %-6s %lu call(s) per upgrade:", points[i].func, calls);
        for (unsigned long n = 1; n <= calls; n++) {
            for (const int *e = points[i].errs; *e != 0; e++) {
                enum kdf_write_status st = one(points[i].func, n, *e, 0, 1000);
                total++;
                if (st == KDF_WRITE_OK) {
                    benign++;
                    if (points[i].strict) {
                        fprintf(stderr, "FAIL %s #%lu errno %d: upgrade went through\n",
                                points[i].func, n, *e);
                        g_bad++;
                    }
                } else
                    closed++;
                if (e == points[i].errs)
                    printf(" #%lu:%s", n, st == KDF_WRITE_OK ? "ok" : kdf_write_status_str(st));
            }
        }
        printf("\n");
    }
    /* the first fsync is the temp's: must fail closed; the directory fsync
     * comes after the rename (the upgrade stands, with a warning) */
    if (one("fsync", 1, EIO, 0, 1000) != KDF_WRITE_IO_ERROR) {
        fprintf(stderr, "FAIL: fsync of the temp failed but the upgrade went on\n");
        g_bad++;
    }
    /* short writes are carried on */
    for (unsigned long n = 1; n <= 3; n++) {
        total++;
        if (one("write", n, 0, 2, 1000) != KDF_WRITE_OK) {
            fprintf(stderr, "FAIL: short write #%lu not completed\n", n);
            g_bad++;
        }
    }
    /* a lock that stays busy: LOCK_BUSY within the bound */
    t0 = kdf_pam_now_ms();
    busy = one("fcntl", 1, EAGAIN, 1, 300) == KDF_WRITE_LOCK_BUSY;
    total++;
    closed++;
    if (!busy || kdf_pam_now_ms() - t0 > 500) {
        fprintf(stderr, "FAIL: a busy lock gave no LOCK_BUSY within 500 ms\n");
        g_bad++;
    }
    printf("# fault sweep: %d injections, %d failed closed (file byte-identical), %d harmless "
           "(upgraded correctly), %d deviations\n",
           total, closed, benign + 3, g_bad);
    if (closed < 30) {
        fprintf(stderr, "FAIL: only %d injection points failed closed\n", closed);
        g_bad++;
    }
    return g_bad == 0 ? 0 : 1;
}

static int
fsize(void)
{
    int bad = 0;

    for (int dflt = 0; dflt <= 1; dflt++) {
        int st;
        pid_t pid;

        reset_file();
        pid = fork();
        if (pid == 0) {
            struct rlimit rl = {1024, 1024};
            char msg[256];
            signal(SIGXFSZ, dflt ? SIG_DFL : SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
                _exit(9);
            if (kdf_write_hash(g_path, g_lock, "alice", OLDH, NEWH, 1000, msg, sizeof msg) !=
                    KDF_WRITE_IO_ERROR ||
                strstr(msg, "large") == NULL)
                _exit(8);
            _exit(0);
        }
        if (waitpid(pid, &st, 0) != pid)
            return 1;
        if (dflt ? !(WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ)
                 : !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            fprintf(stderr, "FAIL fsize (SIGXFSZ %s): child status %#x\n",
                    dflt ? "default" : "ignored", st);
            bad++;
        }
        if (file_differs(g_orig, g_orig_n)) {
            fprintf(stderr, "FAIL fsize: the file changed\n");
            bad++;
        }
        if (count_temps(1) > (dflt ? 1 : 0)) {
            fprintf(stderr, "FAIL fsize: temps left or too permissive\n");
            bad++;
        }
    }
    /* the killed writer left its temp: the next upgrade sweeps it */
    {
        char msg[256];
        if (kdf_write_hash(g_path, g_lock, "alice", OLDH, NEWH, 1000, msg, sizeof msg) !=
                KDF_WRITE_OK ||
            count_temps(0) != 0 || file_differs(g_new, g_new_n)) {
            fprintf(stderr, "FAIL fsize: the next upgrade did not clean up\n");
            bad++;
        }
    }
    printf("# RLIMIT_FSIZE 1 KiB: EFBIG -> I/O error, SIGXFSZ -> old file intact, temp swept: %s\n",
           bad == 0 ? "ok" : "FAILED");
    return bad == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
    char msg[256];

    if (argc != 3) {
        fprintf(stderr, "usage: upgrade_faultdrv sweep|fsize|once DIR\n");
        return 2;
    }
    snprintf(g_dir, sizeof g_dir, "%s", argv[2]);
    snprintf(g_path, sizeof g_path, "%s/shadow", g_dir);
    snprintf(g_lock, sizeof g_lock, "%s/shadow.lock", g_dir);
    build_content();
    if (strcmp(argv[1], "sweep") == 0)
        return sweep();
    if (strcmp(argv[1], "fsize") == 0)
        return fsize();
    if (strcmp(argv[1], "once") == 0) {
        reset_file();
        return kdf_write_hash(g_path, g_lock, "alice", OLDH, NEWH, 1000, msg, sizeof msg) ==
                       KDF_WRITE_OK
                   ? 0
                   : 1;
    }
    return 2;
}
