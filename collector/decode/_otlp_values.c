/* OTLP AnyValue / KeyValue wire bytes -> the Python values `collector.decode.values` gives
 * (str, int, bool, float, list, dict, base64 text of bytes, None): the innermost loop of
 * the native reader (`_otlp_wire.c`). What upb could read otherwise raises Unsupported. */
#include "_otlp_wire.h"

PyObject *EmptyBytes;
PyObject *EmptyStr;

PyObject *otlp_text_of(Reader *sub) {
    Py_ssize_t size = sub->end - sub->p;
    if (size == 0) return Py_NewRef(EmptyStr);
    PyObject *text = PyUnicode_DecodeUTF8((const char *)sub->p, size, NULL);
    if (text == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        PyErr_Clear();
        unsupported("invalid UTF-8");
    }
    return text;
}

/* Short ASCII texts seen again (attribute keys, operation and model names, ...) come back
 * as the same str object: no allocation, and its hash is already known to the dict. */
#define CACHE_SLOTS 1024
#define CACHE_MAX_LEN 48
static PyObject *cache[CACHE_SLOTS];

PyObject *otlp_cached_text(Reader *sub) {
    Py_ssize_t size = sub->end - sub->p;
    if (size == 0) return Py_NewRef(EmptyStr);
    if (size > CACHE_MAX_LEN) return otlp_text_of(sub);
    uint32_t hash = 2166136261u;
    for (Py_ssize_t i = 0; i < size; i++) {
        uint8_t byte = sub->p[i];
        if (byte & 0x80) return otlp_text_of(sub); /* ASCII only: compared byte for byte */
        hash = (hash ^ byte) * 16777619u;
    }
    PyObject **slot = &cache[(hash ^ (hash >> 16)) & (CACHE_SLOTS - 1)];
    PyObject *found = *slot;
    if (found != NULL && PyUnicode_GET_LENGTH(found) == size &&
        memcmp(PyUnicode_1BYTE_DATA(found), sub->p, size) == 0)
        return Py_NewRef(found);
    PyObject *text = PyUnicode_DecodeASCII((const char *)sub->p, size, NULL);
    if (text == NULL) return NULL;
    Py_XSETREF(*slot, Py_NewRef(text));
    return text;
}

PyObject *otlp_bytes_of(Reader *sub) {
    Py_ssize_t size = sub->end - sub->p;
    if (size == 0) return Py_NewRef(EmptyBytes);
    return PyBytes_FromStringAndSize((const char *)sub->p, size);
}

