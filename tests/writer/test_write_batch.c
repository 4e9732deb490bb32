/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_write_batch.c - the batch writer of `kdfhash wrap`:
 * kdf_write_hashes() (several entries of a shadow-style file in one
 * rename, each compared and swapped on its own; the backup modes; no
 * rewrite when nothing changes, but a NEW backup made right; the lock;
 * refusals that write nothing) and kdf_write_opasswd_replace() (history
 * entries replaced or dropped, the count fixed, a line left without
 * entries dropped, every other byte kept).  Renames are counted with
 * inotify, so "one rename" is seen, not inferred.
 */
#include "upgrade_testutil.h"

#include <limits.h>
#include <sys/inotify.h>

#define NA "$argon2id$v=19$m=256,t=1,p=1$c2FsdGE$YWxpY2VoYXNo"
#define NB "$argon2id$v=19$m=256,t=1,p=1$c2FsdGI$Ym9iaGFzaGg"
#define NC "$argon2id$v=19$m=256,t=1,p=1$c2FsdGM$Y2Fyb2xoYXNo"
#define ND "$argon2id$v=19$m=256,t=1,p=1$c2FsdGQ$ZGF2ZWhhc2g"
/* The history's spelling of a hash: ',' stored as ';'. */
#define SA "$argon2id$v=19$m=256;t=1;p=1$c2FsdGE$YWxpY2VoYXNo"
#define SB "$argon2id$v=19$m=256;t=1;p=1$c2FsdGI$Ym9iaGFzaGg"

/* A status no batch sets: a change whose st keeps it was left unset. */
#define UNSET KDF_WRITE_HOOK_FAILED

static char g_backup[320];

static const char shadow_text[] = "root:*:19000:0:99999:7:::\n"
                                  "# the admin's comment alice:x\r\n"
                                  "alice:$6$salt$oldalice:19000:0:99999:7:::\n"
                                  "bob:$1$salt$oldbob:1::::::\r\n"
                                  "carol:!!$5$salt$oldcarol:19000::::::\n"
                                  "dup:$1$a$b:1::::::\n"
                                  "dup:$1$a$b:1::::::\n"
                                  "dave:$6$salt$olddave";
/* shadow_text with alice, bob, carol and dave replaced. */
static const char shadow_all[] = "root:*:19000:0:99999:7:::\n"
                                 "# the admin's comment alice:x\r\n"
                                 "alice:" NA ":19000:0:99999:7:::\n"
                                 "bob:" NB ":1::::::\r\n"
                                 "carol:!!" NC ":19000::::::\n"
                                 "dup:$1$a$b:1::::::\n"
                                 "dup:$1$a$b:1::::::\n"
                                 "dave:" ND;

static void
set_changes(struct kdf_write_change *c)
{
    static const struct kdf_write_change all[4] = {
        {"alice", "$6$salt$oldalice", NA, UNSET},
        {"bob", "$1$salt$oldbob", NB, UNSET},
        {"carol", "!!$5$salt$oldcarol", "!!" NC, UNSET},
        {"dave", "$6$salt$olddave", ND, UNSET},
    };
    memcpy(c, all, sizeof all);
}

/* The file at 0640, owned by someone else when we may say so. */
static void
make_shadow(const char *text, size_t n, uid_t *uid, gid_t *gid)
{
    write_file(g_path, text, n, 0640);
    if (geteuid() == 0)
        assert_int_equal(chown(g_path, 4321, 8765), 0);
    *uid = geteuid() == 0 ? 4321 : geteuid();
    *gid = geteuid() == 0 ? 8765 : getegid();
}

static void
assert_meta(const char *path, uid_t uid, gid_t gid, mode_t mode)
{
    struct stat st;

    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_uid, uid);
    assert_int_equal(st.st_gid, gid);
    assert_int_equal(st.st_mode & 07777, mode);
}

/* Renames onto "shadow" and "shadow-" seen and not yet asked for. */
static int g_seen_main, g_seen_backup;

