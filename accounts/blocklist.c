/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blocklist.c - the reader of the compromised-password list (blocklist.h):
 * open and check the file, look a password or a digest up.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blocklist.h"
#include "kdfhash.h"

int
blk_normalize(const char *in, size_t len, char *out, size_t cap, size_t *out_len)
{
    if (cap > KDF_BLOCKLIST_MAX_PW)
        cap = KDF_BLOCKLIST_MAX_PW;
    *out_len = 0;
    return kdf_password_nfkc(in, len, out, cap, out_len) == KDF_OK ? 0 : -1;
}

static uint64_t
get_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    while (n-- > 0)
        v = (v << 8) | p[n];
    return v;
}

int
kdf_blocklist_check_sum(const uint8_t hdr[KDF_BLOCKLIST_OFF_CHECK], const uint8_t *table,
                        size_t table_len, uint8_t out[KDF_BLOCKLIST_SHA1_LEN])
{
    uint8_t buf[KDF_BLOCKLIST_OFF_CHECK + KDF_BLOCKLIST_SHA1_LEN];

    memcpy(buf, hdr, KDF_BLOCKLIST_OFF_CHECK);
    if (kdf_sha1(table, table_len, buf + KDF_BLOCKLIST_OFF_CHECK) != KDF_OK ||
        kdf_sha1(buf, sizeof buf, out) != KDF_OK)
        return -1;
    return 0;
}

/* The header's fields against the file's size; NULL when they hold. */
static const char *
header_error(struct kdf_blocklist *bl, const uint8_t *h, size_t size)
{
    static const uint8_t zero[KDF_BLOCKLIST_HEADER - KDF_BLOCKLIST_OFF_ZERO];

    if (size < KDF_BLOCKLIST_HEADER)
        return "truncated (no header)";
    if (memcmp(h, KDF_BLOCKLIST_MAGIC, 8) != 0)
        return "not a blocklist file (wrong magic)";
    if (get_le(h + KDF_BLOCKLIST_OFF_VERSION, 4) != KDF_BLOCKLIST_VERSION)
        return "unsupported version";
    bl->dlen = (unsigned)get_le(h + KDF_BLOCKLIST_OFF_DLEN, 4);
    bl->count = get_le(h + KDF_BLOCKLIST_OFF_COUNT, 8);
    if (bl->dlen < KDF_BLOCKLIST_MIN_DIGEST || bl->dlen > KDF_BLOCKLIST_SHA1_LEN)
        return "corrupt (digest length out of range)";
    if (memcmp(h + KDF_BLOCKLIST_OFF_ZERO, zero, sizeof zero) != 0)
        return "corrupt (reserved bytes not zero)";
    if (bl->count > (size - KDF_BLOCKLIST_HEADER) / bl->dlen)
        return "truncated (fewer entries than the header says)";
    if (size != KDF_BLOCKLIST_HEADER + bl->count * bl->dlen)
        return "corrupt (bytes after the table)";
    memcpy(bl->norm, h + KDF_BLOCKLIST_OFF_NORM, KDF_BLOCKLIST_NORM_LEN);
    bl->norm[KDF_BLOCKLIST_NORM_LEN] = '\0';
    if (strcmp(bl->norm, "none") != 0 && strcmp(bl->norm, "nfkc") != 0)
        return "corrupt (unknown normalization)";
    return NULL;
}

/* The check of the mapped file's table; NULL when it holds. */
static const char *
sum_error(struct kdf_blocklist *bl)
{
    uint8_t sum[KDF_BLOCKLIST_SHA1_LEN];

    if (kdf_blocklist_check_sum(bl->map, bl->table, (size_t)bl->count * bl->dlen, sum) != 0)
        return "cannot compute the checksum";
    if (memcmp(sum, bl->map + KDF_BLOCKLIST_OFF_CHECK, sizeof sum) != 0)
        return "corrupt (checksum mismatch)";
    return NULL;
}

static int
open_fail(struct kdf_blocklist *bl, int fd, const char *path, const char *why, char *err,
          size_t cap)
{
    if (fd >= 0)
        close(fd);
    kdf_blocklist_close(bl);
    kdf_errf(err, cap, "%s: %s", path, why);
    return -1;
}

/* A file that another user could truncate while it is mapped would kill
 * the process with SIGBUS; NULL when only root or we can change it. */
static const char *
trust_error(const struct stat *st)
{
    if (st->st_uid != 0 && st->st_uid != geteuid())
        return "not owned by root";
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return "writable by group or others";
    return NULL;
}

