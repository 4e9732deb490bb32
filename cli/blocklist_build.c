/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blocklist_build.c - `kdfhash blocklist build`: the compromised-password
 * file (accounts/blocklist.h) from plain lists and Pwned Passwords files.
 *
 * Each source is one kind, told by its first non-blank line: "HEX40:COUNT"
 * (the Pwned Passwords SHA-1 download, hex in either case) or a plain list,
 * one password a line (normalized by blk_normalize(), then hashed).  A line
 * of the other kind, a NUL byte or an over-long line refuses the build,
 * with FILE:LINE and never the line.
 *
 * Entries go to a chunk in memory (8 bytes each); a full chunk is sorted,
 * its duplicates dropped, and appended as a run to an unlinked temporary
 * file beside the output.  The runs are then merged (a heap of cursors,
 * each with a small buffer) into the output's temporary file, duplicates
 * dropped again, and the header with its check written last; fsync and
 * rename make the file appear whole or not at all.  Memory: the chunk
 * (--chunk entries, default 4 Mi: 32 MiB) and 32 KiB per run at the merge.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blocklist.h"
#include "cli.h"

#define RUN_BUF 4096 /* entries a merge cursor reads at once */

struct run {
    uint64_t next; /* index in the run file of the next entry to read */
    uint64_t end;  /* one past the run's last entry */
    uint64_t buf[RUN_BUF];
    size_t pos, n;
};

struct bld {
    uint64_t *chunk;
    size_t n, cap;
    int runs_fd;      /* the sorted runs, one after another */
    uint64_t run_end; /* entries in runs_fd */
    uint64_t *bounds; /* where each run ends */
    size_t nruns, bounds_cap;
    uint64_t read, written;
    int tty;
    double t0, shown;
};

static uint64_t
key_of(const uint8_t *d)
{
    uint64_t k = 0;

    for (unsigned i = 0; i < 8; i++)
        k = (k << 8) | d[i];
    return k;
}

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

static void
progress(struct bld *b, int last)
{
    double now;

    if (!b->tty || (!last && (b->read & 0xffff) != 0))
        return;
    now = cli_now_ms();
    if (!last && now - b->shown < 500)
        return;
    b->shown = now;
    fprintf(stderr, "\r%llu entries read, %.0f/s%s", (unsigned long long)b->read,
            (double)b->read / ((now - b->t0) / 1000 + 1e-9), last ? "\n" : "");
}

