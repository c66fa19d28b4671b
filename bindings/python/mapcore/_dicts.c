/* mapcore._dicts: the answers of cluster queries as Python dicts, built in one C-level pass,
 * and the points' features read from the library's MessagePack.
 *
 * Optional: the package works without it (cluster.py then does the same in Python) and is
 * otherwise ctypes only. Why C: a getClusters sweep over zooms 0-16 of a million points hands
 * back ten million items, and picking each point's kept dict and making each cluster's dict from
 * Python costs more than pysupercluster's whole answer (docs/perf-log.md, "Python ways in and
 * out"; docs/NOTES.md, "The C extension").
 * The stable ABI (3.8) keeps one build good for every CPython 3.8+.
 *
 * Private to the package: items come as the address and count of a ctypes array of
 * mc_cluster_item (include/mapcore/cluster.h) that the caller holds for the call. Everything
 * else is checked; the GIL is held throughout. */
#define Py_LIMITED_API 0x03080000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* mc_cluster_item, as cluster.h declares it. */
typedef struct {
    int64_t id;
    double lng, lat;
    int64_t point_count;
} item;
_Static_assert(sizeof(item) == 32, "mc_cluster_item is 32 bytes: id, lng, lat, point_count");

/* Keys and constant values, made once (interned, so dict lookups by the same text are fast). */
static PyObject *s_type, *s_id, *s_properties, *s_geometry, *s_cluster, *s_cluster_id, *s_point_count,
    *s_point_count_abbreviated, *s_coordinates, *s_feature, *s_point;

/* The caller's items: address, count. */
static int parse_items(PyObject *address, Py_ssize_t count, const item **items) {
    void *p = PyLong_AsVoidPtr(address);
    if (p == NULL && PyErr_Occurred()) return -1;
    if (count < 0 || (p == NULL && count > 0)) {
        PyErr_SetString(PyExc_ValueError, "mapcore._dicts: no items at that address");
        return -1;
    }
    *items = (const item *)p;
    return 0;
}

/* supercluster's point_count_abbreviated (cluster.py `_abbreviated` and the library's
 * Supercluster.abbreviated write the same; a test compares all three): the count below 1000,
 * else "1.2k" / "16k", rounded half up as JavaScript's Math.round. */
static PyObject *abbreviated(int64_t count) {
    char text[32];
    if (count < 1000) return PyLong_FromLongLong(count);
    if (count >= 10000) {
        snprintf(text, sizeof text, "%.0fk", floor((double)count / 1000 + 0.5));
    } else {
        long tenths = (long)floor((double)count / 100 + 0.5);
        if (tenths % 10 == 0)
            snprintf(text, sizeof text, "%ldk", tenths / 10);
        else
            snprintf(text, sizeof text, "%ld.%ldk", tenths / 10, tenths % 10);
    }
    return PyUnicode_FromString(text);
}

/* supercluster-cpp's point_count_abbreviated (MapLibre Native's clustered sources; the library's
 * Supercluster.abbreviated with `cpp`, cluster.py `_abbreviated` with `cpp`): always a string;
 * from 1000 the thousands with one decimal below 10000 and six from it (a C++ stream set `fixed`,
 * its precision left at 6), then "k". Written by Python's own formatting, which rounds the exact
 * value as printf does but keeps "." whatever the host's LC_NUMERIC (printf would not; the
 * stream's locale is the classic one). */
static PyObject *abbreviated_cpp(int64_t count) {
    if (count < 1000) {
        char text[32];
        snprintf(text, sizeof text, "%lld", (long long)count);
        return PyUnicode_FromString(text);
    }
    char *digits = PyOS_double_to_string((double)count / 1000, 'f', count < 10000 ? 1 : 6, 0, NULL);
    if (digits == NULL) return NULL;
    PyObject *text = PyUnicode_FromFormat("%sk", digits);
    PyMem_Free(digits);
    return text;
}

/* d[key] = value, taking the reference to value (which may be NULL after a failed call). */
static int set_new(PyObject *d, PyObject *key, PyObject *value) {
    if (value == NULL) return -1;
    int status = PyDict_SetItem(d, key, value);
    Py_DECREF(value);
    return status;
}

/* A coordinate as the library writes it (Swift `JSONValue.coordinate`, cluster.py `_coordinate`):
 * an integral value under 1e15 as an int, as JavaScript prints it, else a float. */
