/* Constants that strict C11 <math.h> does not provide. */
#ifndef PK_MATH_H
#define PK_MATH_H

#define PK_PI 3.14159265358979323846264338327950288
#define PK_TWO_PI 6.28318530717958647692528676655900577

#endif
