"""Pull, compare, plan and push: the engine between a draft and the service. Core: never imports Textual, and
never prints, prompts or exits (``tests/sync/test_engine.py`` checks every module below).

The layout says what each module may touch, so a change finds its room in one guess:

* ``tenantdeck.sync.*`` (the modules directly here) are **pure**: data in, data out, no file and no network.
  ``types`` (the shared vocabulary: value types, diffs, steps, the unknown sentinel, ``new:<name>`` keys; it
  imports no other sync module), ``canonical`` (the normal form's rules, one for both sides), ``compare``
  (three-way, leaf by leaf), ``plan`` (steps, saved plans), ``settle`` (a conflict settled: take mine or theirs),
  ``advance`` (what the base learns when both sides already agree), ``names`` (same-name creates), ``render``
  (plan text, markdown, JSON), ``placeholders`` (secrets in a plan), ``preflight`` (secret values the service would
  refuse), ``events`` (what a push reports), ``remote_to_draft`` (pull's conversion). ``tests/sync/test_layout.py``
  keeps them free of I/O; ``tests/sync/test_kinds_are_pure.py`` keeps the package free of import circles.
* ``tenantdeck.sync.kinds`` holds **one module per resource kind** (app, extensions, widget, SMS, webhook,
  triggers) behind one small class (``kinds.base.Kind``): how its resources are cut out of a canonical app and
  written back, labels, secret fields, its plan steps, how a step updates the base. Kinds are pure: the API call of
  each step is ``remote.ops.CALLS``.
* ``tenantdeck.sync.workspace`` is the **local I/O**: the ``.tenantdeck/`` directory beside a draft (base snapshot,
  secret key, journal, history, in-sync cache) and loading a draft with it.
* ``tenantdeck.sync.remote`` **talks to the service**: reading live state, pull, the push executor and the push
  engine (prepare, then push as events).
"""
