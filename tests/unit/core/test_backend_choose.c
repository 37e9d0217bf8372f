/* The backend seam's choosing (src/core/pk_backend.c) with stand-in backend tables: auto,
 * explicit kinds, precisions, the environment, and a slot's init/release. The stand-in
 * "cuda" table can say it is available, so the auto path that picks a GPU backend is tested
 * on machines without one (it runs only in builds that hold CUDA, as pk_backend_compiled
 * says). */
#define _POSIX_C_SOURCE 200112L   /* setenv */
#include <stdlib.h>
#include <string.h>

#include "pk_backend.h"
#include "pk_test.h"

static int gpu_present, inits, releases;

static int fake_available(char *why, size_t len)
{
    if (!gpu_present) snprintf(why, len, "no GPU in this test");
    return gpu_present;
}

static pk_code fake_init(void *model, const pk_backend_request *req, void **state,
                         pk_backend_info *info, pk_status *st)
{
    (void)model; (void)req;
    inits++;
    if (info->precision == PK_PRECISION_MIXED && gpu_present > 1)
        return pk_fail(st, PK_ERR_MEMORY, "init failed on purpose");
    *state = &inits;
    snprintf(info->device, sizeof info->device, "fake device");
    return PK_OK;
}

static void fake_release(void *state)
{
    if (state) releases++;
}

static pk_code no_compute(void *model, void *state, const void *args, pk_out *out, pk_status *st)
{
    (void)model; (void)state; (void)args; (void)out; (void)st;
    return PK_OK;
}

static const pk_backend_ops CPU = PK_BACKEND_CPU_OPS(no_compute);
static const pk_backend_ops FAKE_CUDA = {
    PK_BACKEND_CUDA, PK_PRECISION_BIT(PK_PRECISION_DOUBLE) | PK_PRECISION_BIT(PK_PRECISION_MIXED),
    fake_available, fake_init, no_compute, NULL, fake_release};
static const pk_backend_ops *const CPU_ONLY[PK_BACKEND_COUNT] = {[PK_BACKEND_CPU] = &CPU};
static const pk_backend_ops *const WITH_CUDA[PK_BACKEND_COUNT] = {
    [PK_BACKEND_CPU] = &CPU, [PK_BACKEND_CUDA] = &FAKE_CUDA};

/* Choose for (kind, precision); returns the code and leaves the kind and note. */
static pk_code choose(const pk_backend_ops *const *tables, int kind, int precision,
                      pk_backend_kind *got, char *note, pk_status *st)
{
    pk_backend_request req;
    pk_backend_request_default(&req);
    req.kind = kind;
    req.precision = precision;
    pk_status_clear(st);
    return pk_backend_choose("test/pk", tables, &req, got, note, 256, st);
}

static void test_choosing(void)
{
    const int cuda_built = pk_backend_compiled(PK_BACKEND_CUDA);
    pk_backend_kind got;
    char note[256];
    pk_status st;

    gpu_present = 1;
    PK_CHECK(choose(CPU_ONLY, PK_BACKEND_AUTO, PK_PRECISION_DEFAULT, &got, note, &st) == PK_OK &&
             got == PK_BACKEND_CPU, "auto without other backends: cpu (%s)", st.msg);
    if (cuda_built)
        PK_CHECK(strstr(note, "cuda not used: test/pk has no cuda backend yet") != NULL,
                 "note: '%s'", note);
    PK_CHECK(choose(WITH_CUDA, PK_BACKEND_AUTO, PK_PRECISION_DEFAULT, &got, note, &st) == PK_OK &&
             got == (cuda_built ? PK_BACKEND_CUDA : PK_BACKEND_CPU),
             "auto with an available cuda: %d (%s)", (int)got, st.msg);
    PK_CHECK(note[0] == '\0' || !cuda_built, "no note when auto takes cuda: '%s'", note);

    gpu_present = 0;
    PK_CHECK(choose(WITH_CUDA, PK_BACKEND_AUTO, PK_PRECISION_DEFAULT, &got, note, &st) == PK_OK &&
             got == PK_BACKEND_CPU, "auto without a GPU: cpu");
    if (cuda_built)
        PK_CHECK(strcmp(note, "cuda not used: no GPU in this test") == 0, "note: '%s'", note);

    PK_CHECK(choose(WITH_CUDA, PK_BACKEND_CUDA, PK_PRECISION_DEFAULT, &got, note, &st) ==
                 PK_ERR_UNSUPPORTED &&
             strstr(st.msg, cuda_built ? "backend cuda cannot run: no GPU in this test; use "
                                         "backend cpu"
                                       : "built without cuda (configure with -DPAIRKIT_CUDA=ON)"),
             "explicit cuda without a GPU: %s", st.msg);
    PK_CHECK(choose(CPU_ONLY, PK_BACKEND_SVE, PK_PRECISION_DEFAULT, &got, note, &st) ==
                 PK_ERR_UNSUPPORTED && strstr(st.msg, "backend sve cannot run"),
             "explicit sve: %s", st.msg);
    PK_CHECK(choose(CPU_ONLY, PK_BACKEND_CPU, PK_PRECISION_MIXED, &got, note, &st) ==
                 PK_ERR_UNSUPPORTED &&
             strstr(st.msg, "precision mixed is not available on the cpu backend of test/pk"),
             "mixed on cpu: %s", st.msg);
    PK_CHECK(choose(CPU_ONLY, PK_BACKEND_AUTO, PK_PRECISION_MIXED, &got, note, &st) ==
                 PK_ERR_UNSUPPORTED, "mixed falling back to cpu is an error, not double");
    if (cuda_built) {
        gpu_present = 1;
        PK_CHECK(choose(WITH_CUDA, PK_BACKEND_CUDA, PK_PRECISION_MIXED, &got, note, &st) == PK_OK &&
                 got == PK_BACKEND_CUDA, "mixed on an available cuda: %s", st.msg);
    }
}