static PyObject *coordinate(double d) {
    if (isfinite(d) && d == trunc(d) && fabs(d) < 1e15) return PyLong_FromLongLong((long long)d);
    return PyFloat_FromDouble(d);
}

/* The feature of a cluster without clusterProperties, as the library writes it: the same keys
 * in the same order as cluster.py's `_cluster_dict` (`cpp`: supercluster-cpp's abbreviation). */
static PyObject *cluster_dict(const item *it, int cpp) {
    PyObject *feature = PyDict_New(), *properties = PyDict_New(), *geometry = PyDict_New(),
             *coordinates = PyList_New(2);
    if (feature == NULL || properties == NULL || geometry == NULL || coordinates == NULL) goto fail;
    PyObject *lng = coordinate(it->lng);
    if (lng == NULL || PyList_SetItem(coordinates, 0, lng) < 0) goto fail;
    PyObject *lat = coordinate(it->lat);
    if (lat == NULL || PyList_SetItem(coordinates, 1, lat) < 0) goto fail;
    if (PyDict_SetItem(properties, s_cluster, Py_True) < 0 ||
        set_new(properties, s_cluster_id, PyLong_FromLongLong(it->id)) < 0 ||
        set_new(properties, s_point_count, PyLong_FromLongLong(it->point_count)) < 0 ||
        set_new(properties, s_point_count_abbreviated,
                (cpp ? abbreviated_cpp : abbreviated)(it->point_count)) < 0)
        goto fail;
    if (PyDict_SetItem(geometry, s_type, s_point) < 0 || PyDict_SetItem(geometry, s_coordinates, coordinates) < 0)
        goto fail;
    if (PyDict_SetItem(feature, s_type, s_feature) < 0 || set_new(feature, s_id, PyLong_FromLongLong(it->id)) < 0 ||
        PyDict_SetItem(feature, s_properties, properties) < 0 || PyDict_SetItem(feature, s_geometry, geometry) < 0)
        goto fail;
    Py_DECREF(coordinates);
    Py_DECREF(geometry);
    Py_DECREF(properties);
    return feature;
fail:
    Py_XDECREF(coordinates);
    Py_XDECREF(geometry);
    Py_XDECREF(properties);
    Py_XDECREF(feature);
    return NULL;
}

/* assemble(address, count, points, clusters, cpp) -> list: the answer's features in the items'
 * order. A point is points[id] itself (a borrowed dict made a new reference: the same object
 * in every answer); a cluster is a new dict when `clusters` is true (its count abbreviated as
 * supercluster-cpp does when `cpp` is), else None (its feature is fetched from the library by
 * the caller). */
static PyObject *assemble(PyObject *self, PyObject *args) {
    PyObject *address, *points;
    Py_ssize_t count;
    int clusters, cpp;
    const item *items;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnO!pp", &address, &count, &PyList_Type, &points, &clusters, &cpp) ||
        parse_items(address, count, &items) < 0)
        return NULL;
    PyObject *out = PyList_New(count);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        const item *it = &items[i];
        PyObject *value;
        if (it->point_count != 1) {
            value = clusters ? cluster_dict(it, cpp) : (Py_INCREF(Py_None), Py_None);
        } else {
            /* Bounds-checked (IndexError), and read afresh for each item: making a cluster's
             * dict may run a collection, whose finalizers may change the list. */
            value = it->id >= 0 && it->id <= PY_SSIZE_T_MAX ? PyList_GetItem(points, (Py_ssize_t)it->id) : NULL;
            if (value == NULL && !PyErr_Occurred()) PyErr_SetString(PyExc_IndexError, "point id out of range");
            Py_XINCREF(value);
        }
        if (value == NULL || PyList_SetItem(out, i, value) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* missing(address, count, points) -> list of int: the ids of the answer's points whose
 * points[id] is None (not fetched yet), in the items' order. */
static PyObject *missing(PyObject *self, PyObject *args) {
    PyObject *address, *points;
    Py_ssize_t count;
    const item *items;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnO!", &address, &count, &PyList_Type, &points) ||
        parse_items(address, count, &items) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        const item *it = &items[i];
        if (it->point_count != 1) continue;
        PyObject *kept =
            it->id >= 0 && it->id <= PY_SSIZE_T_MAX ? PyList_GetItem(points, (Py_ssize_t)it->id) : NULL;
        if (kept == NULL) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_IndexError, "point id out of range");
            Py_DECREF(out);
            return NULL;
        }
        if (kept != Py_None) continue;
        PyObject *id = PyLong_FromLongLong(it->id);
        if (id == NULL || PyList_Append(out, id) < 0) {
            Py_XDECREF(id);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(id);
    }
    return out;
}

