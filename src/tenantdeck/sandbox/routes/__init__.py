"""The sandbox's HTTP routes, one module per collection of the management API."""
