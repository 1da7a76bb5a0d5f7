"""`python -m tenantdeck` is the same as the `tenantdeck` console script."""

from tenantdeck.cli import main

if __name__ == "__main__":
    main()
