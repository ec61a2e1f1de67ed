"""orderflow: order fulfilment service.

The package implements the back end of the storefront: it validates incoming
orders, reserves stock, prices them, screens them for fraud, authorizes and
captures payment, ships them (splitting and backordering where needed) and
keeps the customer informed along the way.

Modules are organised by capability; :mod:`orderflow.orders` ties them
together and :mod:`orderflow.api` exposes the HTTP-style handlers. The
:mod:`orderflow.simulate` entry point runs a seeded workload against fake
backends and writes the resulting event log.
"""

import logging

__version__ = "1.4.2"

# Library convention: never configure logging on import, but avoid the
# "no handlers could be found" fallback when the host application does not.
logging.getLogger(__name__).addHandler(logging.NullHandler())
