/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_writer.c - libFuzzer target for the upgrade writer
 * (pam_module/write.c): kdf_write_hash() and kdf_write_entry()
 * on a fuzzed shadow-style file in a private temp directory, built with
 * clang -fsanitize=fuzzer,address,undefined (tests/local.mk, fuzz section).
 *
 * Input:
 *   byte 0      flags: bit 0 the new hash is line 2 instead of a fixed
 *               valid Argon2id string; bit 1 a password change
 *               (kdf_write_entry() with lastchg = lastchg_of[flags >> 4])
 *               instead of an upgrade; bit 2 leave stale temps of a killed
 *               writer beside the file first; bit 3 a wrong old hash
 *               (the user's field 2 with one byte more);
 *   line 1      the user name (a C string: it ends at a NUL);
 *   line 2      the new hash for bit 0 (a C string), else ignored;
 *   the rest    the file, written as it is.
 * A missing line is empty.  Seeds are plain text: '0' as byte 0 is a plain
 * upgrade to the fixed hash.
 *
 * The old hash is what the module would pass: the user's field 2, found
 * here by an independent scan (the first line of at most 64 KiB whose
 * field 1 is exactly the user; field 2 up to the next ':' or the line end,
 * a CR before the LF not included).  The whole expected result is computed independently: the
 * status (REFUSED for a new hash that is empty or over 1024 bytes, starts
 * with '!' or '*' or holds ':' or a byte outside 0x21..0x7e; NOT_FOUND
 * for a name the writer refuses, a missing or repeated user; CAS_FAILED
 * when the field is not the old hash; else OK) and, on OK, the exact bytes:
 * the old file with field 2 replaced (and field 3, for a password change on
 * a line that has one), every other byte kept.  Checked after each call:
 *   1. the status is the expected one;
 *   2. OK: the file holds exactly the expected bytes, mode 0600, one
 *      link; "PATH-" holds the old content (unless nothing had to change);
 *      any other status: the file is byte-identical to the input and no
 *      backup was made;
 *   3. nothing else is left in the directory (no temp of ours), and stale
 *      temps are swept whenever a rewrite happened;
 *   4. where kdf_lookup_user() finds the user on a line the writer also
 *      finds alone, both read the same field 2 (the compare-and-swap of an
 *      upgrade is on the looked-up hash).
 * The directory is emptied after every run, so the fuzzer never fills the
 * disk.  A failed property prints the line and calls abort().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "lookup.h"
#include "upgrade.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x)                                                                         \
    do {                                                                                 \
        if (!(x)) {                                                                      \
            fprintf(stderr, "fuzz_writer: %s:%d: check failed: %s\n", __FILE__,          \
                    __LINE__, #x);                                                       \
            abort();                                                                     \
        }                                                                                \
    } while (0)

#define FLAG_NEW_HASH 0x01u
#define FLAG_CHANGE 0x02u
#define FLAG_STALE 0x04u
#define FLAG_WRONG_OLD 0x08u

#define FIXED_NEW_HASH "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"
/* The writer's own bounds (write.c). */
#define W_USER_MAX 256
#define W_HASH_MAX 1024

/* Days for field 3: 0 (forces a change), small, today-like, 9 digits and
 * more, and values a file may already hold. */
static const long lastchg_of[16] = {
    0,     1,      7,         9,         10,         19000,      19700, 20000,
    99999, 100000, 123456789, 999999999, 1000000000, 2147483647, 12,    19999};

static char g_dir[4096], g_path[4200], g_lock[4200], g_backup[4200];
static char g_stale1[4200], g_stale2[4200];
static int g_ready;

static void
remove_all(void)
{
    unlink(g_path);
    unlink(g_backup);
    unlink(g_stale1);
    unlink(g_stale2);
}

static void
cleanup(void)
{
    DIR *d;
    struct dirent *de;
    char p[8400];

    if (!g_ready)
        return;
    remove_all();
    unlink(g_lock);
    /* Whatever a crash of the writer may have left. */
    d = opendir(g_dir);
    if (d != NULL) {
        while ((de = readdir(d)) != NULL) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            snprintf(p, sizeof p, "%s/%s", g_dir, de->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(g_dir);
}

static void
setup(void)
{
    if (g_ready)
        return;
    fuzz_make_dir(g_dir, sizeof g_dir, "fuzz-writer");
    snprintf(g_path, sizeof g_path, "%s/shadow", g_dir);
    snprintf(g_lock, sizeof g_lock, "%s/shadow.lock", g_dir);
    snprintf(g_backup, sizeof g_backup, "%s/shadow-", g_dir);
    /* The writer's temp names: ".<base>.kdfhash-" + 12 alphanumerics. */
    snprintf(g_stale1, sizeof g_stale1, "%s/.shadow.kdfhash-AAAAAAAAAAAA", g_dir);
    snprintf(g_stale2, sizeof g_stale2, "%s/.shadow-.kdfhash-zzzzzzzzzzzz", g_dir);
    g_ready = 1;
    atexit(cleanup);
}

static void
write_file(const char *path, const void *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

    CHECK(fd >= 0);
    CHECK(len == 0 || write(fd, buf, len) == (ssize_t)len);
    CHECK(close(fd) == 0);
}

/* The whole file, or NULL when it does not exist. */
static char *
read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    char *buf;
    size_t got = 0;

    if (fd < 0) {
        CHECK(errno == ENOENT);
        return NULL;
    }
    CHECK(fstat(fd, &st) == 0);
    buf = malloc((size_t)st.st_size + 1);
    CHECK(buf != NULL);
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        CHECK(r > 0);
        got += (size_t)r;
    }
    close(fd);
    *len = got;
    return buf;
}

/* ---- the independent model ----------------------------------------------- */

static int
model_user_ok(const char *u)
{
    size_t n = strlen(u);

    return n >= 1 && n <= W_USER_MAX && u[0] != '+' && u[0] != '-' && u[0] != '#' &&
           strpbrk(u, ":\n\r") == NULL;
}

static int
model_new_hash_ok(const char *h)
{
    size_t n = strlen(h);

    if (n == 0 || n > W_HASH_MAX || h[0] == '!' || h[0] == '*')
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)h[i] <= 0x20 || (unsigned char)h[i] >= 0x7f || h[i] == ':')
            return 0;
    return 1;
}

