"""Service settings, read from ``ORDERFLOW_*`` environment variables."""

from __future__ import annotations

import logging
import os
import random
import warnings
from dataclasses import dataclass, field, fields, replace
from datetime import timedelta
from typing import Mapping

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with proportional jitter."""

    max_attempts: int = 3
    base_delay: float = 0.25
    multiplier: float = 2.0
    max_delay: float = 8.0
    jitter: float = 0.2

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        raw = min(self.max_delay, self.base_delay * self.multiplier ** (attempt - 1))
        return raw * (1.0 + rng.uniform(-self.jitter, self.jitter))


@dataclass(frozen=True)
class Settings:
    environment: str = "production"
    currency: str = "USD"
    supported_countries: tuple[str, ...] = ("US", "CA", "GB")
    max_lines_per_order: int = 20
    max_quantity_per_line: int = 10
    payment_retry: RetryPolicy = field(default_factory=RetryPolicy)
    label_retry: RetryPolicy = field(default_factory=lambda: RetryPolicy(max_attempts=2, base_delay=1.0))
    job_retry: RetryPolicy = field(default_factory=lambda: RetryPolicy(max_attempts=4, base_delay=60.0,
                                                                       max_delay=1800.0))
    fraud_review_threshold: float = 0.5
    fraud_block_threshold: float = 0.8
    high_value_cents: int = 60_000
    free_shipping_threshold_cents: int = 7_500
    allow_backorders: bool = True
    capture_on_shipment: bool = True
    unpaid_order_ttl: timedelta = timedelta(hours=24)
    pick_wave_interval: timedelta = timedelta(minutes=30)
    sms_enabled: bool = True

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Build settings from the environment, falling back to the defaults."""
        env = os.environ if env is None else env
        settings = cls()
        overrides: dict[str, object] = {}
        for f in fields(cls):
            raw = env.get(f"ORDERFLOW_{f.name.upper()}")
            if raw is None:
                continue
            current = getattr(settings, f.name)
            try:
                if isinstance(current, bool):
                    overrides[f.name] = raw.strip().lower() in ("1", "true", "yes", "on")
                elif isinstance(current, (int, float, str)):
                    overrides[f.name] = type(current)(raw)
                elif isinstance(current, timedelta):
                    overrides[f.name] = timedelta(seconds=float(raw))
                else:
                    logger.warning("setting %s cannot be overridden from the environment", f.name)
            except ValueError:
                logger.error("ignoring invalid value %r for ORDERFLOW_%s", raw, f.name.upper())
        if "ORDERFLOW_CAPTURE_IMMEDIATELY" in env:
            warnings.warn("ORDERFLOW_CAPTURE_IMMEDIATELY is deprecated; "
                          "use ORDERFLOW_CAPTURE_ON_SHIPMENT=false", DeprecationWarning, stacklevel=2)
            overrides.setdefault("capture_on_shipment", env["ORDERFLOW_CAPTURE_IMMEDIATELY"] != "1")
        settings = replace(settings, **overrides)
        logger.debug("loaded settings for %s (%d override(s))", settings.environment, len(overrides))
        return settings
