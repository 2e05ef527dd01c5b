/* The receivers' check of an OTLP trace request, natively: is it a request upb reads, and
 * how many of its spans are valid (`decode.check_spans`), without building any value.
 *
 * The receivers parse every request before acknowledging it only to answer
 * INVALID_ARGUMENT or a partial success; with the decoder process (or the native reader)
 * nothing else uses the parsed message. This walks the same messages, fields and wire
 * types as `_otlp_wire.c` and checks every text upb checks (UTF-8), so a request it
 * accepts is one upb accepts; whatever it cannot vouch for raises `Unsupported` and the
 * receiver parses with upb as before.
 */
#include "_otlp_wire.h"

enum { TEXT = 1, BYTES, VARINT, FIXED64, FIXED32, MESSAGE, ONCE, MEMBER, REFUSE };
enum { REQUEST, RESOURCE_SPANS, RESOURCE, KEY_VALUE, ANY_VALUE, ARRAY, KV_LIST,
       SCOPE_SPANS, SCOPE, SPAN, EVENT, LINK, STATUS, TYPES };

typedef struct {
    uint8_t rule;  /* 0: not read (skipped whatever its wire type) */
    uint8_t type;  /* the message type of MESSAGE / ONCE / a MEMBER message */
    uint8_t wire;  /* for MEMBER: its wire type */
} Field;

#define MAX_FIELD 16
static Field schema[TYPES][MAX_FIELD + 1];

static void define(int type, int number, int rule, int nested, int wire) {
    schema[type][number].rule = (uint8_t)rule;
    schema[type][number].type = (uint8_t)nested;
    schema[type][number].wire = (uint8_t)wire;
}

static void define_schema(void) {
    define(REQUEST, 1, MESSAGE, RESOURCE_SPANS, 2);
    define(RESOURCE_SPANS, 1, ONCE, RESOURCE, 2);
    define(RESOURCE_SPANS, 2, MESSAGE, SCOPE_SPANS, 2);
    define(RESOURCE_SPANS, 3, TEXT, 0, 2);
    define(RESOURCE, 1, MESSAGE, KEY_VALUE, 2);
    define(RESOURCE, 3, REFUSE, 0, 0);
    define(KEY_VALUE, 1, TEXT, 0, 2);
    define(KEY_VALUE, 2, ONCE, ANY_VALUE, 2);
    define(ANY_VALUE, 1, MEMBER, 0, 2);
    define(ANY_VALUE, 2, MEMBER, 0, 0);
    define(ANY_VALUE, 3, MEMBER, 0, 0);
    define(ANY_VALUE, 4, MEMBER, 0, 1);
    define(ANY_VALUE, 5, MEMBER, ARRAY, 2);
    define(ANY_VALUE, 6, MEMBER, KV_LIST, 2);
    define(ANY_VALUE, 7, MEMBER, 0, 2);
    define(ANY_VALUE, 8, MEMBER, 0, 0);
    define(ARRAY, 1, MESSAGE, ANY_VALUE, 2);
    define(KV_LIST, 1, MESSAGE, KEY_VALUE, 2);
    define(SCOPE_SPANS, 1, ONCE, SCOPE, 2);
    define(SCOPE_SPANS, 2, MESSAGE, SPAN, 2);
    define(SCOPE_SPANS, 3, TEXT, 0, 2);
    define(SCOPE, 1, TEXT, 0, 2);
    define(SCOPE, 2, TEXT, 0, 2);
    define(SCOPE, 3, MESSAGE, KEY_VALUE, 2);
    for (int n = 1; n <= 2; n++) define(SPAN, n, BYTES, 0, 2);
    define(SPAN, 3, TEXT, 0, 2);
    define(SPAN, 4, BYTES, 0, 2);
    define(SPAN, 5, TEXT, 0, 2);
    define(SPAN, 6, VARINT, 0, 0);
    define(SPAN, 7, FIXED64, 0, 1);
    define(SPAN, 8, FIXED64, 0, 1);
    define(SPAN, 9, MESSAGE, KEY_VALUE, 2);
    define(SPAN, 10, VARINT, 0, 0);
    define(SPAN, 11, MESSAGE, EVENT, 2);
    define(SPAN, 12, VARINT, 0, 0);
    define(SPAN, 13, MESSAGE, LINK, 2);
    define(SPAN, 14, VARINT, 0, 0);
    define(SPAN, 15, ONCE, STATUS, 2);
    define(SPAN, 16, FIXED32, 0, 5);
    define(EVENT, 1, FIXED64, 0, 1);
    define(EVENT, 2, TEXT, 0, 2);
    define(EVENT, 3, MESSAGE, KEY_VALUE, 2);
    define(LINK, 1, BYTES, 0, 2);
    define(LINK, 2, BYTES, 0, 2);
    define(LINK, 3, TEXT, 0, 2);
    define(LINK, 4, MESSAGE, KEY_VALUE, 2);
    define(STATUS, 2, TEXT, 0, 2);
    define(STATUS, 3, VARINT, 0, 0);
}

/* Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). */
static int valid_utf8(const uint8_t *s, Py_ssize_t n) {
    Py_ssize_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t word;
            memcpy(&word, s + i, 8);
            if (!(word & 0x8080808080808080ULL)) {
                i += 8;
                continue;
            }
        }
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
        } else if (c < 0xC2) {
            return 0;
        } else if (c < 0xE0) {
            if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80) return 0;
            i += 2;
        } else if (c < 0xF0) {
            if (i + 2 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80) return 0;
            if ((c == 0xE0 && s[i + 1] < 0xA0) || (c == 0xED && s[i + 1] >= 0xA0)) return 0;
            i += 3;
        } else if (c < 0xF5) {
            if (i + 3 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80 ||
                (s[i + 3] & 0xC0) != 0x80)
                return 0;
            if ((c == 0xF0 && s[i + 1] < 0x90) || (c == 0xF4 && s[i + 1] >= 0x90)) return 0;
            i += 4;
        } else {
            return 0;
        }
    }
    return 1;
}

typedef struct {
    Py_ssize_t valid, rejected;
    int have_bad;
    Reader bad_name;
    Py_ssize_t bad_lengths[3];
} Counts;

static int is_zero(Reader *field) {
    for (const uint8_t *p = field->p; p < field->end; p++)
        if (*p) return 0;
    return 1;
}

/* Walk one message of `type`; spans are counted as `decode.span_is_valid` judges them. */
static int walk(Reader *r, int type, int depth, Counts *counts) {
    if (depth > 60) return unsupported("messages nested too deep");
    uint32_t seen_once = 0;
    int member_seen = 0;
    Reader ids[3] = {{NULL, NULL}, {NULL, NULL}, {NULL, NULL}}, name = {NULL, NULL};
    uint32_t number;
    int wire;
    Reader sub;
    uint64_t ignored;
    while (r->p < r->end) {
        if (read_tag(r, &number, &wire) < 0) return -1;
        const Field *field = number <= MAX_FIELD ? &schema[type][number] : NULL;
        int rule = field != NULL ? field->rule : 0;
        if (rule == MEMBER) {
            if (member_seen) return unsupported("AnyValue with more than one value");
            member_seen = 1;
            if (expect(wire, field->wire) < 0) return -1;
            if (field->wire == 2) {
                if (read_len(r, &sub) < 0) return -1;
                if (number == 1 && !valid_utf8(sub.p, sub.end - sub.p))
                    return unsupported("invalid UTF-8");
                if (field->type && walk(&sub, field->type, depth + 1, counts) < 0) return -1;
            } else if (skip(r, wire) < 0) {
                return -1;
            }
            continue;
        }
        switch (rule) {
        case 0:
            if (skip(r, wire) < 0) return -1;
            break;
        case REFUSE:
            return unsupported("a field left to upb");
        case TEXT:
        case BYTES:
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) return -1;
            if (rule == TEXT && !valid_utf8(sub.p, sub.end - sub.p))
                return unsupported("invalid UTF-8");
            if (type == SPAN && number != 3) {
                if (number == 5) name = sub;
                else ids[number == 1 ? 0 : number == 2 ? 1 : 2] = sub;
            }
            break;
        case VARINT:
            if (expect(wire, 0) < 0 || read_varint(r, &ignored) < 0) return -1;
            break;
        case FIXED64:
        case FIXED32:
            if (expect(wire, rule == FIXED64 ? 1 : 5) < 0 || skip(r, wire) < 0) return -1;
            break;
        case ONCE:
            if (seen_once & (1u << number)) return unsupported("a message field twice");
            seen_once |= 1u << number;
            /* fall through */
        case MESSAGE:
            if (expect(wire, 2) < 0 || read_len(r, &sub) < 0) return -1;
            if (walk(&sub, field->type, depth + 1, counts) < 0) return -1;
            break;
        }
    }
    if (type == SPAN) {
        Py_ssize_t lengths[3];
        for (int i = 0; i < 3; i++) lengths[i] = ids[i].p ? ids[i].end - ids[i].p : 0;
        if (lengths[0] == 16 && lengths[1] == 8 && !is_zero(&ids[0]) && !is_zero(&ids[1]) &&
            (lengths[2] == 0 || lengths[2] == 8)) {
            counts->valid++;
        } else {
            counts->rejected++;
            if (!counts->have_bad) {
                counts->have_bad = 1;
                counts->bad_name = name;
                memcpy(counts->bad_lengths, lengths, sizeof lengths);
            }
        }
    }
    return 0;
}

PyObject *otlp_check_traces(PyObject *module, PyObject *arg) {
    static int defined = 0;
    if (!defined) {
        define_schema();
        defined = 1;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    Reader r = {(const uint8_t *)view.buf, (const uint8_t *)view.buf + view.len};
    Counts counts = {0};
    PyObject *out = NULL;
    if (walk(&r, REQUEST, 0, &counts) == 0) {
        if (!counts.have_bad) {
            out = Py_BuildValue("(nnO)", counts.valid, counts.rejected, Py_None);
        } else {
            const char *text = counts.bad_name.p ? (const char *)counts.bad_name.p : "";
            Py_ssize_t size = counts.bad_name.p ? counts.bad_name.end - counts.bad_name.p : 0;
            out = Py_BuildValue(
                "(nn(s#nnn))", counts.valid, counts.rejected, text, size,
                counts.bad_lengths[0], counts.bad_lengths[1], counts.bad_lengths[2]);
        }
    }
    PyBuffer_Release(&view);
    return out;
}
