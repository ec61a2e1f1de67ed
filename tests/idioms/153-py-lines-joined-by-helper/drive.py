import logging

import recorder
recorder.setup("src")
logging.basicConfig(level=logging.DEBUG)
from rollout.run import rollout
for c, (release, hosts, canary, dry) in enumerate([
        ("2.4.0", ["web1", "web2"], 0, False),
        ("2.5.0-rc", ["web1", "web2", "web3", "web4"], 1, True),
        ("2.5.0", ["web1", "Web2"], 0, False),
        ("2.5.1", ["api1", "api2", "api3", "api4", "api5"], 0, False)]):
    recorder.case(c)
    rollout(release, hosts, canary, dry)
recorder.write()
