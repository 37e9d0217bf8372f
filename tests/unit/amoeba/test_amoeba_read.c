/* Tinker prm/key reader: values from the AMOEBA water files, and bad inputs whose messages
 * must name the file, the line and the keyword. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amoeba_testsys.h"
#include "pk_test.h"

#define BOHR 0.52917721067

static const char *write_file(const char *name, const char *text)
{
    static char path[2][256];
    static int k;
    k ^= 1;
    snprintf(path[k], sizeof path[k], "amoeba_read_%s", name);
    FILE *fp = fopen(path[k], "w");
    if (!fp) {
        perror(path[k]);
        exit(2);
    }
    fputs(text, fp);
    fclose(fp);
    return path[k];
}

static const char *PRM_HEAD =
    "      ##############################\n"
    "      ##  Force Field Definition  ##\n"
    "      ##############################\n"
    "forcefield   TEST\n"
    "vdwtype      BUFFERED-14-7\n"
    "radiusrule   CUBIC-MEAN\n"
    "radiustype   R-MIN\n"
    "radiussize   DIAMETER\n"
    "epsilonrule  HHG\n"
    "      ##############################\n"
    "      ##  Atom Type Definitions   ##\n"
    "      ##############################\n"
    "atom 1 1 O \"Water O\" 8 15.995 2\n"
    "atom 2 2 H \"Water H\" 1 1.008 1\n";

/* prm = PRM_HEAD + extra; expect failure with code and message fragments. */
static void expect_prm_error(const char *extra, pk_code code, const char *frag1, const char *frag2)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", PRM_HEAD, extra);
    const char *path = write_file("bad.prm", text);
    pk_amoeba_model m;
    pk_status st;
    pk_code rc = pk_amoeba_read(&m, path, NULL, &st);
    PK_CHECK(rc == code, "prm '%s': code %d, want %d (%s)", extra, rc, code, st.msg);
    PK_CHECK(strstr(st.msg, path) != NULL, "message names the file: %s", st.msg);
    PK_CHECK(frag1 == NULL || strstr(st.msg, frag1) != NULL, "message has '%s': %s", frag1, st.msg);
    PK_CHECK(frag2 == NULL || strstr(st.msg, frag2) != NULL, "message has '%s': %s", frag2, st.msg);
    pk_amoeba_free(&m);
}

static void expect_key_error(const char *key, pk_code code, const char *frag1, const char *frag2)
{
    const char *kpath = write_file("bad.key", key);
    pk_amoeba_model m;
    pk_status st;
    pk_code rc = pk_amoeba_read(&m, ts_data("amoeba_water.prm"), kpath, &st);
    PK_CHECK(rc == code, "key '%s': code %d, want %d (%s)", key, rc, code, st.msg);
    PK_CHECK(strstr(st.msg, kpath) != NULL, "message names the file: %s", st.msg);
    PK_CHECK(frag1 == NULL || strstr(st.msg, frag1) != NULL, "message has '%s': %s", frag1, st.msg);
    PK_CHECK(frag2 == NULL || strstr(st.msg, frag2) != NULL, "message has '%s': %s", frag2, st.msg);
    pk_amoeba_free(&m);
}