/* ---- MessagePack --------------------------------------------------------------------------
 * unpack(address, length) -> object: the value the library wrote with MC_SERIALIZE_MSGPACK
 * (include/mapcore/geojson.h), as the Python values json.loads makes of the same value's text:
 * maps with str keys are dicts, arrays lists, ints ints, float64 floats. Every read is bounds
 * checked and anything else is a ValueError (truncated, trailing bytes, bin/ext/unknown types,
 * a key that is not a str, nesting deeper than MAX_DEPTH); invalid UTF-8 a UnicodeDecodeError.
 * Why not orjson on the text: the library writes MessagePack faster than text (no shortest-double
 * formatting), it reads in about half orjson's time on the same features, and short strings
 * repeat (keys, "Feature", "Point", property values such as country codes), so they are made
 * once per call and shared, as orjson shares keys (figures in docs/perf-log.md). */

#define MAX_DEPTH 1000     /* the library's values nest at most MC_MAX_DEPTH_LIMIT (512) deep */
#define SHARED_MAX_LEN 32  /* strings up to this many bytes are shared within a call */

typedef struct {
    Py_ssize_t len;
    PyObject *str;
    char text[SHARED_MAX_LEN];
} shared_string;

typedef struct {
    const unsigned char *at, *end;
    int depth;
    shared_string *shared; /* a direct-mapped table of `slots` (a power of two) entries */
    size_t slots;
} reader;

static PyObject *truncated(void) {
    PyErr_SetString(PyExc_ValueError, "mapcore._dicts: truncated MessagePack");
    return NULL;
}

/* Whether n more bytes are there (else the error is set). */
static int need(reader *r, uint64_t n) {
    if (n > (uint64_t)(r->end - r->at)) return truncated(), -1;
    return 0;
}

/* The next n (1..8) bytes as a big-endian number; need(r, n) checked by the caller. */
static uint64_t big_endian(reader *r, int n) {
    uint64_t v = 0;
    for (int k = 0; k < n; k++) v = (v << 8) | r->at[k];
    r->at += n;
    return v;
}

static PyObject *read_str(reader *r, Py_ssize_t n) {
    if (need(r, (uint64_t)n) < 0) return NULL;
    const char *text = (const char *)r->at;
    r->at += n;
    if (n > SHARED_MAX_LEN) return PyUnicode_DecodeUTF8(text, n, NULL);
    /* A hash of the first and last 8 bytes and the length: strings that differ only between
     * them share a slot, which costs a miss, never a wrong string (the bytes are compared). */
    uint64_t head = 0, tail = 0;
    memcpy(&head, text, (size_t)(n < 8 ? n : 8));
    if (n > 8) memcpy(&tail, text + n - 8, 8);
    uint64_t hash = (head * 0x9E3779B97F4A7C15u) ^ (tail * 0xC2B2AE3D27D4EB4Fu) ^ (uint64_t)n;
    hash ^= hash >> 31;
    shared_string *slot = &r->shared[hash & (r->slots - 1)];
    if (slot->str != NULL && slot->len == n && memcmp(slot->text, text, (size_t)n) == 0) {
        Py_INCREF(slot->str);
        return slot->str;
    }
    PyObject *str = PyUnicode_DecodeUTF8(text, n, NULL);
    if (str == NULL) return NULL;
    Py_XDECREF(slot->str);
    Py_INCREF(str);
    slot->str = str;
    slot->len = n;
    memcpy(slot->text, text, (size_t)n);
    return str;
}

static PyObject *read_value(reader *r);

static PyObject *read_array(reader *r, uint64_t n) {
    if (n > (uint64_t)(r->end - r->at)) return truncated(); /* each element takes a byte at least */
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (list == NULL) return NULL;
    for (Py_ssize_t i = 0; i < (Py_ssize_t)n; i++) {
        PyObject *item = read_value(r);
        if (item == NULL || PyList_SetItem(list, i, item) < 0) {
            Py_DECREF(list);
            return NULL;
        }
    }
    return list;
}