static int
watch_renames(void)
{
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

    g_seen_main = g_seen_backup = 0;

    assert_true(fd >= 0);
    assert_true(inotify_add_watch(fd, g_dir, IN_MOVED_TO) >= 0);
    return fd;
}

/* How many renames onto name the watch saw since the last call. */
static int
renames_onto(int fd, const char *name)
{
    static char evbuf[65536] __attribute__((aligned(8)));
    int *want = strcmp(name, "shadow") == 0 ? &g_seen_main : &g_seen_backup;
    ssize_t r;
    int n;

    while ((r = read(fd, evbuf, sizeof evbuf)) > 0) {
        for (char *p = evbuf; p < evbuf + r;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;

            if (ev->len > 0 && strcmp(ev->name, "shadow") == 0)
                g_seen_main++;
            if (ev->len > 0 && strcmp(ev->name, "shadow-") == 0)
                g_seen_backup++;
            p += sizeof *ev + ev->len;
        }
    }
    n = *want;
    *want = 0;
    return n;
}

static enum kdf_write_status
batch(struct kdf_write_change *c, size_t n, enum kdf_write_backup b, unsigned wait_ms)
{
    char err[256];
    /* The default lock: "shadow.lock" (g_lock), the writer's own. */
    enum kdf_write_status st = kdf_write_hashes(g_path, NULL, c, n, b, wait_ms, err, sizeof err);

    /* The reason never carries a hash. */
    assert_null(strstr(err, "$6$"));
    assert_null(strstr(err, "$argon2"));
    return st;
}

static void
assert_ino(const char *path, ino_t ino, int same)
{
    struct stat st;

    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_ino == ino, same);
}

static ino_t
ino_of(const char *path)
{
    struct stat st;

    assert_int_equal(stat(path, &st), 0);
    return st.st_ino;
}

/* Four users, one of them locked ("!!" kept), one on a last line without
 * '\n', one beside CRLF: all in one rename; every other byte kept, the
 * file's owner and mode kept, "shadow-" the content before (PREVIOUS). */
static void
test_one_rename(void **state)
{
    struct kdf_write_change c[4];
    uid_t uid;
    gid_t gid;
    ino_t ino;
    int w;

    (void)state;
    make_shadow(shadow_text, sizeof shadow_text - 1, &uid, &gid);
    ino = ino_of(g_path);
    set_changes(c);
    w = watch_renames();
    assert_int_equal(batch(c, 4, KDF_BACKUP_PREVIOUS, 500), KDF_WRITE_OK);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(c[i].st, KDF_WRITE_OK);
    assert_int_equal(renames_onto(w, "shadow"), 1);
    assert_int_equal(renames_onto(w, "shadow-"), 1);
    close(w);
    assert_ino(g_path, ino, 0);
    assert_file_is(g_path, shadow_all, sizeof shadow_all - 1);
    assert_file_is(g_backup, shadow_text, sizeof shadow_text - 1);
    assert_meta(g_path, uid, gid, 0640);
    assert_meta(g_backup, uid, gid, 0640);
    assert_int_equal(access(g_lock, F_OK), -1); /* our own lock, removed */
    assert_no_temp();
}

/* A compare-and-swap failure leaves that line and writes the others; no
 * line, two lines or a name no line may have: not found. */