static void water_values(void)
{
    pk_amoeba_model m;
    pk_status st;
    pk_code rc = pk_amoeba_read(&m, ts_data("amoeba_water.prm"), ts_data("amoeba_water.key"), &st);
    PK_CHECK(rc == PK_OK, "read water: %s", st.msg);
    if (rc) return;
    PK_CHECK(!strcmp(m.forcefield, "AMOEBA-WATER-2003"), "forcefield %s", m.forcefield);
    PK_CHECK(m.ntypes == 2 && m.nclasses == 2, "types %d classes %d", m.ntypes, m.nclasses);
    PK_CHECK(m.type_class[1] == 1 && m.type_class[2] == 2, "classes");
    PK_CHECK_CLOSE(m.mass[1], 15.995, 1e-15, 1.0);
    PK_CHECK(m.atomic_num[2] == 1 && m.valence[1] == 2, "atomic number / valence");
    PK_CHECK_CLOSE(m.vdw_red[2], 0.91, 1e-15, 1.0);
    PK_CHECK(m.vdw_red[1] == 0.0, "O has no reduction");
    /* cubic-mean radii of the half diameters; HHG epsilon */
    const double ro = 3.405 / 2, rh = 2.655 / 2;
    PK_CHECK_CLOSE(pk_amoeba_radmin(&m, 1, 1), 3.405, 1e-14, 1.0);
    PK_CHECK_CLOSE(pk_amoeba_radmin(&m, 1, 2), 2 * (ro * ro * ro + rh * rh * rh) / (ro * ro + rh * rh), 1e-14, 1.0);
    PK_CHECK_CLOSE(pk_amoeba_radmin(&m, 2, 1), pk_amoeba_radmin(&m, 1, 2), 0, 1.0);
    const double eo = 0.11, eh = 0.0135;
    PK_CHECK_CLOSE(pk_amoeba_epsilon(&m, 1, 2), 4 * eo * eh / pow(sqrt(eo) + sqrt(eh), 2), 1e-14, 1.0);
    PK_CHECK_CLOSE(pk_amoeba_epsilon(&m, 1, 1), eo, 1e-14, 1.0);
    /* multipoles: O is a bisector of its two H, H is z-then-x (z = O, x = other H) */
    PK_CHECK(m.nmpole == 2, "nmpole %d", m.nmpole);
    PK_CHECK(m.mpole[0].type == 1 && m.mpole[0].kind == PK_AMOEBA_BISECTOR && m.mpole[0].zt == 2 &&
                 m.mpole[0].xt == 2 && m.mpole[0].yt == 0, "O frame");
    PK_CHECK(m.mpole[1].type == 2 && m.mpole[1].kind == PK_AMOEBA_ZTHENX && m.mpole[1].zt == 1 &&
                 m.mpole[1].xt == 2, "H frame");
    PK_CHECK_CLOSE(m.mpole[0].pole[0], -0.51966, 1e-15, 1.0);
    PK_CHECK_CLOSE(m.mpole[0].pole[3], 0.14279 * BOHR, 1e-15, 1.0);
    PK_CHECK_CLOSE(m.mpole[1].pole[1], -0.03859 * BOHR, 1e-15, 1.0);
    /* H quadrupole xx yx yy zx zy zz = -0.03673 0 -0.10739 -0.00203 0 0.14412, /3 in A^2 */
    const double q3 = BOHR * BOHR / 3;
    PK_CHECK_CLOSE(m.mpole[1].pole[4], -0.03673 * q3, 1e-15, 1.0);
    PK_CHECK_CLOSE(m.mpole[1].pole[6], -0.00203 * q3, 1e-15, 1.0);
    PK_CHECK_CLOSE(m.mpole[1].pole[10], -0.00203 * q3, 1e-15, 1.0);
    PK_CHECK_CLOSE(m.mpole[1].pole[8], -0.10739 * q3, 1e-15, 1.0);
    PK_CHECK_CLOSE(m.mpole[1].pole[12], 0.14412 * q3, 1e-15, 1.0);
    PK_CHECK(m.mpole[1].line == 145, "record line %d", m.mpole[1].line);
    /* polarize */
    PK_CHECK_CLOSE(m.polarity[1], 0.837, 1e-15, 1.0);
    PK_CHECK_CLOSE(m.thole[2], 0.39, 1e-15, 1.0);
    PK_CHECK(m.npolgroup[1] == 1 && m.polgroup[1][0] == 2, "O polarization group");
    /* scale factors; mpole-15-scale is commented out in the file, so it stays 1 */
    PK_CHECK(m.vdw_scale[0] == 1.0 && m.vdw_scale[1] == 0.0 && m.vdw_scale[2] == 0.0 &&
                 m.vdw_scale[3] == 1.0 && m.vdw_scale[4] == 1.0, "vdw scales");
    PK_CHECK(m.mpole_scale[1] == 0.0 && m.mpole_scale[3] == 0.4 && m.mpole_scale[4] == 1.0,
             "mpole scales %g %g", m.mpole_scale[3], m.mpole_scale[4]);
    PK_CHECK(m.polar_intra[3] == 0.5 && m.polar_scale[3] == 1.0, "polar scales");
    PK_CHECK(m.direct11_scale == 0.0 && m.mutual11_scale == 1.0, "1-1 scales");
    PK_CHECK(m.polarization == PK_AMOEBA_POLAR_MUTUAL, "polarization");
    /* key: cutoff 10, taper 8, polar-eps 1e-5, usolve-diag 1.0 */
    PK_CHECK(m.set.vdw_cut == 10 && m.set.vdw_taper == 8 && m.set.mpole_cut == 10 &&
                 m.set.polar_cut == 10, "cutoffs %g %g %g %g", m.set.vdw_cut, m.set.vdw_taper,
             m.set.mpole_cut, m.set.polar_cut);
    PK_CHECK(m.set.polar_eps == 1e-5 && m.set.usolve_diag == 1.0 && m.set.usolve_cut == 4.5 &&
                 m.set.polar_iter == 100, "solver settings");
    pk_amoeba_free(&m);

    /* defaults without a key file, and fractional tapers */
    rc = pk_amoeba_read(&m, ts_data("amoeba_water.prm"), NULL, &st);
    PK_CHECK(rc == PK_OK && m.set.vdw_cut == 9.0 && fabs(m.set.vdw_taper - 8.1) < 1e-12 &&
                 m.set.polar_cut == 7.0, "defaults");
    pk_amoeba_free(&m);
    const char *k = write_file("frac.key", "vdw-cutoff 12\nvdw-taper -0.75 !! fraction\n# comment\n");
    rc = pk_amoeba_read(&m, ts_data("amoeba_water.prm"), k, &st);
    PK_CHECK(rc == PK_OK && m.set.vdw_cut == 12.0 && m.set.vdw_taper == 9.0, "vdw-taper fraction: %s", st.msg);
    pk_amoeba_free(&m);
    k = write_file("frac2.key", "cutoff 10\ntaper 0.85\n");
    rc = pk_amoeba_read(&m, ts_data("amoeba_water.prm"), k, &st);
    PK_CHECK(rc == PK_OK && fabs(m.set.vdw_taper - 8.5) < 1e-12, "positive taper fraction: %g", m.set.vdw_taper);
    pk_amoeba_free(&m);
}

