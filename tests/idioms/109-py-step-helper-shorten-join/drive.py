import recorder
# log_step only logs what it is handed behind "step N:": its callers emit the messages
recorder.setup("src", skip=["log_step"])
from sitedeploy.collect import collect
from sitedeploy.minify import minify
from sitedeploy.publish import purge, upload
for c, (site, files, refused) in enumerate([
    ("blog.example", {"index.html": 9000, "about.html": 4000, "app.js": 30000}, ()),
    ("docs.example", {"index.html": 12000, "guide/_wip.html": 800, "guide/setup.html": 70000, "img/logo.png": 51200, "guide/_todo.html": 50,
                      "_notes.html": 100}, ("img/logo.png",)),
    ("shop.example", {"style.css": 90000, "cart.html": 3000, "checkout.html": 3100, "help.html": 2000,
                      "terms.html": 8000, "privacy.html": 7000}, ()),
]):
    recorder.case(c)
    live = collect(list(files))
    minify(live, files)
    upload(site, live, refused)
    purge(site, live)
recorder.write()
