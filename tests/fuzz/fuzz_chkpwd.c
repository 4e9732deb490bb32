/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_chkpwd.c - libFuzzer target for what kdfhash-chkpwd reads from its
 * caller (pam_module/chkpwd_args.c): the argument vector and the password
 * on stdin, built with clang -fsanitize=fuzzer,address,undefined
 * (tests/local.mk, fuzz section).
 *
 * Input: byte 0 picks whether paths may be honoured (bit 0) and how the
 * password is written to the pipe (bits 1-3: chunk size 1..8 bytes, or
 * all at once); then NUL-separated argv words up to a 0xff byte, at most
 * 7 of them (argv[0] included); the rest is stdin.
 *
 * The model, checked on every input besides "no crash, no sanitizer
 * report", is the protocol of chkpwd_client.h written out again:
 *   1. argc 3..5, else SHAPE; argv[2] exactly "nullok" or "nonull", else
 *      USAGE; with a 4th or 5th word, PATHS when paths are not allowed,
 *      else USAGE unless each starts with '/'.
 *   2. On OK the request points into argv: user = argv[1], shadow and conf
 *      the 4th and 5th words or NULL, nullok as the word says.
 *   3. stdin is read to EOF however it is chunked, never past cap:
 *      len = min(size, cap) and the bytes are stdin's first len.
 * A failed property prints the line and calls abort().
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chkpwd_args.h"
#include "chkpwd_client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(x)                                                                         \
    do {                                                                                 \
        if (!(x)) {                                                                      \
            fprintf(stderr, "fuzz_chkpwd: %s:%d: check failed: %s\n", __FILE__,          \
                    __LINE__, #x);                                                       \
            abort();                                                                     \
        }                                                                                \
    } while (0)

#define MAX_WORDS 7
#define CAP (KDF_CHKPWD_MAX_PW + 1)

static enum kdf_chkpwd_args_verdict
model(int argc, char *const argv[], int paths_allowed)
{
    if (argc < 3 || argc > 5)
        return KDF_CHKPWD_ARGS_SHAPE;
    if (strcmp(argv[2], "nullok") != 0 && strcmp(argv[2], "nonull") != 0)
        return KDF_CHKPWD_ARGS_USAGE;
    if (argc > 3 && !paths_allowed)
        return KDF_CHKPWD_ARGS_PATHS;
    for (int i = 3; i < argc; i++)
        if (argv[i][0] != '/')
            return KDF_CHKPWD_ARGS_USAGE;
    return KDF_CHKPWD_ARGS_OK;
}

static void
check_args(const uint8_t *data, size_t n, int paths_allowed)
{
    static char words[MAX_WORDS][256];
    char *argv[MAX_WORDS + 1];
    struct kdf_chkpwd_req req;
    enum kdf_chkpwd_args_verdict got, want;
    int argc = 0;
    size_t i = 0;

    while (i <= n && argc < MAX_WORDS) {
        size_t j = i, k = 0;
        while (j < n && data[j] != 0 && k < sizeof words[0] - 1)
            words[argc][k++] = (char)data[j++];
        words[argc][k] = '\0';
        argv[argc] = words[argc];
        argc++;
        if (j >= n)
            break;
        i = j + 1;
    }
    argv[argc] = NULL;
    got = kdf_chkpwd_parse_args(argc, argv, paths_allowed, &req);
    want = model(argc, argv, paths_allowed);
    CHECK(got == want);
    if (got != KDF_CHKPWD_ARGS_OK)
        return;
    CHECK(req.user == argv[1]);
    CHECK(req.nullok == (strcmp(argv[2], "nullok") == 0));
    CHECK(req.shadow == (argc > 3 ? argv[3] : NULL));
    CHECK(req.conf == (argc > 4 ? argv[4] : NULL));
}

static void
check_stdin(const uint8_t *data, size_t n, unsigned chunk)
{
    static char buf[CAP];
    size_t len = 12345, off = 0;
    int p[2];
    pid_t pid;

    CHECK(pipe(p) == 0);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        signal(SIGPIPE, SIG_IGN); /* the reader stops at cap */
        while (off < n) {
            size_t w = chunk == 0 || n - off < chunk ? n - off : chunk;
            ssize_t r = write(p[1], data + off, w);
            if (r <= 0)
                break;
            off += (size_t)r;
        }
        _exit(0);
    }
    close(p[1]);
    CHECK(kdf_chkpwd_read_pw(p[0], buf, sizeof buf, &len) == 0);
    close(p[0]);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    CHECK(len == (n < CAP ? n : CAP));
    CHECK(memcmp(buf, data, len) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *sep;
    size_t alen;

    if (size == 0)
        return 0;
    sep = memchr(data + 1, 0xff, size - 1);
    alen = sep != NULL ? (size_t)(sep - (data + 1)) : size - 1;
    check_args(data + 1, alen, data[0] & 1);
    if (sep != NULL)
        check_stdin(sep + 1, size - 1 - alen - 1, (data[0] >> 1) & 7);
    return 0;
}
