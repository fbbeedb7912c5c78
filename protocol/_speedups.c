/* protocol._speedups: protocol.diff.diff and protocol.compact.compact in C.
 *
 * The same algorithm as protocol.diff.diff_python, step for step, so the two
 * give the same ops for any pair of documents (tests/protocol/test_protocol.py checks
 * it with hypothesis): maps and lists are entered only where the new
 * document's child is not the old one's (an engine that shares unchanged
 * parts costs nothing there), scalars are compared strictly by type and
 * value, and a short list whose items changed in several places is set
 * whole. Each op is a fresh list; its values are the new document's own
 * objects, not copies, as in Python.
 *
 * compact() turns those ops into protocol 2's (protocol.compact.compact_python,
 * step for step; tests/protocol/test_protocol.py checks them against each other
 * too): a patch costs one pass over its ops here, not a Python call per path.
 *
 * Built by setup.py as an optional extension: without a C compiler the
 * package installs without it and protocol.diff uses the Python version.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define SET 0
#define REMOVE 1
#define TRUNCATE 2
#define EXTEND 3
#define WHOLE_LIST 8 /* protocol.diff.WHOLE_LIST; the module exports it, a test compares */

/* [kind, path + [key], value]: value NULL leaves it out; key NULL copies path. */
static int emit(PyObject *ops, long kind, PyObject *path, PyObject *key, PyObject *value)
{
    Py_ssize_t n = PyList_GET_SIZE(path);
    PyObject *p = PyList_New(n + (key != NULL));
    if (p == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *step = PyList_GET_ITEM(path, i);
        Py_INCREF(step);
        PyList_SET_ITEM(p, i, step);
    }
    if (key != NULL) {
        Py_INCREF(key);
        PyList_SET_ITEM(p, n, key);
    }
    PyObject *op = PyList_New(value != NULL ? 3 : 2);
    if (op == NULL) {
        Py_DECREF(p);
        return -1;
    }
    PyList_SET_ITEM(op, 0, PyLong_FromLong(kind)); /* a cached small int: cannot fail */
    PyList_SET_ITEM(op, 1, p);
    if (value != NULL) {
        Py_INCREF(value);
        PyList_SET_ITEM(op, 2, value);
    }
    int failed = PyList_Append(ops, op);
    Py_DECREF(op);
    return failed;
}

static int diff_into(PyObject *old, PyObject *new, PyObject *path, PyObject *ops);

/* One child, at path + [key]: compared if an equal-typed scalar, else entered.
 * Borrowed references: held here while a comparison may run Python code. */
static int visit(PyObject *previous, PyObject *value, PyObject *key, PyObject *path, PyObject *ops)
{
    PyTypeObject *kind = Py_TYPE(value);
    if (kind != &PyDict_Type && kind != &PyList_Type && kind == Py_TYPE(previous)) {
        int differ = PyObject_RichCompareBool(previous, value, Py_NE);
        if (differ < 0)
            return -1;
        return differ ? emit(ops, SET, path, key, value) : 0;
    }
    if (PyList_Append(path, key) < 0)
        return -1;
    int failed = diff_into(previous, value, path, ops);
    if (PyList_SetSlice(path, PyList_GET_SIZE(path) - 1, PyList_GET_SIZE(path), NULL) < 0)
        return -1;
    return failed;
}

static int child(PyObject *previous, PyObject *value, PyObject *key, PyObject *path, PyObject *ops)
{
    Py_INCREF(key);
    Py_INCREF(previous);
    Py_INCREF(value);
    int failed = visit(previous, value, key, path, ops);
    Py_DECREF(key);
    Py_DECREF(previous);
    Py_DECREF(value);
    return failed;
}

static int diff_dict(PyObject *old, PyObject *new, PyObject *path, PyObject *ops)
{
    Py_ssize_t pos = 0, matched = 0;
    PyObject *key, *value;
    while (PyDict_Next(new, &pos, &key, &value)) {
        PyObject *previous = PyDict_GetItemWithError(old, key); /* borrowed */
        if (previous == NULL) {
            if (PyErr_Occurred() || emit(ops, SET, path, key, value) < 0)
                return -1;
            continue;
        }
        matched++;
        if (previous != value && child(previous, value, key, path, ops) < 0)
            return -1;
    }
    if (matched < PyDict_GET_SIZE(old)) {
        pos = 0;
        while (PyDict_Next(old, &pos, &key, &value)) {
            int present = PyDict_Contains(new, key);
            if (present < 0 || (!present && emit(ops, REMOVE, path, key, NULL) < 0))
                return -1;
        }
    }
    return 0;
}

