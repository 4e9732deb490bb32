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
#include <malloc.h>
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
#include "san_detect.h"

/* <syslog.h> is not included: under _FORTIFY_SOURCE it turns syslog() into
 * an inline wrapper that the definitions below would clash with. */
#define HOST_LOG_PRI(p) ((p)&7)

volatile int host_in_pam;

/* The module's journal events go to the socket this names (journal.c's
 * test hook, exported by PAM_HOST_LDFLAGS), never to a journald of the
 * machine; with nothing bound there they fall back to syslog, which the
 * capture below reads. */
char host_journal_socket[108] = "/nonexistent/kdfhash-test-journal";
extern const char *const kdf_pam_journal_socket_override;
const char *const kdf_pam_journal_socket_override = host_journal_socket;

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
    /* Only the module's own lines: "pam_kdfhash(service:group): ...", and
     * the count of its later refusals that libpam writes at pam_end under
     * its own prefix (journal.c, as pam_unix's). */
    if (strncmp(buf, "pam_kdfhash(", 12) != 0 &&
        !(strncmp(buf, "PAM ", 4) == 0 && strstr(buf, " more authentication failure") != NULL))
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

/* ---- secrets in freed memory -------------------------------------------- */

/*
 * Secrets in freed memory (the CVE-2024-10041 pattern): free() is
 * interposed by the test program and, while libpam and the module run
 * (host_in_pam), every block freed is scanned for the registered secrets.
 * ASan owns free() in sanitizer builds: there the scan is off.
 */
#define HOST_MAX_SECRETS 8
static char g_secret[HOST_MAX_SECRETS][64];
static size_t g_secret_len[HOST_MAX_SECRETS];
static size_t g_nsecrets, g_scanned, g_hits;

void
host_scan_secret(const void *p, size_t n)
{
    if (g_nsecrets == HOST_MAX_SECRETS || n == 0)
        return;
    if (n > sizeof g_secret[0])
        n = sizeof g_secret[0];
    memcpy(g_secret[g_nsecrets], p, n);
    g_secret_len[g_nsecrets++] = n;
}

void
host_scan_reset(void)
{
    explicit_bzero(g_secret, sizeof g_secret);
    g_nsecrets = g_scanned = g_hits = 0;
}

size_t
host_scan_hits(void)
{
    return g_hits;
}

int
host_scan_active(void)
{
#ifdef KDF_UNDER_ASAN
    return 0;
#else
    return g_scanned > 0;
#endif
}

#ifndef KDF_UNDER_ASAN
/* glibc's own allocator entry points, exported for exactly this kind of
 * interposer (glibc routes its internal calls, stdio's included, through
 * the interposable free/realloc). */
extern void __libc_free(void *p);
extern void *__libc_malloc(size_t n);
void free(void *p);
void *realloc(void *p, size_t n);

/* Every block is wiped as it is freed, so a secret found inside libpam or
 * the module cannot be stale bytes of the harness's own earlier buffers
 * (the shadow file it wrote, say) in a recycled chunk. */
void
free(void *p)
{
    size_t n;

    if (p == NULL)
        return;
    n = malloc_usable_size(p);
    if (host_in_pam) {
        g_scanned++;
        for (size_t i = 0; i < g_nsecrets; i++)
            if (n >= g_secret_len[i] &&
                memmem(p, n, g_secret[i], g_secret_len[i]) != NULL) {
                g_hits++;
                break;
            }
    }
    explicit_bzero(p, n);
    __libc_free(p);
}

/* glibc's realloc frees a moved block internally: route it through free. */
void *
realloc(void *p, size_t n)
{
    void *q;
    size_t old;

    if (p == NULL)
        return __libc_malloc(n);
    if (n == 0) {
        free(p);
        return NULL;
    }
    q = __libc_malloc(n);
    if (q == NULL)
        return NULL;
    old = malloc_usable_size(p);
    memcpy(q, p, old < n ? old : n);
    free(p);
    return q;
}
#endif

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

/* libpam calls the application's delay function instead of sleeping: the
 * tests record what the modules asked for and never wait for it. */
static long g_fail_delay = -1;

static void
host_delay_fn(int retval, unsigned usec, void *appdata)
{
    (void)retval;
    (void)appdata;
    g_fail_delay = (long)usec;
}

long
host_fail_delay(void)
{
    return g_fail_delay;
}

int
host_auth(const char *confdir, const char *user, struct host_conv *c, int flags)
{
    struct pam_conv pc = {host_conv_fn, c};
    pam_handle_t *pamh = NULL;
    int rc;

    host_log_reset();
    g_fail_delay = -1;
    host_in_pam = 1;
    rc = pam_start_confdir(HOST_SERVICE, user, &pc, confdir, &pamh);
    if (rc != PAM_SUCCESS) {
        host_in_pam = 0;
        return -1000 - rc; /* never a valid PAM code: the harness broke */
    }
    rc = pam_set_item(pamh, PAM_FAIL_DELAY, (const void *)host_delay_fn);
    if (rc != PAM_SUCCESS) {
        pam_end(pamh, rc);
        host_in_pam = 0;
        return -1000 - rc;
    }
    rc = pam_authenticate(pamh, flags);
    pam_end(pamh, rc);
    host_in_pam = 0;
    return rc;
}
