/* OTLP ExportTraceServiceRequest bytes -> plain Python values, in one pass over the wire.
 *
 * The optional native fast path of `tracesim.collector.decode.spans_tree`: it returns the
 * very values the protobuf (upb) path builds there, attribute by attribute (str, int,
 * bool, float, list, dict, base64 text of bytes, None), without a Python object per
 * protobuf message. Anything this reader does not take exactly as upb would (a singular
 * message field or an AnyValue member repeated, which upb merges; a known field with
 * another wire type; groups; invalid UTF-8; truncation) raises `Unsupported`, and the
 * caller decodes that request with upb instead: this file never decides what a request
 * means when upb could decide otherwise.
 *
 * Result: [(resource attributes, [(scope name, [span, ...]), ...]), ...] where a span is
 * (trace_id, span_id, parent_span_id, name, kind, start, end, status code, status message,
 * attributes, events, links); events [(name, time_unix_nano, attributes)], links
 * [(trace_id, span_id, attributes)].
 */
#include "_otlp_wire.h"

PyObject *otlp_unsupported;
static PyObject *EmptyBytes;
static PyObject *EmptyStr;

static PyObject *text_of(Reader *sub) {
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

static PyObject *cached_text(Reader *sub) {
    Py_ssize_t size = sub->end - sub->p;
    if (size == 0) return Py_NewRef(EmptyStr);
    if (size > CACHE_MAX_LEN) return text_of(sub);
    uint32_t hash = 2166136261u;
    for (Py_ssize_t i = 0; i < size; i++) {
        uint8_t byte = sub->p[i];
        if (byte & 0x80) return text_of(sub); /* ASCII only: compared byte for byte */
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

static PyObject *bytes_of(Reader *sub) {
    Py_ssize_t size = sub->end - sub->p;
    if (size == 0) return Py_NewRef(EmptyBytes);
    return PyBytes_FromStringAndSize((const char *)sub->p, size);
}

/* Replace *slot by value (a field seen again: the last one wins, as in protobuf). */
static void put(PyObject **slot, PyObject *value) {
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

static PyObject *attributes(Reader *r, int depth);

/* AnyValue -> Python value, as `collector.decode.values.any_value` gives it. */
static PyObject *any_value(Reader *r, int depth) {
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
            put(&value, cached_text(&sub));
            break;
        case 2:
            if (expect(wire, 0) < 0 || read_varint(r, &number) < 0) goto fail;
            put(&value, PyBool_FromLong(number != 0));
            break;
        case 3:
            if (expect(wire, 0) < 0 || read_varint(r, &number) < 0) goto fail;
            put(&value, PyLong_FromLongLong((long long)number));
            break;
        case 4: {
            if (expect(wire, 1) < 0 || read_fixed64(r, &number) < 0) goto fail;
            double real;
            memcpy(&real, &number, sizeof real);
            put(&value, PyFloat_FromDouble(real));
            break;
        }
        case 5: {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            PyObject *items = PyList_New(0);
            put(&value, items);
            if (items == NULL) goto fail;
            while (sub.p < sub.end) {
                Reader item;
                if (read_tag(&sub, &field, &wire) < 0) goto fail;
                if (field != 1) {
                    if (skip(&sub, wire) < 0) goto fail;
                    continue;
                }
                if (expect(wire, 2) < 0 || read_len(&sub, &item) < 0) goto fail;
                PyObject *one = any_value(&item, depth + 1);
                if (one == NULL) goto fail;
                int appended = PyList_Append(items, one);
                Py_DECREF(one);
                if (appended < 0) goto fail;
            }
            break;
        }
        case 6: {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            put(&value, attributes(&sub, depth + 1));
            break;
        }
        case 7:
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            put(&value, base64_of(&sub));
            break;
        case 8: /* string_value_strindex: a member the Python reader turns into None */
            if (expect(wire, 0) < 0 || read_varint(r, &number) < 0) goto fail;
            put(&value, Py_NewRef(Py_None));
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
            put(&key, cached_text(&sub));
            if (key == NULL) goto fail;
        } else if (field == 2) {
            if (has_value) {
                unsupported("KeyValue with its value twice");
                goto fail;
            }
            has_value = 1;
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            value = any_value(&sub, depth);
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
static int attributes_into(PyObject *out, Reader *r, int depth) {
    return key_value(r, out, depth);
}

/* KeyValueList (field 1: repeated KeyValue) -> dict. */
static PyObject *attributes(Reader *r, int depth) {
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
        if (attributes_into(out, &sub, depth) < 0) goto fail;
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* Span.Event -> (name, time_unix_nano, attributes). */
static PyObject *span_event(Reader *r) {
    PyObject *name = NULL, *attrs = PyDict_New();
    uint64_t time = 0;
    uint32_t field;
    int wire;
    Reader sub;
    if (attrs == NULL) return NULL;
    while (r->p < r->end) {
        if (read_tag(r, &field, &wire) < 0) goto fail;
        if (field == 1) {
            if (expect(wire, 1) < 0 || read_fixed64(r, &time) < 0) goto fail;
        } else if (field == 2) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            put(&name, text_of(&sub));
            if (name == NULL) goto fail;
        } else if (field == 3) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (attributes_into(attrs, &sub, 0) < 0) goto fail;
        } else if (skip(r, wire) < 0) {
            goto fail;
        }
    }
    if (name == NULL) name = Py_NewRef(EmptyStr);
    return Py_BuildValue("(NKN)", name, (unsigned long long)time, attrs);
fail:
    Py_XDECREF(name);
    Py_DECREF(attrs);
    return NULL;
}

/* Span.Link -> (trace_id, span_id, attributes); trace_state is read (UTF-8 checked). */
static PyObject *span_link(Reader *r) {
    PyObject *trace_id = NULL, *span_id = NULL, *attrs = PyDict_New();
    uint32_t field;
    int wire;
    Reader sub;
    if (attrs == NULL) return NULL;
    while (r->p < r->end) {
        if (read_tag(r, &field, &wire) < 0) goto fail;
        if (field == 1 || field == 2) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            PyObject *raw = bytes_of(&sub);
            if (raw == NULL) goto fail;
            put(field == 1 ? &trace_id : &span_id, raw);
        } else if (field == 3) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            PyObject *state = text_of(&sub);
            if (state == NULL) goto fail;
            Py_DECREF(state);
        } else if (field == 4) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (attributes_into(attrs, &sub, 0) < 0) goto fail;
        } else if (skip(r, wire) < 0) {
            goto fail;
        }
    }
    if (trace_id == NULL) trace_id = Py_NewRef(EmptyBytes);
    if (span_id == NULL) span_id = Py_NewRef(EmptyBytes);
    return Py_BuildValue("(NNN)", trace_id, span_id, attrs);
fail:
    Py_XDECREF(trace_id);
    Py_XDECREF(span_id);
    Py_DECREF(attrs);
    return NULL;
}

/* Status -> code and message (a Status seen twice is merged by upb: refused here). */
static int status(Reader *r, int32_t *code, PyObject **message) {
    uint32_t field;
    int wire;
    Reader sub;
    uint64_t number;
    while (r->p < r->end) {
        if (read_tag(r, &field, &wire) < 0) return -1;
        if (field == 2) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) return -1;
            put(message, text_of(&sub));
            if (*message == NULL) return -1;
        } else if (field == 3) {
            if (expect(wire, 0) < 0 || read_varint(r, &number) < 0) return -1;
            *code = (int32_t)(uint32_t)number;
        } else if (skip(r, wire) < 0) {
            return -1;
        }
    }
    return 0;
}