/* Replace *slot by value (a field seen again: the last one wins, as in protobuf). */
void otlp_put(PyObject **slot, PyObject *value) {
    Py_XSETREF(*slot, value);
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static PyObject *base64_of(Reader *sub) {
    Py_ssize_t size = sub->end - sub->p;
    Py_ssize_t out_size = (size + 2) / 3 * 4;
    PyObject *text = PyUnicode_New(out_size, 127);
    if (text == NULL) return NULL;
    Py_UCS1 *out = PyUnicode_1BYTE_DATA(text);
    const uint8_t *in = sub->p;
    Py_ssize_t i = 0, o = 0;
    for (; i + 2 < size; i += 3) {
        uint32_t n = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = B64[n >> 18];
        out[o++] = B64[(n >> 12) & 63];
        out[o++] = B64[(n >> 6) & 63];
        out[o++] = B64[n & 63];
    }
    if (i < size) {
        uint32_t n = (uint32_t)in[i] << 16 | (i + 1 < size ? (uint32_t)in[i + 1] << 8 : 0);
        out[o++] = B64[n >> 18];
        out[o++] = B64[(n >> 12) & 63];
        out[o++] = i + 1 < size ? B64[(n >> 6) & 63] : '=';
        out[o++] = '=';
    }
    return text;
}

PyObject *otlp_attributes(Reader *r, int depth);

/* AnyValue -> Python value, as `collector.decode.values.any_value` gives it. */
PyObject *otlp_any_value(Reader *r, int depth) {
    if (depth > 64) {
        unsupported("values nested too deep");
        return NULL;
    }
    PyObject *value = NULL;
    int seen = 0;
    uint32_t field;
    int wire, more;
    Reader sub;
    uint64_t number;
    while (r->p < r->end) {
        if ((more = read_tag(r, &field, &wire)) < 0) goto fail;
        if (field >= 1 && field <= 8) {
            if (seen) { /* upb merges a repeated message member: leave it to upb */
                unsupported("AnyValue with more than one value");
                goto fail;
            }
            seen = 1;
        }
        switch (field) {
        case 1:
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            otlp_put(&value, otlp_cached_text(&sub));
            break;
        case 2:
            if (expect(wire, 0) < 0 || read_varint(r, &number) < 0) goto fail;
            otlp_put(&value, PyBool_FromLong(number != 0));
            break;
        case 3:
            if (expect(wire, 0) < 0 || read_varint(r, &number) < 0) goto fail;
            otlp_put(&value, PyLong_FromLongLong((long long)number));
            break;
        case 4: {
            if (expect(wire, 1) < 0 || read_fixed64(r, &number) < 0) goto fail;
            double real;
            memcpy(&real, &number, sizeof real);
            otlp_put(&value, PyFloat_FromDouble(real));
            break;
        }
        case 5: {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            PyObject *items = PyList_New(0);
            otlp_put(&value, items);
            if (items == NULL) goto fail;
            while (sub.p < sub.end) {
                Reader item;
                if (read_tag(&sub, &field, &wire) < 0) goto fail;
                if (field != 1) {
                    if (skip(&sub, wire) < 0) goto fail;
                    continue;
                }
                if (expect(wire, 2) < 0 || read_len(&sub, &item) < 0) goto fail;
                PyObject *one = otlp_any_value(&item, depth + 1);
                if (one == NULL) goto fail;
                int appended = PyList_Append(items, one);
                Py_DECREF(one);
                if (appended < 0) goto fail;
            }
            break;
        }
        case 6: {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            otlp_put(&value, otlp_attributes(&sub, depth + 1));
            break;
        }
        case 7:
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            otlp_put(&value, base64_of(&sub));
            break;
        case 8: /* string_value_strindex: a member the Python reader turns into None */
            if (expect(wire, 0) < 0 || read_varint(r, &number) < 0) goto fail;
            otlp_put(&value, Py_NewRef(Py_None));
            break;
        default:
            if (skip(r, wire) < 0) goto fail;
            continue;
        }
        if (value == NULL) goto fail;
    }
    (void)more;
    return value != NULL ? value : Py_NewRef(Py_None);
fail:
    Py_XDECREF(value);
    return NULL;
}

/* One KeyValue into `out` (last key wins, keeping the first one's place, as a dict does). */
static int key_value(Reader *r, PyObject *out, int depth) {
    PyObject *key = NULL, *value = NULL;
    int has_value = 0;
    uint32_t field;
    int wire;
    Reader sub;
    while (r->p < r->end) {
        if (read_tag(r, &field, &wire) < 0) goto fail;
        if (field == 1) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            otlp_put(&key, otlp_cached_text(&sub));
            if (key == NULL) goto fail;
        } else if (field == 2) {
            if (has_value) {
                unsupported("KeyValue with its value twice");
                goto fail;
            }
            has_value = 1;
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            value = otlp_any_value(&sub, depth);
            if (value == NULL) goto fail;
        } else if (skip(r, wire) < 0) {
            goto fail;
        }
    }
    if (key == NULL) key = Py_NewRef(EmptyStr);
    if (value == NULL) value = Py_NewRef(Py_None);
    int set = PyDict_SetItem(out, key, value);
    Py_DECREF(key);
    Py_DECREF(value);
    return set;
fail:
    Py_XDECREF(key);
    Py_XDECREF(value);
    return -1;
}

/* One KeyValue field of a message (its bytes in `r`) into the dict `out`. */
int otlp_attributes_into(PyObject *out, Reader *r, int depth) {
    return key_value(r, out, depth);
}

/* KeyValueList (field 1: repeated KeyValue) -> dict. */
PyObject *otlp_attributes(Reader *r, int depth) {
    PyObject *out = PyDict_New();
    if (out == NULL) return NULL;
    uint32_t field;
    int wire;
    Reader sub;
    while (r->p < r->end) {
        if (read_tag(r, &field, &wire) < 0) goto fail;
        if (field != 1) {
            if (skip(r, wire) < 0) goto fail;
            continue;
        }
        if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
        if (otlp_attributes_into(out, &sub, depth) < 0) goto fail;
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}
