import sys

SERVICE_KM = 500.0


class Bike:
    def __init__(self, bike_id, kind, odometer_km):
        self.id = bike_id
        self.kind = kind
        self.km = odometer_km
        self.trips = 0
        self.state = "ok"

    def ride(self, km):
        if self.state == "repair":
            print(f"bike {self.id} is in repair, trip refused", file=sys.stderr)
            return False
        self.km += km
        self.trips += 1
        if self.km >= SERVICE_KM and self.state == "ok":
            self.state = "service"
        return True


class Fleet:
    def __init__(self, depot, bikes):
        self.depot = depot
        self.bikes = {b.id: b for b in bikes}

    def trip(self, bike_id, km):
        bike = self.bikes.get(bike_id)
        if bike is None:
            print("unknown bike", bike_id, "at", self.depot, file=sys.stderr)
            return
        bike.ride(km)

    def report_damage(self, bike_id):
        self.bikes[bike_id].state = "repair"
