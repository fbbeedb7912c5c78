/* protocol._speedups: protocol.diff.diff in C.
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

static PyMethodDef methods[] = {
    {"diff", (PyCFunction)(void (*)(void))diff, METH_FASTCALL,
     "diff(old, new): the ops that turn old into new (protocol.diff.diff)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "protocol._speedups", "protocol.diff.diff in C.", -1, methods,
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