static void
test_cas_and_not_found(void **state)
{
    static const char want[] = "root:*:19000:0:99999:7:::\n"
                               "# the admin's comment alice:x\r\n"
                               "alice:" NA ":19000:0:99999:7:::\n"
                               "bob:$1$salt$oldbob:1::::::\r\n"
                               "carol:!!$5$salt$oldcarol:19000::::::\n"
                               "dup:$1$a$b:1::::::\n"
                               "dup:$1$a$b:1::::::\n"
                               "dave:" ND;
    struct kdf_write_change c[7];
    uid_t uid;
    gid_t gid;

    (void)state;
    make_shadow(shadow_text, sizeof shadow_text - 1, &uid, &gid);
    set_changes(c);
    c[1].old_hash = "$1$salt$changed";   /* bob: changed meanwhile */
    c[2].old_hash = "!$5$salt$oldcarol"; /* one '!' of two: not the stored field */
    c[2].new_hash = "!" NC;
    c[4] = (struct kdf_write_change){"zed", "$1$a$b", NB, UNSET};
    c[5] = (struct kdf_write_change){"dup", "$1$a$b", NB, UNSET};
    c[6] = (struct kdf_write_change){"+alice", "$6$salt$oldalice", NB, UNSET};
    assert_int_equal(batch(c, 7, KDF_BACKUP_NONE, 500), KDF_WRITE_OK);
    assert_int_equal(c[0].st, KDF_WRITE_OK);
    assert_int_equal(c[1].st, KDF_WRITE_CAS_FAILED);
    assert_int_equal(c[2].st, KDF_WRITE_CAS_FAILED);
    assert_int_equal(c[3].st, KDF_WRITE_OK);
    assert_int_equal(c[4].st, KDF_WRITE_NOT_FOUND);
    assert_int_equal(c[5].st, KDF_WRITE_NOT_FOUND);
    assert_int_equal(c[6].st, KDF_WRITE_NOT_FOUND);
    assert_file_is(g_path, want, sizeof want - 1);
    assert_meta(g_path, uid, gid, 0640);
    assert_int_equal(access(g_backup, F_OK), -1); /* NONE */
    assert_no_temp();
}

/* A bad new hash anywhere in the batch, a lock marker added or taken
 * away, a user twice, a missing field, a symlink or a second link: the
 * whole batch refused, nothing written, no status set. */
static void
test_refusals(void **state)
{
    static const char *const bad[] = {"", "a:b", "a\nb", "a b", "*x", "!" NA,
                                      "$6$x\r", NA ":0"};
    struct kdf_write_change c[4];
    char link_path[400];
    uid_t uid;
    gid_t gid;
    ino_t ino;

    (void)state;
    make_shadow(shadow_text, sizeof shadow_text - 1, &uid, &gid);
    ino = ino_of(g_path);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        set_changes(c);
        c[3].new_hash = bad[i];
        assert_int_equal(batch(c, 4, KDF_BACKUP_NEW, 500), KDF_WRITE_REFUSED);
        for (size_t j = 0; j < 4; j++)
            assert_int_equal(c[j].st, UNSET);
    }
    /* carol's "!!" must stay two: not one, not none, not three. */
    {
        static const char *const marks[] = {"!" NC, NC, "!!!" NC};

        for (size_t i = 0; i < 3; i++) {
            set_changes(c);
            c[2].new_hash = marks[i];
            assert_int_equal(batch(c, 4, KDF_BACKUP_NEW, 500), KDF_WRITE_REFUSED);
        }
    }
    set_changes(c);
    c[3].user = "alice";
    assert_int_equal(batch(c, 4, KDF_BACKUP_NEW, 500), KDF_WRITE_REFUSED);
    set_changes(c);
    c[1].new_hash = NULL;
    assert_int_equal(batch(c, 4, KDF_BACKUP_NEW, 500), KDF_WRITE_REFUSED);
    assert_int_equal(batch(NULL, 1, KDF_BACKUP_NEW, 500), KDF_WRITE_REFUSED);
    set_changes(c);
    assert_int_equal(batch(c, 4, (enum kdf_write_backup)7, 500), KDF_WRITE_REFUSED);
    assert_file_is(g_path, shadow_text, sizeof shadow_text - 1);
    assert_ino(g_path, ino, 1);
    assert_int_equal(access(g_backup, F_OK), -1);

    snprintf(link_path, sizeof link_path, "%s.hl", g_path);
    assert_int_equal(link(g_path, link_path), 0);
    set_changes(c);
    assert_int_equal(batch(c, 4, KDF_BACKUP_NEW, 500), KDF_WRITE_REFUSED);
    assert_int_equal(c[0].st, UNSET);
    assert_int_equal(unlink(link_path), 0);
    assert_int_equal(rename(g_path, link_path), 0);
    assert_int_equal(symlink(link_path, g_path), 0);
    assert_int_equal(batch(c, 4, KDF_BACKUP_NEW, 500), KDF_WRITE_REFUSED);
    assert_file_is(link_path, shadow_text, sizeof shadow_text - 1);
    assert_int_equal(unlink(g_path), 0);
    assert_int_equal(unlink(link_path), 0);
    assert_int_equal(access(g_backup, F_OK), -1);
    assert_no_temp();
}

