"""`python -m tenantdeck` is the same as the `tenantdeck` console script."""

from tenantdeck.launch import main

if __name__ == "__main__":
    main()
