/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upgrade_testutil.h - helpers shared by tests/writer/test_upgrade.c and
 * tests/writer/test_upgrade_lock.c: a temp directory with "shadow" and
 * "shadow.lock", whole-file compare, "no temp left" and a small fixed file.
 */
#ifndef KDF_UPGRADE_TESTUTIL_H
#define KDF_UPGRADE_TESTUTIL_H

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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "upgrade.h"

static char g_dir[256];
static char g_path[300];
static char g_lock[320];

/* ---- a growable byte buffer ---- */
struct buf {
    char *p;
    size_t n, cap;
};

static inline void
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

static inline void
b_str(struct buf *b, const char *s)
{
    b_add(b, s, strlen(s));
}

static inline void
write_file(const char *path, const void *d, size_t n, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, d, n), (ssize_t)n);
    assert_int_equal(fchmod(fd, mode), 0);
    close(fd);
}

static inline char *
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

static inline void
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

/* Only the file, its backup ("shadow-", as shadow-utils keeps) and its
 * lock may be in the directory: no temp left. */
static inline void
assert_no_temp(void)
{
    DIR *d = opendir(g_dir);
    struct dirent *de;

    assert_non_null(d);
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
            strcmp(de->d_name, "shadow") == 0 || strcmp(de->d_name, "shadow-") == 0 ||
            strcmp(de->d_name, "shadow.lock") == 0)
            continue;
        print_error("unexpected file left: %s\n", de->d_name);
        closedir(d);
        fail();
    }
    closedir(d);
}

static inline void
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
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, de->d_name) >= sizeof p)
            continue;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            rm_rf_dir(p);
            rmdir(p);
        } else
            unlink(p);
    }
    closedir(d);
}

static inline int
setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/kdf-upd-XXXXXX");
    assert_non_null(mkdtemp(g_dir));
    snprintf(g_path, sizeof g_path, "%s/shadow", g_dir);
    snprintf(g_lock, sizeof g_lock, "%s/shadow.lock", g_dir);
    return 0;
}

static inline int
teardown(void **state)
{
    (void)state;
    rm_rf_dir(g_dir);
    rmdir(g_dir);
    return 0;
}

static const char base_file[] = "root:*:19000:0:99999:7:::\n"
                                "# the admin's comment\n"
                                "alice:$6$salt$oldhash:19000:0:99999:7:::\n"
                                "bob:$2b$05$abcdefghijklmnopqrstuuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01:1::::::\n"
                                "dup:$1$a$b:1::::::\n"
                                "dup:$1$a$b:1::::::\n";

static inline void
assert_unchanged_after(enum kdf_write_status want, const char *user, const char *old_h,
                       const char *new_h)
{
    struct stat before, after;
    char err[256];

    assert_int_equal(stat(g_path, &before), 0);
    assert_int_equal(kdf_write_hash(g_path, g_lock, user, old_h, new_h, 500, err, sizeof err),
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

#endif /* KDF_UPGRADE_TESTUTIL_H */