/* A repeated message field into `list` through `parse`. */
static int append_parsed(PyObject **list, Reader *sub, PyObject *(*parse)(Reader *)) {
    if (*list == NULL && (*list = PyList_New(0)) == NULL) return -1;
    PyObject *item = parse(sub);
    if (item == NULL) return -1;
    int appended = PyList_Append(*list, item);
    Py_DECREF(item);
    return appended;
}

static PyObject *span(Reader *r) {
    PyObject *ids[3] = {NULL, NULL, NULL}; /* trace, span, parent */
    PyObject *name = NULL, *message = NULL, *events = NULL, *links = NULL;
    PyObject *attrs = PyDict_New();
    uint64_t start = 0, end = 0, number;
    int32_t kind = 0, code = 0;
    int status_seen = 0;
    uint32_t field;
    int wire;
    Reader sub;
    if (attrs == NULL) return NULL;
    while (r->p < r->end) {
        if (read_tag(r, &field, &wire) < 0) goto fail;
        switch (field) {
        case 1:
        case 2:
        case 4: {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            PyObject *raw = bytes_of(&sub);
            if (raw == NULL) goto fail;
            put(&ids[field == 1 ? 0 : field == 2 ? 1 : 2], raw);
            break;
        }
        case 3: {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            PyObject *state = text_of(&sub);
            if (state == NULL) goto fail;
            Py_DECREF(state);
            break;
        }
        case 5:
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            put(&name, cached_text(&sub));
            if (name == NULL) goto fail;
            break;
        case 6:
            if (expect(wire, 0) < 0 || read_varint(r, &number) < 0) goto fail;
            kind = (int32_t)(uint32_t)number;
            break;
        case 7:
            if (expect(wire, 1) < 0 || read_fixed64(r, &start) < 0) goto fail;
            break;
        case 8:
            if (expect(wire, 1) < 0 || read_fixed64(r, &end) < 0) goto fail;
            break;
        case 9:
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (attributes_into(attrs, &sub, 0) < 0) goto fail;
            break;
        case 11:
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (append_parsed(&events, &sub, span_event) < 0) goto fail;
            break;
        case 13:
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (append_parsed(&links, &sub, span_link) < 0) goto fail;
            break;
        case 15:
            if (status_seen) {
                unsupported("Status twice");
                goto fail;
            }
            status_seen = 1;
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (status(&sub, &code, &message) < 0) goto fail;
            break;
        case 10:
        case 12:
        case 14:
            if (expect(wire, 0) < 0 || read_varint(r, &number) < 0) goto fail;
            break;
        case 16:
            if (expect(wire, 5) < 0 || skip(r, wire) < 0) goto fail;
            break;
        default:
            if (skip(r, wire) < 0) goto fail;
        }
    }
    for (int i = 0; i < 3; i++)
        if (ids[i] == NULL) ids[i] = Py_NewRef(EmptyBytes);
    if (name == NULL) name = Py_NewRef(EmptyStr);
    if (message == NULL) message = Py_NewRef(EmptyStr);
    if (events == NULL) events = Py_NewRef(Py_None);
    if (links == NULL) links = Py_NewRef(Py_None);
    return Py_BuildValue(
        "(NNNNiKKiNNNN)", ids[0], ids[1], ids[2], name, (int)kind, (unsigned long long)start,
        (unsigned long long)end, (int)code, message, attrs, events, links);
fail:
    for (int i = 0; i < 3; i++) Py_XDECREF(ids[i]);
    Py_XDECREF(name);
    Py_XDECREF(message);
    Py_XDECREF(events);
    Py_XDECREF(links);
    Py_DECREF(attrs);
    return NULL;
}

