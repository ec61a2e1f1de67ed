import asyncio
import contextlib
import logging

log = logging.getLogger(__name__)


async def quotes(feed):
    log.info("rate feed opened with %d quotes", len(feed))
    try:
        for pair, rate in feed:
            await asyncio.sleep(0)
            if rate <= 0:
                log.warning("dropping bad quote %s=%s", pair, rate)
                continue
            yield pair, rate
    finally:
        log.info("rate feed closed")


async def convert(total, feed, currency):
    async with contextlib.aclosing(quotes(feed)) as stream:
        async for pair, rate in stream:
            if pair == "EUR" + currency:
                log.info("%.2f EUR is %.2f %s at %.4f", total, total * rate, currency, rate)
                return total * rate
    log.error("no EUR%s quote in the feed", currency)
    return None
