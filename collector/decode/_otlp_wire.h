/* Protobuf wire primitives shared by the native OTLP reader's files (`_otlp_wire.c`,
 * `_otlp_check.c`): bounds-checked reads that raise `Unsupported` (set by the module's
 * init) on anything upb should decide instead. */
#ifndef TRACESIM_OTLP_WIRE_H
#define TRACESIM_OTLP_WIRE_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

extern PyObject *otlp_unsupported;

typedef struct {
    const uint8_t *p;
    const uint8_t *end;
} Reader;

static inline int unsupported(const char *what) {
    PyErr_SetString(otlp_unsupported, what);
    return -1;
}


static inline int read_varint(Reader *r, uint64_t *out) {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) return unsupported("truncated varint");
        uint8_t byte = *r->p++;
        if (shift == 63 && (byte & 0x7e)) return unsupported("varint past 64 bits");
        value |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *out = value;
            return 0;
        }
    }
    return unsupported("varint longer than 10 bytes");
}

static inline int read_fixed64(Reader *r, uint64_t *out) {
    if (r->end - r->p < 8) return unsupported("truncated fixed64");
    uint64_t value = 0;
    for (int i = 7; i >= 0; i--) value = (value << 8) | r->p[i];
    r->p += 8;
    *out = value;
    return 0;
}

/* One tag: field number and wire type; 0 at the end of the message. */
static inline int read_tag(Reader *r, uint32_t *field, int *wire) {
    uint64_t tag;
    if (read_varint(r, &tag) < 0) return -1;
    if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return unsupported("bad field number");
    *field = (uint32_t)(tag >> 3);
    *wire = (int)(tag & 7);
    return 1;
}

static inline int read_len(Reader *r, Reader *sub) {
    uint64_t length;
    if (read_varint(r, &length) < 0) return -1;
    if (length > (uint64_t)(r->end - r->p)) return unsupported("truncated field");
    sub->p = r->p;
    sub->end = r->p + length;
    r->p += length;
    return 0;
}

static inline int skip(Reader *r, int wire) {
    uint64_t ignored;
    Reader sub;
    switch (wire) {
    case 0: return read_varint(r, &ignored);
    case 1:
        if (r->end - r->p < 8) return unsupported("truncated fixed64");
        r->p += 8;
        return 0;
    case 2: return read_len(r, &sub);
    case 5:
        if (r->end - r->p < 4) return unsupported("truncated fixed32");
        r->p += 4;
        return 0;
    default: return unsupported("group or unknown wire type");
    }
}

static inline int expect(int wire, int wanted) {
    return wire == wanted ? 0 : unsupported("known field with another wire type");
}

/* Values (in _otlp_values.c): texts, bytes, attribute maps; EmptyStr / EmptyBytes are
 * made by the module's init. */
extern PyObject *EmptyBytes;
extern PyObject *EmptyStr;
PyObject *otlp_text_of(Reader *sub);
PyObject *otlp_cached_text(Reader *sub);
PyObject *otlp_bytes_of(Reader *sub);
void otlp_put(PyObject **slot, PyObject *value);
PyObject *otlp_any_value(Reader *r, int depth);
PyObject *otlp_attributes(Reader *r, int depth);
int otlp_attributes_into(PyObject *out, Reader *r, int depth);

/* `check_traces` (in _otlp_check.c). */
PyObject *otlp_check_traces(PyObject *module, PyObject *arg);

#endif
