/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_host.c - the test PAM application (see pam_host.h).
 *
 * Syslog capture: libpam's pam_vsyslog() formats the line and calls
 * syslog(), which Debian's _FORTIFY_SOURCE build turns into __syslog_chk().
 * Defining both here interposes them for libpam (the executable comes first
 * in the symbol lookup scope), so every module log line lands in memory
 * instead of /dev/log, where the tests can check level and content.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <security/pam_appl.h>

#include "pam_host.h"

/* <syslog.h> is not included: under _FORTIFY_SOURCE it turns syslog() into
 * an inline wrapper that the definitions below would clash with. */
#define HOST_LOG_PRI(p) ((p)&7)

static struct host_log g_log[HOST_MAX_LOG];
static size_t g_nlog;

void syslog(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void __syslog_chk(int prio, int flag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void vsyslog(int prio, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void __vsyslog_chk(int prio, int flag, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void capture(int prio, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void
capture(int prio, const char *fmt, va_list ap)
{
    char buf[sizeof g_log[0].text];

    vsnprintf(buf, sizeof buf, fmt, ap);
    /* Only the module's own lines: "pam_kdfhash(service:group): ...". */
    if (strncmp(buf, "pam_kdfhash(", 12) != 0)
        return;
    if (g_nlog == HOST_MAX_LOG)
        return;
    g_log[g_nlog].prio = HOST_LOG_PRI(prio);
    memcpy(g_log[g_nlog].text, buf, sizeof buf);
    g_nlog++;
}

void
syslog(int prio, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    capture(prio, fmt, ap);
    va_end(ap);
}

void
__syslog_chk(int prio, int flag, const char *fmt, ...)
{
    va_list ap;
    (void)flag;
    va_start(ap, fmt);
    capture(prio, fmt, ap);
    va_end(ap);
}

void
vsyslog(int prio, const char *fmt, va_list ap)
{
    capture(prio, fmt, ap);
}

void
__vsyslog_chk(int prio, int flag, const char *fmt, va_list ap)
{
    (void)flag;
    capture(prio, fmt, ap);
}

size_t
host_log_count(void)
{
    return g_nlog;
}

const struct host_log *
host_log_get(size_t i)
{
    return i < g_nlog ? &g_log[i] : NULL;
}

void
host_log_reset(void)
{
    g_nlog = 0;
}

size_t
host_log_count_prio(int prio)
{
    size_t n = 0;
    for (size_t i = 0; i < g_nlog; i++)
        n += g_log[i].prio == prio;
    return n;
}

int
host_log_contains(const void *needle, size_t n)
{
    for (size_t i = 0; i < g_nlog; i++)
        if (n > 0 && memmem(g_log[i].text, strlen(g_log[i].text), needle, n) != NULL)
            return 1;
    return 0;
}

/* ---- files -------------------------------------------------------------- */

static void
die(const char *what, const char *path)
{
    fprintf(stderr, "pam_host: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(99); /* a hard error of the harness, not a test result */
}

char *
host_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char *t;

    if (base == NULL || base[0] != '/')
        base = "/tmp";
    if (asprintf(&t, "%s/kdfpam.XXXXXX", base) < 0)
        die("asprintf", NULL);
    if (mkdtemp(t) == NULL)
        die("mkdtemp", t);
    return t;
}

void
host_rmtree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char p[4096];

    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        if (unlink(p) != 0)
            host_rmtree(p);
    }
    closedir(d);
    rmdir(dir);
}

void
host_write(const char *path, const void *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const char *p = data;

    if (fd < 0)
        die("open", path);
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            die("write", path);
        p += w;
        n -= (size_t)w;
    }
    close(fd);
}

char *
host_read(const char *path, size_t *n)
{
    struct stat st;
    char *buf;
    size_t got = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0 || fstat(fd, &st) != 0)
        die("open", path);
    buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL)
        die("malloc", path);
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r <= 0)
            die("read", path);
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    if (n != NULL)
        *n = got;
    return buf;
}

void
host_service(const char *confdir, const char *const *lines, size_t n)
{
    char path[4096];
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    if (f == NULL)
        die("open_memstream", NULL);
    for (size_t i = 0; i < n; i++) {
        for (const char *s = lines[i]; *s; s++) {
            if (s[0] == '%' && s[1] == 'M') {
                fputs(KDF_PAM_MODULE, f);
                s++;
#ifdef KDF_PAM_SETTOK
            } else if (s[0] == '%' && s[1] == 'T') {
                fputs(KDF_PAM_SETTOK, f);
                s++;
#endif
            } else {
                fputc(*s, f);
            }
        }
        fputc('\n', f);
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/%s", confdir, HOST_SERVICE);
    host_write(path, text, len);
    free(text);
}

/* ---- the conversation --------------------------------------------------- */

int
host_conv_fn(int num_msg, const struct pam_message **msg, struct pam_response **resp,
             void *appdata)
{
    struct host_conv *c = appdata;
    struct pam_response *r;

    if (num_msg <= 0)
        return PAM_CONV_ERR;
    r = calloc((size_t)num_msg, sizeof *r);
    if (r == NULL)
        return PAM_BUF_ERR;
    for (int i = 0; i < num_msg; i++) {
        if (msg[i]->msg_style != PAM_PROMPT_ECHO_OFF)
            continue;
        c->calls++;
        if (c->rc != PAM_SUCCESS) {
            free(r);
            return c->rc;
        }
        r[i].resp = malloc(c->pw_len + 1);
        if (r[i].resp == NULL) {
            free(r);
            return PAM_BUF_ERR;
        }
        memcpy(r[i].resp, c->pw, c->pw_len);
        r[i].resp[c->pw_len] = '\0';
    }
    *resp = r;
    return PAM_SUCCESS;
}

int
host_auth(const char *confdir, const char *user, struct host_conv *c, int flags)
{
    struct pam_conv pc = {host_conv_fn, c};
    pam_handle_t *pamh = NULL;
    int rc;

    host_log_reset();
    rc = pam_start_confdir(HOST_SERVICE, user, &pc, confdir, &pamh);
    if (rc != PAM_SUCCESS)
        return -1000 - rc; /* never a valid PAM code: the harness broke */
    rc = pam_authenticate(pamh, flags);
    pam_end(pamh, rc);
    return rc;
}
