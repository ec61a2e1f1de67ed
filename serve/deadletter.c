/*
 * The dead-letter topic (kafka.dead_letter_topic): an input message the
 * engine cannot use at all (no record decodes, or every record is
 * refused) is produced there unchanged, key and value, with headers
 * saying why and where it came from. It is sent by the engine in the
 * batch that stores the message's offset, and the committer waits for its
 * acknowledgement as for the batch's predictions: the offset is stored
 * only once the dead letter is on the topic, so a message is never both
 * skipped and lost. While the broker does not take it, the batch waits
 * (and with it the input); if the produce fails for good, the batch is not
 * committed and the daemon stops, to resume from the stored offsets.
 */
#include "serve_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int serve__dead_letter_open(serve *s, const char *const *props, size_t nprops, char *why,
                            size_t whylen)
{
    s->dl_topic = core_cfg_str(s->cfg, "kafka.dead_letter_topic");
    if (!*s->dl_topic || !s->in_topics.n)
        return 0;
    sink_kafka_opts ko = {.bootstrap = s->bootstrap,
                          .topic = s->dl_topic,
                          .props = props,
                          .nprops = nprops,
                          .log = s->lg};
    return sink_kafka_new(&ko, &s->kdl, why, whylen);
}

int serve__dead_letter(serve *s, const ingest_kafka_msg *km, serve_dl_reason reason,
                       const char *why)
{
    static const char *const names[SERVE_DL__COUNT] = {"undecodable", "refused"};
    char part[16], off[24], when[24];
    snprintf(part, sizeof part, "%" PRId32, km->partition);
    snprintf(off, sizeof off, "%" PRId64, km->offset);
    snprintf(when, sizeof when, "%" PRIu64, core_wall_ns() / 1000000u);
    const sink_kafka_header h[] = {
        {"pmrag.error", why, strlen(why)},
        {"pmrag.reason", names[reason], strlen(names[reason])},
        {"pmrag.source.topic", km->topic, strlen(km->topic)},
        {"pmrag.source.partition", part, strlen(part)},
        {"pmrag.source.offset", off, strlen(off)},
        {"pmrag.time", when, strlen(when)},
    };
    int rc;
    /* Backpressure blocks as the predictions' does: the input waits. */
    while ((rc = sink_kafka_send_headers(s->kdl, km->key, km->key ? km->klen : 0, km->val,
                                         km->val ? km->vlen : 0, h, sizeof h / sizeof h[0], 100)) ==
               -EAGAIN &&
           !s->stop)
        ;
    if (rc) {
        sink_kafka_stats ks;
        sink_kafka_get_stats(s->kdl, &ks);
        core_logf(&s->lg, CORE_LOG_ERROR,
                  "%s[%" PRId32 "]@%" PRId64 ": cannot produce to the dead-letter topic %s: %s%s%s",
                  km->topic, km->partition, km->offset, s->dl_topic, core_strerror(rc),
                  ks.last_error[0] ? ": " : "", ks.last_error);
        return rc;
    }
    sink_counter_add(s->c_dead_letters[reason], 1);
    return 0;
}
