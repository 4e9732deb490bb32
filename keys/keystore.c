/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * keystore.c - key files: read one (the keyring of the module, the helper
 * and the CLI), make one, list them, retire one.  No key byte is ever
 * logged, put in an error string or left in a buffer that is not wiped.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keystore.h"

#define KEY_MAGIC "kdfhash-key-v1 "
#define TPM_MAGIC "kdfhash-tpm-v1 "
#define KEY_FILE_MAX 256 /* bytes: the magic, 128 hex digits, the newline */

/* The ownership rule of the policy file (sudoers'), for a directory or a
 * key: root's, or the process's own user's when it is not root; never
 * writable by others or by a group other than root's.  secret: a key, which
 * others must not read either.  NULL when fine, else why not. */
static const char *
owner_problem(const struct stat *st, int secret)
{
    if (st->st_uid != 0 && st->st_uid != geteuid())
        return "not owned by root";
    if (st->st_mode & S_IWOTH)
        return "writable by others";
    if ((st->st_mode & S_IWGRP) && st->st_gid != 0)
        return "writable by a group other than root's";
    if (secret && (st->st_mode & S_IROTH))
        return "readable by others";
    return NULL;
}

static int
open_dir(const char *dir, char *err, size_t cap)
{
    struct stat st;
    const char *why;
    int fd;

    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        kdf_errf(err, cap, "%s: %s", dir, errno == ENOENT ? "missing" : strerror(errno));
        return -1;
    }
    why = fstat(fd, &st) == 0 ? owner_problem(&st, 0) : strerror(errno);
    if (why != NULL) {
        kdf_errf(err, cap, "%s: %s, refused", dir, why);
        close(fd);
        return -1;
    }
    return fd;
}

static int
unhex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* "kdfhash-key-v1 HEX\n" into key; 0 when the text is not exactly that. */
static int
parse_key(const char *text, size_t n, uint8_t *key, size_t *key_len)
{
    size_t m = sizeof KEY_MAGIC - 1, hex;

    if (n < m + 1 || memcmp(text, KEY_MAGIC, m) != 0 || text[n - 1] != '\n')
        return 0;
    hex = n - m - 1;
    if (hex % 2 != 0 || hex / 2 < KDF_KEY_MIN || hex / 2 > KDF_KEY_MAX)
        return 0;
    for (size_t i = 0; i < hex / 2; i++) {
        int hi = unhex_digit(text[m + 2 * i]), lo = unhex_digit(text[m + 2 * i + 1]);

        if (hi < 0 || lo < 0)
            return 0;
        key[i] = (uint8_t)(hi << 4 | lo);
    }
    *key_len = hex / 2;
    return 1;
}

/* The text of key file dir/id, after the checks of the file and its
 * directory: its length, or -1 with err "DIR/ID: why". */