static PyObject *read_map(reader *r, uint64_t n) {
    if (n > (uint64_t)(r->end - r->at) / 2) return truncated(); /* two bytes a member at least */
    PyObject *dict = PyDict_New();
    if (dict == NULL) return NULL;
    for (uint64_t i = 0; i < n; i++) {
        PyObject *key = read_value(r);
        if (key != NULL && !PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_ValueError, "mapcore._dicts: a MessagePack map key that is not a str");
            Py_CLEAR(key);
        }
        PyObject *value = key != NULL ? read_value(r) : NULL;
        int status = value != NULL ? PyDict_SetItem(dict, key, value) : -1;
        Py_XDECREF(key);
        Py_XDECREF(value);
        if (status < 0) {
            Py_DECREF(dict);
            return NULL;
        }
    }
    return dict;
}

static PyObject *read_container(reader *r, int is_map, uint64_t n) {
    if (++r->depth > MAX_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "mapcore._dicts: MessagePack nested too deep");
        return NULL;
    }
    PyObject *value = is_map ? read_map(r, n) : read_array(r, n);
    r->depth--;
    return value;
}

static PyObject *read_value(reader *r) {
    if (need(r, 1) < 0) return NULL;
    unsigned char marker = *r->at++;
    if (marker <= 0x7F) return PyLong_FromLong(marker);
    if (marker >= 0xE0) return PyLong_FromLong((long)marker - 256);
    if ((marker & 0xE0) == 0xA0) return read_str(r, marker & 0x1F);
    if ((marker & 0xF0) == 0x90) return read_container(r, 0, marker & 0x0F);
    if ((marker & 0xF0) == 0x80) return read_container(r, 1, marker & 0x0F);
    static const signed char widths[] = {
        [0xCA - 0xC0] = 4, [0xCB - 0xC0] = 8, [0xCC - 0xC0] = 1, [0xCD - 0xC0] = 2, [0xCE - 0xC0] = 4,
        [0xCF - 0xC0] = 8, [0xD0 - 0xC0] = 1, [0xD1 - 0xC0] = 2, [0xD2 - 0xC0] = 4, [0xD3 - 0xC0] = 8,
        [0xD9 - 0xC0] = 1, [0xDA - 0xC0] = 2, [0xDB - 0xC0] = 4, [0xDC - 0xC0] = 2, [0xDD - 0xC0] = 4,
        [0xDE - 0xC0] = 2, [0xDF - 0xC0] = 4,
    };
    int width = marker < 0xE0 && marker >= 0xC0 ? widths[marker - 0xC0] : 0;
    switch (marker) {
    case 0xC0: Py_INCREF(Py_None); return Py_None;
    case 0xC2: Py_INCREF(Py_False); return Py_False;
    case 0xC3: Py_INCREF(Py_True); return Py_True;
    default: break;
    }
    if (width == 0) {
        PyErr_Format(PyExc_ValueError, "mapcore._dicts: MessagePack type 0x%02x is not one the library writes",
                     (unsigned)marker);
        return NULL;
    }
    if (need(r, (uint64_t)width) < 0) return NULL;
    uint64_t v = big_endian(r, width);
    switch (marker) {
    case 0xCA: {
        uint32_t bits = (uint32_t)v;
        float f;
        memcpy(&f, &bits, sizeof f);
        return PyFloat_FromDouble(f);
    }
    case 0xCB: {
        double d;
        memcpy(&d, &v, sizeof d);
        return PyFloat_FromDouble(d);
    }
    case 0xCC: case 0xCD: case 0xCE: case 0xCF: return PyLong_FromUnsignedLongLong(v);
    case 0xD0: return PyLong_FromLong((int8_t)v);
    case 0xD1: return PyLong_FromLong((int16_t)v);
    case 0xD2: return PyLong_FromLong((int32_t)v);
    case 0xD3: return PyLong_FromLongLong((int64_t)v);
    case 0xD9: case 0xDA: case 0xDB:
        if (need(r, v) < 0) return NULL;
        return read_str(r, (Py_ssize_t)v);
    case 0xDC: case 0xDD: return read_container(r, 0, v);
    default: return read_container(r, 1, v); /* 0xDE, 0xDF */
    }
}

