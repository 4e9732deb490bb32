/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upgrade.h - the upgrade hook of pam_kdfhash (doc/DESIGN.md "Writing a
 * new hash: the file writer and the exec hook"): the file writer (write.h,
 * write.c) and the external hook (upgrade_exec.c).  No PAM dependency:
 * plain C functions that the module calls after a successful verify of an
 * outdated entry.
 */
#ifndef KDF_UPGRADE_H
#define KDF_UPGRADE_H

#include <stddef.h>

#include "write.h"

/* Run prog with argv {prog, user, NULL}, minimal environment, fds 0-2 only,
 * "old_hash\nnew_hash\n" on stdin; kill after timeout_ms; *exit_status gets
 * the wait status.  SIGCHLD disposition and the signal mask of the host are
 * left as they were. */
enum kdf_write_status kdf_upgrade_exec(const char *prog, const char *user,
                                       const char *old_hash, const char *new_hash,
                                       unsigned timeout_ms, int *exit_status, char *err,
                                       size_t err_cap);

#endif /* KDF_UPGRADE_H */
