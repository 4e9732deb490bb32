/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * opasswd.c - the password history of remember=N, read as pam_unix's
 * check_old_password() (pam_unix_passwd.c) and pam_pwhistory's
 * check_old_pass() (opasswd.c) read it: the line "user:uid:count:h1,h2,..."
 * of /etc/security/opasswd, each entry a hash the new password must not
 * verify against.  pam_unix stores an MD5-crypt ($1$) of the old password,
 * pam_pwhistory and this module the old field of /etc/shadow; any of them
 * is checked here, so a history kept before the module was enabled still
 * counts.  The file is read without the lock, as both of them do: it is
 * only ever replaced by a rename, so a reader sees the old file or the new.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opasswd.h"
#include "shadow_line.h"
#include "verdict.h"

/* A history file larger than this is not read (400 entries of the longest
 * hash of every user of a large site fit many times over). */
#define OPW_FILE_MAX ((size_t)16 << 20)

/* Read the whole file; *buf NULL and 0 returned when it does not exist. */
static int
read_file(const char *path, char **buf, size_t *len, char *err, size_t cap)
{
    struct stat st;
    size_t n = 0;
    char *b;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

    *buf = NULL;
    *len = 0;
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        kdf_errf(err, cap, "open %s: %m", path);
        return -1;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > OPW_FILE_MAX) {
        kdf_errf(err, cap, "%s: not a regular file of at most %zu MiB", path,
                 OPW_FILE_MAX >> 20);
        close(fd);
        return -1;
    }
    b = malloc((size_t)st.st_size + 1);
    if (b == NULL) {
        kdf_errf(err, cap, "out of memory");
        close(fd);
        return -1;
    }
    while (n < (size_t)st.st_size) {
        ssize_t r = read(fd, b + n, (size_t)st.st_size - n);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

/* Does pw verify against one stored entry (';' standing for ',')?  1 yes,
 * 0 no, -1 the entry is keyed and its key cannot be had: then keyid gets
 * the key's ID. */
static int
entry_matches(const struct kdf_policy *pol, const char *p, size_t n, const char *pw,
              char keyid[KDF_KEYID_CAP])
{
    char e[KDF_SHADOW_MAX_HASH + 1];
    struct kdf_hash h;
    enum kdf_status st = KDF_OK;
    const char *reason = NULL;
    enum kdf_pam_verdict v;

    /* Nothing a password verifies against: skipped without any work. */
    if (n == 0 || n >= sizeof e || p[0] == '!' || p[0] == '*')
        return 0;
    for (size_t i = 0; i < n; i++)
        e[i] = p[i] == ';' ? ',' : p[i];
    e[n] = '\0';
    v = kdf_pam_verdict(pol, e, n, 0, pw, strlen(pw), &h, &st, &reason);
    if (v == KDF_PAM_V_FAILED && st == KDF_NOKEY) {
        /* Not "no match": the password may well be this one. */
        size_t k = h.keyid.len < KDF_KEYID_CAP ? h.keyid.len : KDF_KEYID_CAP - 1;

        if (h.keyid.len > 0)
            memcpy(keyid, h.keyid.ptr, k);
        keyid[h.keyid.len > 0 ? k : 0] = '\0';
    }
    kdf_wipe(&h, sizeof h);
    kdf_wipe(e, sizeof e);
    if (v == KDF_PAM_V_FAILED && st == KDF_NOKEY)
        return -1;
    return v == KDF_PAM_V_OK;
}

enum kdf_opasswd_result
kdf_opasswd_check(const char *path, const char *user, const struct kdf_policy *pol,
                  const char *pw, unsigned *n_entries, char *err, size_t err_cap)
{
    enum kdf_opasswd_result r = KDF_OPW_NEW;
    size_t len, ul = strlen(user);
    char *buf, keyid[KDF_KEYID_CAP] = "";
    unsigned count = 0;

    if (n_entries != NULL)
        *n_entries = 0;
    if (read_file(path, &buf, &len, err, err_cap) < 0)
        return KDF_OPW_ERROR;
    for (size_t pos = 0; buf != NULL && pos < len;) {
        const char *e = memchr(buf + pos, '\n', len - pos);
        size_t end = e != NULL ? (size_t)(e - buf) : len;
        const char *p = buf + pos, *q = buf + end;

        if ((size_t)(q - p) > ul && memcmp(p, user, ul) == 0 && p[ul] == ':') {
            /* Field 4 on: the entries.  Fields 2 and 3 (uid, count) say
             * nothing the entries do not. */
            p += ul + 1;
            for (int f = 0; f < 2 && p != NULL; f++) {
                p = memchr(p, ':', (size_t)(q - p));
                if (p != NULL)
                    p++;
            }
            if (q > buf && q[-1] == '\r')
                q--;
            while (p != NULL && p < q) {
                const char *c = memchr(p, ',', (size_t)(q - p));
                size_t n = (size_t)((c != NULL ? c : q) - p);

                if (n > 0)
                    count++;
                if (pw != NULL && r == KDF_OPW_NEW) {
                    int m = entry_matches(pol, p, n, pw, keyid);

                    /* The first that decides: a match, or an entry that
                     * cannot be checked (the rest cannot clear it). */
                    if (m > 0)
                        r = KDF_OPW_REUSED;
                    else if (m < 0) {
                        r = KDF_OPW_NOKEY;
                        kdf_errf(err, err_cap, "an entry of %s is keyed with key %s",
                                 path, keyid[0] != '\0' ? keyid : "(unnamed)");
                    }
                }
                p = c != NULL ? c + 1 : NULL;
            }
            break;
        }
        pos = end + 1;
    }
    if (buf != NULL) {
        kdf_wipe(buf, len);
        free(buf);
    }
    if (n_entries != NULL)
        *n_entries = count;
    return r;
}