/* InstrumentationScope -> its name (version and attributes read, UTF-8 checked). */
static PyObject *scope_name(Reader *r) {
    PyObject *name = NULL, *scratch = NULL;
    uint32_t field;
    int wire;
    Reader sub;
    while (r->p < r->end) {
        if (read_tag(r, &field, &wire) < 0) goto fail;
        if (field == 1 || field == 2) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            PyObject *text = text_of(&sub);
            if (text == NULL) goto fail;
            if (field == 1) put(&name, text);
            else Py_DECREF(text);
        } else if (field == 3) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (scratch == NULL && (scratch = PyDict_New()) == NULL) goto fail;
            if (attributes_into(scratch, &sub, 0) < 0) goto fail;
        } else if (skip(r, wire) < 0) {
            goto fail;
        }
    }
    Py_XDECREF(scratch);
    return name != NULL ? name : Py_NewRef(EmptyStr);
fail:
    Py_XDECREF(name);
    Py_XDECREF(scratch);
    return NULL;
}

static PyObject *scope_spans(Reader *r) {
    PyObject *name = NULL, *spans = PyList_New(0);
    int scope_seen = 0;
    uint32_t field;
    int wire;
    Reader sub;
    if (spans == NULL) return NULL;
    while (r->p < r->end) {
        if (read_tag(r, &field, &wire) < 0) goto fail;
        if (field == 1) {
            if (scope_seen) {
                unsupported("scope twice");
                goto fail;
            }
            scope_seen = 1;
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if ((name = scope_name(&sub)) == NULL) goto fail;
        } else if (field == 2) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (append_parsed(&spans, &sub, span) < 0) goto fail;
        } else if (field == 3) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            PyObject *url = text_of(&sub);
            if (url == NULL) goto fail;
            Py_DECREF(url);
        } else if (skip(r, wire) < 0) {
            goto fail;
        }
    }
    if (name == NULL) name = Py_NewRef(EmptyStr);
    return Py_BuildValue("(NN)", name, spans);
