/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_blocklist.c - `kdfhash blocklist build SOURCE... -o FILE | check FILE
 * | info FILE`: the compromised-password list (accounts/blocklist.h), made
 * by blocklist_build.c and read through accounts/blocklist.c, the reader
 * the PAM module links.  check reads one password from standard input and
 * never prints it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocklist.h"
#include "cli.h"

static void
usage(FILE *f)
{
    fputs("Usage: kdfhash blocklist build [--chunk N] -o FILE SOURCE...\n"
          "       kdfhash blocklist check FILE\n"
          "       kdfhash blocklist info FILE\n"
          "The list of compromised passwords new passwords are checked against: a sorted\n"
          "table of the first 8 bytes of each password's SHA-1 (of its NFKC form for a\n"
          "plain list) and a checksum.  build reads each SOURCE (\"-\": standard input)\n"
          "as a plain list, one password a line, or as a Pwned Passwords SHA-1 file\n"
          "(HEX40:COUNT lines), as its first line says, and writes FILE through a\n"
          "temporary file and a rename.  check reads one password from standard input\n"
          "and says whether it is listed (its NFKC form or its bytes as typed), opening\n"
          "FILE as the PAM module does (header and size); info verifies the checksum\n"
          "over the whole table and prints the header.\n"
          "  -o, --output FILE  the file build writes\n"
          "  --chunk N          build: entries sorted in memory at once (8 bytes each;\n"
          "                     default 4194304)\n",
          f);
    fputs("Exit status: 0 built, not listed or shown; 1 listed; 2 error.\n", f);
}

static int
cmd_build(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"chunk", required_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL, *bad = NULL;
    unsigned long long chunk = 4194304;
    char *end;
    int c;

    optind = 1;
    while ((c = cli_getopt(argc, argv, "+:o:h", opts, &bad)) != -1) {
        if (c == 'o') {
            out = optarg;
        } else if (c == 'c') {
            chunk = strtoull(optarg, &end, 10);
            if (*optarg < '0' || *optarg > '9' || *end != '\0' || chunk == 0 ||
                chunk > (1ull << 32)) {
                cli_error("--chunk: a number of entries from 1 to 2^32 expected");
                return CLI_ERR;
            }
        } else if (c == 'h') {
            usage(stdout);
            return CLI_OK;
        } else {
            cli_error("blocklist build: unknown or incomplete option '%s'", bad);
            return CLI_ERR;
        }
    }
    if (out == NULL || optind >= argc) {
        usage(stderr);
        return CLI_ERR;
    }
    return cli_blocklist_build((const char *const *)argv + optind, (size_t)(argc - optind), out,
                               (size_t)chunk);
}

static int
cmd_check(const char *path)
{
    struct kdf_blocklist bl;
    struct cli_pw pw;
    char err[512];
    int r;

    /* As the PAM module opens it (header and size), owner aside. */
    if (kdf_blocklist_open(&bl, path, 0, err, sizeof err) != 0) {
        cli_error("%s", err);
        return CLI_ERR;
    }
    if (cli_pw_read(&pw, KDF_BLOCKLIST_MAX_PW) != CLI_OK) {
        kdf_blocklist_close(&bl);
        return CLI_ERR;
    }
    r = kdf_blocklist_has_password(&bl, pw.buf, pw.len);
    cli_pw_free(&pw);
    kdf_blocklist_close(&bl);
    if (r < 0) {
        cli_error("the password cannot be normalized");
        return CLI_ERR;
    }
    puts(r ? "listed" : "not listed");
    return r ? CLI_NO : CLI_OK;
}

static int
cmd_info(const char *path)
{
    struct kdf_blocklist bl;
    char err[512];

    if (kdf_blocklist_open(&bl, path, KDF_BLOCKLIST_VERIFY, err, sizeof err) != 0) {
        cli_error("%s", err);
        return CLI_ERR;
    }
    printf("entries %llu\ndigest_bytes %u\nnormalization %s\nbytes %llu\n",
           (unsigned long long)bl.count, bl.dlen, bl.norm, (unsigned long long)bl.map_len);
    kdf_blocklist_close(&bl);
    return CLI_OK;
}

int
cli_cmd_blocklist(int argc, char **argv)
{
    const char *sub = argc > 1 ? argv[1] : "";

    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(sub, "build") == 0)
        return cmd_build(argc - 1, argv + 1);
    if ((strcmp(sub, "check") == 0 || strcmp(sub, "info") == 0) && argc == 3)
        return sub[0] == 'c' ? cmd_check(argv[2]) : cmd_info(argv[2]);
    usage(stderr);
    return CLI_ERR;
}
