/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * journal.h - the module's events (events.h) with structured fields for
 * systemd-journald, and pam_unix's own lines for the rules that read them
 * (journal.c).
 */
#ifndef KDF_PAM_JOURNAL_H
#define KDF_PAM_JOURNAL_H

#include <security/pam_modules.h>

#include "events.h"

/* journald's native socket (systemd.journal-fields(7), "native protocol"). */
#define KDF_PAM_JOURNAL_SOCKET "/run/systemd/journal/socket"

/* What an event says beside its text; NULL fields are left out.  user is a
 * known account's name only (never a name that may be a mistyped
 * password); nothing here may hold a password, a hash or a salt. */
struct kdf_pam_event_fields {
    const char *user;
    const char *scheme; /* the stored entry's scheme */
    const char *target; /* the new entry's scheme (upgrade) */
    const char *reason; /* a short word or the cause, as in the text */
};

/*
 * Log one event: the text (printf-style) as pam_syslog(3) would write it,
 * "pam_kdfhash(SERVICE:GROUP): TEXT" at prio.  Where journald listens the
 * record goes there alone, with MESSAGE_ID, KDFHASH_EVENT, KDFHASH_SCHEME,
 * KDFHASH_TARGET, KDFHASH_REASON, USER_NAME, PAM_SERVICE and RHOST (journald
 * hands it on to a syslog daemon, as it does the lines of /dev/log, so
 * sending both would show it twice); elsewhere, or when journald refuses
 * it, as a pam_syslog(3) line.  Never blocks: a journal that cannot take
 * it at once drops it.  group: "auth" or "password".
 */
void kdf_pam_event(pam_handle_t *pamh, const char *group, enum kdf_pam_event ev, int prio,
                   const struct kdf_pam_event_fields *f, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* The event's KDFHASH_EVENT word and MESSAGE_ID (32 hex digits). */
const char *kdf_pam_event_name(enum kdf_pam_event ev);
const char *kdf_pam_event_id(enum kdf_pam_event ev);

/*
 * pam_unix's lines for a refused login, word for word, so that fail2ban's
 * pam-generic filter (with __pam_auth = pam_kdfhash) and SIEM rules written
 * for pam_unix read ours:
 *   the first refusal on a PAM handle:
 *     "authentication failure; logname=L uid=U euid=E tty=T ruser=R rhost=H  user=N"
 *   later ones are counted, and libpam writes at pam_end
 *     "PAM 2 more authentication failures; logname=... user=N";
 *   a success clears the count.
 * user NULL: the user is unknown (no user= field, as pam_unix), and
 * pam_unix's "check pass; user unknown" comes first.  key: the name the
 * application gave, which the count is kept under, never logged when
 * user is NULL.
 */
void kdf_pam_unix_failure(pam_handle_t *pamh, const char *key, const char *user);
void kdf_pam_unix_success(pam_handle_t *pamh, const char *key);

#endif /* KDF_PAM_JOURNAL_H */
