#include "pk_workspace.h"

#include <stdlib.h>

enum { PK_ALIGN = 64 };

pk_code pk_buffer_reserve(pk_buffer *buf, size_t n, size_t elem, pk_status *st)
{
    size_t need = n * elem;
    if (need <= buf->bytes) return PK_OK;
    size_t cap = buf->bytes ? buf->bytes : 4096;
    while (cap < need) cap += cap / 2;          /* 1.5x growth */
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
