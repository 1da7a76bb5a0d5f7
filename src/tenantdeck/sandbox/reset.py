"""Put a sandbox database back to its first-run state: every row gone, the sample apps seeded again.

``tenantdeck sandbox --reset`` runs this on the database of the built-in ``local`` profile (or ``--db``), so that a
sandbox account that earlier pushes filled with duplicates or half-finished experiments can always be brought back
to the state the demo and the README assume.

The wipe is one ``BEGIN IMMEDIATE`` transaction on the same file, not a deleted file: a ``tenantdeck sandbox``
serving that database at the same time keeps working and sees the fresh account, and a crash leaves the old
one. Every table is emptied, found from ``sqlite_master``, so a table added later is reset as well.
"""

from __future__ import annotations

import time
from pathlib import Path

from tenantdeck.sandbox.ddl import connect
from tenantdeck.sandbox.seed import seed as seed_sample_apps


def reset_database(db_path: Path | str, *, seed: bool = True) -> int:
    """Empty the sandbox database at ``db_path`` (created if missing) and, with ``seed``, add the sample apps.

    Returns the number of apps the account holds afterwards.
    """
    conn = connect(db_path)
    try:
        conn.execute("PRAGMA defer_foreign_keys=ON")
        conn.execute("BEGIN IMMEDIATE")
        try:
            tables = [
                row[0]
                for row in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                )
            ]
            for table in tables:
                quoted = '"' + table.replace('"', '""') + '"'
                if table == "meta":
                    conn.execute("DELETE FROM meta WHERE key NOT IN ('schema_version', 'account_id')")
                else:
                    conn.execute(f"DELETE FROM {quoted}")
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").fetchone():
                conn.execute("DELETE FROM sqlite_sequence")
            apps = len(seed_sample_apps(conn)) if seed else 0
            # marked as seeded either way: an account reset to empty stays empty when the `local` profile opens it
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('seeded', ?)", (str(int(time.time())),))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return apps
    finally:
        conn.close()
