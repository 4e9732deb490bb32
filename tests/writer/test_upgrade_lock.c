/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_upgrade_lock.c - kdf_write_hash()'s lock and temp file:
 * the bounded wait against OFD and classic fcntl (lckpwdf) locks, the
 * /etc/shadow -> /etc/.pwd.lock mapping against a real lckpwdf()
 * (doc/DESIGN.md "Writing a new hash: the file writer and the exec hook"),
 * and a temp never more readable than the target at any moment an inotify
 * watcher can see it.
 */
#include "upgrade_testutil.h"

#include "san_detect.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <shadow.h>
#include <signal.h>
#include <sched.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>

/* ---- the lock: bounded wait against OFD and classic (lckpwdf) locks ---- */
static void
hold_classic_lock_in_child(int *to_child, int *from_child, pid_t *pid)
{
    int a[2], b[2];
    char c;
    pid_t parent;

    assert_int_equal(pipe(a), 0);
    assert_int_equal(pipe(b), 0);
    parent = getpid();
    *pid = fork();
    assert_true(*pid >= 0);
    if (*pid == 0) {
        int fd;
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        /* Die with the parent: this child holds a[1] too, so its read()
         * never sees EOF and it would wait forever after a failed
         * assertion in the parent. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(1);
        fd = open(g_lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
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
    t0 = kdf_pam_now_ms();
    assert_int_equal(kdf_write_hash(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 300, err,
                                    sizeof err),
                     KDF_WRITE_LOCK_BUSY);
    dt = kdf_pam_now_ms() - t0;
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
    t0 = kdf_pam_now_ms();
    assert_int_equal(kdf_write_hash(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 0, err,
                                    sizeof err),
                     KDF_WRITE_LOCK_BUSY);
    assert_true(kdf_pam_now_ms() - t0 <= 200);
    assert_file_is(g_path, base_file, sizeof base_file - 1);
    close(fd); /* releases it */

    /* a holder that lets go after ~150 ms: the bounded wait gets it */
    hold_classic_lock_in_child(&to_child, &from_child, &pid);
    t0 = kdf_pam_now_ms();
    {
        struct timespec ts = {0, 150 * 1000000L};
        pid_t parent = getpid();
        pid_t releaser = fork();
        assert_true(releaser >= 0);
        if (releaser == 0) {
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
                _exit(1);
            nanosleep(&ts, NULL);
            _exit(write(to_child, "x", 1) == 1 ? 0 : 1);
        }
        assert_int_equal(kdf_write_hash(g_path, g_lock, "alice", "$6$salt$oldhash", NEWH, 3000,
                                        err, sizeof err),
                         KDF_WRITE_OK);
        dt = kdf_pam_now_ms() - t0;
        assert_true(dt >= 140 && dt < 1500);
        assert_int_equal(waitpid(releaser, &st, 0), releaser);
    }
    assert_int_equal(waitpid(pid, &st, 0), pid);
    close(to_child);
    close(from_child);
    assert_no_temp();
}

/* For /etc/shadow the lock is glibc's own
 * /etc/.pwd.lock, and a real lckpwdf() in another process keeps us out.
 * Only a lookup of a user that does not exist: /etc/shadow is never written. */
static void
test_etc_shadow_uses_lckpwdf_lock(void **state)
{
    int a[2], b[2], st;
    char c, err[256];
    pid_t pid, parent;
    unsigned long long t0, dt;
    enum kdf_write_status r;
    (void)state;

    if (geteuid() != 0 || access("/etc/shadow", R_OK) != 0) {
        print_message("not root: lckpwdf() interplay on /etc/.pwd.lock not checked\n");
        skip();
    }
    if (kdf_test_emulated()) {
        /* The emulated C library's lckpwdf() (fcntl lock with an alarm) and
         * the host's /etc/.pwd.lock: refused as an I/O error there. */
        print_message("under qemu-user: lckpwdf() interplay not checked\n");
        skip();
    }
    assert_int_equal(pipe(a), 0);
    assert_int_equal(pipe(b), 0);
    parent = getpid();
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* Die with the parent (it holds a[1] too: no EOF would wake it). */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(1);
        if (lckpwdf() != 0 || write(b[1], "L", 1) != 1 || read(a[0], &c, 1) != 1)
            _exit(1);
        ulckpwdf();
        _exit(0);
    }
    assert_int_equal(read(b[0], &c, 1), 1);
    t0 = kdf_pam_now_ms();
    assert_int_equal(kdf_write_hash("/etc/shadow", NULL, "kdfhash-no-such-user", "x", NEWH, 200,
                                    err, sizeof err),
                     KDF_WRITE_LOCK_BUSY);
    dt = kdf_pam_now_ms() - t0;
    assert_true(dt >= 190 && dt <= 400);
    assert_int_equal(write(a[1], "x", 1), 1);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    r = kdf_write_hash("/etc/shadow", NULL, "kdfhash-no-such-user", "x", NEWH, 200, err,
                       sizeof err);
    assert_int_equal(r, KDF_WRITE_NOT_FOUND);
    close(a[0]);
    close(a[1]);
    close(b[0]);
    close(b[1]);
}

