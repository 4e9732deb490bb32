/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * audit_rec.c - the audit record of each write of a password entry
 * (audit_rec.h).  The record is libaudit's account message, the shape
 * libpam and shadow-utils write, so that ausearch and aureport read it:
 *
 *   op=kdfhash-upgrade old-scheme=sha512crypt new-scheme=argon2id
 *   reason=legacy acct="alice" exe="/usr/sbin/sshd" hostname=203.0.113.7
 *   addr=203.0.113.7 terminal=ssh res=success
 *
 * Our fields ride in op's text after the operation's name, as libpam's
 * grantors= does; acct= is encoded by libaudit.  Every value of ours is a
 * name from the scheme table or a fixed word, checked again here: one
 * space or quote in a value would let it forge the fields after it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#ifdef HAVE_LIBAUDIT
#include <libaudit.h>
#endif

#include "audit_rec.h"
#include "kdfhash.h"

const char *
kdf_audit_scheme_of(const char *field)
{
    struct kdf_hash h;
    size_t n;

    while (field[0] == '!' && field[1] != '\0')
        field++;
    n = strlen(field);
    if (kdf_parse(field, n, &h, NULL) != KDF_OK)
        return "unknown";
    return kdf_hash_scheme_name(&h);
}

#ifdef HAVE_LIBAUDIT

/* v when every byte of it is one of ok's (and it is not empty), else "?". */
static const char *
plain(const char *v, const char *ok)
{
    if (v == NULL || v[0] == '\0' || v[strspn(v, ok)] != '\0')
        return "?";
    return v;
}

#define KDF_AUDIT_WORD                                                                     \
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._,+-"
/* A host name, an IPv4 or IPv6 address (with a %scope). */
#define KDF_AUDIT_HOST KDF_AUDIT_WORD ":%"
#define KDF_AUDIT_TTY KDF_AUDIT_WORD "/:"

static const char *
op_name(enum kdf_audit_op op)
{
    switch (op) {
    case KDF_AUDIT_UPGRADE: return "kdfhash-upgrade";
    case KDF_AUDIT_MIGRATE: return "kdfhash-migrate";
    case KDF_AUDIT_CHAUTHTOK: return "kdfhash-chauthtok";
    case KDF_AUDIT_WRAP: return "kdfhash-wrap";
    case KDF_AUDIT_WRAP_HISTORY: return "kdfhash-wrap-history";
    }
    return "kdfhash";
}

/* error=: why nothing was written, one word a rule can match. */
static const char *
error_word(enum kdf_write_status st)
{
    switch (st) {
    case KDF_WRITE_OK: return NULL;
    case KDF_WRITE_CAS_FAILED: return "changed-meanwhile";
    case KDF_WRITE_NOT_FOUND: return "not-found";
    case KDF_WRITE_LOCK_BUSY: return "lock-busy";
    case KDF_WRITE_REFUSED: return "refused";
    case KDF_WRITE_IO_ERROR: return "io-error";
    case KDF_WRITE_HOOK_FAILED: return "hook-failed";
    }
    return "unknown";
}

/* " name=value" onto out[*at..cap) when value is set. */
static void
field(char *out, size_t cap, size_t *at, const char *name, const char *value, const char *ok)
{
    int n;

    if (value == NULL || *at >= cap)
        return;
    n = snprintf(out + *at, cap - *at, " %s=%s", name, plain(value, ok));
    if (n > 0)
        *at += (size_t)n;
}

int
kdf_audit_open(char *err, size_t err_cap)
{
    int fd = audit_open();

    if (fd >= 0)
        return fd;
    /* No audit in this kernel (or none for this namespace): no records. */
    if (errno != EINVAL && errno != EPROTONOSUPPORT && errno != EAFNOSUPPORT &&
        errno != ECONNREFUSED) {
        kdf_errf(err, err_cap, "cannot write audit records: %m");
        return -2;
    }
    return -1;
}

void
kdf_audit_close(int fd)
{
    if (fd >= 0)
        audit_close(fd);
}

int
kdf_audit_log(int fd, const struct kdf_audit_rec *r, enum kdf_write_status st, char *err,
              size_t err_cap)
{
    char op[512];
    const char *host = r->rhost != NULL && r->rhost[0] != '\0'
                           ? plain(r->rhost, KDF_AUDIT_HOST)
                           : NULL;
    const char *addr = "?";
    unsigned char a[sizeof(struct in6_addr)];
    size_t at;
    int rc;

    if (fd < 0)
        return 0;
    at = (size_t)snprintf(op, sizeof op, "%s", op_name(r->op));
    field(op, sizeof op, &at, "old-scheme", r->old_scheme, KDF_AUDIT_WORD);
    field(op, sizeof op, &at, "new-scheme", r->new_scheme != NULL ? r->new_scheme : "none",
          KDF_AUDIT_WORD);
    field(op, sizeof op, &at, "reason", r->reason, KDF_AUDIT_WORD);
    field(op, sizeof op, &at, "rule", r->rule, KDF_AUDIT_WORD);
    field(op, sizeof op, &at, "via", r->via, KDF_AUDIT_WORD);
    field(op, sizeof op, &at, "history", r->history, KDF_AUDIT_WORD);
    field(op, sizeof op, &at, "error", error_word(st), KDF_AUDIT_WORD);
    if (at >= sizeof op)
        op[sizeof op - 1] = '\0';
    /* addr= only from an address: libaudit would resolve a host name
     * through DNS, which a login must never wait for. */
    if (host != NULL && (inet_pton(AF_INET, host, a) == 1 || inet_pton(AF_INET6, host, a) == 1))
        addr = host;
    rc = audit_log_acct_message(fd, r->op == KDF_AUDIT_CHAUTHTOK ? AUDIT_USER_CHAUTHTOK
                                                                   : AUDIT_USER_MGMT,
                                NULL, op, r->user, (unsigned int)-1, host, addr,
                                r->tty != NULL ? plain(r->tty, KDF_AUDIT_TTY) : NULL,
                                st == KDF_WRITE_OK);
    /* Nobody listening (a kernel's audit off for this namespace) or no
     * CAP_AUDIT_WRITE (a container): records cannot be had here. */
    if (rc >= 0 || rc == -ECONNREFUSED || rc == -EPERM)
        return 0;
    errno = -rc;
    kdf_errf(err, err_cap, "cannot write an audit record: %m");
    return -1;
}

#else /* !HAVE_LIBAUDIT */

int
kdf_audit_open(char *err, size_t err_cap)
{
    (void)err;
    (void)err_cap;
    return -1;
}

void
kdf_audit_close(int fd)
{
    (void)fd;
}

int
kdf_audit_log(int fd, const struct kdf_audit_rec *r, enum kdf_write_status st, char *err,
              size_t err_cap)
{
    (void)fd;
    (void)r;
    (void)st;
    (void)err;
    (void)err_cap;
    return 0;
}

#endif /* HAVE_LIBAUDIT */

int
kdf_audit_once(const struct kdf_audit_rec *r, enum kdf_write_status st, char *err,
               size_t err_cap)
{
    int fd = kdf_audit_open(err, err_cap);
    int rc = kdf_audit_log(fd, r, st, err, err_cap);

    kdf_audit_close(fd);
    return fd == -2 ? -1 : rc;
}
