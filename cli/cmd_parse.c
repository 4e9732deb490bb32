/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_parse.c - `kdfhash parse HASH` and `kdfhash needs-rehash HASH`: one
 * hash string in, its fields or the policy's verdict out.
 *
 * HASH is the admin's own input on the command line; "-" reads it from
 * stdin instead, which keeps a real hash out of ps(1) and the shell
 * history.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void
parse_usage(FILE *f)
{
    fputs("Usage: kdfhash parse HASH|-\n"
          "Print the fields of HASH (or of one line of stdin with -), e.g.\n"
          "  scheme=argon2id version=19 m=65536 t=3 p=4 salt_len=16 digest_len=32\n"
          "Salt and digest are never printed.  A rejected string prints the\n"
          "reason on stderr.\n",
          f);
    cli_print_exit_codes(f);
}

static void
rehash_usage(FILE *f)
{
    fputs("Usage: kdfhash needs-rehash [--conf FILE] HASH|-\n"
          "Print \"ok\" (exit 0) when HASH is current under the policy, or\n"
          "\"rehash: REASON\" (exit 1), REASON one of other-scheme, too-cheap,\n"
          "bcrypt-2x, legacy, old-version.  A hash above the policy caps, or one\n"
          "that does not parse, is an error (exit 2).\n"
          "  --conf FILE   policy file (default: the system kdfhash.conf if present)\n",
          f);
    cli_print_exit_codes(f);
}

/* Parse the hash, or say why not.  CLI_OK or CLI_ERR. */
static int
parse_or_explain(const char *s, size_t len, struct kdf_hash *h)
{
    const char *why = NULL;
    enum kdf_status st = kdf_parse(s, len, h, &why);

    if (st == KDF_OK)
        return CLI_OK;
    cli_error("%s: %s", kdf_status_str(st), why ? why : "rejected");
    return CLI_ERR;
}

int
cli_cmd_parse(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    char buf[KDF_MAX_HASH_STR + 2], out[256];
    const char *s;
    size_t len;
    struct kdf_hash h;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            parse_usage(stdout);
            return CLI_OK;
        }
        parse_usage(stderr);
        return CLI_ERR;
    }
    if (argc - optind != 1) {
        parse_usage(stderr);
        return CLI_ERR;
    }
    if (cli_get_hash_arg(argv[optind], buf, sizeof buf, &s, &len) != CLI_OK)
        return CLI_ERR;
    if (parse_or_explain(s, len, &h) != CLI_OK)
        return CLI_ERR;
    cli_format_fields(&h, out, sizeof out);
    puts(out);
    return CLI_OK;
}

int
cli_cmd_needs_rehash(int argc, char **argv)
{
    static const struct option opts[] = {{"conf", required_argument, NULL, 'c'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    char buf[KDF_MAX_HASH_STR + 2];
    const char *s, *conf = NULL, *why = NULL;
    size_t len;
    struct kdf_hash h;
    struct kdf_policy pol;
    enum kdf_rehash r;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
        if (c == 'c') {
            conf = optarg;
            continue;
        }
        if (c == 'h') {
            rehash_usage(stdout);
            return CLI_OK;
        }
        rehash_usage(stderr);
        return CLI_ERR;
    }
    if (argc - optind != 1) {
        rehash_usage(stderr);
        return CLI_ERR;
    }
    if (cli_load_policy(&pol, conf) != CLI_OK)
        return CLI_ERR;
    if (cli_get_hash_arg(argv[optind], buf, sizeof buf, &s, &len) != CLI_OK)
        return CLI_ERR;
    if (parse_or_explain(s, len, &h) != CLI_OK)
        return CLI_ERR;
    /* An over-cap hash would be refused at login: say so, do not judge it. */
    if (kdf_check_caps(&h, 0, &pol, &why) != KDF_OK) {
        cli_error("over cap: %s", why ? why : "parameters exceed policy");
        return CLI_ERR;
    }
    r = kdf_needs_rehash(&h, &pol);
    if (r == KDF_REHASH_NO) {
        puts("ok");
        return CLI_OK;
    }
    printf("rehash: %s\n", kdf_rehash_reason(r));
    return CLI_NO;
}
