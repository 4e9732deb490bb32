/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spawn.h - running a helper program from inside a PAM host (spawn.c), and
 * the small time helpers the module's C files share.
 *
 * One routine serves the three children the module starts: kdfhash-chkpwd
 * (chkpwd_client.c), the upgrade=exec hook (upgrade_exec.c) and
 * kdfhash-tpm-hmac (tpm_client.c).  Each
 * caller keeps its own argv, stdin payload, timeout and exit-code mapping.
 * All of it is local to pam_kdfhash.so (pam_kdfhash.map exports only the
 * pam_sm_* entry points).
 */
#ifndef KDF_PAM_SPAWN_H
#define KDF_PAM_SPAWN_H

#include <stddef.h>

/* Error text goes through the core's kdf_errf() (kdfhash.h). */
/* CLOCK_MONOTONIC in milliseconds. */
unsigned long long kdf_pam_now_ms(void);
/* Sleep ms milliseconds; an interrupted sleep just ends early (callers
 * re-check their deadline). */
void kdf_pam_sleep_ms(unsigned ms);

enum kdf_spawn_result {
    KDF_SPAWN_NOT_RUN = -3, /* KDF_SPAWN_ROOT_IDS could not be had: not executed (err set) */
    KDF_SPAWN_ERROR = -2, /* sigaction or fork failed: nothing ran (err set) */
    KDF_SPAWN_LOST = -1,  /* the wait status is lost (ECHILD: reaped elsewhere) */
    KDF_SPAWN_KILLED = 0, /* still running at the deadline: SIGKILLed and reaped */
    KDF_SPAWN_EXITED = 1  /* ended by itself; *wstatus says how */
};

/*
 * Run prog (absolute path, no PATH search) with argv and the environment
 * {"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}; stdin is in_fd (a pipe the caller
 * has already filled and whose write end it has closed, so no write can
 * block or meet a closed reader), stdout out_fd (the write end of a pipe
 * whose read end the caller keeps, for a child that answers; -1:
 * /dev/null), stderr /dev/null, no other fd.  in_fd and out_fd are closed
 * on every path.  The child gets its own process group,
 * every signal at SIG_DFL and an empty mask, cwd "/", umask 077, no core
 * file, a soft limit of 1024 fds and CPU time just past timeout_ms.  The host's SIGCHLD is SIG_DFL
 * during the wait and restored exactly; waitpid() is polled on that pid
 * only, naps doubling from 1 ms up to max_nap_ms, until timeout_ms after
 * the call; then the group is SIGKILLed and the child reaped.  *wstatus
 * gets the raw wait status (0 if none).
 */
/* flags: KDF_SPAWN_CONTAIN runs prog as process 1 of a PID namespace of its
 * own where the host may make one (root), so that every process it started
 * dies with it, even outside its process group. */
#define KDF_SPAWN_CONTAIN 0x1u
/* flags: KDF_SPAWN_ROOT_IDS, when the host's effective uid is 0, runs prog
 * with every id root's: real, effective and saved uid and gid 0 and no
 * supplementary groups.  A setuid-root host (su, passwd) started by a user
 * has that user's real uid and gid, which execve() hands on to a program
 * that is not itself setuid; kill(2) lets a sender whose real or effective
 * uid is the target's real or saved uid signal it, so the user could stop
 * or kill the hook half-way.  With all ids 0 neither kill(2) nor ptrace(2)
 * (which needs the caller's uid to match all three of the target's) is
 * open to the user.  If the child cannot make or confirm the switch, prog
 * is not executed: KDF_SPAWN_NOT_RUN, err says why.  A host whose
 * effective uid is not 0 runs prog with its own ids. */
#define KDF_SPAWN_ROOT_IDS 0x2u
enum kdf_spawn_result kdf_spawn_wait(const char *prog, char *const argv[], int in_fd,
                                     int out_fd, unsigned timeout_ms, unsigned max_nap_ms,
                                     unsigned flags, int *wstatus, char *err, size_t err_cap);

/* A pipe already holding buf[0..len), its write end closed, for a
 * child's standard input: the read end, or -1 with err saying why ("the
 * WHAT does not fit the helper's pipe" when it did not all go in).  Never
 * a wait: the pipe is first grown to room bytes where it is smaller (and
 * the kernel allows), the write end is non-blocking, and the reader is the
 * caller's child, not started yet. */
int kdf_spawn_filled_pipe(const void *buf, size_t len, size_t room, const char *what,
                          char *err, size_t err_cap);

#endif /* KDF_PAM_SPAWN_H */
