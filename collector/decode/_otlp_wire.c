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
            otlp_put(&name, otlp_text_of(&sub));
            if (name == NULL) goto fail;
        } else if (field == 3) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (otlp_attributes_into(attrs, &sub, 0) < 0) goto fail;
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
            PyObject *raw = otlp_bytes_of(&sub);
            if (raw == NULL) goto fail;
            otlp_put(field == 1 ? &trace_id : &span_id, raw);
        } else if (field == 3) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            PyObject *state = otlp_text_of(&sub);
            if (state == NULL) goto fail;
            Py_DECREF(state);
        } else if (field == 4) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (otlp_attributes_into(attrs, &sub, 0) < 0) goto fail;
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
            otlp_put(message, otlp_text_of(&sub));
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
            PyObject *raw = otlp_bytes_of(&sub);
            if (raw == NULL) goto fail;
            otlp_put(&ids[field == 1 ? 0 : field == 2 ? 1 : 2], raw);
            break;
        }
        case 3: {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            PyObject *state = otlp_text_of(&sub);
            if (state == NULL) goto fail;
            Py_DECREF(state);
            break;
        }
        case 5:
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            otlp_put(&name, otlp_cached_text(&sub));
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
            if (otlp_attributes_into(attrs, &sub, 0) < 0) goto fail;
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
            PyObject *text = otlp_text_of(&sub);
            if (text == NULL) goto fail;
            if (field == 1) otlp_put(&name, text);
            else Py_DECREF(text);
        } else if (field == 3) {
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) goto fail;
            if (scratch == NULL && (scratch = PyDict_New()) == NULL) goto fail;
            if (otlp_attributes_into(scratch, &sub, 0) < 0) goto fail;
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

/* A schema_url (field 3): not kept, but its text must be valid UTF-8, as upb checks. */
static int check_schema_url(Reader *r, int wire) {
    Reader sub;
    if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) return -1;
    PyObject *url = otlp_text_of(&sub);
    if (url == NULL) return -1;
    Py_DECREF(url);
    return 0;
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
            if (check_schema_url(r, wire) < 0) goto fail;
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
            if (otlp_attributes_into(attrs, &sub, 0) < 0) goto fail;
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
            if (check_schema_url(r, wire) < 0) goto fail;
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
