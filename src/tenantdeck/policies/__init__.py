"""Fleet policies: rules every tenant app must keep, checked offline, before a push and against the live account."""
