/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_verify.c - `kdfhash verify HASH` and `kdfhash hash`: the two
 * subcommands that take a password (on stdin, pwread.c; never argv).
 *
 * Both apply the policy caps before any work: verify refuses an over-cap
 * hash before reading the password, hash refuses an over-cap target.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "keystore.h"

#define MAX_PARAMS 16

static void
verify_usage(FILE *f)
{
    fputs("Usage: kdfhash verify [--conf FILE] [--keys DIR] [--isa NAME] HASH\n"
          "Read a password from stdin (to EOF, one trailing newline removed; no\n"
          "echo on a terminal) and check it against HASH.  Prints \"ok\" (exit 0)\n"
          "or \"mismatch\" (exit 1); a malformed, unsupported or over-cap HASH or an\n"
          "over-long password is exit 2 with the reason on stderr.\n"
          "  --conf FILE   policy file for the caps (default: system kdfhash.conf)\n"
          "  --keys DIR    the key directory of keyed hashes (default " KDF_KEYS_DIR ")\n"
          "  --isa NAME    force an implementation (see kdfhash cpu)\n",
          f);
    cli_print_exit_codes(f);
}

static void
hash_usage(FILE *f)
{
    fputs("Usage: kdfhash hash [--scheme S] [--param K=V ...] [--conf FILE] [--keys DIR]\n"
          "                    [--isa NAME]\n"
          "Read a password from stdin and print a new hash of it, with a fresh\n"
          "random salt.  Default: the policy target.\n"
          "  --scheme S    a scheme of 'kdfhash schemes --names' (its defaults, or\n"
          "                the policy target's values when it is the target scheme)\n"
          "  --param K=V   a target parameter, as in kdfhash.conf ('kdfhash schemes'\n"
          "                shows each scheme's keys and defaults)\n"
          "  --conf FILE   policy file (default: system kdfhash.conf)\n"
          "  --keys DIR    the key directory of the pepper (default " KDF_KEYS_DIR ")\n"
          "  --isa NAME    force an implementation (see kdfhash cpu)\n",
          f);
    cli_print_exit_codes(f);
}

/* Map a refusal from the core to exit 2 with its reason. */
static int
refuse(enum kdf_status st, const char *why)
{
    if (st == KDF_NOKEY && why == NULL)
        why = cli_key_error();
    if (why != NULL)
        cli_error("%s: %s", kdf_status_str(st), why);
    else
        cli_error("%s", kdf_status_str(st));
    return CLI_ERR;
}

int
cli_cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {{"conf", required_argument, NULL, 'c'},
                                          {"isa", required_argument, NULL, 'i'},
                                          {"keys", required_argument, NULL, 'k'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *conf = NULL, *isa = NULL, *why = NULL, *hash;
    struct kdf_policy pol;
    struct kdf_hash h;
    struct cli_pw pw;
    enum kdf_status st;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "c:i:h", opts, NULL)) != -1) {
        if (c == 'c')
            conf = optarg;
        else if (c == 'i')
            isa = optarg;
        else if (c == 'k')
            cli_set_keys_dir(optarg);
        else if (c == 'h') {
            verify_usage(stdout);
            return CLI_OK;
        } else {
            verify_usage(stderr);
            return CLI_ERR;
        }
    }
    if (argc - optind != 1) {
        verify_usage(stderr);
        return CLI_ERR;
    }
    hash = argv[optind];
    if (strcmp(hash, "-") == 0) {
        cli_error("verify: HASH cannot be '-': stdin carries the password");
        return CLI_ERR;
    }
    if (cli_load_policy(&pol, conf) != CLI_OK)
        return CLI_ERR;
    if (isa != NULL && cli_force_isa(isa) != CLI_OK)
        return CLI_ERR;
    st = kdf_parse(hash, strlen(hash), &h, &why);
    if (st != KDF_OK)
        return refuse(st, why);
    st = kdf_check_caps(&h, 0, &pol, &why);
    if (st != KDF_OK)
        return refuse(st, why);
    if (cli_pw_read(&pw, pol.max_password_len) != CLI_OK)
        return CLI_ERR;
    st = kdf_verify_ex(pw.buf, pw.len, &h, &pol, NULL, 0);
    cli_pw_free(&pw);
    switch (st) {
    case KDF_OK:
        puts("ok");
        return CLI_OK;
    case KDF_MISMATCH:
        puts("mismatch");
        return CLI_NO;
    default:
        return refuse(st, NULL);
    }
}

/* Merge "--param k=v" items into the "k=v,k=v" list of a formatted target:
 * a key already there is replaced, a new one appended.  kdf_target_parse()
 * judges the result. */
