/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * main.c - kdfhash(1): find the subcommand in the table and run it.
 *
 * Adding a subcommand is one row here plus its cmd_*.c file (calibrate
 * and bench are added that way).  Each subcommand parses its own options
 * and answers --help itself.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static const struct cli_cmd g_cmds[] = {
    {"parse", "print the fields of a hash string", cli_cmd_parse},
    {"needs-rehash", "say whether a hash is outdated under the policy", cli_cmd_needs_rehash},
    {"audit", "report every account of a shadow-style file", cli_cmd_audit},
    {"verify", "check a password (stdin) against a hash", cli_cmd_verify},
    {"hash", "make a new hash of a password (stdin)", cli_cmd_hash},
    {"cpu", "show CPU features and the implementations picked", cli_cmd_cpu},
    {"schemes", "list the schemes, their default targets and summaries", cli_cmd_schemes},
    {"check-conf", "check a kdfhash.conf before installing it", cli_cmd_check_conf},
    {"keys", "make, list, retire and export the keys (peppers) of keyed hashes", cli_cmd_keys},
    {"disable", "pam-auth-update --disable kdfhash, unless that strands accounts",
     cli_cmd_disable},
    {"calibrate", "print a target that takes about N ms here", cli_cmd_calibrate},
    {"bench", "time our schemes and each CPU variant", cli_cmd_bench},
    {"blocklist", "build the compromised-password list, check a password (stdin)",
     cli_cmd_blocklist},
    {"selftest", "run the known-answer self-tests (SHA, HMAC, PBKDF2)", cli_cmd_selftest},
    {"wrap", "wrap the outdated entries of users who never log in", cli_cmd_wrap},
};

static void
usage(FILE *f)
{
    fprintf(f, "Usage: kdfhash COMMAND [OPTIONS] [ARGS]\n"
               "       kdfhash COMMAND --help\n"
               "       kdfhash --version\n\n"
               "Commands:\n");
    for (size_t i = 0; i < sizeof g_cmds / sizeof g_cmds[0]; i++)
        fprintf(f, "  %-14s %s\n", g_cmds[i].name, g_cmds[i].summary);
    fputc('\n', f);
    cli_print_exit_codes(f);
}

int
main(int argc, char **argv)
{
    const char *name;

    if (argc < 2) {
        usage(stderr);
        return CLI_ERR;
    }
    name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            /* "kdfhash help CMD" is "kdfhash CMD --help". */
            for (size_t i = 0; i < sizeof g_cmds / sizeof g_cmds[0]; i++) {
                if (strcmp(argv[2], g_cmds[i].name) == 0) {
                    char *hargv[] = {argv[2], (char *)"--help", NULL};
                    return g_cmds[i].run(2, hargv);
                }
            }
            cli_error("unknown command '%.40s'", argv[2]);
            return CLI_ERR;
        }
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("kdfhash %s\n", PACKAGE_VERSION);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof g_cmds / sizeof g_cmds[0]; i++)
        if (strcmp(name, g_cmds[i].name) == 0)
            return g_cmds[i].run(argc - 1, argv + 1);
    cli_error("unknown command '%.40s' (try kdfhash --help)", name);
    return CLI_ERR;
}
