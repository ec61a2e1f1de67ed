"""A garden irrigation controller: zones watered one after another from a
queue, valve faults reported through the event loop's exception handler."""