/* Every spelling of /etc/shadow takes /etc/.pwd.lock, never the
 * "<path>.lock" of another file: "/etc//shadow.lock" is /etc/shadow.lock,
 * shadow-utils' own lock file, which useradd then reports as a stale lock.
 * Run in a private mount namespace with a tmpfs over /etc, so that the
 * machine's /etc is never touched even by the code before the fix.
 * Exit status of the child: 0, 77 (no namespace), or the failed step. */
static int
spellings_in_ns(void)
{
    static const char *const sp[] = {"/etc//shadow", "/etc/./shadow", "/etc/../etc/shadow",
                                     "/tmp/kdf-etc-link/shadow", "/tmp/kdf-etc-bind/shadow",
                                     "/etc/shadow"};
    const size_t n = sizeof sp / sizeof sp[0];
    int a[2], b[2], fd, st, step = 10;
    char c, err[256];
    pid_t pid;

    if (unshare(CLONE_NEWNS) != 0)
        return 77;
    if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("tmpfs", "/etc", "tmpfs", 0, "mode=0755") != 0 ||
        mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777") != 0)
        return 1;
    fd = open("/etc/shadow", O_WRONLY | O_CREAT | O_EXCL, 0640);
    if (fd < 0 || write(fd, "root:*:19000:0:99999:7:::\n", 26) != 26 || close(fd) != 0)
        return 2;
    if (symlink("/etc", "/tmp/kdf-etc-link") != 0 || mkdir("/tmp/kdf-etc-bind", 0755) != 0 ||
        mount("/etc", "/tmp/kdf-etc-bind", "none", MS_BIND, NULL) != 0)
        return 3;
    if (pipe(a) != 0 || pipe(b) != 0)
        return 4;
    pid = fork();
    if (pid < 0)
        return 5;
    if (pid == 0) {
        if (lckpwdf() != 0 || write(b[1], "L", 1) != 1 || read(a[0], &c, 1) != 1)
            _exit(1);
        ulckpwdf();
        _exit(0);
    }
    if (read(b[0], &c, 1) != 1)
        return 6;
    /* lckpwdf() held elsewhere: every spelling waits for it. */
    for (size_t i = 0; i < n; i++, step++) {
        enum kdf_write_status r = kdf_write_hash(sp[i], NULL, "kdfhash-no-such-user", "x", NEWH,
                                                 100, err, sizeof err);
        if (r != KDF_WRITE_LOCK_BUSY) {
            print_message("%s: %s, not busy (%s)\n", sp[i], kdf_write_status_str(r), err);
            return step;
        }
        if (access("/etc/shadow.lock", F_OK) == 0) {
            print_message("%s: left /etc/shadow.lock\n", sp[i]);
            return step;
        }
    }
    if (write(a[1], "x", 1) != 1 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
        WEXITSTATUS(st) != 0)
        return 7;
    /* Lock free: each gets it, finds no such user, leaves no lock file of
     * its own. */
    for (size_t i = 0; i < n; i++, step++) {
        enum kdf_write_status r = kdf_write_hash(sp[i], NULL, "kdfhash-no-such-user", "x", NEWH,
                                                 100, err, sizeof err);
        if (r != KDF_WRITE_NOT_FOUND || access("/etc/shadow.lock", F_OK) == 0) {
            print_message("%s: %s (%s)\n", sp[i], kdf_write_status_str(r), err);
            return step;
        }
    }
    return 0;
}

static void
test_etc_spellings_use_lckpwdf_lock(void **state)
{
    int st;
    pid_t pid;
    (void)state;

    if (geteuid() != 0 || kdf_test_emulated()) {
        print_message("not root (or emulated): spellings of /etc/shadow not checked\n");
        skip();
    }
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(spellings_in_ns());
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) == 77) {
        print_message("no private mount namespace: spellings of /etc/shadow not checked\n");
        skip();
    }
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- test 19: an inotify watcher never sees a temp more permissive than
 * the target (umask 0, so a wrong creation mode would show) ---- */
struct watch {
    int ifd;
    atomic_int stop; /* volatile is no inter-thread flag (TSan says so) */
    int bad, seen;
};

static void *
watcher(void *arg)
{
    struct watch *w = arg;
    char evbuf[8192] __attribute__((aligned(8)));

    while (!atomic_load(&w->stop)) {
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
        assert_int_equal(kdf_write_hash(g_path, g_lock, "alice", prev, next, 500, err,
                                        sizeof err),
                         KDF_WRITE_OK);
        snprintf(prev, sizeof prev, "%s", next);
    }
    atomic_store(&w.stop, 1);
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
        cmocka_unit_test_setup_teardown(test_lock_busy_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_temp_never_more_permissive, setup, teardown),
        cmocka_unit_test(test_etc_shadow_uses_lckpwdf_lock),
        cmocka_unit_test(test_etc_spellings_use_lckpwdf_lock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
