#include "pk_workspace.h"

#include <stdlib.h>

enum { PK_ALIGN = 64 };

pk_code pk_buffer_reserve(pk_buffer *buf, size_t n, size_t elem, pk_status *st)
{
    size_t need = n * elem;
    if (need <= buf->bytes) return PK_OK;
    /* 1/8 above the need, or 1.5x the old capacity when that is more: a buffer sized
     * once stays near its need, one that keeps growing grows geometrically */
    size_t cap = need + need / 8, grown = buf->bytes + buf->bytes / 2;
    if (cap < grown) cap = grown;
    cap = (cap + PK_ALIGN - 1) / PK_ALIGN * PK_ALIGN;
    void *p = aligned_alloc(PK_ALIGN, cap);
    if (!p) return pk_fail(st, PK_ERR_MEMORY, "cannot allocate %zu bytes of workspace", cap);
    free(buf->data);
    buf->data = p;
    buf->bytes = cap;
    return PK_OK;
}

void pk_buffer_free(pk_buffer *buf)
{
    free(buf->data);
    buf->data = NULL;
    buf->bytes = 0;
}