/* Where SMOOTH mode's electrostatic switches start, from the key (LAMMPS read_keyfile
 * semantics: "cutoff" 0.65 of it, "taper" every taper, "mpole-taper" the multipole one). */
static void elec_tapers(void)
{
    static const struct {
        const char *key;
        double mpole_taper, mpole_cut, polar_taper, polar_cut;
    } c[] = {{NULL, 0.65 * 9.0, 9.0, 0.65 * 7.0, 7.0},
             {"cutoff 7\ntaper 6\n", 6.0, 7.0, 6.0, 7.0},
             {"cutoff 10\n", 6.5, 10.0, 6.5, 10.0},
             {"cutoff 10\ntaper -0.75\n", 7.5, 10.0, 7.5, 10.0},
             {"cutoff 8\nmpole-taper 0.5\n", 4.0, 8.0, 0.65 * 8.0, 8.0},
             {"cutoff 8\nmpole-taper 7\n", 7.0, 8.0, 0.65 * 8.0, 8.0},
             {"taper 5\nmpole-cutoff 6\newald-cutoff 8\n", 0.65 * 6.0, 6.0, 0.65 * 8.0, 8.0}};
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        pk_amoeba_model m;
        pk_status st;
        pk_code rc = pk_amoeba_read(&m, ts_data("amoeba_water.prm"),
                                    c[k].key ? write_file("taper.key", c[k].key) : NULL, &st);
        PK_CHECK(rc == PK_OK && m.set.elec == PK_AMOEBA_ELEC_LAMMPS, "taper key %zu: %s", k, st.msg);
        PK_CHECK(fabs(m.set.mpole_taper - c[k].mpole_taper) < 1e-12 && m.set.mpole_cut == c[k].mpole_cut &&
                     fabs(m.set.polar_taper - c[k].polar_taper) < 1e-12 && m.set.polar_cut == c[k].polar_cut,
                 "key %zu: multipole switch %g..%g, polarization %g..%g", k, m.set.mpole_taper,
                 m.set.mpole_cut, m.set.polar_taper, m.set.polar_cut);
        pk_amoeba_free(&m);
    }
}