static void test_words_and_environment(void)
{
    pk_status st;
    pk_backend_request req;
    int kind = 99;
    pk_status_clear(&st);
    PK_CHECK(pk_backend_parse("opencl", &kind, &st) == PK_ERR_ARG &&
             strstr(st.msg, "unknown backend 'opencl': expected auto, cpu, cuda or sve"), "%s", st.msg);
    PK_CHECK(pk_backend_parse("auto", &kind, &st) == PK_OK && kind == PK_BACKEND_AUTO, "auto");
    PK_CHECK(pk_precision_parse("single", &kind, &st) == PK_ERR_ARG, "precision single refused");

    pk_backend_request_default(&req);
    setenv("PAIRKIT_BACKEND", "cpu", 1);
    setenv("PAIRKIT_PRECISION", "mixed", 1);
    setenv("PAIRKIT_GPU_MEMORY_CAP", "1e6", 1);
    PK_CHECK(pk_backend_request_env(&req, 0, 0, &st) == PK_OK && req.kind == PK_BACKEND_CPU &&
             req.precision == PK_PRECISION_MIXED && req.device_memory_cap == 1000000,
             "environment read: %s", st.msg);
    pk_backend_request_default(&req);
    req.kind = PK_BACKEND_CUDA;
    PK_CHECK(pk_backend_request_env(&req, 1, 1, &st) == PK_OK && req.kind == PK_BACKEND_CUDA &&
             req.precision == PK_PRECISION_DEFAULT, "the input's keywords win");
    setenv("PAIRKIT_BACKEND", "gpu", 1);
    PK_CHECK(pk_backend_request_env(&req, 0, 1, &st) == PK_ERR_ARG &&
             strstr(st.msg, "PAIRKIT_BACKEND='gpu'"), "bad environment: %s", st.msg);
    setenv("PAIRKIT_BACKEND", "auto", 1);
    setenv("PAIRKIT_GPU_MEMORY_CAP", "lots", 1);
    PK_CHECK(pk_backend_request_env(&req, 0, 1, &st) == PK_ERR_ARG, "bad cap refused");
    /* found by fuzzing: beyond SIZE_MAX the conversion to size_t was undefined */
    setenv("PAIRKIT_GPU_MEMORY_CAP", "1e90", 1);
    PK_CHECK(pk_backend_request_env(&req, 0, 1, &st) == PK_ERR_ARG &&
             strstr(st.msg, "PAIRKIT_GPU_MEMORY_CAP='1e90'"), "huge cap refused: %s", st.msg);
    unsetenv("PAIRKIT_BACKEND");
    unsetenv("PAIRKIT_PRECISION");
    unsetenv("PAIRKIT_GPU_MEMORY_CAP");
}

/* A slot releases the backend it held when another is chosen, and is empty after a failed
 * init (so a step cannot run on a half-made backend). */
static void test_slot(void)
{
    if (!pk_backend_compiled(PK_BACKEND_CUDA)) return;
    pk_backend_slot slot;
    memset(&slot, 0, sizeof slot);
    pk_backend_request req;
    pk_backend_request_default(&req);
    pk_status st;
    pk_status_clear(&st);
    gpu_present = 1;
    inits = releases = 0;
    PK_CHECK(pk_backend_select(&slot, "test/pk", WITH_CUDA, NULL, &req, &st) == PK_OK &&
             slot.ops == &FAKE_CUDA && slot.state == &inits && inits == 1 &&
             strcmp(slot.info.device, "fake device") == 0, "select cuda: %s", st.msg);
    req.kind = PK_BACKEND_CPU;
    PK_CHECK(pk_backend_select(&slot, "test/pk", WITH_CUDA, NULL, &req, &st) == PK_OK &&
             slot.ops == &CPU && releases == 1 && strstr(slot.info.device, "CPU, "),
             "reselect cpu releases cuda");
    req.kind = PK_BACKEND_CUDA;
    req.precision = PK_PRECISION_MIXED;
    gpu_present = 2;   /* fake_init fails */
    PK_CHECK(pk_backend_select(&slot, "test/pk", WITH_CUDA, NULL, &req, &st) == PK_ERR_MEMORY &&
             slot.ops == NULL, "failed init leaves the slot empty");
    pk_backend_release(&slot);
}

int main(void)
{
    test_choosing();
    test_words_and_environment();
    test_slot();
    return pk_test_finish();
}
