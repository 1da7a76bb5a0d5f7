"""``meta.pagination`` exactly as the management API returns it (facts §4).

``links`` is an object with ``next``/``previous`` URLs when those pages exist (the spec types it as a string but
its example is an object). ``total_pages`` is at least 1, so ``current_page == total_pages`` always marks the
last page, even for an empty list.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Query, Request

MAX_PER_PAGE = 1000
#: Far beyond any real account, and small enough that (page - 1) * perPage fits SQLite's 64-bit OFFSET
#: (schemathesis found a page number that overflowed it and turned a list into a 500).
MAX_PAGE = 10_000_000


@dataclass(frozen=True, slots=True)
class Page:
    """A requested page: 1-based ``page`` and ``per_page`` items per page."""

    page: int
    per_page: int

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    def meta(self, request: Request, total: int, count: int) -> dict[str, Any]:
        total_pages = max(1, math.ceil(total / self.per_page))
        links: dict[str, str] = {}
        if self.page < total_pages:
            links["next"] = str(request.url.include_query_params(page=self.page + 1))
        if self.page > 1:
            links["previous"] = str(request.url.include_query_params(page=min(self.page - 1, total_pages)))
        return {
            "pagination": {
                "total": total,
                "count": count,
                "per_page": self.per_page,
                "current_page": self.page,
                "total_pages": total_pages,
                "links": links,
            }
        }


def _dependency(default: int) -> Any:
    async def page_params(
        perPage: int = Query(default, ge=1, le=MAX_PER_PAGE, description=f"Items per page (default {default})"),
        page: int = Query(1, ge=1, le=MAX_PAGE, description="1-based page number"),
    ) -> Page:
        return Page(page=page, per_page=perPage)

    return page_params


#: FastAPI dependencies for list endpoints: apps and extensions page by 25, webhooks and triggers by 100.
paged_25 = _dependency(25)
paged_100 = _dependency(100)
Paged25 = Annotated[Page, Depends(paged_25)]
Paged100 = Annotated[Page, Depends(paged_100)]