/* All frame kinds from their sign encodings, and multipole records spanning lines. */
static void frame_kinds(void)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", PRM_HEAD,
             "multipole 1 0.1 0 0 0 0 0 0 0 0 0\n"           /* no frame */
             "multipole 1 2 0.1 0 0 0 0 0 0 0 0 0\n"         /* z-only */
             "multipole 1 2 1 0.1 0 0 0 0 0 0 0 0 0\n"       /* z-then-x */
             "multipole 1 -2 -2 0.1\n 0 0 0\n 0\n 0 0\n 0 0 0\n" /* bisector, multi-line */
             "multipole 1 2 -1 -2 0.1 0 0 0 0 0 0 0 0 0\n"   /* z-bisector */
             "multipole 1 -2 -1 -2 0.1 0 0 0 0 0 0 0 0 0\n"  /* 3-fold */
             "multipole 1 2 1 2 0.1 0 0 0 0 0 0 0 0 0\n");   /* z-then-x with chirality atom */
    const char *path = write_file("frames.prm", text);
    pk_amoeba_model m;
    pk_status st;
    pk_code rc = pk_amoeba_read(&m, path, NULL, &st);
    PK_CHECK(rc == PK_OK, "frames prm: %s", st.msg);
    if (rc) return;
    const pk_amoeba_frame_kind want[7] = {PK_AMOEBA_NOFRAME, PK_AMOEBA_ZONLY, PK_AMOEBA_ZTHENX,
                                          PK_AMOEBA_BISECTOR, PK_AMOEBA_ZBISECT, PK_AMOEBA_THREEFOLD,
                                          PK_AMOEBA_ZTHENX};
    PK_CHECK(m.nmpole == 7, "nmpole %d", m.nmpole);
    for (int k = 0; k < 7 && k < m.nmpole; k++)
        PK_CHECK(m.mpole[k].kind == want[k], "record %d kind %d want %d", k, m.mpole[k].kind, want[k]);
    PK_CHECK(m.nmpole == 7 && m.mpole[4].zt == 2 && m.mpole[4].xt == 1 && m.mpole[4].yt == 2,
             "z-bisector axes are stored as positive types");
    PK_CHECK(m.nmpole == 7 && m.mpole[6].yt == 2, "chirality atom kept");
    pk_amoeba_free(&m);
}

