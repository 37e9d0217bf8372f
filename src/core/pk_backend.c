/* Choosing a style's backend: parsing the user's words and the environment, then picking. */
#include "pk_backend.h"

#include "pk_threads.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const BACKEND_NAMES[PK_BACKEND_COUNT] = {"cpu", "cuda", "sve"};
static const char *const PRECISION_NAMES[] = {"double", "mixed"};

const char *pk_backend_name(pk_backend_kind kind)
{
    return (kind >= 0 && kind < PK_BACKEND_COUNT) ? BACKEND_NAMES[kind] : "?";
}

const char *pk_precision_name(pk_precision precision)
{
    return (precision == PK_PRECISION_DOUBLE || precision == PK_PRECISION_MIXED)
               ? PRECISION_NAMES[precision] : "?";
}

pk_code pk_backend_parse(const char *word, int *kind, pk_status *st)
{
    if (strcmp(word, "auto") == 0) {
        *kind = PK_BACKEND_AUTO;
        return PK_OK;
    }
    for (int k = 0; k < PK_BACKEND_COUNT; k++)
        if (strcmp(word, BACKEND_NAMES[k]) == 0) {
            *kind = k;
            return PK_OK;
        }
    return pk_fail(st, PK_ERR_ARG, "unknown backend '%s': expected auto, cpu, cuda or sve", word);
}

pk_code pk_precision_parse(const char *word, int *precision, pk_status *st)
{
    for (int p = PK_PRECISION_DOUBLE; p <= PK_PRECISION_MIXED; p++)
        if (strcmp(word, PRECISION_NAMES[p]) == 0) {
            *precision = p;
            return PK_OK;
        }
    return pk_fail(st, PK_ERR_ARG, "unknown precision '%s': expected double or mixed", word);
}

void pk_backend_request_default(pk_backend_request *req)
{
    req->kind = PK_BACKEND_AUTO;
    req->precision = PK_PRECISION_DEFAULT;
    req->device = -1;
    req->local_rank = 0;
    req->local_size = 1;
    req->device_memory_cap = 0;
}

void pk_backend_request_cpu(pk_backend_request *req)
{
    pk_backend_request_default(req);
    req->kind = PK_BACKEND_CPU;
}

pk_code pk_backend_request_env(pk_backend_request *req, int input_kind_set,
                               int input_precision_set, pk_status *st)
{
    const char *kind = getenv("PAIRKIT_BACKEND");
    const char *precision = getenv("PAIRKIT_PRECISION");
    const char *cap = getenv("PAIRKIT_GPU_MEMORY_CAP");
    if (!input_kind_set && kind && *kind && pk_backend_parse(kind, &req->kind, st))
        return pk_fail(st, PK_ERR_ARG, "environment variable PAIRKIT_BACKEND='%s': expected "
                       "auto, cpu, cuda or sve", kind);
    if (!input_precision_set && precision && *precision &&
        pk_precision_parse(precision, &req->precision, st))
        return pk_fail(st, PK_ERR_ARG, "environment variable PAIRKIT_PRECISION='%s': expected "
                       "double or mixed", precision);
    if (cap && *cap) {
        char *end;
        const double bytes = strtod(cap, &end);
        /* (double)SIZE_MAX rounds up to 2^64 (on 64 bits): below it the conversion to
         * size_t is defined (for inf or 1e90 it is not) */
        if (*end || !(bytes >= 0.0) || !(bytes < (double)SIZE_MAX))
            return pk_fail(st, PK_ERR_ARG, "environment variable PAIRKIT_GPU_MEMORY_CAP='%s': "
                           "expected a number of bytes (0 to SIZE_MAX)", cap);
        req->device_memory_cap = (size_t)bytes;
    }
    return PK_OK;
}

int pk_backend_compiled(pk_backend_kind kind)
{
    switch (kind) {
    case PK_BACKEND_CPU: return 1;
#ifdef PK_HAVE_CUDA
    case PK_BACKEND_CUDA: return 1;
#endif
#ifdef PK_HAVE_SVE
    case PK_BACKEND_SVE: return 1;
#endif
    default: return 0;
    }
}

/* Why kind k cannot run for this style, in words a user can act on; "" when it can. */
static void why_not(const char *style, const pk_backend_ops *d, pk_backend_kind k,
                    char *why, size_t len)
{
    why[0] = '\0';
    if (!pk_backend_compiled(k)) {
        snprintf(why, len, "this PairKit was built without %s (configure with -DPAIRKIT_%s=ON)",
                 BACKEND_NAMES[k], k == PK_BACKEND_CUDA ? "CUDA" : "SVE");
    } else if (!d) {
        snprintf(why, len, "%s has no %s backend yet", style, BACKEND_NAMES[k]);
    } else if (d->available && !d->available(why, len)) {
        if (!why[0]) snprintf(why, len, "no usable %s device", BACKEND_NAMES[k]);
    }
}

