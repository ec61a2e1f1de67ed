import argparse
import logging

log = logging.getLogger(__name__)


def quantity(text):
    n = int(text)
    if n <= 0:
        raise argparse.ArgumentTypeError(f"quantity must be positive, got {n}")
    return n


def build_parser():
    p = argparse.ArgumentParser(prog="stockctl")
    p.add_argument("sku")
    p.add_argument("--qty", type=quantity, default=1)
    p.add_argument("--warehouse", choices=["north", "south"], default="north")
    return p


def main(argv):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.sku.isalnum():
        parser.error(f"invalid SKU {args.sku!r}")
    log.info("Reserving %d of %s in %s", args.qty, args.sku, args.warehouse)
    if args.qty > 100:
        parser.exit(3, f"stockctl: {args.qty} units exceed the per-order limit\n")
    log.info("Reservation of %s confirmed", args.sku)