static PyObject *unpack(PyObject *self, PyObject *args) {
    PyObject *address;
    Py_ssize_t length;
    (void)self;
    if (!PyArg_ParseTuple(args, "On", &address, &length)) return NULL;
    const void *data = PyLong_AsVoidPtr(address);
    if (data == NULL && PyErr_Occurred()) return NULL;
    if (length < 0 || (data == NULL && length > 0)) {
        PyErr_SetString(PyExc_ValueError, "mapcore._dicts: no MessagePack at that address");
        return NULL;
    }
    reader r = {(const unsigned char *)data, (const unsigned char *)data + length, 0, NULL, 64};
    while (r.slots < 4096 && r.slots * 64 < (size_t)length) r.slots *= 2; /* about one per 64 bytes */
    r.shared = PyMem_Calloc(r.slots, sizeof *r.shared);
    if (r.shared == NULL) return PyErr_NoMemory();
    PyObject *value = read_value(&r);
    if (value != NULL && r.at != r.end) {
        PyErr_SetString(PyExc_ValueError, "mapcore._dicts: bytes after the MessagePack value");
        Py_CLEAR(value);
    }
    for (size_t k = 0; k < r.slots; k++) Py_XDECREF(r.shared[k].str);
    PyMem_Free(r.shared);
    return value;
}

/* ---- Coordinates first ----------------------------------------------------------------------
 * bare_points(features) -> bytearray | None | NotImplemented: cluster.py's `_bare_points` checks
 * in one C pass, in its terms (exact types, so that none of the caller's code runs): the lng, lat
 * doubles of every feature (16 bytes a feature) when each is a dict of "type" "Feature" whose
 * "geometry" is a dict of "type" "Point" with "coordinates" a list or tuple of 2 or 3 ints or
 * floats, whose "properties", if any, are a dict or None and whose "id", if any, is a str, int or
 * float; None as soon as one is not (the JSON way then names what is wrong). NotImplemented for
 * what only Python can judge the same way (a "type" that is not a str, whose == could be anyone's
 * code; a list of features that is not exactly one, or changes during the pass): the Python
 * checks then decide. Finiteness is left to the caller, which checks either way's doubles. Why
 * C: those checks over a million dicts took 0.5-0.6 s of the 1.6 s a load of 1M dicts took. */
static int is_text(PyObject *value, const char *text) {
    return value != NULL && PyUnicode_CheckExact(value) && PyUnicode_CompareWithASCIIString(value, text) == 0;
}

/* 1 when `value` is an exact int or float (not a bool), stored at *out unless out is NULL; 0 when
 * it is not one; -1 with the error set when an int is too large for a double. */
static int number(PyObject *value, double *out) {
    if (!PyLong_CheckExact(value) && !PyFloat_CheckExact(value)) return 0;
    if (out == NULL) return 1;
    *out = PyFloat_AsDouble(value);
    return *out == -1.0 && PyErr_Occurred() ? -1 : 1;
}

/* One feature's lng, lat into out: 1 taken, 0 not a bare point, 2 only Python can judge,
 * -1 an error other than a missing member or an int too large. */
static int bare_point(PyObject *f, double *out) {
    if (!PyDict_CheckExact(f)) return 0;
    PyObject *type = PyDict_GetItemWithError(f, s_type);
    if (type == NULL) return PyErr_Occurred() ? -1 : 0;
    if (!PyUnicode_CheckExact(type)) return 2;
    if (!is_text(type, "Feature")) return 0;
    PyObject *g = PyDict_GetItemWithError(f, s_geometry);
    if (g == NULL) return PyErr_Occurred() ? -1 : 0;
    if (!PyDict_CheckExact(g)) return 0;
    Py_INCREF(g);
    int status = 0;
    PyObject *gtype = PyDict_GetItemWithError(g, s_type), *properties = NULL, *id = NULL, *coords = NULL;
    if (gtype == NULL) {
        status = PyErr_Occurred() ? -1 : 0;
        goto done;
    }
    if (!PyUnicode_CheckExact(gtype)) {
        status = 2;
        goto done;
    }
    if (!is_text(gtype, "Point")) goto done;
    properties = PyDict_GetItemWithError(f, s_properties);
    if (properties == NULL && PyErr_Occurred()) goto fail;
    if (properties != NULL && properties != Py_None && !PyDict_CheckExact(properties)) goto done;
    id = PyDict_GetItemWithError(f, s_id);
    if (id == NULL && PyErr_Occurred()) goto fail;
    if (id != NULL && !PyUnicode_CheckExact(id) && !PyLong_CheckExact(id) && !PyFloat_CheckExact(id)) goto done;
    coords = PyDict_GetItemWithError(g, s_coordinates);
    if (coords == NULL) {
        status = PyErr_Occurred() ? -1 : 0;
        goto done;
    }
    if (!PyList_CheckExact(coords) && !PyTuple_CheckExact(coords)) goto done;
    Py_INCREF(coords);
    Py_ssize_t n = PyList_CheckExact(coords) ? PyList_Size(coords) : PyTuple_Size(coords);
    if (n == 2 || n == 3) {
        double v[2];
        status = 1;
        for (Py_ssize_t k = 0; k < n && status == 1; k++) {
            PyObject *item = PyList_CheckExact(coords) ? PyList_GetItem(coords, k) : PyTuple_GetItem(coords, k);
            /* An altitude is checked, not read: the Python checks drop it before converting. */
            status = item == NULL ? -1 : number(item, k < 2 ? &v[k] : NULL);
        }
        if (status == 1) {
            out[0] = v[0];
            out[1] = v[1];
        } else if (status < 0 && PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();  /* as array("d") refuses it: not a bare point */
            status = 0;
        }
    }
    Py_DECREF(coords);
    goto done;
fail:
    status = -1;
done:
    Py_DECREF(g);
    return status;
}

