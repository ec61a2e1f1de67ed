import asyncio
import logging
import recorder
recorder.setup("src")
# asyncio's own debug record ("Using selector: ...") is not the code's
logging.getLogger("asyncio").setLevel(logging.WARNING)
from statements.pipeline import first_large
from statements.rates import convert
for c, (lines, threshold, feed, currency) in enumerate([
    (["# export 2026-11", "Bakery;-12,40", "Rent;-950,00", "Cinema;-22,00"], 500, [("EURUSD", 1.0841), ("EURGBP", 0.8512)], "GBP"),
    (["Salary;3200,00", "", "Shop;n/a", "Cafe"], 5000, [("EURCHF", -1), ("EURCHF", 0.9377)], "CHF"),
    (["Gym;-45,00", "Insurance;-310,00"], 300, [("EURJPY", 162.5)], "SEK"),
]):
    recorder.case(c)
    first_large(lines, threshold)
    asyncio.run(convert(1000.0, feed, currency))
recorder.write()
