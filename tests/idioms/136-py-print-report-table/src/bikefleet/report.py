WIDTH = 34


def header(title):
    print(f" {title} ".center(WIDTH, "="))
    print(f"{'bike':<8}{'kind':<8}{'trips':>6}{'km':>8}  {'state'}")
    print("-" * WIDTH)


def row(bike):
    flag = "!" if bike.state != "ok" else " "
    print(f"{bike.id:<8}{bike.kind:<8}{bike.trips:>6}{bike.km:>8.1f} {flag}{bike.state}")


def footer(bikes):
    print("-" * WIDTH)
    km = sum(b.km for b in bikes)
    print(f"{'total':<16}{sum(b.trips for b in bikes):>6}{km:>8.1f}")
    due = [b.id for b in bikes if b.state == "service"]
    if due:
        print("service due:", *due, sep=" ")
    print("=" * WIDTH)


def daily(fleet, kinds=None):
    bikes = [b for b in fleet.bikes.values() if kinds is None or b.kind in kinds]
    header(f"{fleet.depot} depot")
    if not bikes:
        print("(no bikes)".center(WIDTH))
    for b in sorted(bikes, key=lambda b: (-b.trips, b.id)):
        row(b)
    footer(bikes)
