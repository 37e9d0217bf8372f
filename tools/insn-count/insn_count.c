/* A QEMU TCG plugin (qemu-user 7.x, plugin API version 1) that counts the guest instructions
 * executed per function, and how many of them are SVE instructions. Used by
 * tools/sve-insn-count.sh to measure vectorisation without SVE hardware.
 *
 *   qemu-aarch64 -plugin ./insn_count.so,out=FILE prog args...
 *
 * writes to FILE one line per function: "<instructions> <sve instructions> <name>", most
 * executed first. Counting is by inline adds on each executed instruction (exact, and cheap
 * next to a callback). The adds are not atomic: run the guest single-threaded
 * (OMP_NUM_THREADS=1).
 *
 * Only the few entry points of QEMU's public plugin interface that this file calls are
 * declared below, with the signatures of that interface (include/qemu/qemu-plugin.h of
 * QEMU 7.2), so that no QEMU source tree is needed to build it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the plugin interface, as far as used -------------------------------------------------- */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
const char *qemu_plugin_insn_symbol(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
                                                enum qemu_plugin_op op, void *ptr, uint64_t imm);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

/* ---- counters, one per function name ----------------------------------------------------------- */
typedef struct {
    const char *name;     /* QEMU's symbol-table string (lives as long as the process) */
    uint64_t insns, sve;
} counter;

enum { SLOTS = 1 << 16 };   /* open addressing; a test program has a few thousand functions */
static counter table[SLOTS];
static char out_path[4096] = "insn_count.txt";

static counter *counter_of(const char *name)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a of the name */
    for (const char *c = name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    for (size_t k = h & (SLOTS - 1);; k = (k + 1) & (SLOTS - 1)) {
        if (!table[k].name) table[k].name = name;
        if (table[k].name == name || strcmp(table[k].name, name) == 0) return &table[k];
    }
}

/* A64 encoding: bits 28..25 equal to 0b0010 select the SVE instruction classes (Arm ARM,
 * "Top-level encodings for A64"). */
static int is_sve(const struct qemu_plugin_insn *insn)
{
    uint32_t word;
    if (qemu_plugin_insn_size(insn) != sizeof word) return 0;
    memcpy(&word, qemu_plugin_insn_data(insn), sizeof word);
    return ((word >> 25) & 0xF) == 0x2;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    const size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t k = 0; k < n; k++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, k);
        const char *name = qemu_plugin_insn_symbol(insn);
        counter *c = counter_of(name ? name : "(no symbol)");
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &c->insns, 1);
        if (is_sve(insn))
            qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &c->sve, 1);
    }
}

static int most_first(const void *a, const void *b)
{
    const counter *x = a, *y = b;
    return (x->insns < y->insns) - (x->insns > y->insns);
}

static void write_counts(qemu_plugin_id_t id, void *userdata)
{
    (void)id; (void)userdata;
    size_t n = 0;
    for (size_t k = 0; k < SLOTS; k++)
        if (table[k].name && table[k].insns) table[n++] = table[k];
    qsort(table, n, sizeof *table, most_first);
    FILE *f = fopen(out_path, "w");
    if (!f) {
        perror(out_path);
        return;
    }
    for (size_t k = 0; k < n; k++)
        fprintf(f, "%llu %llu %s\n", (unsigned long long)table[k].insns,
                (unsigned long long)table[k].sve, table[k].name);
    fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info, int argc,
                               char **argv)
{
    (void)info;
    for (int k = 0; k < argc; k++) {
        if (strncmp(argv[k], "out=", 4) != 0 || strlen(argv[k] + 4) >= sizeof out_path) {
            fprintf(stderr, "insn_count: unknown argument '%s' (expected out=FILE)\n", argv[k]);
            return -1;
        }
        strcpy(out_path, argv[k] + 4);
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, write_counts, NULL);
    return 0;
}