fail:
    Py_XDECREF(name);
    Py_DECREF(spans);
    return NULL;
}

/* Resource -> its attributes. */
static PyObject *resource(Reader *r) {
    PyObject *attrs = PyDict_New();
    uint32_t field;
    int wire;
    Reader sub;
    if (attrs == NULL) return NULL;
    while (r->p < r->end) {
        if (read_tag(r, &field, &wire) < 0) goto fail;
        if (field == 1) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (attributes_into(attrs, &sub, 0) < 0) goto fail;
        } else if (field == 3) { /* entity_refs: texts upb checks; rare, left to upb */
            unsupported("resource entity references");
            goto fail;
        } else if (skip(r, wire) < 0) {
            goto fail;
        }
    }
    return attrs;
fail:
    Py_DECREF(attrs);
    return NULL;
}

static PyObject *resource_spans(Reader *r) {
    PyObject *attrs = NULL, *scopes = PyList_New(0);
    uint32_t field;
    int wire;
    Reader sub;
    if (scopes == NULL) return NULL;
    while (r->p < r->end) {
        if (read_tag(r, &field, &wire) < 0) goto fail;
        if (field == 1) {
            if (attrs != NULL) {
                unsupported("resource twice");
                goto fail;
            }
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if ((attrs = resource(&sub)) == NULL) goto fail;
        } else if (field == 2) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (append_parsed(&scopes, &sub, scope_spans) < 0) goto fail;
        } else if (field == 3) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            PyObject *url = text_of(&sub);
            if (url == NULL) goto fail;
            Py_DECREF(url);
        } else if (skip(r, wire) < 0) {
            goto fail;
        }
    }
    if (attrs == NULL && (attrs = PyDict_New()) == NULL) goto fail;
    return Py_BuildValue("(NN)", attrs, scopes);
fail:
    Py_XDECREF(attrs);
    Py_DECREF(scopes);
    return NULL;
}

static PyObject *decode_traces(PyObject *module, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    Reader r = {(const uint8_t *)view.buf, (const uint8_t *)view.buf + view.len};
    PyObject *out = PyList_New(0);
    uint32_t field;
    int wire;
    Reader sub;
    if (out == NULL) goto done;
    while (r.p < r.end) {
        if (read_tag(&r, &field, &wire) < 0) goto fail;
        if (field == 1) {
            if (expect(wire, 2) < 0 || read_len(&r, &sub) < 0) goto fail;
            if (append_parsed(&out, &sub, resource_spans) < 0) goto fail;
        } else if (skip(&r, wire) < 0) {
            goto fail;
        }
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef methods[] = {
    {"decode_traces", decode_traces, METH_O,
     "ExportTraceServiceRequest bytes -> [(resource attributes, [(scope name, [span])])]; "
     "Unsupported when upb must decide."},
    {"check_traces", otlp_check_traces, METH_O,
     "ExportTraceServiceRequest bytes -> (valid spans, rejected spans, first rejected span "
     "as (name, trace_id length, span_id length, parent_span_id length) or None), without "
     "building the values; Unsupported when upb must decide."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_otlp_wire",
    "Native reader of OTLP trace requests (optional fast path of spans_tree).", -1, methods,
};

PyMODINIT_FUNC PyInit__otlp_wire(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    otlp_unsupported = PyErr_NewException("_otlp_wire.Unsupported", PyExc_ValueError, NULL);
    EmptyBytes = PyBytes_FromStringAndSize("", 0);
    EmptyStr = PyUnicode_FromStringAndSize("", 0);
    if (otlp_unsupported == NULL || EmptyBytes == NULL || EmptyStr == NULL ||
        PyModule_AddObjectRef(m, "Unsupported", otlp_unsupported) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
