/* Reusable buffers: grow geometrically, never shrink, freed with their owner. */
#ifndef PK_WORKSPACE_H
#define PK_WORKSPACE_H

#include <stddef.h>

#include "pk_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    void *data;
    size_t bytes;   /* capacity */
} pk_buffer;

/* Make buf hold at least n elements of elem bytes (contents are not preserved when it
 * grows; 64-byte aligned). Returns PK_OK or PK_ERR_MEMORY with a message. */
pk_code pk_buffer_reserve(pk_buffer *buf, size_t n, size_t elem, pk_status *st);
void pk_buffer_free(pk_buffer *buf);

#ifdef __cplusplus
}
#endif
#endif