static void bad_inputs(void)
{
    pk_amoeba_model m;
    pk_status st;
    pk_code rc = pk_amoeba_read(&m, "/nonexistent/amoeba.prm", NULL, &st);
    PK_CHECK(rc == PK_ERR_FILE && strstr(st.msg, "/nonexistent/amoeba.prm"), "missing file: %s", st.msg);
    pk_amoeba_free(&m);

    /* key file: unsupported and unknown keywords, bad values; line numbers */
    expect_key_error("cutoff 10\n\newald\n", PK_ERR_UNSUPPORTED, ":3:", "'ewald'");
    expect_key_error("pme-grid 24 24 24\n", PK_ERR_UNSUPPORTED, ":1:", "pme-grid");
    expect_key_error("# c\newald-alpha 0.4\n", PK_ERR_UNSUPPORTED, ":2:", "ewald-alpha");
    expect_key_error("polarization OPT4\n", PK_ERR_UNSUPPORTED, ":1:", "OPT4");
    expect_key_error("polar-predict lsqr\n", PK_ERR_UNSUPPORTED, ":1:", "polar-predict");
    expect_key_error("repulsion-cutoff 6\n", PK_ERR_UNSUPPORTED, ":1:", "repulsion-cutoff");
    expect_key_error("frobnicate 1\n", PK_ERR_UNSUPPORTED, ":1:", "frobnicate");
    expect_key_error("cutoff ten\n", PK_ERR_FORMAT, ":1:", "'ten'");
    expect_key_error("cutoff 10 12\n", PK_ERR_FORMAT, ":1:", "cutoff");
    expect_key_error("cutoff 7\ntaper 8\n", PK_ERR_FORMAT, "taper", NULL);

    /* prm file */
    expect_prm_error("vdw 3 3.4 0.1\n", PK_ERR_FORMAT, ":15:", "class 3");
    expect_prm_error("vdw 1 3.4 zero\n", PK_ERR_FORMAT, ":15:", "'zero'");
    expect_prm_error("multipole 1 -2 -2 0.1 0 0 0 0 0\n", PK_ERR_FORMAT, ":15:", "multipole");
    expect_prm_error("multipole 7 -2 -2 0.1 0 0 0 0 0 0 0 0 0\n", PK_ERR_FORMAT, ":15:", "type 7");
    expect_prm_error("polarize 1 -0.8 0.39 2\n", PK_ERR_FORMAT, ":15:", "negative");
    expect_prm_error("      ##########################\n"
                     "      ##  Pauli Repulsion     ##\n"
                     "      ##########################\n"
                     "repulsion 1 2.4 4.4 6\n",
                     PK_ERR_UNSUPPORTED, ":18:", "HIPPO");
    expect_prm_error("dispersion 1 20 4.4\n", PK_ERR_UNSUPPORTED, ":15:", "'dispersion'");
    expect_prm_error("polarization OPT4\n", PK_ERR_UNSUPPORTED, ":15:", "OPT4");
    expect_prm_error("vdwtype LENNARD-JONES\n", PK_ERR_UNSUPPORTED, ":15:", "LENNARD-JONES");
    expect_prm_error("direct-12-scale 0.5\n", PK_ERR_UNSUPPORTED, ":15:", "direct-12-scale");
    expect_prm_error("mutual-11-scale -1\n", PK_ERR_UNSUPPORTED, ":15:",
                     "'mutual-11-scale -1': a negative dipole-dipole scale");
    expect_prm_error("mystery-keyword 1\n", PK_ERR_UNSUPPORTED, ":15:", "mystery-keyword");
    expect_prm_error("forcefield HIPPO-WATER\n", PK_ERR_UNSUPPORTED, ":15:", "HIPPO");
    /* found by fuzzing: a class number of 20739 made two 3.4 GB HAL tables */
    expect_prm_error("atom 3 20739 H \"x\" 1 1.008 1\n", PK_ERR_FORMAT, ":15:",
                     "class 20739 out of range");
    /* found by fuzzing: keywords match in any case, and "C-AXIS" wrote box[-30] */
    const char *key = write_file("axis.key", "C-AXIS 18.6\n");
    PK_CHECK(pk_amoeba_read(&m, ts_data("amoeba_water.prm"), key, &st) == PK_OK &&
             m.set.box[2] == 18.6, "C-AXIS: %s", st.msg);
    pk_amoeba_free(&m);
}

/* Non-finite and absurd numbers (nan, inf, overflow 1e999, values out of range) and a
 * non-finite derived table: each message names the file, line, keyword and the value. */