/* What each mode leaves in "shadow-", over a stale one: PREVIOUS the
 * content before, NEW the content after (one rename each, the file's
 * owner and mode), NONE the stale one untouched. */
static void
test_backup_modes(void **state)
{
    static const char stale[] = "stale:$1$old$backup:1::::::\n";
    static const struct {
        enum kdf_write_backup mode;
        const char *want;
        size_t want_len;
        int renames;
    } cases[] = {
        {KDF_BACKUP_PREVIOUS, shadow_text, sizeof shadow_text - 1, 1},
        {KDF_BACKUP_NEW, shadow_all, sizeof shadow_all - 1, 1},
        {KDF_BACKUP_NONE, stale, sizeof stale - 1, 0},
    };
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct kdf_write_change c[4];
        uid_t uid;
        gid_t gid;
        ino_t bino;
        int w;

        make_shadow(shadow_text, sizeof shadow_text - 1, &uid, &gid);
        write_file(g_backup, stale, sizeof stale - 1, 0600);
        bino = ino_of(g_backup);
        set_changes(c);
        w = watch_renames();
        assert_int_equal(batch(c, 4, cases[k].mode, 500), KDF_WRITE_OK);
        assert_int_equal(renames_onto(w, "shadow"), 1);
        assert_int_equal(renames_onto(w, "shadow-"), cases[k].renames);
        close(w);
        assert_file_is(g_path, shadow_all, sizeof shadow_all - 1);
        assert_file_is(g_backup, cases[k].want, cases[k].want_len);
        if (cases[k].mode == KDF_BACKUP_NONE) {
            assert_ino(g_backup, bino, 1);
        } else {
            assert_meta(g_backup, uid, gid, 0640);
        }
        assert_no_temp();
    }
}

/* A rerun with nothing to change does not rewrite the file (inode and
 * mtime kept); with NEW it still makes a stale "shadow-" a copy of the
 * file (what a run killed between its two renames leaves), and leaves a
 * right one alone; PREVIOUS and NONE leave it. */
