import recorder
# Field.fail is a pure logging wrapper: its callers emit the messages
recorder.setup("src", skip=["fail"])
from forms.form import signup
for c, d in enumerate([{"name": "ann", "email": "ann@x.io", "age": "34"}, {"name": "", "email": "bob", "age": "x1"}, {"name": "cy", "email": "cy@y.io", "age": "412"}, {"name": "dee", "email": "", "age": ""}]):
    recorder.case(c)
    signup(d)
recorder.write()
