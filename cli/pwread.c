/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pwread.c - the password from stdin (doc/DESIGN.md "The helper and the
 * command line"): never from argv or the environment, where ps(1) and
 * /proc show it.
 *
 * A pipe is read to EOF and exactly one trailing newline is removed, so
 * that `printf 'pw' |` and `echo pw |` mean the same and a password may
 * itself end in a newline (`printf 'pw\n\n'`).  A terminal is read to the
 * end of the line with echo off; the terminal settings are restored on
 * return and, should a signal end the program meanwhile, by the handler.
 * The read is capped at max.password + 2 bytes: a password of a gigabyte
 * is refused after reading a few kilobytes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"

static struct termios g_saved;
static volatile sig_atomic_t g_echo_off;

/* Restore the terminal, then die of the signal as we would have. */
static void
on_signal(int sig)
{
    if (g_echo_off)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_saved);
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int g_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP};

static void
echo_off(struct sigaction *old)
{
    struct termios t;
    struct sigaction sa;

    if (tcgetattr(STDIN_FILENO, &g_saved) != 0)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof g_sigs / sizeof g_sigs[0]; i++)
        sigaction(g_sigs[i], &sa, &old[i]);
    t = g_saved;
    t.c_lflag &= (tcflag_t) ~(ECHO | ECHOE | ECHOK | ECHONL);
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) == 0)
        g_echo_off = 1;
}

static void
echo_restore(const struct sigaction *old)
{
    if (g_echo_off) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_saved);
        g_echo_off = 0;
        fputc('\n', stderr);
    }
    for (size_t i = 0; i < sizeof g_sigs / sizeof g_sigs[0]; i++)
        sigaction(g_sigs[i], &old[i], NULL);
}

int
cli_pw_read(struct cli_pw *pw, size_t max_len)
{
    struct sigaction old[sizeof g_sigs / sizeof g_sigs[0]];
    int tty = isatty(STDIN_FILENO);
    size_t n = 0;
    int rc = CLI_OK;

    memset(pw, 0, sizeof *pw);
    pw->cap = max_len + 2; /* the password, its newline, and one to tell */
    pw->buf = malloc(pw->cap);
    if (pw->buf == NULL) {
        cli_error("out of memory");
        return CLI_ERR;
    }
    if (tty) {
        memset(old, 0, sizeof old);
        echo_off(old);
        fputs("Password: ", stderr);
        fflush(stderr);
    }
    while (n < pw->cap) {
        ssize_t r = read(STDIN_FILENO, pw->buf + n, pw->cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            cli_error("cannot read the password: %s", strerror(errno));
            rc = CLI_ERR;
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (tty) {
            char *nl = memchr(pw->buf + n - (size_t)r, '\n', (size_t)r);
            if (nl != NULL) {
                n = (size_t)(nl - pw->buf) + 1; /* drop what follows the line */
                break;
            }
        }
    }
    if (tty)
        echo_restore(old);
    if (rc == CLI_OK) {
        if (n > 0 && pw->buf[n - 1] == '\n')
            n--;
        if (n > max_len) {
            cli_error("password too long (max.password is %zu bytes)", max_len);
            rc = CLI_ERR;
        }
    }
    pw->len = rc == CLI_OK ? n : 0;
    if (rc != CLI_OK)
        cli_pw_free(pw);
    return rc;
}

void
cli_pw_free(struct cli_pw *pw)
{
    if (pw->buf != NULL) {
        kdf_wipe(pw->buf, pw->cap);
        free(pw->buf);
    }
    memset(pw, 0, sizeof *pw);
}
