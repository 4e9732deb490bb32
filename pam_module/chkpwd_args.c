/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * chkpwd_args.c - kdfhash-chkpwd's argument vector and stdin framing
 * (chkpwd_args.h).  No privilege, no syslog, no global state.
 */
#include "chkpwd_args.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

enum kdf_chkpwd_args_verdict
kdf_chkpwd_parse_args(int argc, char *const argv[], int paths_allowed,
                      struct kdf_chkpwd_req *req)
{
    memset(req, 0, sizeof *req);
    if (argc < 3 || argc > 5 || argv == NULL)
        return KDF_CHKPWD_ARGS_SHAPE;
    req->user = argv[1];
    if (strcmp(argv[2], "nullok") == 0)
        req->nullok = 1;
    else if (strcmp(argv[2], "nonull") != 0)
        return KDF_CHKPWD_ARGS_USAGE;
    if (argc >= 4) {
        if (!paths_allowed)
            return KDF_CHKPWD_ARGS_PATHS;
        if (argv[3][0] != '/' || (argc == 5 && argv[4][0] != '/'))
            return KDF_CHKPWD_ARGS_USAGE;
        req->shadow = argv[3];
        if (argc == 5)
            req->conf = argv[4];
    }
    return KDF_CHKPWD_ARGS_OK;
}

int
kdf_chkpwd_read_pw(int fd, char *buf, size_t cap, size_t *len)
{
    size_t n = 0;

    while (n < cap) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        n += (size_t)r;
    }
    *len = n;
    return 0;
}