pk_code pk_backend_choose(const char *style, const pk_backend_ops *const by_kind[PK_BACKEND_COUNT],
                          const pk_backend_request *req, pk_backend_kind *chosen,
                          char *note, size_t note_len, pk_status *st)
{
    const pk_precision precision =
        req->precision == PK_PRECISION_DEFAULT ? PK_PRECISION_DOUBLE : (pk_precision)req->precision;
    char why[256];
    if (note && note_len) note[0] = '\0';
    if (!by_kind[PK_BACKEND_CPU])
        return pk_fail(st, PK_ERR_UNSUPPORTED, "%s: no cpu backend registered", style);

    pk_backend_kind k = PK_BACKEND_CPU;
    if (req->kind == PK_BACKEND_AUTO) {
        /* fastest first; a backend that cannot run here is passed over, and the log says why */
        const pk_backend_kind order[] = {PK_BACKEND_CUDA, PK_BACKEND_SVE};
        for (size_t n = 0; n < sizeof order / sizeof order[0]; n++) {
            why_not(style, by_kind[order[n]], order[n], why, sizeof why);
            if (!why[0]) {
                k = order[n];
                break;
            }
            if (note && note_len && pk_backend_compiled(order[n]) && !note[0])
                snprintf(note, note_len, "%s not used: %s", BACKEND_NAMES[order[n]], why);
        }
    } else if (req->kind >= 0 && req->kind < PK_BACKEND_COUNT) {
        k = (pk_backend_kind)req->kind;
        why_not(style, by_kind[k], k, why, sizeof why);
        if (why[0])
            return pk_fail(st, PK_ERR_UNSUPPORTED, "backend %s cannot run: %s; use backend cpu "
                           "(or auto)", BACKEND_NAMES[k], why);
    } else {
        return pk_fail(st, PK_ERR_ARG, "invalid backend request %d", req->kind);
    }

    if (!(by_kind[k]->precisions & PK_PRECISION_BIT(precision)))
        return pk_fail(st, PK_ERR_UNSUPPORTED, "precision %s is not available on the %s backend "
                       "of %s%s", PRECISION_NAMES[precision], BACKEND_NAMES[k], style,
                       k == PK_BACKEND_CPU ? " (it computes in double; mixed precision is a GPU "
                                             "mode: use backend cuda, or precision double)" : "");
    *chosen = k;
    return PK_OK;
}

pk_code pk_backend_select(pk_backend_slot *slot, const char *style,
                          const pk_backend_ops *const by_kind[PK_BACKEND_COUNT], void *model,
                          const pk_backend_request *req, pk_status *st)
{
    pk_backend_kind kind;
    char note[sizeof slot->note];
    if (pk_backend_choose(style, by_kind, req, &kind, note, sizeof note, st)) return st->code;
    pk_backend_release(slot);
    const pk_backend_ops *ops = by_kind[kind];
    pk_backend_info info;
    memset(&info, 0, sizeof info);
    info.kind = kind;
    info.precision = req->precision == PK_PRECISION_DEFAULT ? PK_PRECISION_DOUBLE
                                                            : (pk_precision)req->precision;
    void *state = NULL;
    if (ops->init && ops->init(model, req, &state, &info, st)) return st->code;
    slot->ops = ops;
    slot->state = state;
    slot->info = info;
    memcpy(slot->note, note, sizeof note);
    return PK_OK;
}

double pk_backend_memory(const pk_backend_slot *slot)
{
    return (slot->ops && slot->ops->memory) ? slot->ops->memory(slot->state) : 0.0;
}

void pk_backend_release(pk_backend_slot *slot)
{
    if (slot->ops && slot->ops->release) slot->ops->release(slot->state);
    slot->ops = NULL;
    slot->state = NULL;
    slot->note[0] = '\0';
}

pk_code pk_backend_cpu_init(void *model, const pk_backend_request *req, void **state,
                            pk_backend_info *info, pk_status *st)
{
    (void)model; (void)req; (void)st;
    *state = NULL;
    const int n = pk_max_threads();
    snprintf(info->device, sizeof info->device, "CPU, %d OpenMP thread%s", n, n == 1 ? "" : "s");
    return PK_OK;
}
