import recorder
recorder.setup("src")
from courier.push import CarrierLink, ShipmentPusher
for c, (carrier, outcomes, attempts, shipments) in enumerate([
    ("parcelo", [], 3, [("S-100", "2 boxes to Lyon"), ("S-101", "1 pallet to Gent")]),
    ("swiftbox", ["timeout", "ok", "reset by peer", "timeout", "timeout"], 3, [("S-200", "crate to Porto"), ("S-201", "tube to Graz")]),
    ("nordfrakt", ["503 busy", "503 busy"], 2, [("S-300", "bike to Oslo"), ("S-301", "box to Malmo")]),
]):
    recorder.case(c)
    ShipmentPusher(carrier, CarrierLink(outcomes), max_attempts=attempts).push_all(shipments)
recorder.write()
