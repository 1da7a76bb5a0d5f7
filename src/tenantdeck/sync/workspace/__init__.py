"""Local I/O of the engine: the workspace directory beside a draft and what it keeps.

``state`` (``Workspace``: base snapshot, secret key, meta, draft-write log; which files a push must be able to
write), ``journal`` (the fsync'd push journal and reading it back), ``history`` (the audit log), ``insync`` (the
offline diff's cache of apps known to be in sync), ``local`` (load a draft with its workspace, compare, plan).
Nothing here opens a network connection.
"""
