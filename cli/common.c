/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.c - helpers shared by the kdfhash subcommands: messages, the
 * policy file, a HASH argument, --isa, printing the fields of a hash, and
 * timing a target (calibrate and calibrate --rate).
 *
 * Nothing here prints a salt, a digest or a whole hash: the CLI reads
 * shadow files, and its output ends up in terminals, logs and tickets.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "keystore.h"

static struct kdf_keystore g_keys;
static const char *g_keys_dir = KDF_KEYS_DIR;

void
cli_set_keys_dir(const char *dir)
{
    g_keys_dir = dir;
}

const char *
cli_keys_dir(void)
{
    return g_keys_dir;
}

double
cli_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* For cli_time_hash(): a password of a typical length; its value does not
 * change the work. */
static const char g_cal_pw[] = "calibrate-0123456789";

/* Best of reps runs of kdf_hash_ex at t under pol (its caps and max.threads,
 * as the module's upgrades use them), in ms; < 0 on error (printed).  The
 * minimum, not the mean: other processes only ever add time. */
double
cli_time_hash(const struct kdf_policy *pol, const struct kdf_target *t, int reps)
{
    char out[KDF_MAX_HASH_STR + 1];
    double best = -1.0;

    for (int i = 0; i < reps; i++) {
        double t0 = cli_now_ms();
        enum kdf_status st =
            kdf_hash_ex(g_cal_pw, sizeof g_cal_pw - 1, t, pol, NULL, 0, out, sizeof out);
        double dt = cli_now_ms() - t0;

        if (st != KDF_OK) {
            cli_error("calibrate: hashing failed: %s", kdf_status_str(st));
            return -1.0;
        }
        if (best < 0 || dt < best)
            best = dt;
    }
    return best;
}

void
cli_sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash == NULL ? strdup(".") : strndup(path, (size_t)(slash - path) + 1);
    int fd = dir == NULL ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
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
    /* Keyed hashes verify and are made with the keys of the key directory
     * (--keys DIR, else the build's; one command, one store). */
    kdf_keystore_init(&g_keys, g_keys_dir, &cli_tpm);
    pol->keys = &g_keys.ring;
    return CLI_OK;
}

const char *
cli_key_error(void)
{
    static char msg[KDF_KEYSTORE_ERR + 32];

    if (g_keys.err[0] == '\0')
        return NULL;
    snprintf(msg, sizeof msg, "key %s: %s", g_keys.failed_id, g_keys.err);
    return msg;
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
cli_getopt(int argc, char **argv, const char *opts, const struct option *longopts,
           const char **bad)
{
    /* The argument getopt is in: a short option's error may leave optind
     * on it (the rest of "-xh"), a long option's moves optind past it. */
    int at = optind;
    int c;

    opterr = 0;
    c = getopt_long(argc, argv, opts, longopts, NULL);
    if ((c == '?' || c == ':') && at < argc)
        *bad = argv[at];
    return c;
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

void
cli_format_fields(const struct kdf_hash *h, char *out, size_t cap)
{
    kdf_hash_describe(h, KDF_DESC_FIELDS, out, cap);
}

void
cli_format_params(const struct kdf_hash *h, char *out, size_t cap)
{
    kdf_hash_describe(h, KDF_DESC_PARAMS, out, cap);
}

void
cli_format_costs(const struct kdf_hash *h, char *out, size_t cap)
{
    kdf_hash_describe(h, KDF_DESC_COSTS, out, cap);
}

int
cli_hash_keyid(const char *f, size_t n, char id[KDF_KEYID_CAP])
{
    struct kdf_hash h;
    int keyed = 0;

    id[0] = '\0';
    /* A locked entry still needs its key the day it is unlocked. */
    while (n > 0 && (f[0] == '!' || f[0] == '*')) {
        f++;
        n--;
    }
    if (n > 0 && kdf_parse(f, n, &h, NULL) == KDF_OK && h.keyid.len > 0 &&
        h.keyid.len < KDF_KEYID_CAP) {
        memcpy(id, h.keyid.ptr, h.keyid.len);
        id[h.keyid.len] = '\0';
        keyed = 1;
    }
    kdf_wipe(&h, sizeof h);
    return keyed;
}
