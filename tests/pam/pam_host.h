/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pam_host.h - a tiny PAM application for the module tests: service files in
 * a temporary directory (pam_start_confdir, Linux-PAM >= 1.4), a scripted
 * conversation, and a capture of every syslog line libpam writes for the
 * module (pam_syslog -> __syslog_chk / syslog, interposed by this file).
 */
#ifndef KDF_PAM_HOST_H
#define KDF_PAM_HOST_H

#include <stddef.h>

#include <security/pam_appl.h>

#ifndef KDF_PAM_MODULE
#error "KDF_PAM_MODULE (absolute path of the built pam_kdfhash.so) must be defined"
#endif

#define HOST_SERVICE "kdftest"
#define HOST_MAX_LOG 64

struct host_conv {
    const char *pw; /* answer to PAM_PROMPT_ECHO_OFF */
    size_t pw_len;  /* bytes of pw (no NUL inside) */
    int rc;         /* PAM_SUCCESS, or the failure to return instead */
    int calls;      /* prompts seen */
};

struct host_log {
    int prio; /* LOG_ERR, LOG_NOTICE, ... (facility stripped) */
    char text[1024];
};

/* A fresh mkdtemp directory (under $TMPDIR or /tmp); aborts the test run on
 * failure.  The caller frees the returned string. */
char *host_tmpdir(void);
/* Remove dir and the regular files/symlinks/empty dirs in it (one level). */
void host_rmtree(const char *dir);
/* Write n bytes to path (mode 0600), replacing it. */
void host_write(const char *path, const void *data, size_t n);
/* Read a whole file into a malloc'd buffer (NUL-terminated); *n its size. */
char *host_read(const char *path, size_t *n);

/* Write confdir/HOST_SERVICE with one line per "type control args" row:
 * each lines[i] is e.g. "auth required %M shadow=/x" where %M stands for
 * the module path and %T for the test module pam_settok.so (when
 * KDF_PAM_SETTOK is defined), which sets PAM_AUTHTOK from authtok=. */
void host_service(const char *confdir, const char *const *lines, size_t n);

/* The conversation: appdata is a struct host_conv. */
int host_conv_fn(int num_msg, const struct pam_message **msg, struct pam_response **resp,
                 void *appdata);

/* pam_start_confdir + pam_authenticate(flags) + pam_end; the log is reset
 * first.  host_in_pam is 1 from pam_start to pam_end (for memory scans). */
extern volatile int host_in_pam;
int host_auth(const char *confdir, const char *user, struct host_conv *c, int flags);

/* The delay (usec) libpam computed from the modules' pam_fail_delay()
 * requests in the last host_auth(), -1 when it reported none; host_auth()
 * never sleeps for it. */
long host_fail_delay(void);

/* Where the module sends its journal events (journal.h): a path with
 * nothing bound at it unless a test binds a stand-in journald there. */
extern char host_journal_socket[108];

/* The captured lines that libpam wrote for pam_kdfhash. */
size_t host_log_count(void);
const struct host_log *host_log_get(size_t i);
void host_log_reset(void);
/* How many captured lines have priority prio. */
size_t host_log_count_prio(int prio);
/* Does any captured line contain the n bytes of needle? */
int host_log_contains(const void *needle, size_t n);

/* Secrets that no block freed inside libpam/the module may hold (at most
 * 8, first 64 bytes each); hits counted since the last reset.  Active only
 * when free() could be interposed (not under ASan) and something was freed. */
void host_scan_secret(const void *p, size_t n);
void host_scan_reset(void);
size_t host_scan_hits(void);
int host_scan_active(void);

#endif /* KDF_PAM_HOST_H */