static int
build_target_text(const char *base, char **params, size_t nparams, char *out, size_t cap)
{
    char items[MAX_PARAMS * 2][96];
    size_t nitems = 0, used;
    const char *sp = strchr(base, ' ');
    const char *p;

    used = sp ? (size_t)(sp - base) : strlen(base);
    if (used + 1 >= cap)
        return -1;
    memcpy(out, base, used);
    out[used] = '\0';
    /* The base's own items. */
    for (p = sp ? sp + 1 : NULL; p != NULL && *p != '\0';) {
        size_t n = strcspn(p, ",");
        if (n >= sizeof items[0] || nitems == MAX_PARAMS)
            return -1;
        memcpy(items[nitems], p, n);
        items[nitems++][n] = '\0';
        p += n;
        if (*p == ',')
            p++;
    }
    for (size_t i = 0; i < nparams; i++) {
        const char *eq = strchr(params[i], '=');
        size_t klen, j;
        if (eq == NULL || eq == params[i] || strlen(params[i]) >= sizeof items[0] ||
            strchr(params[i], ',') != NULL || strchr(params[i], ' ') != NULL) {
            cli_error("--param wants one KEY=VALUE, got '%.40s'", params[i]);
            return -2;
        }
        klen = (size_t)(eq - params[i]);
        for (j = 0; j < nitems; j++)
            if (strncmp(items[j], params[i], klen + 1) == 0)
                break;
        if (j == nitems) {
            if (nitems == sizeof items / sizeof items[0])
                return -1;
            nitems++;
        }
        strcpy(items[j], params[i]);
    }
    for (size_t j = 0; j < nitems; j++) {
        int n = snprintf(out + used, cap - used, "%s%s", j ? "," : " ", items[j]);
        if (n < 0 || (size_t)n >= cap - used)
            return -1;
        used += (size_t)n;
    }
    return 0;
}

int
cli_cmd_hash(int argc, char **argv)
{
    static const struct option opts[] = {{"scheme", required_argument, NULL, 's'},
                                          {"param", required_argument, NULL, 'p'},
                                          {"conf", required_argument, NULL, 'c'},
                                          {"isa", required_argument, NULL, 'i'},
                                          {"keys", required_argument, NULL, 'k'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *conf = NULL, *isa = NULL, *scheme = NULL, *why = NULL;
    char *params[MAX_PARAMS];
    size_t nparams = 0;
    char base[256], text[512], err[256], out[KDF_MAX_HASH_STR + 1];
    struct kdf_policy pol;
    struct kdf_target t;
    struct cli_pw pw;
    enum kdf_status st;
    int c, r, nul;

    optind = 1;
    while ((c = getopt_long(argc, argv, "s:p:c:i:h", opts, NULL)) != -1) {
        if (c == 's')
            scheme = optarg;
        else if (c == 'p') {
            if (nparams == MAX_PARAMS) {
                cli_error("too many --param options");
                return CLI_ERR;
            }
            params[nparams++] = optarg;
        } else if (c == 'c')
            conf = optarg;
        else if (c == 'i')
            isa = optarg;
        else if (c == 'k')
            cli_set_keys_dir(optarg);
        else if (c == 'h') {
            hash_usage(stdout);
            return CLI_OK;
        } else {
            hash_usage(stderr);
            return CLI_ERR;
        }
    }
    if (argc != optind) {
        hash_usage(stderr);
        return CLI_ERR;
    }
    if (cli_load_policy(&pol, conf) != CLI_OK)
        return CLI_ERR;
    if (isa != NULL && cli_force_isa(isa) != CLI_OK)
        return CLI_ERR;
    /* Start from the policy target, or from another scheme's defaults. */
    if (scheme == NULL || strcmp(scheme, kdf_scheme_name(pol.target.scheme)) == 0) {
        if (kdf_target_format(&pol.target, base, sizeof base) != KDF_OK) {
            cli_error("cannot format the policy target");
            return CLI_ERR;
        }
    } else if (snprintf(base, sizeof base, "%s", scheme) >= (int)sizeof base) {
        cli_error("--scheme too long");
        return CLI_ERR;
    }
    r = build_target_text(base, params, nparams, text, sizeof text);
    if (r != 0) {
        if (r == -1)
            cli_error("target parameters too long");
        return CLI_ERR;
    }
    if (kdf_target_parse(text, &t, err, sizeof err) != KDF_OK) {
        cli_error("%s", err);
        return CLI_ERR;
    }
    st = kdf_check_target(&t, &pol, &why);
    if (st != KDF_OK)
        return refuse(st, why);
    if (cli_pw_read(&pw, pol.max_password_len) != CLI_OK)
        return CLI_ERR;
    st = kdf_hash_ex(pw.buf, pw.len, &t, &pol, NULL, 0, out, sizeof out);
    nul = st == KDF_RANGE && memchr(pw.buf, '\0', pw.len) != NULL;
    cli_pw_free(&pw);
    if (nul) {
        /* bcrypt and crypt(3) would hash only the bytes before it */
        cli_error("the password holds a NUL byte, which %s cannot hash: refused",
                  kdf_scheme_name(t.scheme));
        return CLI_ERR;
    }
    if (st != KDF_OK)
        return refuse(st, NULL);
    puts(out);
    return CLI_OK;
}
