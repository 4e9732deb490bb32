/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shadow_read.c - stream a shadow-style file line by line: the one reader
 * behind the PAM module's lookup (pam_module/lookup.c) and `kdfhash audit`
 * (cli/cmd_audit.c), so that both see the same lines.
 *
 * - read(2) into one bounded buffer of our own, never stdio:
 *   CVE-2024-10041 was /etc/shadow bytes left behind in freed stdio
 *   buffers.  Ours is wiped with kdf_wipe() before it is freed, on every
 *   path, and the bytes are read straight into it: no other copy.
 * - The file is streamed, never read whole: memory stays at one line
 *   (KDF_SHADOW_MAX_LINE + 1 bytes) whatever the file size.  A longer line
 *   is handed on once, cut to that size, which kdf_shadow_split() reads as
 *   OVERLONG (never an entry, field 1 kept for reports), and the rest of it
 *   is skipped to its newline: a huge line can neither hide nor forge an
 *   entry.
 * - Opening is the caller's: the module refuses symlinks and anything but
 *   a regular file, while the audit also reads standard input.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kdfhash.h"
#include "shadow_line.h"

#define BUF_CAP (KDF_SHADOW_MAX_LINE + 1) /* a full line plus its newline */

static void
hand_on(kdf_shadow_line_fn *fn, void *arg, unsigned long lineno, const char *p, size_t n)
{
    struct kdf_shadow_line l;

    kdf_shadow_split(p, n, &l);
    fn(arg, lineno, &l);
}

/* Read into buf[*len, BUF_CAP): 1 with more bytes, 0 at the end of the
 * file, -1 on an error (errno set). */
static int
fill(int fd, char *buf, size_t *len)
{
    for (;;) {
        ssize_t r = read(fd, buf + *len, BUF_CAP - *len);

        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        *len += (size_t)r;
        return r > 0;
    }
}

enum kdf_shadow_read
kdf_shadow_read_fd(int fd, kdf_shadow_line_fn *fn, void *arg)
{
    char *buf = malloc(BUF_CAP);
    unsigned long lineno = 1;
    size_t len = 0;
    int skipping = 0, more = 1, failed = 0, err = 0;

    if (buf == NULL)
        return KDF_SHADOW_READ_NOMEM;
    for (;;) {
        size_t start = 0;
        const char *nl;

        while ((nl = memchr(buf + start, '\n', len - start)) != NULL) {
            size_t n = (size_t)(nl - (buf + start));

            if (!skipping)
                hand_on(fn, arg, lineno, buf + start, n);
            skipping = 0;
            lineno++;
            start += n + 1;
        }
        if (!more) {
            /* A last line without a final newline still counts. */
            if (!skipping && start < len)
                hand_on(fn, arg, lineno, buf + start, len - start);
            break;
        }
        memmove(buf, buf + start, len - start);
        len -= start;
        if (len == BUF_CAP) {
            /* Over the bound: the cut line once, then nothing of it up to
             * its newline. */
            if (!skipping)
                hand_on(fn, arg, lineno, buf, len);
            skipping = 1;
            len = 0;
        }
        more = fill(fd, buf, &len);
        if (more < 0) {
            failed = 1;
            err = errno;
            break;
        }
    }
    kdf_wipe(buf, BUF_CAP);
    free(buf);
    if (failed) {
        errno = err;
        return KDF_SHADOW_READ_ERR;
    }
    return KDF_SHADOW_READ_OK;
}
