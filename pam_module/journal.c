/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * journal.c - the module's events to journald with structured fields, or to
 * syslog where there is no journald (journal.h), and pam_unix's lines for a
 * refused login.
 *
 * journald's native protocol needs no libsystemd: one datagram of
 * "KEY=value\n" fields to its socket, and for a value holding a newline
 * "KEY\n", its length as 64-bit little-endian, the value and "\n"
 * (systemd's sd_journal_sendv() does the same).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "journal.h"

/* ---- the one list ------------------------------------------------------- */

static const struct {
    const char *name, *id;
} g_events[] = {
#define KDF_PAM_EVENT_ROW(e, name, id, what) {name, id},
    KDF_PAM_EVENTS(KDF_PAM_EVENT_ROW)
#undef KDF_PAM_EVENT_ROW
};

const char *
kdf_pam_event_name(enum kdf_pam_event ev)
{
    return (unsigned)ev < KDF_PAM_EV_COUNT ? g_events[ev].name : "";
}

const char *
kdf_pam_event_id(enum kdf_pam_event ev)
{
    return (unsigned)ev < KDF_PAM_EV_COUNT ? g_events[ev].id : "";
}

/* ---- the native protocol ------------------------------------------------ */

/*
 * The tests load the shipped module and must reach neither the machine's
 * journald nor a socket of their own by any way a caller could use: no
 * argument, no environment (a setuid caller's environment is the user's).
 * A host program that defines and exports this symbol names the socket
 * instead (tests/pam/pam_host.c); no program that runs PAM does.
 */
extern const char *const kdf_pam_journal_socket_override __attribute__((weak));

static const char *
socket_path(void)
{
    if (&kdf_pam_journal_socket_override != NULL && kdf_pam_journal_socket_override != NULL)
        return kdf_pam_journal_socket_override;
    return KDF_PAM_JOURNAL_SOCKET;
}

struct rec {
    char buf[4096];
    size_t len;
    int full;
};

static void
put(struct rec *r, const void *p, size_t n)
{
    if (r->full || n > sizeof r->buf - r->len) {
        r->full = 1;
        return;
    }
    memcpy(r->buf + r->len, p, n);
    r->len += n;
}

static void
field(struct rec *r, const char *key, const char *val)
{
    size_t n;

    if (val == NULL || val[0] == '\0')
        return;
    n = strlen(val);
    put(r, key, strlen(key));
    if (memchr(val, '\n', n) == NULL) {
        put(r, "=", 1);
    } else {
        unsigned char le[8];
        uint64_t v = n;

        for (int i = 0; i < 8; i++, v >>= 8)
            le[i] = (unsigned char)(v & 0xff);
        put(r, "\n", 1);
        put(r, le, sizeof le);
    }
    put(r, val, n);
    put(r, "\n", 1);
}

static void
field_int(struct rec *r, const char *key, long v)
{
    char num[24];

    snprintf(num, sizeof num, "%ld", v);
    field(r, key, num);
}

/* 0: sent; 1: journald took nothing and is not there (the caller logs to
 * syslog); -1: dropped (busy or too long: never waited for). */
static int
send_rec(const struct rec *r)
{
    struct sockaddr_un sa;
    const char *path = socket_path();
    size_t plen = strlen(path);
    int fd, e;
    ssize_t n;

    if (r->full)
        return 1;
    if (plen >= sizeof sa.sun_path)
        return 1;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, plen);
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return 1;
    n = sendto(fd, r->buf, r->len, MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&sa,
               (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen));
    e = errno;
    close(fd);
    if (n == (ssize_t)r->len)
        return 0;
    return n < 0 && (e == EAGAIN || e == EWOULDBLOCK || e == ENOBUFS) ? -1 : 1;
}

static const char *
item(pam_handle_t *pamh, int which)
{
    const void *v = NULL;

    if (pam_get_item(pamh, which, &v) != PAM_SUCCESS)
        return NULL;
    return v;
}

void
kdf_pam_event(pam_handle_t *pamh, const char *group, enum kdf_pam_event ev, int prio,
              const struct kdf_pam_event_fields *f, const char *fmt, ...)
{
    char text[1024], msg[1280];
    const char *service = item(pamh, PAM_SERVICE);
    struct rec *r;
    va_list ap;
    int sent = 1;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* pam_syslog(3)'s prefix, so that the line a syslog daemon gets from
     * journald reads as the module's other lines. */
    snprintf(msg, sizeof msg, "pam_kdfhash(%s:%s): %s", service ? service : "<unknown>",
             group, text);
    /* 4 KiB: not on the stack of a host that may run us on a small thread. */
    r = calloc(1, sizeof *r);
    if (r != NULL) {
        field(r, "MESSAGE", msg);
        field(r, "MESSAGE_ID", kdf_pam_event_id(ev));
        field_int(r, "PRIORITY", prio & LOG_PRIMASK);
        field_int(r, "SYSLOG_FACILITY", LOG_AUTHPRIV >> 3);
        field(r, "SYSLOG_IDENTIFIER", program_invocation_short_name);
        field_int(r, "SYSLOG_PID", (long)getpid());
        field(r, "KDFHASH_EVENT", kdf_pam_event_name(ev));
        if (f != NULL) {
            field(r, "KDFHASH_SCHEME", f->scheme);
            field(r, "KDFHASH_TARGET", f->target);
            field(r, "KDFHASH_REASON", f->reason);
            field(r, "USER_NAME", f->user);
        }
        field(r, "PAM_SERVICE", service);
        field(r, "RHOST", item(pamh, PAM_RHOST));
        sent = send_rec(r);
        free(r);
    }
    if (sent > 0)
        pam_syslog(pamh, prio, "%s", text);
}

