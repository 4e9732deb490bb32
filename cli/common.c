/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.c - helpers shared by the kdfhash subcommands: messages, the
 * policy file, a HASH argument, --isa, and printing the fields of a hash.
 *
 * Nothing here prints a salt, a digest or a whole hash: the CLI reads
 * shadow files, and its output ends up in terminals, logs and tickets.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "kdf_internal.h"

double
cli_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void
cli_error(const char *fmt, ...)
{
    va_list ap;

    fputs("kdfhash: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void
cli_print_exit_codes(FILE *f)
{
    fputs("Exit status: 0 success, match or ok; 1 mismatch or needs rehash;\n"
          "2 malformed input, usage error or other error.\n",
          f);
}

int
cli_load_policy(struct kdf_policy *pol, const char *conf_path)
{
    char err[512];
    const char *path = conf_path ? conf_path : KDF_DEFAULT_CONF;

    kdf_policy_default(pol);
    /* An explicit --conf must exist; the system file is optional. */
    if (kdf_policy_load(pol, path, conf_path == NULL, err, sizeof err) != KDF_OK) {
        cli_error("%s", err);
        return CLI_ERR;
    }
    return CLI_OK;
}

int
cli_get_hash_arg(const char *arg, char *buf, size_t cap, const char **hash, size_t *len)
{
    size_t n = 0;
    int c;

    if (strcmp(arg, "-") != 0) {
        *hash = arg;
        *len = strlen(arg);
        return CLI_OK;
    }
    /* One line from stdin, so that the hash stays out of argv (ps, shell
     * history).  A NUL byte is kept: kdf_parse() rejects it. */
    while ((c = getchar()) != EOF && c != '\n') {
        if (n + 1 >= cap) {
            cli_error("hash on stdin longer than %zu characters", cap - 1);
            return CLI_ERR;
        }
        buf[n++] = (char)c;
    }
    if (ferror(stdin)) {
        cli_error("cannot read the hash from stdin");
        return CLI_ERR;
    }
    buf[n] = '\0';
    *hash = buf;
    *len = n;
    return CLI_OK;
}

int
cli_force_isa(const char *name)
{
    if (kdf_impl_force(name) != KDF_OK) {
        cli_error("--isa %.40s: not compiled in or not supported by this CPU "
                  "(see kdfhash cpu)",
                  name);
        return CLI_ERR;
    }
    return CLI_OK;
}

/* The crypt(3) prefix of a legacy hash: printable, short ("$6$", "_"). */
static void
format_prefix(const struct kdf_hash *h, char *out, size_t cap)
{
    size_t n = h->prefix.len, j = 0;

    if (n == 0 || h->prefix.ptr == NULL) {
        snprintf(out, cap, "des");
        return;
    }
    if (n > 8)
        n = 8;
    for (size_t i = 0; i < n && j + 1 < cap; i++) {
        unsigned char c = (unsigned char)h->prefix.ptr[i];
        out[j++] = (c > 0x20 && c < 0x7f) ? (char)c : '?';
    }
    out[j] = '\0';
}

static const char *
format_name(enum kdf_format f)
{
    switch (f) {
    case KDF_FMT_PASSLIB:
        return "passlib";
    case KDF_FMT_PHC:
        return "phc";
    case KDF_FMT_DJANGO:
        return "django";
    default:
        return "native";
    }
}

static unsigned
argon2_version(const struct kdf_hash *h)
{
    return h->version == 0x10 ? 16u : h->version == 0x13 ? 19u : (unsigned)h->version;
}

void
cli_format_fields(const struct kdf_hash *h, char *out, size_t cap)
{
    const char *name = kdf_scheme_name(h->scheme);
    char pfx[16];

    if (h->scheme == KDF_SCHEME_BCRYPT) {
        snprintf(out, cap, "scheme=bcrypt minor=%c cost=%u salt_len=%u digest_len=%u",
                 h->bcrypt_minor, (unsigned)h->cost, (unsigned)h->salt_len,
                 (unsigned)h->dk_len);
    } else if (kdf_scheme_is_argon2(h->scheme)) {
        snprintf(out, cap, "scheme=%s version=%u m=%u t=%u p=%u salt_len=%u digest_len=%u%s%s",
                 name, argon2_version(h), (unsigned)h->m_kib, (unsigned)h->cost,
                 (unsigned)h->lanes, (unsigned)h->salt_len, (unsigned)h->dk_len,
                 h->keyid.len ? " keyid=yes" : "", h->data.len ? " data=yes" : "");
    } else if (kdf_scheme_is_pbkdf2(h->scheme)) {
        snprintf(out, cap, "scheme=%s format=%s iterations=%u salt_len=%u digest_len=%u", name,
                 format_name(h->format), (unsigned)h->cost, (unsigned)h->salt_len,
                 (unsigned)h->dk_len);
    } else if (h->scheme == KDF_SCHEME_LEGACY) {
        format_prefix(h, pfx, sizeof pfx);
        snprintf(out, cap, "scheme=legacy prefix=%s", pfx);
    } else {
        snprintf(out, cap, "scheme=%s", name);
    }
}

void
cli_format_params(const struct kdf_hash *h, char *out, size_t cap)
{
    char pfx[16];

    if (h->scheme == KDF_SCHEME_BCRYPT) {
        snprintf(out, cap, "minor=%c,cost=%u", h->bcrypt_minor, (unsigned)h->cost);
    } else if (kdf_scheme_is_argon2(h->scheme)) {
        snprintf(out, cap, "v=%u,m=%u,t=%u,p=%u", argon2_version(h), (unsigned)h->m_kib,
                 (unsigned)h->cost, (unsigned)h->lanes);
    } else if (kdf_scheme_is_pbkdf2(h->scheme)) {
        snprintf(out, cap, "format=%s,i=%u", format_name(h->format), (unsigned)h->cost);
    } else if (h->scheme == KDF_SCHEME_LEGACY) {
        format_prefix(h, pfx, sizeof pfx);
        snprintf(out, cap, "prefix=%s", pfx);
    } else {
        snprintf(out, cap, "-");
    }
}

void
cli_format_costs(const struct kdf_hash *h, char *out, size_t cap)
{
    if (h->scheme == KDF_SCHEME_BCRYPT)
        snprintf(out, cap, "cost=%u", (unsigned)h->cost);
    else if (kdf_scheme_is_argon2(h->scheme))
        snprintf(out, cap, "m=%u,t=%u,p=%u%s", (unsigned)h->m_kib, (unsigned)h->cost,
                 (unsigned)h->lanes, h->version == 0x10 ? ",v=16" : "");
    else if (kdf_scheme_is_pbkdf2(h->scheme))
        snprintf(out, cap, "i=%u", (unsigned)h->cost);
    else
        cli_format_params(h, out, cap);
}
