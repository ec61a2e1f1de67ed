/*
 * The recipe (model.h, model_train_from_log): every command that learns
 * from a log, and the daemon's bootstrap, go through here, so that what
 * `pmrag eval` measures is what `pmrag serve` runs.
 */
#include "model.h"

#include <stdio.h>

int model_train_from_log(const graph *g, const map_mapper_opts *mo, const char *path,
                         const model_log_opts *lo, model_train_opts *to, map_mapper **mapper,
                         model_log *log, model_joint **md, char *why, size_t whylen)
{
    map_mapper *m;
    model_joint *loaded = NULL;
    int rc;
    if (to->model_path) {
        rc = model_load_onto(to->model_path, g, mo, &to->load, &m, &loaded, why, whylen);
        if (rc)
            return rc;
    } else if ((rc = map_mapper_new(g, mo, &m)) != 0) {
        snprintf(why, whylen, "cannot build the template matcher: %s", core_strerror(rc));
        return rc;
    }
    model_log l;
    rc = model_log_load(path, lo, m, &l, why, whylen);
    if (rc) {
        model_free(loaded);
        map_mapper_free(m);
        return rc;
    }
    if (l.bad)
        core_logf(&to->log, CORE_LOG_WARN, "%s: %llu malformed records skipped", path,
                  (unsigned long long)l.bad);
    char w2[512];
    if (map_mapper_finish(m, w2, sizeof w2) != 0)
        core_logf(&to->log, CORE_LOG_WARN, "%s", w2);
    model_log_place(&l, m);
    /* Trained on no case, a model would predict nothing yet load and run
     * as if it could: refuse it here, where the log is named. */
    if (md && !loaded && l.ncases == 0) {
        snprintf(why, whylen, "%s: no events (an empty log makes no model)", path);
        model_log_free(&l);
        map_mapper_free(m);
        return CORE_EFORMAT;
    }
    if (lo->require_truth && !l.has_truth) {
        snprintf(why, whylen,
                 "%s: events without truth columns (code.filepath/code.file.path and "
                 "code.lineno/code.line.number; see --file-col, --line-col)",
                 path);
        model_free(loaded);
        model_log_free(&l);
        map_mapper_free(m);
        return CORE_EUSAGE;
    }
    if (loaded) {
        to->params = *model_get_params(loaded);
        if (md)
            *md = loaded;
        else
            model_free(loaded);
    } else if (md) {
        uint64_t t0 = core_now_ns();
        model_seqs train = model_log_train(&l);
        if (to->calibrate) {
            rc = model_calibrate(m, &train, to->calibrate_min_cases, &to->params, &to->log);
            if (rc)
                snprintf(why, whylen, "calibration failed: %s", core_strerror(rc));
        }
        if (!rc && (rc = model_train(m, &train, &to->params, md)) != 0)
            snprintf(why, whylen, "training failed: %s", core_strerror(rc));
        to->seconds = (double)(core_now_ns() - t0) / 1e9;
        if (rc) {
            model_log_free(&l);
            map_mapper_free(m);
            return rc;
        }
    }
    *mapper = m;
    *log = l;
    return 0;
}
