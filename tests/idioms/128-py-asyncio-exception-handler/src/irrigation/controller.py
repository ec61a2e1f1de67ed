import asyncio
import logging

from .valves import Valve

log = logging.getLogger(__name__)


def on_loop_error(loop, context):
    """The loop's exception handler: a callback that raised, or a fault the
    controller reported itself with call_exception_handler."""
    exc = context.get("exception")
    if exc is not None:
        log.error("irrigation fault: %s", exc)
    else:
        log.warning("controller: %s (zone %s)", context["message"], context.get("zone", "?"))


class Controller:
    def __init__(self, zones, stuck=(), dry_sensors=()):
        self.valves = {z: Valve(z, stuck=z in stuck) for z in zones}
        self.dry_sensors = set(dry_sensors)
        self.queue = asyncio.Queue()
        self.watered = []

    async def run(self, plan):
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(on_loop_error)
        for zone, minutes in plan:
            self.queue.put_nowait((zone, minutes))
        worker = asyncio.create_task(self.worker())
        await self.queue.join()
        worker.cancel()
        await asyncio.sleep(0)
        log.info("cycle done: %d of %d zones watered", len(self.watered), len(plan))

    async def worker(self):
        loop = asyncio.get_running_loop()
        while True:
            zone, minutes = await self.queue.get()
            try:
                if zone not in self.valves:
                    loop.call_exception_handler({"message": "no valve configured", "zone": zone})
                    continue
                if zone in self.dry_sensors:
                    loop.call_exception_handler({"message": "moisture sensor reads nothing", "zone": zone})
                valve = self.valves[zone]
                # the valve is driven from a loop callback, as its serial port is
                loop.call_soon(valve.set_open, True)
                await asyncio.sleep(0)
                if not valve.open:
                    continue
                log.info("zone %s watering for %d min", zone, minutes)
                loop.call_soon(valve.set_open, False)
                await asyncio.sleep(0)
                self.watered.append(zone)
            finally:
                self.queue.task_done()
