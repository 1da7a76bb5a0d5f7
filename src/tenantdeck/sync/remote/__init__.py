"""The engine's network side: everything that calls the management API (through ``tenantdeck.api.client``).

``fetch`` (every read of one app's live state, and the live side of a comparison), ``pull`` (service -> draft and
base), ``ops`` (the API call of each plan step: the kinds plan steps but make no call), ``fresh`` (read a resource
right before and after a whole-object write), ``push`` (the executor: steps against the service, journalled and
resumable), ``engine`` (push as data: prepare a plan to confirm, then run it reporting events).
"""