static ssize_t
read_key_file(const char *dir, const char *id, char *text, size_t cap, char *err,
              size_t err_cap)
{
    struct stat st;
    const char *why = NULL;
    ssize_t n = -1;
    int dfd, fd;

    if (dir == NULL || id == NULL || !kdf_keyid_valid(id, strlen(id))) {
        kdf_errf(err, err_cap, "not a key ID");
        return -1;
    }
    dfd = open_dir(dir, err, err_cap);
    if (dfd < 0)
        return -1;
    /* O_NONBLOCK: a FIFO planted under the name cannot hang a login. */
    fd = openat(dfd, id, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        why = errno == ENOENT ? "missing" : errno == ELOOP ? "a symlink, refused" : strerror(errno);
    else if (fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if ((why = owner_problem(&st, 1)) == NULL) {
        n = read(fd, text, cap);
        if (n < 0)
            why = strerror(errno);
        else if ((size_t)n >= cap)
            why = "not a key file (too long)";
    }
    if (fd >= 0)
        close(fd);
    close(dfd);
    if (why != NULL) {
        explicit_bzero(text, cap);
        kdf_errf(err, err_cap, "%s/%s: %s", dir, id, why);
        return -1;
    }
    return n;
}

/* "kdfhash-tpm-v1 0xHANDLE TCTI\n" into its handle and TCTI configuration. */
static int
parse_tpm(const char *text, size_t n, uint32_t *handle, char *tcti, size_t cap)
{
    size_t m = sizeof TPM_MAGIC - 1, i, j;
    unsigned long h;
    char *end;

    if (n < m + 1 || memcmp(text, TPM_MAGIC, m) != 0 || text[n - 1] != '\n')
        return 0;
    h = strtoul(text + m, &end, 16);
    i = (size_t)(end - text);
    if (strncmp(text + m, "0x", 2) != 0 || i >= n || text[i] != ' ' || h < 0x81000000ul ||
        h > 0x81FFFFFFul)
        return 0;
    for (j = i + 1; j < n - 1; j++)
        if ((unsigned char)text[j] <= ' ' || text[j] == 0x7f)
            return 0;
    if (j == i + 1 || j - i - 1 >= cap)
        return 0;
    memcpy(tcti, text + i + 1, j - i - 1);
    tcti[j - i - 1] = '\0';
    *handle = (uint32_t)h;
    return 1;
}

enum kdf_status
kdf_keystore_read(const char *dir, const char *id, uint8_t *key, size_t *key_len,
                  char *err, size_t err_cap)
{
    char text[KEY_FILE_MAX + 1];
    ssize_t n = read_key_file(dir, id, text, sizeof text, err, err_cap);
    int ok = n > 0 && parse_key(text, (size_t)n, key, key_len);

    explicit_bzero(text, sizeof text);
    if (ok)
        return KDF_OK;
    *key_len = 0;
    explicit_bzero(key, KDF_KEY_MAX);
    if (n > 0)
        kdf_errf(err, err_cap, "%s/%s: not a key file (kdfhash-key-v1 and 32 to 64 bytes "
                               "in hex)",
                 dir, id);
    return KDF_NOKEY;
}

int
kdf_keystore_tpm_of(const char *dir, const char *id, uint32_t *handle, char *tcti,
                    size_t cap, char *err, size_t err_cap)
{
    char text[KEY_FILE_MAX + 1];
    ssize_t n = read_key_file(dir, id, text, sizeof text, err, err_cap);

    return n > 0 && parse_tpm(text, (size_t)n, handle, tcti, cap);
}

enum kdf_status
kdf_keystore_secret(const char *dir, const struct kdf_tpm_access *tpm,
                    const struct kdf_key_request *rq, uint8_t *key, size_t *key_len, char *err,
                    size_t err_cap)
{
    char text[KEY_FILE_MAX + 1], id[KDF_KEYID_CAP], tcti[KEY_FILE_MAX];
    uint32_t handle = 0;
    ssize_t n;
    enum kdf_status st = KDF_NOKEY;

    *key_len = 0;
    if (rq->id_len >= sizeof id) {
        kdf_errf(err, err_cap, "not a key ID");
        return KDF_NOKEY;
    }
    memcpy(id, rq->id, rq->id_len);
    id[rq->id_len] = '\0';
    n = read_key_file(dir, id, text, sizeof text, err, err_cap);
    if (n > 0 && parse_key(text, (size_t)n, key, key_len))
        st = KDF_OK;
    else if (n > 0 && parse_tpm(text, (size_t)n, &handle, tcti, sizeof tcti)) {
        /* The key never leaves the TPM: the secret is its HMAC of the
         * salt (keystore_tpm.c). */
        char why[KDF_KEYSTORE_ERR];

        if (tpm == NULL || tpm->fn == NULL) {
            kdf_errf(why, sizeof why, "this program has no way to a TPM");
            st = KDF_NOKEY;
        } else
            st = tpm->fn(tpm->ctx, tcti, handle, rq->salt, rq->salt_len, key, why,
                         sizeof why);
        if (st == KDF_OK)
            *key_len = KDF_TPM_SECRET_LEN;
        else
            kdf_errf(err, err_cap, "%s/%s: TPM %s: %s", dir, id, tcti, why);
    } else if (n > 0)
        kdf_errf(err, err_cap, "%s/%s: not a key file (kdfhash-key-v1 and 32 to 64 bytes "
                               "in hex, or kdfhash-tpm-v1)",
                 dir, id);
    explicit_bzero(text, sizeof text);
    if (st != KDF_OK) {
        explicit_bzero(key, KDF_KEY_MAX);
        *key_len = 0;
        return KDF_NOKEY;
    }
    return KDF_OK;
}

static enum kdf_status
ring_get(void *ctx, const struct kdf_key_request *rq, uint8_t *key, size_t *key_len)
{
    struct kdf_keystore *ks = ctx;
    char err[KDF_KEYSTORE_ERR];
    enum kdf_status st = kdf_keystore_secret(ks->dir, ks->tpm, rq, key, key_len, err,
                                             sizeof err);

    if (st != KDF_OK && !(ks->keep_first && ks->failed_id[0] != '\0') &&
        rq->id_len < sizeof ks->failed_id) {
        memcpy(ks->failed_id, rq->id, rq->id_len);
        ks->failed_id[rq->id_len] = '\0';
        memcpy(ks->err, err, sizeof err);
    }
    return st;
}

void
kdf_keystore_init(struct kdf_keystore *ks, const char *dir, const struct kdf_tpm_access *tpm)
{
    memset(ks, 0, sizeof *ks);
    ks->dir = dir != NULL ? dir : KDF_KEYS_DIR;
    ks->tpm = tpm;
    ks->ring.get = ring_get;
    ks->ring.ctx = ks;
}

gid_t
kdf_keystore_shadow_gid(void)
{
    struct group gr, *res = NULL;
    char buf[4096];

    if (getgrnam_r("shadow", &gr, buf, sizeof buf, &res) != 0 || res == NULL)
        return (gid_t)-1;
    return gr.gr_gid;
}

static int
fill_random(void *p, size_t n)
{
    uint8_t *b = p;

    while (n > 0) {
        ssize_t r = getrandom(b, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

/* A fresh keyid: 6 random bytes in base64 (8 characters), drawn again
 * until every character is a letter or a digit (about 3 tries in 4 take). */
static int
new_id(char id[KDF_KEYID_CAP])
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    for (int tries = 0; tries < 64; tries++) {
        uint8_t r[6];

        if (fill_random(r, sizeof r) != 0)
            return -1;
        for (size_t i = 0; i < 2; i++) {
            uint32_t v = (uint32_t)r[3 * i] << 16 | (uint32_t)r[3 * i + 1] << 8 | r[3 * i + 2];

            for (size_t j = 0; j < 4; j++)
                id[4 * i + j] = b64[(v >> (18 - 6 * j)) & 63];
        }
        id[8] = '\0';
        if (kdf_keyid_valid(id, 8))
            return 0;
    }
    return -1;
}

/* Write text[0..n) as dir/id: a temporary file, fsync, a link that never
 * replaces (a key of the same name, a collision of 48 random bits or a
 * concurrent run, stays as it was), fsync of the directory. */
static enum kdf_status
write_key_text(int dfd, const char *dir, const char *id, gid_t gid, const char *text,
               size_t n, char *err, size_t cap)
{
    char tmp[KDF_KEYID_CAP + 8];
    enum kdf_status st = KDF_INTERNAL;
    int fd;

    snprintf(tmp, sizeof tmp, ".%s.new", id);
    fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        kdf_errf(err, cap, "%s/%s: %s", dir, tmp, strerror(errno));
        return KDF_INTERNAL;
    }
    if (write(fd, text, n) != (ssize_t)n)
        kdf_errf(err, cap, "%s/%s: write: %s", dir, tmp, strerror(errno));
    else if (gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid) != 0)
        kdf_errf(err, cap, "%s/%s: chown: %s", dir, tmp, strerror(errno));
    else if (fchmod(fd, 0640) != 0 || fsync(fd) != 0)
        kdf_errf(err, cap, "%s/%s: %s", dir, tmp, strerror(errno));
    else
        st = KDF_OK;
    if (close(fd) != 0 && st == KDF_OK) {
        kdf_errf(err, cap, "%s/%s: close: %s", dir, tmp, strerror(errno));
        st = KDF_INTERNAL;
    }
    if (st == KDF_OK && linkat(dfd, tmp, dfd, id, 0) != 0) {
        kdf_errf(err, cap, "%s/%s: %s", dir, id, strerror(errno));
        st = KDF_INTERNAL;
    }
    (void)unlinkat(dfd, tmp, 0);
    if (st == KDF_OK && fsync(dfd) != 0) {
        kdf_errf(err, cap, "%s: fsync: %s", dir, strerror(errno));
        st = KDF_INTERNAL;
    }
    return st;
}

/* The key directory open (made 0750, group gid, when missing) and a fresh
 * ID; -1 with err set. */
static int
prepare(const char *dir, gid_t gid, char id[KDF_KEYID_CAP], char *err, size_t cap)
{
    int dfd;

    id[0] = '\0';
    if (mkdir(dir, 0750) == 0) {
        if (gid != (gid_t)-1 && chown(dir, (uid_t)-1, gid) != 0) {
            kdf_errf(err, cap, "%s: chown: %s", dir, strerror(errno));
            return -1;
        }
    } else if (errno != EEXIST) {
        kdf_errf(err, cap, "%s: mkdir: %s", dir, strerror(errno));
        return -1;
    }
    dfd = open_dir(dir, err, cap);
    if (dfd < 0)
        return -1;
    if (new_id(id) != 0) {
        kdf_errf(err, cap, "getrandom: %s", strerror(errno));
        close(dfd);
        return -1;
    }
    return dfd;
}

enum kdf_status
kdf_keystore_new(const char *dir, gid_t gid, char id[KDF_KEYID_CAP], char *err, size_t cap)
{
    uint8_t key[KDF_KEY_NEW_LEN];
    char text[sizeof KEY_MAGIC + 2 * KDF_KEY_NEW_LEN + 1];
    size_t m = sizeof KEY_MAGIC - 1, n;
    enum kdf_status st;
    int dfd = prepare(dir, gid, id, err, cap);

    if (dfd < 0)
        return KDF_INTERNAL;
    if (fill_random(key, sizeof key) != 0) {
        kdf_errf(err, cap, "getrandom: %s", strerror(errno));
        close(dfd);
        id[0] = '\0';
        return KDF_INTERNAL;
    }
    memcpy(text, KEY_MAGIC, m);
    for (size_t i = 0; i < sizeof key; i++)
        snprintf(text + m + 2 * i, 3, "%02x", key[i]);
    n = m + 2 * sizeof key;
    text[n++] = '\n';
    explicit_bzero(key, sizeof key);
    st = write_key_text(dfd, dir, id, gid, text, n, err, cap);
    explicit_bzero(text, sizeof text);
    close(dfd);
    if (st != KDF_OK)
        id[0] = '\0';
    return st;
}

enum kdf_status
kdf_keystore_new_tpm(const char *dir, gid_t gid, uint32_t handle, const char *tcti,
                     char id[KDF_KEYID_CAP], char *err, size_t cap)
{
    char text[KEY_FILE_MAX + 1];
    int n, dfd;
    enum kdf_status st;

    n = snprintf(text, sizeof text, "%s0x%08x %s\n", TPM_MAGIC, (unsigned)handle, tcti);
    if (n < 0 || (size_t)n >= sizeof text || strpbrk(tcti, " \t\n") != NULL || tcti[0] == '\0') {
        kdf_errf(err, cap, "bad TCTI configuration");
        return KDF_RANGE;
    }
    dfd = prepare(dir, gid, id, err, cap);
    if (dfd < 0)
        return KDF_INTERNAL;
    st = write_key_text(dfd, dir, id, gid, text, (size_t)n, err, cap);
    close(dfd);
    if (st != KDF_OK)
        id[0] = '\0';
    return st;
}

static int
by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int
kdf_keystore_list(const char *dir,
                  void (*cb)(void *ctx, const char *id, const char *kind, unsigned bits,
                             long long mtime),
                  void *ctx, char *err, size_t cap)
{
    char names[256][KDF_KEYID_CAP];
    const char *order[256];
    struct dirent *de;
    size_t n = 0;
    int dfd = open_dir(dir, err, cap), count = 0;
    DIR *d;

    if (dfd < 0)
        return -1;
    d = fdopendir(dfd);
    if (d == NULL) {
        kdf_errf(err, cap, "%s: %s", dir, strerror(errno));
        close(dfd);
        return -1;
    }
    while ((de = readdir(d)) != NULL && n < 256)
        if (kdf_keyid_valid(de->d_name, strlen(de->d_name))) {
            memcpy(names[n], de->d_name, strlen(de->d_name) + 1);
            order[n] = names[n];
            n++;
        }
    qsort(order, n, sizeof order[0], by_name);
    for (size_t i = 0; i < n; i++) {
        uint8_t key[KDF_KEY_MAX];
        size_t len = 0;
        struct stat st;
        char why[KDF_KEYSTORE_ERR], kind[KEY_FILE_MAX + 32], tcti[KEY_FILE_MAX];
        uint32_t handle;

        if (kdf_keystore_read(dir, order[i], key, &len, why, sizeof why) == KDF_OK)
            snprintf(kind, sizeof kind, "file");
        else if (kdf_keystore_tpm_of(dir, order[i], &handle, tcti, sizeof tcti, why,
                                     sizeof why)) {
            snprintf(kind, sizeof kind, "tpm 0x%08x %s", (unsigned)handle, tcti);
            len = KDF_TPM_SECRET_LEN;
        } else
            continue;
        explicit_bzero(key, sizeof key);
        if (fstatat(dirfd(d), order[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        cb(ctx, order[i], kind, (unsigned)(len * 8), (long long)st.st_mtime);
        count++;
    }
    closedir(d);
    return count;
}

enum kdf_status
kdf_keystore_retire(const char *dir, const char *id, char *err, size_t cap)
{
    char to[KDF_KEYID_CAP + 8];
    struct stat st;
    int dfd;

    if (!kdf_keyid_valid(id, strlen(id))) {
        kdf_errf(err, cap, "'%.16s' is not a key ID", id);
        return KDF_RANGE;
    }
    dfd = open_dir(dir, err, cap);
    if (dfd < 0)
        return KDF_INTERNAL;
    snprintf(to, sizeof to, "%s.retired", id);
    if (fstatat(dfd, id, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        kdf_errf(err, cap, "%s/%s: %s", dir, id, errno == ENOENT ? "no such key" : strerror(errno));
        close(dfd);
        return KDF_NOKEY;
    }
    if (renameat(dfd, id, dfd, to) != 0 || fsync(dfd) != 0) {
        kdf_errf(err, cap, "%s/%s: %s", dir, id, strerror(errno));
        close(dfd);
        return KDF_INTERNAL;
    }
    close(dfd);
    return KDF_OK;
}

const char *
kdf_key_state_name(enum kdf_key_state st)
{
    switch (st) {
    case KDF_KEY_FILE:
        return "file";
    case KDF_KEY_TPM:
        return "tpm";
    case KDF_KEY_MISSING:
        return "missing";
    case KDF_KEY_UNREADABLE:
        return "unreadable";
    case KDF_KEY_REFUSED:
        break;
    }
    return "refused";
}

enum kdf_key_state
kdf_keystore_state(const char *dir, const char *id, const struct kdf_tpm_access *tpm,
                   char *err, size_t cap)
{
    static const uint8_t probe[16]; /* a salt: the TPM's answer is thrown away */
    uint8_t key[KDF_KEY_MAX];
    size_t len = 0;
    char tcti[KEY_FILE_MAX];
    uint32_t handle;
    struct kdf_key_request rq = {id, strlen(id), probe, sizeof probe};
    enum kdf_status st;
    int dfd, fd, e = 0;

    /* Missing and unreadable are told apart from refused by the errno of
     * the opens the reader makes; everything else is the reader's word. */
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        e = errno;
    else {
        fd = kdf_keyid_valid(id, strlen(id))
                 ? openat(dfd, id, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
                 : -1;
        if (fd < 0)
            e = errno;
        else
            close(fd);
        close(dfd);
    }
    if (tpm == NULL && kdf_keystore_tpm_of(dir, id, &handle, tcti, sizeof tcti, err, cap))
        return KDF_KEY_TPM;
    st = kdf_keystore_secret(dir, tpm, &rq, key, &len, err, cap);
    explicit_bzero(key, sizeof key);
    if (st == KDF_OK)
        return kdf_keystore_tpm_of(dir, id, &handle, tcti, sizeof tcti, err, cap) ? KDF_KEY_TPM
                                                                                 : KDF_KEY_FILE;
    if (e == ENOENT)
        return KDF_KEY_MISSING;
    if (e == EACCES)
        return KDF_KEY_UNREADABLE;
    return KDF_KEY_REFUSED;
}