/* A field ends at ':' or at the end of its line; without a ':' after it,
 * a CR just before the LF (or before the end of the file) is the line end,
 * not part of the field. */
static void
field_at(const char *f, size_t line_end, size_t s, size_t *e, int *has_colon)
{
    size_t i = s;

    while (i < line_end && f[i] != ':')
        i++;
    *has_colon = i < line_end;
    if (!*has_colon && i > s && f[i - 1] == '\r')
        i--;
    *e = i;
}

struct scan {
    size_t count;    /* lines whose field 1 is the user */
    size_t f2s, f2e; /* field 2 of the first one */
    int has_f3;
    size_t f3s, f3e;
};

static void
model_scan(const char *f, size_t len, const char *user, struct scan *sc)
{
    size_t ulen = strlen(user), pos = 0;

    memset(sc, 0, sizeof *sc);
    while (pos < len) {
        const char *nl = memchr(f + pos, '\n', len - pos);
        size_t end = nl != NULL ? (size_t)(nl - f) : len, k = pos;

        while (k < end && f[k] != ':')
            k++;
        /* A line over 64 KiB is nobody's entry (a '#' one neither, but no
         * accepted name starts with '#'). */
        if (end - pos <= 65536 && k < end && k - pos == ulen &&
            memcmp(f + pos, user, ulen) == 0) {
            if (sc->count++ == 0) {
                int colon;
                sc->f2s = k + 1;
                field_at(f, end, sc->f2s, &sc->f2e, &colon);
                if (colon) {
                    int c3;
                    sc->has_f3 = 1;
                    sc->f3s = sc->f2e + 1;
                    field_at(f, end, sc->f3s, &sc->f3e, &c3);
                }
            }
        }
        pos = end + 1;
    }
}

/* ---- one run ------------------------------------------------------------- */

static void
check_dir(int stale_expected)
{
    DIR *d = opendir(g_dir);
    struct dirent *de;
    int stale = 0;

    CHECK(d != NULL);
    while ((de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || strcmp(n, "shadow") == 0 ||
            strcmp(n, "shadow-") == 0 || strcmp(n, "shadow.lock") == 0)
            continue;
        if (strcmp(n, ".shadow.kdfhash-AAAAAAAAAAAA") == 0 ||
            strcmp(n, ".shadow-.kdfhash-zzzzzzzzzzzz") == 0) {
            stale++;
            continue;
        }
        fprintf(stderr, "fuzz_writer: left behind: %s\n", n);
        CHECK(0 && "a file of the writer was left in the directory");
    }
    closedir(d);
    CHECK(stale == stale_expected);
}

