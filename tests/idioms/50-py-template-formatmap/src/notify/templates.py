from string import Template

WELCOME = Template("Welcome mail for $user queued on $channel")
QUOTA = Template("Mailbox of ${user} is ${pct}% full")
DIGEST = "Digest #{n} for {user}: {count} new items"
