/*
 * MapCore: the logic layer of a map SDK as one embeddable C library.
 *
 * Umbrella header: include this one. Each concept has its own header under mapcore/.
 *
 * Conventions that hold for every function (details in mapcore/common.h):
 *   - Every fallible function returns an int status: MC_OK (0) or a negative MC_E_* code.
 *     Results come back through out-parameters, which are left untouched on failure.
 *   - On failure, mc_last_error() describes the error on the calling thread.
 *   - Handles returned through `**out` are owned by the caller and freed with their _free
 *     function; _free(NULL) does nothing. Library-filled text buffers are released with
 *     mc_buf_dispose(). Never free() library memory yourself.
 *   - Inputs are copied; the library keeps no pointer to caller memory after a call returns.
 *   - Text is UTF-8 and travels with an explicit length.
 *   - NULL, freed or foreign handles are detected and return MC_E_MISUSE.
 */
#ifndef MAPCORE_H
#define MAPCORE_H

#include "mapcore/common.h"
#include "mapcore/geojson.h"
#include "mapcore/geometry.h"
#include "mapcore/expression.h"
#include "mapcore/cluster.h"
#include "mapcore/source.h"
#include "mapcore/tile.h"
#include "mapcore/vector_tile.h"
#include "mapcore/tilesource.h"
#include "mapcore/format.h"

#endif /* MAPCORE_H */
