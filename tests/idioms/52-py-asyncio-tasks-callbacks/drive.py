import asyncio
import logging
import recorder
recorder.setup("src")
# asyncio's own debug record ("Using selector: ...") is not the code's
logging.getLogger("asyncio").setLevel(logging.WARNING)
from crawler.fetch import crawl
for c, (h, pages) in enumerate([("docs.example", [("/", 10), ("/guide", 20)]), ("shop.example", [("/cart", 500)]), ("news.example", [("/today", 5), ("/archive", 900), ("/rss", 1)])]):
    recorder.case(c)
    asyncio.run(crawl(h, pages))
recorder.write()
