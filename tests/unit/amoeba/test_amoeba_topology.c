/* Topology helpers with ghost atoms, as on several MPI ranks:
 *  - a hydrogen owned here whose frame atoms (its oxygen and the other hydrogen) are both
 *    ghosts: the frame (z = O, x = H', record "multipole 2 1 2") is found from the ghosts'
 *    1-2 lists (bond12), and without them the call fails saying so;
 *  - H-reduction partners: a ghost hydrogen whose bonded oxygen copy is not present gets
 *    -1 although another copy of that oxygen is present 9 A away, while ghosts whose
 *    partner copy is present get it. */
#include <math.h>
#include <string.h>

#include "amoeba_testsys.h"
#include "pk_test.h"

typedef struct {
    int n;
    const pk_tag *tag;
    const double (*x)[3];
} copies;

/* Closest copy of `tag` to atom near_i (any copy for near_i < 0): LAMMPS's map +
 * closest_image over the atoms present. */
static int map_tag(void *ctx, pk_tag tag, int near_i)
{
    const copies *c = ctx;
    int best = -1;
    double bd = INFINITY;
    for (int j = 0; j < c->n; j++) {
        if (c->tag[j] != tag) continue;
        if (near_i < 0) return j;
        double r2 = 0;
        for (int d = 0; d < 3; d++) r2 += (c->x[j][d] - c->x[near_i][d]) * (c->x[j][d] - c->x[near_i][d]);
        if (r2 < bd) {
            bd = r2;
            best = j;
        }
    }
    return best;
}

static void frame_from_ghost_bonds(const pk_amoeba_model *m)
{
    /* owned H (tag 2); ghosts O (tag 1) and H' (tag 3) */
    const pk_tag tag[3] = {2, 1, 3};
    const double x[3][3] = {{0.24, 0.93, 0.0}, {0.0, 0.0, 0.0}, {0.96, 0.0, 0.0}};
    const int amtype[3] = {2, 1, 2};
    const int nspecial[3][3] = {{1, 2, 2}, {0, 0, 0}, {0, 0, 0}};
    const pk_tag special_h[2] = {1, 3};
    const pk_tag *special[3] = {special_h, NULL, NULL};
    const pk_tag b0[1] = {1}, b1[2] = {2, 3}, b2[1] = {1};
    const pk_tag *bond12[3] = {b0, b1, b2};
    const int nbond12[3] = {1, 2, 1};
    copies c = {3, tag, x};
    pk_atoms a = {0};
    a.nlocal = 1;
    a.nghost = 2;
    a.x = x;
    a.tag = tag;
    pk_amoeba_topology top = {0};
    top.nspecial = nspecial;
    top.special = special;
    top.map = map_tag;
    top.map_ctx = &c;
    top.nbond12 = nbond12;
    top.bond12 = bond12;

    int rec = -1, frame[1][3];
    pk_tag ftag[1][3];
    pk_status st;
    pk_code rc = pk_amoeba_assign_frames(m, &a, &top, amtype, &rec, ftag, frame, &st);
    PK_CHECK(rc == PK_OK, "frame with ghost z and x: %s", st.msg);
    if (rc == PK_OK) {
        const pk_amoeba_mpole_param *p = &m->mpole[rec];
        PK_CHECK(p->type == 2 && p->zt == 1 && p->xt == 2 && p->kind == PK_AMOEBA_ZTHENX,
                 "H record: type %d z %d x %d kind %d", p->type, p->zt, p->xt, (int)p->kind);
        PK_CHECK(ftag[0][0] == 1 && ftag[0][1] == 3 && ftag[0][2] == 0, "frame tags %d %d %d",
                 (int)ftag[0][0], (int)ftag[0][1], (int)ftag[0][2]);
        PK_CHECK(frame[0][0] == 1 && frame[0][1] == 2 && frame[0][2] == 0, "frame indices %d %d %d",
                 frame[0][0], frame[0][1], frame[0][2]);
    }

    top.nbond12 = NULL;
    top.bond12 = NULL;
    rc = pk_amoeba_assign_frames(m, &a, &top, amtype, &rec, ftag, frame, &st);
    PK_CHECK(rc != PK_OK && strstr(st.msg, "frame of atom 2 needs the bond list of a ghost atom"),
             "without ghost bond lists: %s", rc == PK_OK ? "accepted" : st.msg);
}

static void hred_images(void)
{
    /* O (tag 1) and H (tag 2) owned; ghosts: an image of H whose bonded O image lies
     * outside (at x = -10, not present), an image of O at x = 10 with its H image */
    const pk_tag tag[5] = {1, 2, 2, 1, 2};
    const double x[5][3] = {{0, 0, 0}, {0.96, 0, 0}, {-9.04, 0, 0}, {10, 0, 0}, {10.96, 0, 0}};
    const pk_tag hred_tag[5] = {0, 1, 1, 0, 1};
    const int want[5] = {0, 0, -1, 3, 3};
    copies c = {5, tag, x};
    pk_atoms a = {0};
    a.nlocal = 2;
    a.nghost = 3;
    a.x = x;
    a.tag = tag;
    pk_amoeba_topology top = {0};
    top.map = map_tag;
    top.map_ctx = &c;
    int hred[5];
    pk_amoeba_map_hred(&a, &top, hred_tag, hred);
    for (int i = 0; i < 5; i++) PK_CHECK(hred[i] == want[i], "atom %d: partner %d, want %d", i, hred[i], want[i]);
}

int main(void)
{
    pk_amoeba_model m;
    pk_status st;
    if (pk_amoeba_read(&m, ts_data("amoeba_water.prm"), NULL, &st) != PK_OK) {
        PK_CHECK(0, "read: %s", st.msg);
        return pk_test_finish();
    }
    frame_from_ghost_bonds(&m);
    hred_images();
    pk_amoeba_free(&m);
    return pk_test_finish();
}
