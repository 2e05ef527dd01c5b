"""The example shop: a few customers and orders, held in memory per agent instance."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Shop", "default_shop"]

_CUSTOMERS: dict[str, dict[str, Any]] = {
    "C-100": {"name": "Ada Lovelace", "email": "ada@example.com"},
    "C-200": {"name": "Alan Turing", "email": "alan@example.com"},
}

_ORDERS: dict[str, dict[str, Any]] = {
    "ORD-1001": {
        "customer_id": "C-100",
        "item": "mechanical keyboard",
        "total": 120,
        "status": "shipped",
    },
    "ORD-1002": {
        "customer_id": "C-100",
        "item": "usb-c cable",
        "total": 15,
        "status": "processing",
    },
    "ORD-2001": {
        "customer_id": "C-200",
        "item": "noise-cancelling headphones",
        "total": 250,
        "status": "delivered",
    },
}


@dataclass
class Shop:
    """Mutable state of one agent instance (cancellations and refunds change it)."""

    customers: dict[str, dict[str, Any]] = field(default_factory=dict)
    orders: dict[str, dict[str, Any]] = field(default_factory=dict)

    def customer_by_email(self, email: str) -> tuple[str, dict[str, Any]] | None:
        """The (customer_id, customer) whose email matches, case-insensitively."""
        for customer_id, customer in self.customers.items():
            if customer["email"].lower() == email.lower():
                return customer_id, customer
        return None


def default_shop() -> Shop:
    """A fresh copy of the example data (each app gets its own)."""
    return Shop(customers=copy.deepcopy(_CUSTOMERS), orders=copy.deepcopy(_ORDERS))