int
kdf_blocklist_open(struct kdf_blocklist *bl, const char *path, unsigned flags, char *err,
                   size_t cap)
{
    uint8_t hdr[KDF_BLOCKLIST_HEADER];
    struct stat st;
    const char *why;
    void *m;
    int fd;

    memset(bl, 0, sizeof *bl);
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return open_fail(bl, -1, path, strerror(errno), err, cap);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return open_fail(bl, fd, path, "not a regular file", err, cap);
    if ((flags & KDF_BLOCKLIST_TRUSTED) && (why = trust_error(&st)) != NULL)
        return open_fail(bl, fd, path, why, err, cap);
    if (st.st_size < (off_t)KDF_BLOCKLIST_HEADER)
        return open_fail(bl, fd, path, "truncated (no header)", err, cap);
    if ((uint64_t)st.st_size > SIZE_MAX)
        return open_fail(bl, fd, path, "too large", err, cap);
    /* The header by read, not through the mapping: a page fault costs more
     * than the read (bench/README.md), and a lookup seldom needs page 0. */
    if (pread(fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr)
        return open_fail(bl, fd, path, "truncated (no header)", err, cap);
    if ((why = header_error(bl, hdr, (size_t)st.st_size)) != NULL)
        return open_fail(bl, fd, path, why, err, cap);
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED)
        return open_fail(bl, fd, path, strerror(errno), err, cap);
    close(fd);
    bl->map = m;
    bl->map_len = (size_t)st.st_size;
    bl->table = bl->map + KDF_BLOCKLIST_HEADER;
    why = NULL;
    if (flags & KDF_BLOCKLIST_VERIFY) {
        why = sum_error(bl);
        /* The check read every page: give them back to the page cache, so
         * that the process keeps only what its lookups touch. */
        (void)madvise(m, bl->map_len, MADV_DONTNEED);
    }
    if (why != NULL)
        return open_fail(bl, -1, path, why, err, cap);
    /* A lookup reads one or two pages: no read-ahead around them. */
    (void)madvise(m, bl->map_len, MADV_RANDOM);
    return 0;
}

void
kdf_blocklist_close(struct kdf_blocklist *bl)
{
    if (bl->map != NULL)
        munmap((void *)bl->map, bl->map_len);
    memset(bl, 0, sizeof *bl);
}

/* The first 8 bytes of a digest (fewer, left-aligned, when dlen < 8) as a
 * number: the entries' order, and their place in a uniform table. */
static uint64_t
key_of(const uint8_t *d, unsigned dlen)
{
    uint64_t k = 0;
    unsigned n = dlen < 8 ? dlen : 8;

    for (unsigned i = 0; i < n; i++)
        k = (k << 8) | d[i];
    return n < 8 ? k << (8 * (8 - n)) : k;
}

/* Estimates before the search bisects: a uniform table needs 3 or 4; a
 * table that is not uniform (a hand-made one) still ends in log2(N). */
#define BLK_MAX_GUESSES 6

int
kdf_blocklist_has_digest(const struct kdf_blocklist *bl,
                         const uint8_t sha1[KDF_BLOCKLIST_SHA1_LEN])
{
    /* The candidate's place is in (lo, hi): indices, -1 and N virtual. */
    int64_t lo = -1, hi = (int64_t)bl->count;
    const double per_key = (double)bl->count / 18446744073709551616.0;
    const uint64_t key = key_of(sha1, bl->dlen);
    double guess = (double)key * per_key;
    unsigned guesses = 0;

    while (hi - lo > 1) {
        int64_t pos;
        uint64_t k;
        int c;

        if (guesses++ < BLK_MAX_GUESSES && guess > (double)lo && guess < (double)hi)
            pos = (int64_t)guess;
        else
            pos = lo + (hi - lo) / 2;
        if (pos <= lo)
            pos = lo + 1;
        if (pos >= hi)
            pos = hi - 1;
        c = memcmp(bl->table + (uint64_t)pos * bl->dlen, sha1, bl->dlen);
        if (c == 0)
            return 1;
        k = key_of(bl->table + (uint64_t)pos * bl->dlen, bl->dlen);
        /* The next estimate: from this entry, at the table's density. */
        if (c < 0) {
            lo = pos;
            guess = (double)pos + 1 + (double)(key - k) * per_key;
        } else {
            hi = pos;
            guess = (double)pos - 1 - (double)(k - key) * per_key;
        }
    }
    return 0;
}

/* pw[0, len) hashed and looked up: 1, 0. */
static int
has_bytes(const struct kdf_blocklist *bl, const char *pw, size_t len)
{
    uint8_t d[KDF_BLOCKLIST_SHA1_LEN];
    int r = 0;

    if (kdf_sha1(pw, len, d) == KDF_OK)
        r = kdf_blocklist_has_digest(bl, d);
    kdf_wipe(d, sizeof d);
    return r;
}

int
kdf_blocklist_has_password(const struct kdf_blocklist *bl, const char *pw, size_t len)
{
    char norm[KDF_BLOCKLIST_MAX_PW];
    size_t n = 0;
    enum kdf_status st;
    int r = 0;

    if (strcmp(bl->norm, "nfkc") == 0) {
        st = kdf_password_nfkc(pw, len, norm, sizeof norm, &n);
        if (st == KDF_OK)
            r = has_bytes(bl, norm, n);
        else if (st != KDF_TOO_COSTLY)
            r = -1;
        /* The Pwned Passwords digests are of the bytes as typed. */
        if (r == 0 && (st != KDF_OK || n != len || memcmp(norm, pw, len) != 0))
            r = has_bytes(bl, pw, len);
        kdf_wipe(norm, sizeof norm);
        return r;
    }
    return has_bytes(bl, pw, len);
}