/* ---- pam_unix's lines --------------------------------------------------- */

/* What pam_unix keeps between the refusals of one handle (its
 * _pam_failed_auth): the first line says who asked, the count goes into
 * libpam's line at pam_end. */
struct failures {
    int count;
    int uid, euid;
    char *logname;
    char *user; /* "" when unknown */
};

#define FAIL_PREFIX "kdfhash-fail-"

static char *
data_name(const char *key)
{
    size_t n = strlen(key);
    char *s = malloc(sizeof FAIL_PREFIX + n);

    if (s != NULL) {
        memcpy(s, FAIL_PREFIX, sizeof FAIL_PREFIX - 1);
        memcpy(s + sizeof FAIL_PREFIX - 1, key, n + 1);
    }
    return s;
}

static const char *
or_empty(const char *s)
{
    return s != NULL ? s : "";
}

/* pam_unix's format, its two spaces before user= included; a later
 * refusal's line is libpam's "PAM N more authentication failures; ...",
 * written from the cleanup that pam_end runs, as pam_unix's is. */
static void
log_failures(pam_handle_t *pamh, const struct failures *fl, int more)
{
    const char *tty = or_empty(item(pamh, PAM_TTY));
    const char *ruser = or_empty(item(pamh, PAM_RUSER));
    const char *rhost = or_empty(item(pamh, PAM_RHOST));
    const char *u = fl->user[0] != '\0' ? " user=" : "";

    if (more == 0)
        pam_syslog(pamh, LOG_NOTICE,
                   "authentication failure; logname=%s uid=%d euid=%d tty=%s ruser=%s "
                   "rhost=%s %s%s",
                   fl->logname, fl->uid, fl->euid, tty, ruser, rhost, u, fl->user);
    else
        pam_syslog(pamh, LOG_NOTICE,
                   "%d more authentication failure%s; logname=%s uid=%d euid=%d tty=%s "
                   "ruser=%s rhost=%s %s%s",
                   more, more == 1 ? "" : "s", fl->logname, fl->uid, fl->euid, tty, ruser,
                   rhost, u, fl->user);
}

static void
failures_cleanup(pam_handle_t *pamh, void *data, int error_status)
{
    struct failures *fl = data;

    /* Replaced (a success cleared it) or silenced: nothing to say. */
    if (fl->count > 1 && !(error_status & (PAM_DATA_REPLACE | PAM_DATA_SILENT)))
        log_failures(pamh, fl, fl->count - 1);
    free(fl->logname);
    free(fl->user);
    free(fl);
}

void
kdf_pam_unix_failure(pam_handle_t *pamh, const char *key, const char *user)
{
    const void *old = NULL;
    struct failures *fl;
    char *name;

    if (user == NULL)
        pam_syslog(pamh, LOG_NOTICE, "check pass; user unknown");
    name = data_name(key != NULL ? key : "");
    if (name == NULL)
        return;
    if (pam_get_data(pamh, name, &old) == PAM_SUCCESS && old != NULL) {
        /* Ours: pam_get_data() hands every module's data back const. */
        ((struct failures *)(uintptr_t)old)->count++;
        free(name);
        return;
    }
    fl = calloc(1, sizeof *fl);
    if (fl != NULL) {
        fl->count = 1;
        fl->uid = (int)getuid();
        fl->euid = (int)geteuid();
        fl->logname = strdup(or_empty(pam_modutil_getlogin(pamh)));
        fl->user = strdup(or_empty(user));
    }
    if (fl == NULL || fl->logname == NULL || fl->user == NULL) {
        if (fl != NULL) {
            free(fl->logname);
            free(fl->user);
            free(fl);
        }
        pam_syslog(pamh, LOG_CRIT, "no memory for failure recorder");
        free(name);
        return;
    }
    log_failures(pamh, fl, 0);
    if (pam_set_data(pamh, name, fl, failures_cleanup) != PAM_SUCCESS)
        failures_cleanup(pamh, fl, PAM_DATA_SILENT);
    free(name);
}

void
kdf_pam_unix_success(pam_handle_t *pamh, const char *key)
{
    char *name = data_name(key != NULL ? key : "");

    if (name != NULL) {
        /* Replacing runs the old record's cleanup with PAM_DATA_REPLACE:
         * no line, as pam_unix after a success. */
        (void)pam_set_data(pamh, name, NULL, NULL);
        free(name);
    }
}