static void bad_numbers(void)
{
    expect_key_error("cutoff nan\n", PK_ERR_FORMAT, ":1:", "'cutoff': value 1 'nan' is not a finite number");
    expect_key_error("# c\ntaper inf\n", PK_ERR_FORMAT, ":2:", "'taper': value 1 'inf' is not a finite number");
    expect_key_error("vdw-cutoff 1e999\n", PK_ERR_FORMAT, ":1:", "'1e999' is not a finite number");
    expect_key_error("cutoff 1e5\n", PK_ERR_FORMAT, ":1:", "'cutoff': cutoff '1e5' outside (0, 1000]");
    expect_key_error("polar-eps 0\n", PK_ERR_FORMAT, ":1:",
                     "'polar-eps': convergence criterion '0' outside (0, 1]");
    expect_key_error("delta-halgren -0.07\n", PK_ERR_FORMAT, ":1:", "HAL delta '-0.07' outside [0, 1]");
    expect_key_error("usolve-diag 0\n", PK_ERR_FORMAT, ":1:", "diagonal factor '0' outside (0, 100]");

    expect_prm_error("vdw 1 nan 0.11\n", PK_ERR_FORMAT, ":15:", "'vdw': value 2 'nan' is not a finite number");
    expect_prm_error("vdw 1 3.405 inf\n", PK_ERR_FORMAT, ":15:", "'vdw': value 3 'inf' is not a finite number");
    expect_prm_error("vdw 1 3.405 0.11 1e999\n", PK_ERR_FORMAT, ":15:", "'1e999' is not a finite number");
    expect_prm_error("vdw 1 -3.405 0.11\n", PK_ERR_FORMAT, ":15:", "'vdw': radius '-3.405' outside [0, 50]");
    expect_prm_error("vdw 2 2.655 0.0135 1.91\n", PK_ERR_FORMAT, ":15:",
                     "reduction factor '1.91' outside [0, 1]");
    expect_prm_error("vdwpr 1 2 3.4 -0.1\n", PK_ERR_FORMAT, ":15:", "pair epsilon '-0.1' outside [0, 100]");
    expect_prm_error("multipole 1 -2 -2 1e999 0 0 0 0 0 0 0 0 0\n", PK_ERR_FORMAT, ":15:",
                     "'multipole': value 4 '1e999' is not a finite number");
    expect_prm_error("multipole 1 -2 -2 -0.5\n 0 0 500\n 0\n 0 0\n 0 0 0\n", PK_ERR_FORMAT, ":15:",
                     "dipole z '500' outside [-100, 100]");
    expect_prm_error("polarize 1 nan 0.39 2\n", PK_ERR_FORMAT, ":15:", "'nan' is not a finite number");
    expect_prm_error("polarize 1 1e5 0.39 2\n", PK_ERR_FORMAT, ":15:", "polarizability '1e5' outside [0, 1000]");
    expect_prm_error("polarize 1 0.837 -0.39 2\n", PK_ERR_FORMAT, ":15:",
                     "thole damping '-0.39' outside [0, 100]");
    expect_prm_error("mpole-14-scale 1.5\n", PK_ERR_FORMAT, ":15:", "scale factor '1.5' outside [0, 1]");
    expect_prm_error("polar-13-intra -inf\n", PK_ERR_FORMAT, ":15:", "'-inf' is not a finite number");
    expect_prm_error("direct-11-scale 2\n", PK_ERR_FORMAT, ":15:", "scale factor '2' outside [0, 1]");
    expect_prm_error("dielectric 0\n", PK_ERR_FORMAT, ":15:", "dielectric constant '0' outside (0, 10000]");
    expect_prm_error("atom 3 3 X \"x\" 1 -1.0 1\n", PK_ERR_FORMAT, ":15:", "mass '-1.0' outside [0, 3000]");
    /* derived: the W-H epsilon rule divides by r_i^6 + r_j^6, 0/0 for two radii 0 */
    expect_prm_error("epsilonrule W-H\nvdw 1 0.0 0.1\nvdw 2 0.0 0.1\n", PK_ERR_NUMERIC,
                     "combined vdW radius 0 / epsilon",
                     "classes 1 and 1 is not finite (vdw records on lines 16 and 16");
}

/* The out-of-plane bend settings LAMMPS's improper_style amoeba takes from the pair style
 * (opbendtype, opbend-cubic .. -sextic), and the opbend section, which is only checked. */
