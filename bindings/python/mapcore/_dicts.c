/* mapcore._dicts: the answers of cluster queries as Python dicts, built in one C-level pass.
 *
 * Optional: the package works without it (cluster.py then does the same in Python) and is
 * otherwise ctypes only. Why C: a getClusters sweep over zooms 0-16 of a million points hands
 * back ten million items, and picking each point's kept dict and making each cluster's dict from
 * Python costs more than pysupercluster's whole answer (docs/NOTES.md, "Python ways in and out").
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

/* mc_cluster_item, as cluster.h declares it. */
typedef struct {
    int64_t id;
    double lng, lat;
    int64_t point_count;
} item;

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

/* d[key] = value, taking the reference to value (which may be NULL after a failed call). */
static int set_new(PyObject *d, PyObject *key, PyObject *value) {
    if (value == NULL) return -1;
    int status = PyDict_SetItem(d, key, value);
    Py_DECREF(value);
    return status;
}

/* The feature of a cluster without clusterProperties, as the library writes it: the same keys
 * in the same order as cluster.py's `_cluster_dict`. */
static PyObject *cluster_dict(const item *it) {
    PyObject *feature = PyDict_New(), *properties = PyDict_New(), *geometry = PyDict_New(),
             *coordinates = PyList_New(2);
    if (feature == NULL || properties == NULL || geometry == NULL || coordinates == NULL) goto fail;
    PyObject *lng = PyFloat_FromDouble(it->lng);
    if (lng == NULL || PyList_SetItem(coordinates, 0, lng) < 0) goto fail;
    PyObject *lat = PyFloat_FromDouble(it->lat);
    if (lat == NULL || PyList_SetItem(coordinates, 1, lat) < 0) goto fail;
    if (PyDict_SetItem(properties, s_cluster, Py_True) < 0 ||
        set_new(properties, s_cluster_id, PyLong_FromLongLong(it->id)) < 0 ||
        set_new(properties, s_point_count, PyLong_FromLongLong(it->point_count)) < 0 ||
        set_new(properties, s_point_count_abbreviated, abbreviated(it->point_count)) < 0)
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

/* assemble(address, count, points, clusters) -> list: the answer's features in the items'
 * order. A point is points[id] itself (a borrowed dict made a new reference: the same object
 * in every answer); a cluster is a new dict when `clusters` is true, else None (its feature is
 * fetched from the library by the caller). */
static PyObject *assemble(PyObject *self, PyObject *args) {
    PyObject *address, *points;
    Py_ssize_t count;
    int clusters;
    const item *items;
    (void)self;
    if (!PyArg_ParseTuple(args, "OnO!p", &address, &count, &PyList_Type, &points, &clusters) ||
        parse_items(address, count, &items) < 0)
        return NULL;
    PyObject *out = PyList_New(count);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        const item *it = &items[i];
        PyObject *value;
        if (it->point_count != 1) {
            value = clusters ? cluster_dict(it) : (Py_INCREF(Py_None), Py_None);
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

static PyMethodDef methods[] = {
    {"assemble", assemble, METH_VARARGS,
     "assemble(address, count, points, clusters) -> list: an answer's features from its items"},
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
