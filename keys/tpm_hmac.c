/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdfhash-tpm-hmac - the one TPM exchange of a login, in a process of its
 * own (tpm_client.h says why and gives the protocol): read the request
 * from stdin, ask the TPM for the HMAC (kdf_tpm_secret(), keystore_tpm.c),
 * answer on stdout; or make a new TPM key for kdfhash(1) and answer its
 * handle.  Run by pam_kdfhash.so, kdfhash-chkpwd and kdfhash(1) with a
 * fixed environment, stderr on /dev/null and a deadline; not meant to be
 * run by hand.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kdfhash.h"
#include "keystore.h"
#include "tpm_client.h"

static int
answer(const char *line)
{
    size_t n = strlen(line), off = 0;

    while (off < n) {
        ssize_t w = write(STDOUT_FILENO, line + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return 2;
        off += (size_t)w;
    }
    return 0;
}

static int
fail(const char *why)
{
    char line[KDF_TPM_REPLY_MAX];

    snprintf(line, sizeof line, "error %s\n", why);
    return answer(line) != 0 ? 2 : 1;
}

static int
hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One line that starts with magic: the rest, its newline cut; or NULL. */
static char *
line_after(char *req, size_t n, const char *magic)
{
    size_t m = strlen(magic);

    if (n < m + 1 || memcmp(req, magic, m) != 0 || req[n - 1] != '\n' ||
        memchr(req, '\n', n - 1) != NULL || memchr(req, '\0', n) != NULL)
        return NULL;
    req[n - 1] = '\0';
    return req + m;
}

/* A TCTI configuration: one word of printable characters. */
static int
tcti_ok(const char *tcti)
{
    if (*tcti == '\0')
        return 0;
    for (const char *c = tcti; *c != '\0'; c++)
        if ((unsigned char)*c <= ' ' || *c == 0x7f)
            return 0;
    return 1;
}

/* "0xHANDLE SALTHEX TCTI\n" after the magic. */
static int
parse(char *req, size_t n, uint32_t *handle, uint8_t *salt, size_t *salt_len, char **tcti)
{
    size_t i;
    unsigned long h;
    char *p = line_after(req, n, KDF_TPM_REQ_MAGIC), *end;

    if (p == NULL)
        return 0;
    if (strncmp(p, "0x", 2) != 0)
        return 0;
    errno = 0;
    h = strtoul(p + 2, &end, 16);
    if (errno != 0 || end != p + 10 || *end != ' ' || h < 0x81000000ul || h > 0x81FFFFFFul)
        return 0;
    p = end + 1;
    for (i = 0; hexval(p[2 * i]) >= 0 && hexval(p[2 * i + 1]) >= 0; i++) {
        if (i == KDF_MAX_SALT)
            return 0;
        salt[i] = (uint8_t)(hexval(p[2 * i]) << 4 | hexval(p[2 * i + 1]));
    }
    if (i == 0 || p[2 * i] != ' ' || p[2 * i + 1] == '\0')
        return 0;
    *tcti = p + 2 * i + 1;
    if (!tcti_ok(*tcti))
        return 0;
    *handle = (uint32_t)h;
    *salt_len = i;
    return 1;
}

int
main(void)
{
    char req[KDF_TPM_REQ_MAX + 1], err[256], line[KDF_TPM_REPLY_MAX], *tcti = NULL;
    uint8_t salt[KDF_MAX_SALT], secret[KDF_TPM_SECRET_LEN];
    uint32_t handle = 0;
    size_t n = 0, salt_len = 0;
    int rc;

    for (;;) {
        ssize_t r = read(STDIN_FILENO, req + n, sizeof req - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return fail("cannot read the request");
        if (r == 0)
            break;
        n += (size_t)r;
        if (n == sizeof req - 1)
            return fail("request too long");
    }
    req[n] = '\0';
    if (strncmp(req, KDF_TPM_NEW_MAGIC, sizeof KDF_TPM_NEW_MAGIC - 1) == 0) {
        /* kdfhash keys --tpm new: make the key, answer its handle. */
        tcti = line_after(req, n, KDF_TPM_NEW_MAGIC);
        if (tcti == NULL || !tcti_ok(tcti))
            return fail("malformed request");
        if (kdf_tpm_new_key(tcti, &handle, err, sizeof err) != KDF_OK)
            return fail(err);
        snprintf(line, sizeof line, "ok 0x%08x\n", (unsigned)handle);
        return answer(line);
    }
    if (!parse(req, n, &handle, salt, &salt_len, &tcti))
        return fail("malformed request");
    if (kdf_tpm_secret(tcti, handle, salt, salt_len, secret, err, sizeof err) != KDF_OK)
        return fail(err);
    memcpy(line, "ok ", 3);
    for (size_t i = 0; i < sizeof secret; i++)
        snprintf(line + 3 + 2 * i, 3, "%02x", secret[i]);
    line[3 + 2 * sizeof secret] = '\n';
    line[4 + 2 * sizeof secret] = '\0';
    rc = answer(line);
    explicit_bzero(secret, sizeof secret);
    explicit_bzero(line, sizeof line);
    return rc;
}
