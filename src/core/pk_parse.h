/* Numbers in model files. strtod alone accepts "nan", "inf" and "1e999" (which overflows to
 * inf with errno ERANGE; "1e-999" underflows, also ERANGE): none of them belongs in a model
 * file, so the readers take numbers through this check. */
#ifndef PK_PARSE_H
#define PK_PARSE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Parse the whole of s as a finite, representable double into *x. Returns NULL, or what s is
 * not, to complete "'<s>' is not ...": "a number", "a finite number" or "within the range of
 * a double". */
const char *pk_parse_finite(const char *s, double *x);

#ifdef __cplusplus
}
#endif
#endif
