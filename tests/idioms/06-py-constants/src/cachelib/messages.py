MSG_EVICT = "Evicted %d entries from %s"
MSG_HIT_RATE = "Hit rate for {name}: {rate:.1%}"