static void
run(const char *file, size_t flen, const char *user, const char *new_hash, unsigned flags)
{
    struct scan sc;
    struct kdf_lookup_entry e;
    enum kdf_lookup_status ls;
    enum kdf_write_status st, want;
    char *old_hash, *expect = NULL, *got, *bak, day[24], err[256];
    size_t olen, elen = 0, glen = 0, blen = 0;
    long lastchg = (flags & FLAG_CHANGE) ? lastchg_of[flags >> 4] : -1;
    int rewrite = 0, stale = (flags & FLAG_STALE) != 0;
    struct stat stb;

    remove_all();
    write_file(g_path, file, flen);
    if (stale) {
        write_file(g_stale1, "stale\n", 6);
        write_file(g_stale2, "stale\n", 6);
    }

    model_scan(file, flen, user, &sc);
    olen = sc.count > 0 ? sc.f2e - sc.f2s : 0;
    old_hash = malloc(olen + 2);
    CHECK(old_hash != NULL);
    memcpy(old_hash, file + sc.f2s, olen);
    old_hash[olen] = '\0';
    if (flags & FLAG_WRONG_OLD) {
        old_hash[olen] = 'x';
        old_hash[olen + 1] = '\0';
    }

    /* Invariant 4, on the file as it was. */
    ls = kdf_lookup_user(g_path, user, &e);
    if (ls == KDF_LOOKUP_FOUND) {
        CHECK(sc.count >= 1);
        if (sc.count == 1)
            CHECK(e.hash_len == sc.f2e - sc.f2s &&
                  memcmp(e.hash, file + sc.f2s, e.hash_len) == 0);
    }

    /* The expected status and bytes. */
    if (!model_new_hash_ok(new_hash))
        want = KDF_WRITE_REFUSED;
    else if (!model_user_ok(user) || sc.count != 1)
        want = KDF_WRITE_NOT_FOUND;
    else if (strlen(old_hash) != sc.f2e - sc.f2s ||
             memcmp(old_hash, file + sc.f2s, sc.f2e - sc.f2s) != 0)
        want = KDF_WRITE_CAS_FAILED;
    else
        want = KDF_WRITE_OK;
    if (want == KDF_WRITE_OK) {
        size_t nlen = strlen(new_hash), dlen = 0;
        int f3 = 0;

        if (lastchg >= 0 && sc.has_f3) {
            snprintf(day, sizeof day, "%ld", lastchg);
            dlen = strlen(day);
            f3 = sc.f3e - sc.f3s != dlen || memcmp(file + sc.f3s, day, dlen) != 0;
        }
        rewrite = f3 || strcmp(old_hash, new_hash) != 0;
        expect = malloc(flen + nlen + dlen + 1);
        CHECK(expect != NULL);
        memcpy(expect, file, sc.f2s);
        elen = sc.f2s;
        memcpy(expect + elen, new_hash, nlen);
        elen += nlen;
        if (f3) {
            memcpy(expect + elen, file + sc.f2e, sc.f3s - sc.f2e);
            elen += sc.f3s - sc.f2e;
            memcpy(expect + elen, day, dlen);
            elen += dlen;
            memcpy(expect + elen, file + sc.f3e, flen - sc.f3e);
            elen += flen - sc.f3e;
        } else {
            memcpy(expect + elen, file + sc.f2e, flen - sc.f2e);
            elen += flen - sc.f2e;
        }
    }

    if (flags & FLAG_CHANGE)
        st = kdf_write_entry(g_path, g_lock, user, old_hash, new_hash, lastchg, 100, err,
                             sizeof err);
    else
        st = kdf_write_hash(g_path, g_lock, user, old_hash, new_hash, 100, err,
                            sizeof err);
    CHECK(memchr(err, '\0', sizeof err) != NULL);
    if (st != want)
        fprintf(stderr, "fuzz_writer: status %s, expected %s (%s)\n",
                kdf_write_status_str(st), kdf_write_status_str(want), err);
    CHECK(st == want);

    got = read_file(g_path, &glen);
    CHECK(got != NULL);
    bak = read_file(g_backup, &blen);
    if (st == KDF_WRITE_OK && rewrite) {
        CHECK(glen == elen && memcmp(got, expect, elen) == 0);
        CHECK(bak != NULL && blen == flen && memcmp(bak, file, flen) == 0);
        CHECK(stat(g_path, &stb) == 0 && (stb.st_mode & 07777) == 0600 &&
              stb.st_nlink == 1);
        CHECK(stat(g_backup, &stb) == 0 && (stb.st_mode & 07777) == 0600);
    } else {
        CHECK(glen == flen && memcmp(got, file, flen) == 0);
        CHECK(bak == NULL);
    }
    /* A rewrite sweeps the stale temps of both names first. */
    check_dir(stale && !(st == KDF_WRITE_OK && rewrite) ? 2 : 0);

    free(got);
    free(bak);
    free(expect);
    free(old_hash);
    remove_all();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *uline, *hline;
    size_t n = size, ulen, hlen;
    unsigned flags;
    char user[W_USER_MAX + 2];
    char *new_hash = NULL, *file;

    if (size == 0)
        return 0;
    setup();
    flags = data[0];
    p++;
    n--;
    ulen = fuzz_take_line(&p, &n, &uline);
    hlen = fuzz_take_line(&p, &n, &hline);

    /* One byte over the writer's limit is enough to see it refused. */
    if (ulen > W_USER_MAX + 1)
        ulen = W_USER_MAX + 1;
    memcpy(user, uline, ulen);
    user[ulen] = '\0';
    if (flags & FLAG_NEW_HASH) {
        if (hlen > W_HASH_MAX + 1)
            hlen = W_HASH_MAX + 1;
        new_hash = malloc(hlen + 1);
        CHECK(new_hash != NULL);
        memcpy(new_hash, hline, hlen);
        new_hash[hlen] = '\0';
    }
    file = malloc(n ? n : 1);
    CHECK(file != NULL);
    memcpy(file, p, n);

    run(file, n, user, new_hash != NULL ? new_hash : FIXED_NEW_HASH, flags);

    free(file);
    free(new_hash);
    return 0;
}