static void
test_rerun(void **state)
{
    static const char stale[] = "alice:$6$salt$oldalice:19000:0:99999:7:::\n";
    struct kdf_write_change c[4];
    struct stat a, b;
    uid_t uid;
    gid_t gid;
    ino_t bino;
    int w;

    (void)state;
    make_shadow(shadow_text, sizeof shadow_text - 1, &uid, &gid);
    set_changes(c);
    assert_int_equal(batch(c, 4, KDF_BACKUP_NEW, 500), KDF_WRITE_OK);
    assert_int_equal(stat(g_path, &a), 0);
    bino = ino_of(g_backup);

    /* The same batch again: every entry changed meanwhile (by itself). */
    set_changes(c);
    w = watch_renames();
    assert_int_equal(batch(c, 4, KDF_BACKUP_NEW, 500), KDF_WRITE_OK);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(c[i].st, KDF_WRITE_CAS_FAILED);
    /* Already written: old and new the same, so OK and still no rewrite. */
    c[0] = (struct kdf_write_change){"alice", NA, NA, UNSET};
    assert_int_equal(batch(c, 1, KDF_BACKUP_NEW, 500), KDF_WRITE_OK);
    assert_int_equal(c[0].st, KDF_WRITE_OK);
    assert_int_equal(renames_onto(w, "shadow"), 0);
    assert_int_equal(renames_onto(w, "shadow-"), 0);
    assert_ino(g_backup, bino, 1);

    /* A stale backup: PREVIOUS and NONE leave it, NEW replaces it. */
    write_file(g_backup, stale, sizeof stale - 1, 0640);
    set_changes(c);
    assert_int_equal(batch(c, 4, KDF_BACKUP_PREVIOUS, 500), KDF_WRITE_OK);
    assert_int_equal(batch(c, 4, KDF_BACKUP_NONE, 500), KDF_WRITE_OK);
    assert_int_equal(batch(NULL, 0, KDF_BACKUP_NONE, 500), KDF_WRITE_OK);
    assert_file_is(g_backup, stale, sizeof stale - 1);
    assert_int_equal(batch(c, 4, KDF_BACKUP_NEW, 500), KDF_WRITE_OK);
    assert_int_equal(renames_onto(w, "shadow"), 0);
    assert_int_equal(renames_onto(w, "shadow-"), 1);
    assert_file_is(g_backup, shadow_all, sizeof shadow_all - 1);
    assert_meta(g_backup, uid, gid, 0640);
    /* The same bytes with a looser mode are not a right backup either. */
    assert_int_equal(chmod(g_backup, 0644), 0);
    assert_int_equal(batch(NULL, 0, KDF_BACKUP_NEW, 500), KDF_WRITE_OK);
    assert_int_equal(renames_onto(w, "shadow-"), 1);
    assert_meta(g_backup, uid, gid, 0640);
    close(w);

    assert_int_equal(stat(g_path, &b), 0);
    assert_true(a.st_ino == b.st_ino && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
                a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);
    assert_file_is(g_path, shadow_all, sizeof shadow_all - 1);
    assert_no_temp();
}

/* The lock held by someone else: LOCK_BUSY within the bounded wait, the
 * file and its backup as they were, no status set; the history's batch
 * takes the same lock. */
static void
test_lock_busy(void **state)
{
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    struct kdf_write_change c[4];
    char hist[400], err[256];
    unsigned long long t0, dt;
    uid_t uid;
    gid_t gid;
    ino_t ino;
    int fd;

    (void)state;
    make_shadow(shadow_text, sizeof shadow_text - 1, &uid, &gid);
    ino = ino_of(g_path);
    fd = open(g_lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_OFD_SETLK, &fl), 0);
    set_changes(c);
    t0 = kdf_pam_now_ms();
    assert_int_equal(batch(c, 4, KDF_BACKUP_NEW, 300), KDF_WRITE_LOCK_BUSY);
    dt = kdf_pam_now_ms() - t0;
    assert_true(dt >= 290 && dt <= 1000);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(c[i].st, UNSET);
    assert_file_is(g_path, shadow_text, sizeof shadow_text - 1);
    assert_ino(g_path, ino, 1);
    assert_int_equal(access(g_backup, F_OK), -1);

    snprintf(hist, sizeof hist, "%s/opasswd", g_dir);
    write_file(hist, "alice:1000:1:$6$salt$oldalice\n", 30, 0600);
    c[0] = (struct kdf_write_change){"alice", "$6$salt$oldalice", NA, UNSET};
    assert_int_equal(kdf_write_opasswd_replace(hist, g_path, c, 1, 100, err, sizeof err),
                     KDF_WRITE_LOCK_BUSY);
    assert_int_equal(c[0].st, UNSET);
    assert_file_is(hist, "alice:1000:1:$6$salt$oldalice\n", 30);
    close(fd); /* releases it */

    /* A lock file the caller names is the caller's: left in place. */
    set_changes(c);
    assert_int_equal(kdf_write_hashes(g_path, g_lock, c, 4, KDF_BACKUP_NEW, 300, err, sizeof err),
                     KDF_WRITE_OK);
    assert_int_equal(c[0].st, KDF_WRITE_OK);
    assert_file_is(g_path, shadow_all, sizeof shadow_all - 1);
    assert_int_equal(access(g_lock, F_OK), 0);
}