static int
write_all(int fd, const void *p, size_t len, off_t off)
{
    const char *c = p;

    while (len > 0) {
        ssize_t w = pwrite(fd, c, len, off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        len -= (size_t)w;
        off += w;
    }
    return 0;
}

/* Sort the chunk, drop its duplicates, append it as a run. */
static int
flush_chunk(struct bld *b)
{
    size_t u = 0;

    if (b->n == 0)
        return 0;
    qsort(b->chunk, b->n, sizeof b->chunk[0], cmp_u64);
    for (size_t i = 0; i < b->n; i++)
        if (u == 0 || b->chunk[i] != b->chunk[u - 1])
            b->chunk[u++] = b->chunk[i];
    if (b->nruns == b->bounds_cap) {
        size_t nc = b->bounds_cap ? 2 * b->bounds_cap : 64;
        uint64_t *nb = realloc(b->bounds, nc * sizeof *nb);
        if (nb == NULL)
            return -1;
        b->bounds = nb;
        b->bounds_cap = nc;
    }
    if (write_all(b->runs_fd, b->chunk, u * sizeof b->chunk[0],
                  (off_t)(b->run_end * sizeof b->chunk[0])) != 0)
        return -1;
    b->run_end += u;
    b->bounds[b->nruns++] = b->run_end;
    b->n = 0;
    return 0;
}

static int
add_digest(struct bld *b, const uint8_t d[KDF_BLOCKLIST_SHA1_LEN])
{
    if (b->n == b->cap && flush_chunk(b) != 0) {
        cli_error("cannot write the temporary runs: %s", strerror(errno));
        return -1;
    }
    b->chunk[b->n++] = key_of(d);
    b->read++;
    progress(b, 0);
    return 0;
}

static int
hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* 1 and d filled when line is "HEX40:COUNT" (COUNT decimal digits). */
static int
pwned_line(const char *line, size_t len, uint8_t d[KDF_BLOCKLIST_SHA1_LEN])
{
    if (len < 42 || line[40] != ':')
        return 0;
    for (size_t i = 41; i < len; i++)
        if (line[i] < '0' || line[i] > '9')
            return 0;
    for (unsigned i = 0; i < KDF_BLOCKLIST_SHA1_LEN; i++) {
        int hi = hexval((unsigned char)line[2 * i]), lo = hexval((unsigned char)line[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return 0;
        d[i] = (uint8_t)(hi << 4 | lo);
    }
    return 1;
}

enum src_kind { SRC_UNKNOWN, SRC_PLAIN, SRC_PWNED };

/* One line of a source (without its line end); NULL when taken, else why
 * it is refused. */
static const char *
take_line(struct bld *b, enum src_kind *kind, const char *line, size_t len)
{
    uint8_t d[KDF_BLOCKLIST_SHA1_LEN];
    char norm[KDF_BLOCKLIST_MAX_PW];
    size_t nlen = 0;
    int pwned = pwned_line(line, len, d);
    const char *why = NULL;

    if (*kind == SRC_UNKNOWN)
        *kind = pwned ? SRC_PWNED : SRC_PLAIN;
    if (*kind == SRC_PWNED && !pwned)
        why = "not a Pwned Passwords line (HEX40:COUNT) in a file that starts with them";
    else if (*kind == SRC_PLAIN && pwned)
        why = "a Pwned Passwords line (HEX40:COUNT) in a plain list: mixed file";
    else if (*kind == SRC_PLAIN && memchr(line, '\0', len) != NULL)
        why = "a NUL byte in a password";
    else if (*kind == SRC_PLAIN && len > KDF_BLOCKLIST_MAX_PW)
        why = "a password longer than 1024 bytes";
    else if (*kind == SRC_PLAIN &&
             (blk_normalize(line, len, norm, sizeof norm, &nlen) != 0 ||
              kdf_sha1(norm, nlen, d) != KDF_OK))
        why = "a password that cannot be normalized";
    kdf_wipe(norm, sizeof norm);
    if (why == NULL && add_digest(b, d) != 0)
        why = "";
    kdf_wipe(d, sizeof d);
    return why;
}

/* Read one source into the chunks.  CLI_OK or CLI_ERR (said). */
static int
read_source(struct bld *b, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
    enum src_kind kind = SRC_UNKNOWN;
    char *line = NULL;
    size_t cap = 0;
    unsigned long lineno = 0;
    ssize_t len;
    int rc = CLI_OK;

    if (f == NULL) {
        cli_error("%s: %s", path, strerror(errno));
        return CLI_ERR;
    }
    while (rc == CLI_OK && (len = getline(&line, &cap, f)) >= 0) {
        const char *why;

        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            len--;
        if (len > 0 && line[len - 1] == '\r')
            len--;
        if (len == 0)
            continue;
        why = take_line(b, &kind, line, (size_t)len);
        if (why != NULL) {
            if (*why != '\0')
                cli_error("%s:%lu: %s", path, lineno, why);
            rc = CLI_ERR;
        }
    }
    if (rc == CLI_OK && ferror(f)) {
        cli_error("%s: read error", path);
        rc = CLI_ERR;
    }
    if (line != NULL)
        kdf_wipe(line, cap);
    free(line);
    if (f != stdin)
        fclose(f);
    return rc;
}

/* The run cursor's next entry, refilling its buffer; 0 at its end. */
static int
run_peek(struct run *r, int fd, uint64_t *v)
{
    if (r->pos == r->n) {
        size_t want = r->end - r->next < RUN_BUF ? (size_t)(r->end - r->next) : RUN_BUF;
        ssize_t got;

        if (want == 0)
            return 0;
        got = pread(fd, r->buf, want * sizeof r->buf[0], (off_t)(r->next * sizeof r->buf[0]));
        if (got != (ssize_t)(want * sizeof r->buf[0]))
            return -1;
        r->next += want;
        r->pos = 0;
        r->n = want;
    }
    *v = r->buf[r->pos];
    return 1;
}

/* Restore the heap (of run indices, by each run's next entry) below i. */
static void
sift_down(size_t *heap, size_t n, size_t i, struct run *runs)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;

        if (l < n && runs[heap[l]].buf[runs[heap[l]].pos] < runs[heap[m]].buf[runs[heap[m]].pos])
            m = l;
        if (l + 1 < n &&
            runs[heap[l + 1]].buf[runs[heap[l + 1]].pos] < runs[heap[m]].buf[runs[heap[m]].pos])
            m = l + 1;
        if (m == i)
            return;
        size_t t = heap[i];
        heap[i] = heap[m];
        heap[m] = t;
        i = m;
    }
}

static int
emit(struct bld *b, FILE *out, uint64_t v)
{
    uint8_t e[KDF_BLOCKLIST_DIGEST];

    for (unsigned i = 0; i < KDF_BLOCKLIST_DIGEST; i++)
        e[i] = (uint8_t)(v >> (56 - 8 * i));
    b->written++;
    return fwrite(e, sizeof e, 1, out) == 1 ? 0 : -1;
}

/* Merge the runs into out, dropping duplicates.  0 or -1. */
static int
merge_runs(struct bld *b, FILE *out, struct run *runs, size_t *heap)
{
    size_t n = 0;
    uint64_t v, last = 0;

    for (size_t i = 0; i < b->nruns; i++) {
        runs[i].next = i ? b->bounds[i - 1] : 0;
        runs[i].end = b->bounds[i];
        runs[i].pos = runs[i].n = 0;
        if (run_peek(&runs[i], b->runs_fd, &v) < 0)
            return -1;
        heap[n++] = i;
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(heap, n, i, runs);
    while (n > 0) {
        struct run *r = &runs[heap[0]];
        int more;

        v = r->buf[r->pos++];
        if ((b->written == 0 || v != last) && emit(b, out, v) != 0)
            return -1;
        last = v;
        more = run_peek(r, b->runs_fd, &v);
        if (more < 0)
            return -1;
        if (more == 0)
            heap[0] = heap[--n];
        sift_down(heap, n, 0, runs);
    }
    return 0;
}

static void
put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The header, with the check of the table fd holds after it.  0 or -1. */
static int
write_header(struct bld *b, int fd)
{
    uint8_t h[KDF_BLOCKLIST_HEADER] = {0};
    size_t tlen = (size_t)b->written * KDF_BLOCKLIST_DIGEST;
    size_t flen = KDF_BLOCKLIST_HEADER + tlen;
    uint8_t *m;
    int rc;

    memcpy(h, KDF_BLOCKLIST_MAGIC, 8);
    put_le(h + KDF_BLOCKLIST_OFF_VERSION, KDF_BLOCKLIST_VERSION, 4);
    put_le(h + KDF_BLOCKLIST_OFF_DLEN, KDF_BLOCKLIST_DIGEST, 4);
    put_le(h + KDF_BLOCKLIST_OFF_COUNT, b->written, 8);
    memcpy(h + KDF_BLOCKLIST_OFF_NORM, KDF_BLOCKLIST_NORM, strlen(KDF_BLOCKLIST_NORM));
    m = mmap(NULL, flen, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED)
        return -1;
    rc = kdf_blocklist_check_sum(h, m + KDF_BLOCKLIST_HEADER, tlen, h + KDF_BLOCKLIST_OFF_CHECK);
    munmap(m, flen);
    if (rc != 0)
        return -1;
    return write_all(fd, h, sizeof h, 0);
}

/* Merge the runs into the temporary file tmp (fd), header last.  0 or -1. */
static int
write_table(struct bld *b, int fd)
{
    struct run *runs = calloc(b->nruns ? b->nruns : 1, sizeof *runs);
    size_t *heap = calloc(b->nruns ? b->nruns : 1, sizeof *heap);
    FILE *out = fdopen(dup(fd), "w");
    int rc = -1;

    if (runs != NULL && heap != NULL && out != NULL &&
        fseeko(out, KDF_BLOCKLIST_HEADER, SEEK_SET) == 0 && merge_runs(b, out, runs, heap) == 0)
        rc = 0;
    if (out != NULL && fclose(out) != 0)
        rc = -1;
    free(runs);
    free(heap);
    if (rc == 0 && ftruncate(fd, (off_t)(KDF_BLOCKLIST_HEADER +
                                         b->written * KDF_BLOCKLIST_DIGEST)) != 0)
        rc = -1;
    if (rc == 0)
        rc = write_header(b, fd);
    if (rc == 0 && (fchmod(fd, 0644) != 0 || fsync(fd) != 0))
        rc = -1;
    return rc;
}

/* An unlinked temporary file beside out (its runs); -1 on error. */
static int
runs_file(const char *out)
{
    size_t n = strlen(out) + sizeof ".runs.XXXXXX";
    char *t = malloc(n);
    int fd = -1;

    if (t != NULL) {
        snprintf(t, n, "%s.runs.XXXXXX", out);
        fd = mkostemp(t, O_CLOEXEC);
        if (fd >= 0)
            unlink(t);
    }
    free(t);
    return fd;
}

/* The runs into out through a temporary file and a rename.  CLI_OK/ERR. */
static int
finish(struct bld *b, const char *out)
{
    size_t n = strlen(out) + sizeof ".XXXXXX";
    char *tmp = malloc(n);
    int fd = -1, rc = CLI_ERR;

    if (tmp == NULL) {
        cli_error("out of memory");
        return CLI_ERR;
    }
    snprintf(tmp, n, "%s.XXXXXX", out);
    if (flush_chunk(b) != 0)
        cli_error("cannot write the temporary runs: %s", strerror(errno));
    else if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0)
        cli_error("%s: %s", tmp, strerror(errno));
    else if (write_table(b, fd) != 0)
        cli_error("%s: cannot write: %s", tmp, strerror(errno));
    else if (rename(tmp, out) != 0)
        cli_error("%s: cannot rename to %s: %s", tmp, out, strerror(errno));
    else
        rc = CLI_OK;
    if (fd >= 0)
        close(fd);
    if (fd >= 0 && rc != CLI_OK)
        unlink(tmp);
    if (rc == CLI_OK)
        cli_sync_dir(out);
    free(tmp);
    return rc;
}

int
cli_blocklist_build(const char *const *src, size_t nsrc, const char *out, size_t chunk)
{
    struct bld b;
    int rc = CLI_OK;

    memset(&b, 0, sizeof b);
    b.cap = chunk;
    b.chunk = malloc(chunk * sizeof b.chunk[0]);
    b.runs_fd = runs_file(out);
    b.tty = isatty(STDERR_FILENO);
    b.t0 = b.shown = cli_now_ms();
    if (b.chunk == NULL || b.runs_fd < 0) {
        cli_error("%s: cannot make the temporary files: %s", out, strerror(errno));
        rc = CLI_ERR;
    }
    for (size_t i = 0; rc == CLI_OK && i < nsrc; i++)
        rc = read_source(&b, src[i]);
    if (rc == CLI_OK)
        rc = finish(&b, out);
    if (rc == CLI_OK) {
        progress(&b, 1);
        printf("%s: %llu entries (%llu read, %llu duplicates dropped)\n", out,
               (unsigned long long)b.written, (unsigned long long)b.read,
               (unsigned long long)(b.read - b.written));
    }
    if (b.runs_fd >= 0)
        close(b.runs_fd);
    free(b.chunk);
    free(b.bounds);
    return rc;
}
