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
    /* NFKC goes here (and KDF_BLOCKLIST_NORM becomes "nfkc"): the builder
     * and every lookup call this one function. */
    if (len > KDF_BLOCKLIST_MAX_PW || len > cap)
        return -1;
    if (len > 0)
        memcpy(out, in, len);
    *out_len = len;
    return 0;
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

/* The header and the check of the mapped file; NULL when they hold. */
static const char *
content_error(struct kdf_blocklist *bl)
{
    uint8_t sum[KDF_BLOCKLIST_SHA1_LEN];
    const char *why;

    why = header_error(bl, bl->map, bl->map_len);
    if (why != NULL)
        return why;
    bl->table = bl->map + KDF_BLOCKLIST_HEADER;
    if (kdf_blocklist_check_sum(bl->map, bl->table, (size_t)bl->count * bl->dlen, sum) != 0)
        return "cannot compute the checksum";
    if (memcmp(sum, bl->map + KDF_BLOCKLIST_OFF_CHECK, sizeof sum) != 0)
        return "corrupt (checksum mismatch)";
    if (strcmp(bl->norm, KDF_BLOCKLIST_NORM) != 0)
        return "built with another normalization (" KDF_BLOCKLIST_NORM " expected)";
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

int
kdf_blocklist_open(struct kdf_blocklist *bl, const char *path, char *err, size_t cap)
{
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
    if (st.st_size < (off_t)KDF_BLOCKLIST_HEADER)
        return open_fail(bl, fd, path, "truncated (no header)", err, cap);
    if ((uint64_t)st.st_size > SIZE_MAX)
        return open_fail(bl, fd, path, "too large", err, cap);
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED)
        return open_fail(bl, fd, path, strerror(errno), err, cap);
    close(fd);
    bl->map = m;
    bl->map_len = (size_t)st.st_size;
    why = content_error(bl);
    if (why != NULL)
        return open_fail(bl, -1, path, why, err, cap);
    /* The check read every page: give them back to the page cache, so that
     * the process keeps only what its lookups touch. */
    (void)madvise(m, bl->map_len, MADV_DONTNEED);
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

int
kdf_blocklist_has_digest(const struct kdf_blocklist *bl,
                         const uint8_t sha1[KDF_BLOCKLIST_SHA1_LEN])
{
    uint64_t lo = 0, hi = bl->count;

    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        int c = memcmp(bl->table + mid * bl->dlen, sha1, bl->dlen);

        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

int
kdf_blocklist_has_password(const struct kdf_blocklist *bl, const char *pw, size_t len)
{
    char norm[KDF_BLOCKLIST_MAX_PW];
    uint8_t d[KDF_BLOCKLIST_SHA1_LEN];
    size_t n = 0;
    int r = -1;

    if (blk_normalize(pw, len, norm, sizeof norm, &n) == 0 &&
        kdf_sha1(norm, n, d) == KDF_OK)
        r = kdf_blocklist_has_digest(bl, d);
    kdf_wipe(norm, sizeof norm);
    kdf_wipe(d, sizeof d);
    return r;
}