/* ---- the history ---- */

static char g_hist[400];

static enum kdf_write_status
hist(struct kdf_write_change *c, size_t n)
{
    char err[256];
    enum kdf_write_status st =
        kdf_write_opasswd_replace(g_hist, g_path, c, n, 500, err, sizeof err);

    assert_null(strstr(err, "$1$"));
    assert_null(strstr(err, "$argon2"));
    return st;
}

/* No temp of the history file left beside it. */
static void
assert_no_hist_temp(void)
{
    DIR *d = opendir(g_dir);
    struct dirent *de;

    assert_non_null(d);
    while ((de = readdir(d)) != NULL)
        assert_null(strstr(de->d_name, ".kdfhash-"));
    closedir(d);
}

/* Replaced in place (',' spelled ';'), dropped with the count fixed
 * (empty entries going with it), a line left without entries dropped
 * with its CRLF, a second line of a user and every other byte kept; an
 * entry not in the user's line changed meanwhile; a user without a line,
 * or no file, not found; the file's owner and mode kept. */
static void
test_history(void **state)
{
    static const char before[] = "# not a history line\n"
                                 "alice:1000:3:$1$a$old1," SA ",$1$a$old3\n"
                                 "bob:1001:1:$1$b$oldb\r\n"
                                 "carol:1002:2:$1$c$x,$1$c$y\n"
                                 "alice:1000:1:$1$a$second\n"
                                 "dave:1003:2:$1$d$p,,$1$d$q";
    static const char after1[] = "# not a history line\n"
                                 "alice:1000:2:" SB ",$1$a$old3\n"
                                 "carol:1002:2:$1$c$x,$1$c$y\n"
                                 "alice:1000:1:$1$a$second\n"
                                 "dave:1003:2:$1$d$p,," SA;
    static const char after2[] = "# not a history line\n"
                                 "alice:1000:2:" SB ",$1$a$old3\n"
                                 "carol:1002:2:$1$c$x,$1$c$y\n"
                                 "alice:1000:1:$1$a$second\n"
                                 "dave:1003:1:" SA;
    static const char after3[] = "# not a history line\n"
                                 "carol:1002:2:$1$c$x,$1$c$y\n"
                                 "alice:1000:1:$1$a$second\n"
                                 "dave:1003:1:" SA;
    struct kdf_write_change c[8] = {
        {"alice", "$1$a$old1", NB, UNSET},
        {"alice", NA, NULL, UNSET}, /* given with ',', stored with ';' */
        {"bob", "$1$b$oldb", NULL, UNSET},
        {"carol", "$1$c$gone", NB, UNSET},
        {"zed", "$1$z$z", NULL, UNSET},
        {"alice", "$1$a$second", NB, UNSET}, /* on the second line only */
        {"dave", "$1$d$q", NA, UNSET},
        {"ali", "$1$a$old3", NULL, UNSET}, /* a prefix of a name is not it */
    };
    static const enum kdf_write_status want1[8] = {
        KDF_WRITE_OK,           KDF_WRITE_OK,        KDF_WRITE_OK, KDF_WRITE_CAS_FAILED,
        KDF_WRITE_NOT_FOUND,    KDF_WRITE_CAS_FAILED, KDF_WRITE_OK, KDF_WRITE_NOT_FOUND,
    };
    char moved[420];
    uid_t uid = geteuid() == 0 ? 4321 : geteuid();
    gid_t gid = geteuid() == 0 ? 8765 : getegid();
    ino_t ino;

    (void)state;
    write_file(g_hist, before, sizeof before - 1, 0640);
    assert_int_equal(chown(g_hist, uid, gid), 0);
    assert_int_equal(hist(c, 8), KDF_WRITE_OK);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(c[i].st, want1[i]);
    assert_file_is(g_hist, after1, sizeof after1 - 1);
    assert_meta(g_hist, uid, gid, 0640);

    /* dave's drop: the count follows, the empty entry goes, the last line
     * stays without '\n'. */
    c[0] = (struct kdf_write_change){"dave", "$1$d$p", NULL, UNSET};
    assert_int_equal(hist(c, 1), KDF_WRITE_OK);
    assert_int_equal(c[0].st, KDF_WRITE_OK);
    assert_file_is(g_hist, after2, sizeof after2 - 1);

    /* alice's first line loses both entries: it goes; her second line,
     * now the first, was not hers to change in this pass. */
    c[0] = (struct kdf_write_change){"alice", NB, NULL, UNSET};
    c[1] = (struct kdf_write_change){"alice", "$1$a$old3", NULL, UNSET};
    assert_int_equal(hist(c, 2), KDF_WRITE_OK);
    assert_int_equal(c[0].st, KDF_WRITE_OK);
    assert_int_equal(c[1].st, KDF_WRITE_OK);
    assert_file_is(g_hist, after3, sizeof after3 - 1);
    assert_meta(g_hist, uid, gid, 0640);

    /* Nothing to change: no rewrite. */
    ino = ino_of(g_hist);
    c[0] = (struct kdf_write_change){"carol", "$1$c$gone", NULL, UNSET};
    assert_int_equal(hist(c, 1), KDF_WRITE_OK);
    assert_int_equal(c[0].st, KDF_WRITE_CAS_FAILED);
    assert_ino(g_hist, ino, 1);

    /* Refused: nothing written, no status set. */
    {
        static const struct kdf_write_change bad[] = {
            {"carol", "$1$c$x", "a;b", UNSET},      {"carol", "$1$c$x", "a:b", UNSET},
            {"carol", "$1$c$x", "", UNSET},         {"carol", "$1$c$x", "!" NA, UNSET},
            {"carol", "$1$c;x", NULL, UNSET},       {NULL, "$1$c$x", NULL, UNSET},
            {"carol", NULL, NULL, UNSET},
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            c[0] = (struct kdf_write_change){"dave", "$1$d$x", NULL, UNSET};
            c[1] = bad[i];
            assert_int_equal(hist(c, 2), KDF_WRITE_REFUSED);
            assert_int_equal(c[0].st, UNSET);
            assert_int_equal(c[1].st, UNSET);
        }
        assert_file_is(g_hist, after3, sizeof after3 - 1);
        assert_ino(g_hist, ino, 1);
    }

    /* No history file: every entry not found, and none is made. */
    snprintf(moved, sizeof moved, "%s.away", g_hist);
    assert_int_equal(rename(g_hist, moved), 0);
    c[0] = (struct kdf_write_change){"dave", "$1$d$x", NA, UNSET};
    assert_int_equal(hist(c, 1), KDF_WRITE_OK);
    assert_int_equal(c[0].st, KDF_WRITE_NOT_FOUND);
    assert_int_equal(access(g_hist, F_OK), -1);
    assert_int_equal(access(g_lock, F_OK), -1); /* our own lock, removed */
    assert_no_hist_temp();
}

static int
setup_batch(void **state)
{
    setup(state);
    snprintf(g_backup, sizeof g_backup, "%s-", g_path);
    snprintf(g_hist, sizeof g_hist, "%s/opasswd", g_dir);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_one_rename, setup_batch, teardown),
        cmocka_unit_test_setup_teardown(test_cas_and_not_found, setup_batch, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup_batch, teardown),
        cmocka_unit_test_setup_teardown(test_backup_modes, setup_batch, teardown),
        cmocka_unit_test_setup_teardown(test_rerun, setup_batch, teardown),
        cmocka_unit_test_setup_teardown(test_lock_busy, setup_batch, teardown),
        cmocka_unit_test_setup_teardown(test_history, setup_batch, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
