"""Water meter billing: readings over a period, tiered prices in Decimal."""
