/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_common.h - what the file-reading fuzz targets (fuzz_shadow,
 * fuzz_policy, fuzz_writer) share: a private directory for their files in
 * $TMPDIR (which their test scripts point at a work directory of their
 * own), a file in it, and the split of an input into lines.  Failing to
 * make either is not a finding: the target aborts with the reason.
 */
#ifndef KDF_FUZZ_COMMON_H
#define KDF_FUZZ_COMMON_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* mkdtemp() of "$TMPDIR/kdf-<tag>.XXXXXX" (or /tmp) into dir. */
static inline void
fuzz_make_dir(char *dir, size_t dirsz, const char *tag)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(dir, dirsz, "%s/kdf-%s.XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp",
             tag);
    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "%s: mkdtemp %s: ", tag, dir);
        perror(NULL);
        abort();
    }
}

/* Create dir/name (0600, empty), its path into path; the descriptor. */
static inline int
fuzz_open_file(const char *dir, const char *name, char *path, size_t pathsz, const char *tag)
{
    int fd;

    snprintf(path, pathsz, "%s/%s", dir, name);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "%s: open %s: ", tag, path);
        perror(NULL);
        abort();
    }
    return fd;
}

/* Next line of [*p, *p + *n): its span, and the cursor moved past its
 * newline. */
static inline size_t
fuzz_take_line(const uint8_t **p, size_t *n, const uint8_t **line)
{
    const uint8_t *nl = memchr(*p, '\n', *n);
    size_t len = nl != NULL ? (size_t)(nl - *p) : *n;

    *line = *p;
    *p += len;
    *n -= len;
    if (nl != NULL) {
        (*p)++;
        (*n)--;
    }
    return len;
}

#endif /* KDF_FUZZ_COMMON_H */
