import recorder
recorder.setup("src")
from fetch.client import fetch_all
for c, u in enumerate([[("/a", 10), ("/slow", 5000)], [("/bad", 1)], [("/b", 3), ("/c", 2000), ("/bad2", 5)]]):
    recorder.case(c)
    fetch_all(u)
recorder.write()