static void opbend(void)
{
    pk_amoeba_model m;
    pk_status st;
    pk_code rc = pk_amoeba_read(&m, ts_data("amoeba_water.prm"), NULL, &st);
    PK_CHECK(rc == PK_OK, "read water: %s", st.msg);
    PK_CHECK(m.opbend_cubic == -0.014 && m.opbend_quartic == 0.000056 &&
                 m.opbend_pentic == -0.0000007 && m.opbend_sextic == 0.000000022,
             "opbend coefficients %g %g %g %g", m.opbend_cubic, m.opbend_quartic,
             m.opbend_pentic, m.opbend_sextic);
    pk_amoeba_free(&m);

    /* a well-formed section (wildcard classes 0, a zero constant) is accepted; the
     * coefficients default to 0 where the file is silent, as in Tinker */
    char text[4096];
    snprintf(text, sizeof text, "%s%s", PRM_HEAD,
             "      ####################################\n"
             "      ##  Out-of-Plane Bend Parameters  ##\n"
             "      ####################################\n"
             "opbend 1 2 0 0 41.70\nopbend 2 1 2 0 0.00\n");
    rc = pk_amoeba_read(&m, write_file("opbend.prm", text), NULL, &st);
    PK_CHECK(rc == PK_OK, "opbend section: %s", st.msg);
    PK_CHECK(m.opbend_cubic == 0.0 && m.opbend_sextic == 0.0, "opbend defaults");
    pk_amoeba_free(&m);

    /* malformed records, inside their section and outside it */
    expect_prm_error("      ####################################\n"
                     "      ##  Out-of-Plane Bend Parameters  ##\n"
                     "      ####################################\n"
                     "opbend 1 2 0 41.70\n",
                     PK_ERR_FORMAT, ":18:", "'opbend' takes 5 values, found 4");
    expect_prm_error("opbend 1 3 0 0 41.70\n", PK_ERR_FORMAT, ":15:",
                     "'opbend': atom class 3 is not defined");
    expect_prm_error("opbend 1 2 0 -2 41.70\n", PK_ERR_FORMAT, ":15:", "atom class -2");
    expect_prm_error("opbend 1 2 0 x 41.70\n", PK_ERR_FORMAT, ":15:", "value 4 'x' is not an integer");
    expect_prm_error("opbend 1 2 0 0 nan\n", PK_ERR_FORMAT, ":15:",
                     "'opbend': value 5 'nan' is not a finite number");
    expect_prm_error("opbend 1 2 0 0 -41.7\n", PK_ERR_FORMAT, ":15:",
                     "'opbend': force constant '-41.7' outside [0, 10000]");
    expect_prm_error("opbend-cubic 14\n", PK_ERR_FORMAT, ":15:",
                     "'opbend-cubic': anharmonic coefficient '14' outside [-1, 1]");
    expect_prm_error("opbend-sextic 1e999\n", PK_ERR_FORMAT, ":15:", "'1e999' is not a finite number");
    expect_prm_error("opbend-quartic\n", PK_ERR_FORMAT, ":15:", "'opbend-quartic' needs a value");
    expect_prm_error("opbendtype W-D-C\n", PK_ERR_UNSUPPORTED, ":15:", "opbendtype 'W-D-C'");
}

/* The ubiquitin force field, if the LAMMPS tree is at hand (skipped otherwise). */
static void ubiquitin(void)
{
    const char *dir = getenv("LAMMPS_SOURCE_DIR");
    if (!dir) {
        printf("ubiquitin prm: skipped (LAMMPS_SOURCE_DIR not set)\n");
        return;
    }
    char prm[4096], key[4096];
    snprintf(prm, sizeof prm, "%s/examples/amoeba/amoeba_ubiquitin.prm", dir);
    snprintf(key, sizeof key, "%s/examples/amoeba/amoeba_ubiquitin.key", dir);
    pk_amoeba_model m;
    pk_status st;
    pk_code rc = pk_amoeba_read(&m, prm, NULL, &st);
    PK_CHECK(rc == PK_OK, "ubiquitin prm: %s", st.msg);
    PK_CHECK(rc || m.nmpole == 496, "ubiquitin multipoles %d", m.nmpole);
    PK_CHECK(rc || (m.opbend_cubic == -0.014 && m.opbend_sextic == 0.000000022),
             "ubiquitin opbend coefficients %g %g", m.opbend_cubic, m.opbend_sextic);
    pk_amoeba_free(&m);
    rc = pk_amoeba_read(&m, prm, key, &st);
    PK_CHECK(rc == PK_ERR_UNSUPPORTED && strstr(st.msg, "ewald"), "ubiquitin key uses Ewald: %s", st.msg);
    pk_amoeba_free(&m);
}

int main(void)
{
    water_values();
    elec_tapers();
    frame_kinds();
    bad_inputs();
    bad_numbers();
    opbend();
    ubiquitin();
    return pk_test_finish();
}