static PyObject *bare_points(PyObject *self, PyObject *features) {
    (void)self;
    if (!PyList_CheckExact(features) && !PyTuple_CheckExact(features)) Py_RETURN_NOTIMPLEMENTED;
    int list = PyList_CheckExact(features);
    Py_ssize_t n = list ? PyList_Size(features) : PyTuple_Size(features);
    if (n < 0) return NULL;
    if (n > PY_SSIZE_T_MAX / 16) return PyErr_NoMemory();
    PyObject *out = PyByteArray_FromStringAndSize(NULL, 16 * n);
    if (out == NULL) return NULL;
    double *at = (double *)(void *)PyByteArray_AsString(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        /* Read afresh and held: a dict lookup may run a key's __eq__, which may change the list. */
        Py_ssize_t now = list ? PyList_Size(features) : n;
        PyObject *f = now == n ? (list ? PyList_GetItem(features, i) : PyTuple_GetItem(features, i)) : NULL;
        if (f == NULL) {
            Py_DECREF(out);
            if (now != n) Py_RETURN_NOTIMPLEMENTED;
            return NULL;
        }
        Py_INCREF(f);
        int status = bare_point(f, at + 2 * i);
        Py_DECREF(f);
        if (status != 1) {
            Py_DECREF(out);
            if (status < 0) {
                /* What the Python checks catch (cluster.py `_bare_points`). */
                if (!PyErr_ExceptionMatches(PyExc_KeyError) && !PyErr_ExceptionMatches(PyExc_TypeError) &&
                    !PyErr_ExceptionMatches(PyExc_OverflowError))
                    return NULL;
                PyErr_Clear();
                Py_RETURN_NONE;
            }
            if (status == 2) Py_RETURN_NOTIMPLEMENTED;
            Py_RETURN_NONE;
        }
    }
    if (list && PyList_Size(features) != n) {
        Py_DECREF(out);
        Py_RETURN_NOTIMPLEMENTED;
    }
    return out;
}

static PyMethodDef methods[] = {
    {"bare_points", bare_points, METH_O,
     "bare_points(features) -> bytearray | None | NotImplemented: the lng, lat doubles of a list of "
     "Point feature dicts, as cluster.py's _bare_points checks them"},
    {"unpack", unpack, METH_VARARGS,
     "unpack(address, length) -> object: a MessagePack value the library wrote, as json.loads reads its text"},
    {"assemble", assemble, METH_VARARGS,
     "assemble(address, count, points, clusters, cpp) -> list: an answer's features from its items"},
    {"missing", missing, METH_VARARGS,
     "missing(address, count, points) -> list: ids of the answer's points not fetched yet"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "mapcore._dicts", "Cluster answers as dicts in one C-level pass (private).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__dicts(void) {
    static const struct {
        PyObject **to;
        const char *text;
    } strings[] = {
        {&s_type, "type"},
        {&s_id, "id"},
        {&s_properties, "properties"},
        {&s_geometry, "geometry"},
        {&s_cluster, "cluster"},
        {&s_cluster_id, "cluster_id"},
        {&s_point_count, "point_count"},
        {&s_point_count_abbreviated, "point_count_abbreviated"},
        {&s_coordinates, "coordinates"},
        {&s_feature, "Feature"},
        {&s_point, "Point"},
    };
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        if (*strings[i].to == NULL && (*strings[i].to = PyUnicode_InternFromString(strings[i].text)) == NULL)
            return NULL;
    }
    return PyModule_Create(&module);
}
