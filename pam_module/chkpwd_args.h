/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chkpwd_args.h - what kdfhash-chkpwd reads from its caller: the argument
 * vector and the password on stdin (protocol: chkpwd_client.h).  Pure
 * functions, kept apart from the helper's privileged main() so that a
 * fuzzer can drive them (tests/fuzz/fuzz_chkpwd.c).
 */
#ifndef KDF_CHKPWD_ARGS_H
#define KDF_CHKPWD_ARGS_H

#include <stddef.h>

/* One request: argv[1] user, argv[2] nullok|nonull, then optionally the
 * shadow file and the policy file, both absolute. */
struct kdf_chkpwd_req {
    const char *user;   /* argv[1], not yet checked as a name */
    int nullok;
    const char *shadow; /* NULL: the compiled-in file */
    const char *conf;   /* NULL: the compiled-in policy */
};

enum kdf_chkpwd_args_verdict {
    KDF_CHKPWD_ARGS_OK = 0,
    KDF_CHKPWD_ARGS_SHAPE,  /* argc outside 3..5: not called by the module */
    KDF_CHKPWD_ARGS_USAGE,  /* a bad nullok word or a relative path */
    KDF_CHKPWD_ARGS_PATHS,  /* paths from a caller they may not come from */
};

/* Read argc/argv into *req.  paths_allowed: whether a path from argv may
 * be honoured (a helper with no privilege its caller lacks). */
enum kdf_chkpwd_args_verdict kdf_chkpwd_parse_args(int argc, char *const argv[],
                                                    int paths_allowed,
                                                    struct kdf_chkpwd_req *req);

/* Read fd to EOF or until cap bytes: 0 and *len, or -1 on a read error.
 * The caller passes cap = KDF_CHKPWD_MAX_PW + 1: a *len above the maximum
 * means "too long". */
int kdf_chkpwd_read_pw(int fd, char *buf, size_t cap, size_t *len);

#endif /* KDF_CHKPWD_ARGS_H */
