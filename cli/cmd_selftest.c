/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_selftest.c - `kdfhash selftest`: the known-answer self-tests that the
 * PAM module runs before its first use under profile = fips
 * (kdf_selftest()), one line per algorithm group, for an admin or a
 * monitoring job to run on demand.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void
usage(FILE *f)
{
    fputs("Usage: kdfhash selftest\n"
          "Run the known-answer self-tests of SHA-1/256/512, HMAC and PBKDF2 (the\n"
          "ones profile = fips runs before first use): one line per group, then\n"
          "\"selftest: passed\" (exit 0) or the group that failed (exit 1).\n",
          f);
    cli_print_exit_codes(f);
}

int
cli_cmd_selftest(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *failed = NULL, *g;
    enum kdf_status st;
    int c, past = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return CLI_OK;
        }
        usage(stderr);
        return CLI_ERR;
    }
    if (argc != optind) {
        usage(stderr);
        return CLI_ERR;
    }
    st = kdf_selftest(&failed);
    /* The tests run in group order and stop at the first failure. */
    for (size_t i = 0; (g = kdf_selftest_name(i)) != NULL; i++) {
        int here = st != KDF_OK && failed != NULL && strcmp(g, failed) == 0;

        printf("%s: %s\n", g, here ? "FAILED" : past ? "not run" : "ok");
        past |= here;
    }
    if (st != KDF_OK) {
        printf("selftest: FAILED (%s)\n", failed != NULL ? failed : kdf_status_str(st));
        return CLI_NO;
    }
    printf("selftest: passed\n");
    return CLI_OK;
}
