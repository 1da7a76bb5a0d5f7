"""The documented exit codes of every tenantdeck command (see README "Exit codes").

They follow Terraform's `-detailed-exitcode` idea so CI can tell "in sync" from "changes" from "broken".
"""

OK = 0  #: success; for `diff`, in sync
ERROR = 1  #: invalid draft, or an error talking to the service (message on stderr)
CHANGES = 2  #: `diff`: there are changes to push
CONFLICT = 3  #: `diff`/`push`: the draft and the remote changed the same field differently, or a stale plan
PARTIAL = 4  #: `push`: some operations applied, some failed or were not attempted
#: another tenantdeck process (a push, a pull, an editor saving) holds the draft's workspace lock and did not let go
#: within ``--lock-timeout`` seconds; the message names it (pid, command, since when). Nothing was changed.
LOCKED = 5
#: a local file (journal, base snapshot, history, draft) could not be written: disk full, quota, I/O error. A push
#: stops before its next request, so nothing was sent that is not recorded; free space and push again.
WRITE_FAILED = 6
#: `push`: every operation was sent, but a read after a write found a field another writer changed at the same
#: time (a change of ours overwritten, or theirs possibly overwritten by ours): the summary names each with both
#: values, and the history records it. The API has no precondition header; see docs/concurrency.md.
LOST_UPDATE = 7
#: `diff`/`plan`/`push`/`pull` (and the editor): the draft's base was taken from another account than the one the
#: command points at (another sandbox database, another service or key); nothing was read or written. Point at the
#: draft's own account, or re-bind the draft on purpose with ``--rebind`` (see README "Exit codes").
WRONG_TARGET = 8
#: `audit`: the live account breaks an error-severity fleet policy; `push`: the account as the push would leave it
#: would (nothing was pushed; `--allow-violation RULE --reason TEXT` lets a named rule through, recorded in the
#: history); `policy fix` could not make the draft comply (see docs/policies.md)
VIOLATIONS = 9
USAGE = 64  #: bad command line (EX_USAGE)
INTERRUPTED = 130  #: Ctrl-C (SIGINT)
TERMINATED = 143  #: SIGTERM (a CI runner's or `kill`'s stop): `listen` prints what it had and its summary first
