/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cli.h - the kdfhash(1) command line: one table row per subcommand
 * (main.c), one cmd_*.c file per family of subcommands, shared helpers in
 * common.c and the password reader in pwread.c.
 *
 * Exit codes (kdfhash(1), doc/DESIGN.md "The helper and the command
 * line"): 0 success / match / ok, 1 mismatch or "needs rehash", 2 malformed
 * input, usage or any other error.
 */
#ifndef KDFHASH_CLI_H
#define KDFHASH_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "kdfhash.h"
#include "kdfhash_cpu.h"
#include "tpm_child.h"

enum { CLI_OK = 0, CLI_NO = 1, CLI_ERR = 2 };

struct cli_cmd {
    const char *name;
    const char *summary;                 /* one line for `kdfhash --help` */
    int (*run)(int argc, char **argv);   /* argv[0] is the subcommand */
};

/* Subcommands (cmd_parse.c, cmd_audit.c, cmd_verify.c, cmd_cpu.c). */
int cli_cmd_parse(int argc, char **argv);
int cli_cmd_needs_rehash(int argc, char **argv);
int cli_cmd_audit(int argc, char **argv);
int cli_cmd_verify(int argc, char **argv);
int cli_cmd_hash(int argc, char **argv);
int cli_cmd_cpu(int argc, char **argv);
int cli_cmd_schemes(int argc, char **argv);
int cli_cmd_check_conf(int argc, char **argv);
int cli_cmd_disable(int argc, char **argv); /* cmd_audit.c */
int cli_cmd_keys(int argc, char **argv);    /* cmd_keys.c */
/* cmd_calibrate.c, cmd_bench.c */
int cli_cmd_calibrate(int argc, char **argv);
/* calibrate_rate.c: the directory profile's target for rate binds/s on
 * cores CPUs (calibrate --rate). */
int cli_calibrate_rate(const struct kdf_policy *pol, uint32_t rate, uint32_t cores,
                       uint32_t max_mem, int json);
int cli_cmd_bench(int argc, char **argv);
/* cmd_blocklist.c: build, check and info of the compromised-password list. */
int cli_cmd_blocklist(int argc, char **argv);
/* cmd_selftest.c: the known-answer self-tests of profile = fips. */
int cli_cmd_selftest(int argc, char **argv);
/* cmd_wrap.c: wrap the outdated entries of shadow and the history. */
int cli_cmd_wrap(int argc, char **argv);
/* blocklist_build.c: write out from the sources (plain lists or Pwned
 * Passwords files), sorting chunk entries in memory at once.  CLI_OK or
 * CLI_ERR (said). */
int cli_blocklist_build(const char *const *src, size_t nsrc, const char *out, size_t chunk);

/* ---- common.c ---- */
/* CLOCK_MONOTONIC in milliseconds (calibrate and bench time runs). */
double cli_now_ms(void);
/* Best of reps kdf_hash_ex() runs of t under pol, in ms; < 0 on error
 * (said on stderr).  calibrate and calibrate --rate time targets with it. */
double cli_time_hash(const struct kdf_policy *pol, const struct kdf_target *t, int reps);

/* Fsync the directory that holds path, so that a rename into it lasts. */
void cli_sync_dir(const char *path);

/* "kdfhash: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Load the policy: FILE when given (must exist), else the system file
 * (KDF_DEFAULT_CONF: $(sysconfdir)/security/kdfhash.conf) when it exists,
 * else defaults.
 * CLI_OK or CLI_ERR (message printed). */
int cli_load_policy(struct kdf_policy *pol, const char *conf_path);

/* --keys DIR: the key directory of the policies cli_load_policy() loads
 * afterwards (default KDF_KEYS_DIR). */
void cli_set_keys_dir(const char *dir);
/* The key directory that --keys set, or the build's. */
const char *cli_keys_dir(void);

/* After KDF_NOKEY under a policy of cli_load_policy(): which key and why
 * ("key K6dMDUo4: /etc/security/kdfhash.keys.d/K6dMDUo4: missing"), or
 * NULL when no key was asked for. */
const char *cli_key_error(void);

/* HASH from argv, or from stdin when it is "-" (one line, its newline
 * removed, read into buf of cap bytes).  *hash and *len get the string.
 * CLI_OK/CLI_ERR. */
int cli_get_hash_arg(const char *arg, char *buf, size_t cap, const char **hash,
                     size_t *len);

/* getopt_long() for a subcommand that words its own usage errors: getopt
 * prints nothing, and on '?' (an unknown option) or ':' (one without its
 * value; opts must start with ":" or "+:") *bad gets the argument that held
 * it, for "unknown or incomplete option '...'".  Start with optind = 1. */
int cli_getopt(int argc, char **argv, const char *opts, const struct option *longopts,
               const char **bad);

/* "--isa NAME": force that implementation.  CLI_OK/CLI_ERR. */
int cli_force_isa(const char *name);

/* The fields of a parsed hash, never its salt or digest:
 * "scheme=argon2id version=19 m=65536 t=3 p=4 salt_len=16 digest_len=32". */
void cli_format_fields(const struct kdf_hash *h, char *out, size_t cap);
/* Compact parameters for audit lines ("v=19,m=65536,t=3,p=4",
 * "minor=b,cost=12", "format=passlib,i=600000", "prefix=$6$"), and the cost
 * key the audit summary groups by ("m=65536,t=3,p=4", "cost=12"). */
void cli_format_params(const struct kdf_hash *h, char *out, size_t cap);
void cli_format_costs(const struct kdf_hash *h, char *out, size_t cap);

/* 1 and the key ID (id) when the password field f[0..n) is keyed, a lock
 * marker before it or not; else 0 and "". */
int cli_hash_keyid(const char *f, size_t n, char id[KDF_KEYID_CAP]);

/* keys_list.c: `kdfhash keys list`, the keys a policy, a key directory,
 * shadow-style files and a history file name, each with its state. */
int cli_keys_list(const char *dir, const char *conf, const char *const *shadow,
                  size_t nshadow, const char *history);

/* Shared usage trailer: exit codes. */
void cli_print_exit_codes(FILE *f);

/* ---- history.c: the password history of remember=N ---- */
/* pam_unix's and pam_pwhistory's file (pam_kdfhash(8) PASSWORD HISTORY). */
#define CLI_HISTORY_FILE "/etc/security/opasswd"
/* Called for each entry of the file: its user (ulen bytes, not
 * NUL-terminated) and the entry as a hash string (its ';' turned back to
 * ','; wiped after the call).  For cli_history_drop(), non-zero drops it;
 * cli_history_each() ignores the value. */
typedef int (*cli_history_fn)(void *ctx, const char *user, size_t ulen, const char *entry,
                              size_t elen);
/* Each entry of the history file path; a missing file has none (*missing
 * set, may be NULL).  CLI_OK or CLI_ERR (said). */
int cli_history_each(const char *path, cli_history_fn fn, void *ctx, int *missing);
/* Drop the entries drop() says, by an atomic rewrite under the lock of the
 * shadow-style file lock_for (/etc/.pwd.lock for /etc/shadow); *dropped
 * gets how many.  CLI_OK (the file unchanged when none) or CLI_ERR (said;
 * the file unchanged). */
int cli_history_drop(const char *path, const char *lock_for, cli_history_fn drop, void *ctx,
                     unsigned long *dropped);

/* ---- pwread.c ---- */
struct cli_pw {
    char *buf;  /* malloc'd; wiped by cli_pw_free() */
    size_t cap; /* bytes allocated */
    size_t len; /* password bytes in buf (not NUL-terminated) */
};
/* Read a password from stdin: up to EOF (a tty: up to the end of the line,
 * without echo), exactly one trailing "\n" removed, at most max_len bytes
 * (no more than max_len + 2 are ever read).  CLI_OK, or CLI_ERR with a
 * message printed ("password too long"). */
int cli_pw_read(struct cli_pw *pw, size_t max_len);
void cli_pw_free(struct cli_pw *pw);

#endif /* KDFHASH_CLI_H */
