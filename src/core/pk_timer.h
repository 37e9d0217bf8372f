/* Wall-clock section timer for end-of-run reports. */
#ifndef PK_TIMER_H
#define PK_TIMER_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double total;   /* seconds accumulated */
    double start;
} pk_timer;

double pk_wall_seconds(void);
static inline void pk_timer_start(pk_timer *t) { t->start = pk_wall_seconds(); }
static inline void pk_timer_stop(pk_timer *t) { t->total += pk_wall_seconds() - t->start; }

#ifdef __cplusplus
}
#endif
#endif
