/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_schemes.c - `kdfhash schemes`: the core's scheme table as the admin
 * sees it: each scheme's name, whether it can be a target and with which
 * defaults (the text a target = line takes), and what it is.  The shell
 * completion reads `kdfhash schemes --names`, so no list of schemes lives
 * outside the table.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static void
usage(FILE *f)
{
    fputs("Usage: kdfhash schemes [--names]\n"
          "Print every scheme the core reads: its name, its default target (the\n"
          "text of a 'target =' line; '-' when it is verified only) and a summary.\n"
          "  --names       only the names that a target or --scheme can take\n",
          f);
    cli_print_exit_codes(f);
}

int
cli_cmd_schemes(int argc, char **argv)
{
    static const struct option opts[] = {{"names", no_argument, NULL, 'n'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    const char *name, *summary;
    int c, names = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "nh", opts, NULL)) != -1) {
        if (c == 'n') {
            names = 1;
        } else if (c == 'h') {
            usage(stdout);
            return CLI_OK;
        } else {
            usage(stderr);
            return CLI_ERR;
        }
    }
    if (argc != optind) {
        usage(stderr);
        return CLI_ERR;
    }
    for (size_t i = 0; (name = kdf_scheme_at(i, &summary)) != NULL; i++) {
        struct kdf_target t;
        char text[256];
        int target = kdf_target_parse(name, &t, NULL, 0) == KDF_OK &&
                     kdf_target_format(&t, text, sizeof text) == KDF_OK;

        if (names) {
            if (target)
                printf("%s\n", name);
            continue;
        }
        printf("%-14s %-56s %s\n", name, target ? text : "-", summary ? summary : "");
    }
    return CLI_OK;
}
