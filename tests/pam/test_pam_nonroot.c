/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pam_nonroot.c - a minimal PAM application for
 * tests/pam/test_pam_nonroot.sh (doc/DESIGN.md "The helper and the command
 * line"): one pam_authenticate() of USER for SERVICE from the service files
 * in CONFDIR (pam_start_confdir), the password read from stdin in full (any
 * length, NUL bytes kept out by PAM's string API, so the first NUL ends it),
 * handed to the module by the conversation.  Runs as whatever user the
 * script makes it; prints "rc=N name" and exits with N (the PAM return code;
 * 0 = PAM_SUCCESS).
 *
 * Host hygiene around the helper: the host ignores SIGCHLD (the hard case:
 * the kernel would reap the helper itself and its verdict would be lost
 * unless the module sets SIG_DFL around its wait) and must find SIGCHLD
 * still ignored and the same number of open fds afterwards; otherwise it
 * prints "hygiene: ..." and exits 98.
 *
 * Usage: test_pam_nonroot CONFDIR SERVICE USER < password
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <security/pam_appl.h>

static char *g_pw;

static int
conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
    struct pam_response *r = calloc((size_t)n, sizeof *r);

    (void)data;
    if (r == NULL)
        return PAM_BUF_ERR;
    for (int i = 0; i < n; i++) {
        if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF ||
            msg[i]->msg_style == PAM_PROMPT_ECHO_ON) {
            r[i].resp = strdup(g_pw);
            if (r[i].resp == NULL) {
                for (int j = 0; j < i; j++)
                    free(r[j].resp);
                free(r);
                return PAM_BUF_ERR;
            }
        }
    }
    *resp = r;
    return PAM_SUCCESS;
}

static int
count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    if (d == NULL)
        return -1;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

/* No fail delay: the script times the module, not libpam's sleep.  What
 * libpam would have slept is printed ("delay=USEC", 0 when no module asked
 * for one): the script checks that a refusal through the helper, which
 * waits out its own delay, is not delayed a second time. */
static unsigned g_delay_usec;

static void
no_delay(int status, unsigned usec, void *data)
{
    (void)status;
    (void)data;
    g_delay_usec = usec;
}

int
main(int argc, char **argv)
{
    struct pam_conv c = {conv, NULL};
    pam_handle_t *pamh = NULL;
    size_t cap = 4096, n = 0;
    ssize_t r;
    struct sigaction ign, after;
    int rc, fds;

    if (argc != 4) {
        fprintf(stderr, "usage: %s CONFDIR SERVICE USER < password\n", argv[0]);
        return 99;
    }
    g_pw = malloc(cap);
    while (g_pw != NULL) {
        if (n + 1 >= cap) {
            char *p = realloc(g_pw, cap * 2);
            if (p == NULL)
                break;
            g_pw = p;
            cap *= 2;
        }
        r = read(STDIN_FILENO, g_pw + n, cap - n - 1);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    if (g_pw == NULL)
        return 99;
    g_pw[n] = '\0';
    if (n > 0 && g_pw[n - 1] == '\n')
        g_pw[n - 1] = '\0';

    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    if (sigaction(SIGCHLD, &ign, NULL) != 0)
        return 99;
    fds = count_fds();
    rc = pam_start_confdir(argv[2], argv[3], &c, argv[1], &pamh);
    if (rc == PAM_SUCCESS)
        rc = pam_set_item(pamh, PAM_FAIL_DELAY, (const void *)no_delay);
    if (rc == PAM_SUCCESS)
        rc = pam_authenticate(pamh, 0);
    printf("rc=%d %s\n", rc, pamh != NULL ? pam_strerror(pamh, rc) : "pam_start failed");
    printf("delay=%u\n", g_delay_usec);
    if (pamh != NULL)
        pam_end(pamh, rc);
    free(g_pw);
    if (sigaction(SIGCHLD, NULL, &after) != 0 || after.sa_handler != SIG_IGN) {
        printf("hygiene: SIGCHLD disposition not restored\n");
        return 98;
    }
    if (count_fds() != fds) {
        printf("hygiene: %d fds before, %d after\n", fds, count_fds());
        return 98;
    }
    return rc;
}