/* Whether ops[first:] only set direct items of the list at path (paths of depth + 1). */
static int leaf_sets(PyObject *ops, Py_ssize_t first, Py_ssize_t depth)
{
    for (Py_ssize_t i = first; i < PyList_GET_SIZE(ops); i++) {
        PyObject *op = PyList_GET_ITEM(ops, i);
        if (PyLong_AsLong(PyList_GET_ITEM(op, 0)) != SET
            || PyList_GET_SIZE(PyList_GET_ITEM(op, 1)) != depth + 1)
            return 0;
    }
    return 1;
}

static int diff_list(PyObject *old, PyObject *new, PyObject *path, PyObject *ops)
{
    Py_ssize_t n_old = PyList_GET_SIZE(old), n_new = PyList_GET_SIZE(new);
    Py_ssize_t common = n_old < n_new ? n_old : n_new, first = PyList_GET_SIZE(ops);
    for (Py_ssize_t i = 0; i < common && i < PyList_GET_SIZE(old) && i < PyList_GET_SIZE(new); i++) {
        PyObject *previous = PyList_GET_ITEM(old, i), *value = PyList_GET_ITEM(new, i);
        if (previous == value)
            continue;
        PyObject *index = PyLong_FromSsize_t(i);
        if (index == NULL)
            return -1;
        int failed = child(previous, value, index, path, ops);
        Py_DECREF(index);
        if (failed < 0)
            return -1;
    }
    if (PyList_GET_SIZE(ops) - first > 1 && n_new <= WHOLE_LIST
        && leaf_sets(ops, first, PyList_GET_SIZE(path))) {
        if (PyList_SetSlice(ops, first, PyList_GET_SIZE(ops), NULL) < 0)
            return -1;
        return emit(ops, SET, path, NULL, new);
    }
    if (n_old > common) {
        PyObject *length = PyLong_FromSsize_t(common);
        if (length == NULL)
            return -1;
        int failed = emit(ops, TRUNCATE, path, NULL, length);
        Py_DECREF(length);
        return failed;
    }
    if (n_new > common) {
        PyObject *items = PyList_GetSlice(new, common, n_new);
        if (items == NULL)
            return -1;
        int failed = emit(ops, EXTEND, path, NULL, items);
        Py_DECREF(items);
        return failed;
    }
    return 0;
}

static int diff_into(PyObject *old, PyObject *new, PyObject *path, PyObject *ops)
{
    PyTypeObject *kind = Py_TYPE(new);
    if (Py_TYPE(old) != kind)
        return emit(ops, SET, path, NULL, new);
    if (kind == &PyDict_Type || kind == &PyList_Type) {
        if (Py_EnterRecursiveCall(" in protocol.diff"))
            return -1;
        int failed = kind == &PyDict_Type ? diff_dict(old, new, path, ops)
                                          : diff_list(old, new, path, ops);
        Py_LeaveRecursiveCall();
        return failed;
    }
    int differ = PyObject_RichCompareBool(old, new, Py_NE);
    if (differ < 0)
        return -1;
    return differ ? emit(ops, SET, path, NULL, new) : 0;
}

static PyObject *diff(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "diff(old, new) takes two arguments");
        return NULL;
    }
    PyObject *ops = PyList_New(0);
    if (ops == NULL || args[0] == args[1])
        return ops;
    PyObject *path = PyList_New(0);
    if (path == NULL) {
        Py_DECREF(ops);
        return NULL;
    }
    int failed = diff_into(args[0], args[1], path, ops);
    Py_DECREF(path);
    if (failed < 0) {
        Py_DECREF(ops);
        return NULL;
    }
    return ops;
}

/* Append the compact form of path[start:] to out: a map key the table holds
 * becomes its reference (singles[key]); other steps are kept. */
