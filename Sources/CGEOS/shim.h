/* GEOS through its C API, reentrant calls only: every call takes the context handle MapCore owns. */
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
