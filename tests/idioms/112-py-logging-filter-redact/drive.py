import recorder
# the code's logger filters mask card numbers and secrets, and let a message through at most twice:
# the message column is what passed them
recorder.setup("src")
from paygate.gateway import Gateway, checkout
for c, (merchant, token, orders) in enumerate([
    ("bookshop", "tk_live_83jd", [("4111111111111111", 24.5, 1)]),
    ("furniture", "tk_live_a9Qz", [("5500005555555559", 1899.0, 4), ("4000000000000000", 15.0, 1)]),
    ("bakery", "tk_test_0001", [("4242424242424242", 3.2, 2), ("4012888888881881", 7.8, 1)]),
]):
    recorder.case(c)
    g = Gateway(merchant, token)
    for card, amount, polls in orders:
        checkout(g, card, amount, polls=polls)
recorder.write()