static int compact_steps(PyObject *out, PyObject *path, Py_ssize_t start, PyObject *singles)
{
    for (Py_ssize_t i = start; i < PyList_GET_SIZE(path); i++) {
        PyObject *step = PyList_GET_ITEM(path, i), *ref = NULL;
        if (PyUnicode_CheckExact(step)) {
            ref = PyDict_GetItemWithError(singles, step); /* borrowed */
            if (ref == NULL && PyErr_Occurred())
                return -1;
        }
        if (PyList_Append(out, ref != NULL ? ref : step) < 0)
            return -1;
    }
    return 0;
}

/* Append path, compacted: its first two keys become one reference when the
 * table holds the pair (pairs[first][second]), then compact_steps. */
static int compact_path(PyObject *out, PyObject *path, PyObject *singles, PyObject *pairs)
{
    if (!PyList_Check(path)) {
        PyErr_SetString(PyExc_TypeError, "an op's path must be a list");
        return -1;
    }
    Py_ssize_t start = 0;
    if (PyList_GET_SIZE(path) >= 2 && PyUnicode_CheckExact(PyList_GET_ITEM(path, 0))
        && PyUnicode_CheckExact(PyList_GET_ITEM(path, 1))) {
        PyObject *seconds = PyDict_GetItemWithError(pairs, PyList_GET_ITEM(path, 0));
        PyObject *ref = NULL;
        if (seconds == NULL && PyErr_Occurred())
            return -1;
        if (seconds != NULL && PyDict_CheckExact(seconds)) {
            ref = PyDict_GetItemWithError(seconds, PyList_GET_ITEM(path, 1));
            if (ref == NULL && PyErr_Occurred())
                return -1;
        }
        if (ref != NULL) {
            if (PyList_Append(out, ref) < 0)
                return -1;
            start = 2;
        }
    }
    return compact_steps(out, path, start, singles);
}

static int compact_op(PyObject *out, PyObject *op, PyObject *singles, PyObject *pairs)
{
    if (!PyList_CheckExact(op) || PyList_GET_SIZE(op) < 2) {
        PyErr_SetString(PyExc_TypeError, "an op must be a list [kind, path, ...]");
        return -1;
    }
    long kind = PyLong_AsLong(PyList_GET_ITEM(op, 0));
    if (kind == -1 && PyErr_Occurred())
        return -1;
    PyObject *compact = PyList_New(0);
    if (compact == NULL)
        return -1;
    int failed = 0;
    if (kind != SET)
        failed = PyList_Append(compact, Py_None) < 0
                 || PyList_Append(compact, PyList_GET_ITEM(op, 0)) < 0;
    if (!failed)
        failed = compact_path(compact, PyList_GET_ITEM(op, 1), singles, pairs) < 0;
    if (!failed && kind != REMOVE) {
        if (PyList_GET_SIZE(op) < 3) {
            PyErr_SetString(PyExc_TypeError, "this op needs a value");
            failed = 1;
        }
        else
            failed = PyList_Append(compact, PyList_GET_ITEM(op, 2)) < 0;
    }
    if (!failed)
        failed = PyList_Append(out, compact) < 0;
    Py_DECREF(compact);
    return failed ? -1 : 0;
}

static PyObject *compact(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyList_Check(args[0]) || !PyDict_Check(args[1]) || !PyDict_Check(args[2])
        || !PyList_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError,
                        "compact(ops: list, singles: dict, pairs: dict, out: list)");
        return NULL;
    }
    PyObject *ops = args[0];
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(ops); i++) {
        PyObject *op = PyList_GET_ITEM(ops, i);
        Py_INCREF(op);
        int failed = compact_op(args[3], op, args[1], args[2]);
        Py_DECREF(op);
        if (failed < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"diff", (PyCFunction)(void (*)(void))diff, METH_FASTCALL,
     "diff(old, new): the ops that turn old into new (protocol.diff.diff)."},
    {"compact", (PyCFunction)(void (*)(void))compact, METH_FASTCALL,
     "compact(ops, singles, pairs, out): protocol 2's ops for ops, appended to out "
     "(protocol.compact.compact)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "protocol._speedups",
    "protocol.diff.diff and protocol.compact.compact in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__speedups(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddIntConstant(m, "WHOLE_LIST", WHOLE_LIST) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
