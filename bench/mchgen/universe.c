/*
 * universe.c - the "program" every process run compiles: modules, classes and methods named
 * from a shared vocabulary, their signatures, and (lazily) their IL with the tokens it uses.
 * Everything here is a pure function of the seed, so the same method has the same name, IL and
 * tokens in every run; only handles (context.c) change between runs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcz_agnostic.h"
#include "mcz_agnostic.h"
#include "mcz_superpmi.h"
#include "mchgen_model.h"

/* ---- PRNG ---- */

void mg_rng_seed(mg_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) {
        x += 0x9E3779B97F4A7C15ull;
        r->s[i] = mg_mix64(x);
    }
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t mg_rng_next(mg_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint32_t mg_rng_below(mg_rng *r, uint32_t n)
{
    return (uint32_t)(((mg_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

double mg_rng_unit(mg_rng *r) { return (double)(mg_rng_next(r) >> 11) * 0x1.0p-53; }

bool mg_rng_chance(mg_rng *r, double p) { return mg_rng_unit(r) < p; }

double mg_rng_lognormal(mg_rng *r, double median, double sigma)
{
    double u1 = mg_rng_unit(r), u2 = mg_rng_unit(r);
    double z = sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
    return median * exp(sigma * z);
}

/* ---- Vocabulary ---- */

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Namespaces, each tied to the module that defines it. */
static const struct {
    const char *ns;
    uint16_t module;
    uint16_t weight;
} namespaces[] = {
    {"System", 0, 30},
    {"System.Collections.Generic", 0, 14},
    {"System.Runtime.CompilerServices", 0, 8},
    {"System.Text", 0, 8},
    {"System.Threading", 0, 6},
    {"System.Threading.Tasks", 0, 8},
    {"System.IO", 0, 6},
    {"System.Globalization", 0, 4},
    {"System.Buffers", 0, 4},
    {"System.Numerics", 0, 3},
    {"System.Reflection", 0, 5},
    {"System.Runtime.InteropServices", 0, 4},
    {"System.Diagnostics", 0, 3},
    {"System.Linq", 1, 8},
    {"System.Linq.Expressions", 2, 4},
    {"System.Collections.Concurrent", 3, 4},
    {"System.Collections.Immutable", 4, 3},
    {"System.Text.Json", 5, 6},
    {"System.Text.Json.Serialization", 5, 4},
    {"System.Text.RegularExpressions", 6, 4},
    {"System.Net.Http", 7, 4},
    {"System.Net.Sockets", 8, 3},
    {"System.Security.Cryptography", 9, 3},
    {"System.Xml", 10, 4},
    {"Microsoft.Extensions.DependencyInjection", 11, 4},
    {"Microsoft.Extensions.Logging", 12, 4},
    {"Microsoft.Extensions.Configuration", 13, 3},
    {"Microsoft.AspNetCore.Http", 14, 5},
    {"Microsoft.AspNetCore.Routing", 15, 3},
    {"Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http", 16, 4},
    {"Microsoft.CodeAnalysis", 17, 5},
    {"Microsoft.CodeAnalysis.CSharp.Syntax", 18, 6},
    {"Microsoft.CodeAnalysis.CSharp", 18, 4},
    {"Newtonsoft.Json.Linq", 19, 3},
    {"BenchmarkDotNet.Engines", 20, 2},
    {"Xunit.Sdk", 21, 2},
    {"Internal.Runtime.CompilerServices", 0, 2},
    {"App.Services", 22, 3},
    {"App.Models", 22, 3},
    {"System.Private.CoreLib.Interop", 0, 1},
};

/* Modules (assemblies): 0 System.Private.CoreLib, then System.Linq ... App, as numbered in
 * namespaces[] above. */
enum { MODULE_COUNT = 23 };

static const char *const type_words[] = {
    "List", "Dictionary", "HashSet", "Queue", "Stack", "Array", "Span", "Memory", "Buffer",
    "Stream", "Reader", "Writer", "Builder", "Parser", "Formatter", "Converter", "Serializer",
    "Encoder", "Decoder", "Handler", "Manager", "Provider", "Factory", "Service", "Client",
    "Server", "Connection", "Request", "Response", "Context", "Options", "Settings", "Cache",
    "Pool", "Node", "Tree", "Graph", "Entry", "Element", "Token", "Symbol", "Syntax",
    "Expression", "Visitor", "Walker", "Binder", "Emitter", "Compiler", "Task", "Thread",
    "Timer", "Lock", "Semaphore", "Channel", "Pipe", "Socket", "Endpoint", "Route", "Header",
    "Cookie", "Session", "Logger", "Event", "Listener", "Source", "Sink", "Scope", "Helper",
    "Utilities", "Extensions", "Enumerator", "Comparer", "Equality", "Hash", "Key", "Value",
    "Pair", "Tuple", "Result", "Error", "Exception", "Attribute", "Info", "Descriptor",
    "Metadata", "Type", "Member", "Method", "Field", "Property", "Module", "Assembly",
    "Resource", "String", "Char", "Number", "Decimal", "Vector", "Matrix", "Random", "Guid",
    "Uri", "Path", "File", "Directory", "Json", "Xml", "Utf8", "Text", "Regex", "Match",
    "Group", "Culture", "Calendar", "Date", "Time", "Frame", "Slot", "Segment", "Block",
    "Chunk", "Table", "Row", "Column", "Index", "Range", "State", "Machine", "Awaiter",
    "Builder", "Collection", "Sequence", "Iterator", "Lookup", "Grouping", "Projection",
    "Filter", "Policy", "Strategy", "Pipeline", "Middleware", "Feature", "Binding",
};

static const char *const verbs[] = {
    "Get", "Set", "Try", "Add", "Remove", "Insert", "Find", "Contains", "Create", "Parse",
    "Format", "Read", "Write", "Copy", "Move", "Clear", "Reset", "Init", "Load", "Save",
    "Open", "Close", "Dispose", "Validate", "Resolve", "Invoke", "Visit", "Bind", "Emit",
    "Compute", "Convert", "Encode", "Decode", "Append", "Build", "Begin", "End", "Handle",
    "Process", "Run", "Start", "Stop", "Wait", "Register", "Enqueue", "Dequeue", "Push",
    "Pop", "Peek", "Compare", "Equals", "Throw", "Ensure", "Grow", "Resize", "Slice",
    "Update", "Merge", "Split", "Join", "Flush", "Send", "Receive", "Match", "Scan", "Lower",
    "Rewrite", "Analyze", "Report", "Check", "Matches", "Select", "Where", "Aggregate",
};

static const char *const suffixes[] = {"", "", "", "", "", "Async", "Core", "Internal",
                                       "Slow", "Fast", "Impl", "Unsafe", "Helper", "Cached"};

/* CorInfoClassId order: OBJECT, TYPED_BYREF, TYPE_HANDLE, FIELD_HANDLE, METHOD_HANDLE,
 * STRING, ARGUMENT_HANDLE, RUNTIME_TYPE. */
static const char *const builtin_names[8] = {
    "Object", "TypedReference", "RuntimeTypeHandle", "RuntimeFieldHandle",
    "RuntimeMethodHandle", "String", "RuntimeArgumentHandle", "RuntimeType"};

static const char *const primitive_inst[] = {"System.__Canon", "System.__Canon",
                                             "System.__Canon", "System.Int32", "System.Byte",
                                             "System.Char", "System.Int64", "System.Double"};

/* ---- Text arena ---- */

static uint32_t text_add(mg_universe *u, const char *s, size_t len)
{
    if (!u->text || u->text_len + len > u->text_cap) { /* memcpy wants a buffer even for 0 */
        size_t cap = u->text_cap ? u->text_cap * 2 : 1 << 20;
        while (cap < u->text_len + len)
            cap *= 2;
        char *grown = realloc(u->text, cap);
        if (!grown) {
            fprintf(stderr, "mchgen: out of memory\n");
            exit(1);
        }
        u->text = grown;
        u->text_cap = cap;
    }
    memcpy(u->text + u->text_len, s, len);
    u->text_len += len;
    return (uint32_t)(u->text_len - len);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "mchgen: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- Classes ---- */

enum { CLASS_COUNT = 5200 };

/* Where calls go: a sibling in the class, a popular method of the module, or a popular
 * method anywhere (the framework); popularity falls as rank^-POPULARITY_EXPONENT. */
#define CALL_OWN_CLASS 0.30
#define CALL_OWN_MODULE 0.32
#define POPULARITY_EXPONENT 1.8
#define POPULARITY_OFFSET 4.0
/* Instructions that take a token, and the share of those that reuse an earlier token of the
 * method (the same field or callee again): about 7.5 token operands per method. */
#define IL_TOKEN_SHARE 0.30
#define IL_REPEAT_SHARE 0.3

static uint32_t pick_namespace(mg_rng *r)
{
    static uint32_t total;
    if (!total)
        for (size_t i = 0; i < COUNT_OF(namespaces); i++)
            total += namespaces[i].weight;
    uint32_t x = mg_rng_below(r, total);
    for (size_t i = 0; i < COUNT_OF(namespaces); i++) {
        if (x < namespaces[i].weight)
            return (uint32_t)i;
        x -= namespaces[i].weight;
    }
    return 0;
}

static const char *pick(mg_rng *r, const char *const *list, size_t n)
{
    return list[mg_rng_below(r, (uint32_t)n)];
}

#define PICK(r, list) pick(r, list, COUNT_OF(list))

/* The simple name: "StreamReader", "List`1", "Parser+Node", "<>c__DisplayClass12_0"...
 * Every draw is made up front, in a fixed order: the order in which a compiler evaluates
 * function arguments is unspecified, and the output must not depend on the compiler. */
static int class_simple_name(mg_rng *r, char *out, size_t cap, uint8_t *arity)
{
    double x = mg_rng_unit(r);
    const char *w1 = PICK(r, type_words), *w2 = PICK(r, type_words), *w3 = PICK(r, type_words);
    const char *verb = PICK(r, verbs);
    uint32_t n1 = mg_rng_below(r, 60), n2 = mg_rng_below(r, 3);
    *arity = 0;
    if (x < 0.06)
        return snprintf(out, cap, "%s%s+<>c__DisplayClass%u_%u", w1, w2, n1 % 40, n2);
    if (x < 0.10)
        return snprintf(out, cap, "%s+<%s%s>d__%u", w1, verb, w2, n1);
    if (x < 0.13)
        return snprintf(out, cap, "%s+<>c", w1);
    if (x < 0.20)
        return snprintf(out, cap, "%s%s+%s", w1, w2, w3);
    if (x < 0.36) {
        *arity = n2 == 0 ? 2 : 1;
        return snprintf(out, cap, "%s%s`%u", n1 % 2 ? "" : w1, w2, *arity);
    }
    if (x < 0.75)
        return snprintf(out, cap, "%s%s", w1, w2);
    return snprintf(out, cap, "%s", w1);
}

static void add_class_name(mg_universe *u, mg_class *c, const char *ns, const char *simple,
                           mg_rng *r)
{
    char full[512];
    int n = snprintf(full, sizeof full, "%s.%s", ns, simple);
    if (c->generic_arity) {
        n += snprintf(full + n, sizeof full - (size_t)n, "[%s", PICK(r, primitive_inst));
        if (c->generic_arity == 2)
            n += snprintf(full + n, sizeof full - (size_t)n, ",%s", PICK(r, primitive_inst));
        n += snprintf(full + n, sizeof full - (size_t)n, "]");
    }
    c->name_len = (uint32_t)n;
    c->name = text_add(u, full, (size_t)n);
    c->ns_len = (uint32_t)strlen(ns);
    c->ns = c->name;
    c->simple_len = (uint32_t)strlen(simple);
    c->simple = c->name + c->ns_len + 1;
}

/* By module, then by creation order (the name offset grows with it). */
static int cmp_class_module(const void *a, const void *b)
{
    const mg_class *x = a, *y = b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

static void build_classes(mg_universe *u, mg_rng *r)
{
    u->class_count = CLASS_COUNT;
    u->classes = xcalloc(u->class_count, sizeof *u->classes);
    uint32_t typedef_rid[64] = {0};
    for (uint32_t i = 0; i < u->class_count; i++) {
        mg_class *c = &u->classes[i];
        char simple[256];
        uint32_t ns;
        if (i < COUNT_OF(builtin_names)) {
            ns = 0;
            snprintf(simple, sizeof simple, "%s", builtin_names[i]);
            c->generic_arity = 0;
            c->is_value = i >= 1 && i <= 4;
        } else {
            ns = pick_namespace(r);
            class_simple_name(r, simple, sizeof simple, &c->generic_arity);
            c->is_value = mg_rng_chance(r, 0.14);
        }
        c->module = namespaces[ns].module;
        add_class_name(u, c, namespaces[ns].ns, simple, r);
        c->attribs = (c->is_value ? 0x00000008u : 0) | (mg_rng_chance(r, 0.3) ? 0x10u : 0) |
                     (c->generic_arity ? 0x00000080u : 0) | 0x00010000u;
        c->parent =
            i == 0 ? MG_NONE : (c->is_value ? 0 : (mg_rng_chance(r, 0.7) ? 0 : mg_rng_below(r, i)));
        c->field_count = (uint16_t)(mg_rng_below(r, 12) + (c->is_value ? 1 : 0));
        c->instance_size = (uint16_t)(8 + 8 * c->field_count);
        for (int k = 0; k < c->generic_arity; k++)
            c->inst[k] = mg_rng_below(r, 16);
    }
    /* a module's types load together: group them (stable, so the builtins stay first) */
    qsort(u->classes, u->class_count, sizeof *u->classes, cmp_class_module);
    for (uint32_t i = 0; i < u->class_count; i++) {
        mg_class *c = &u->classes[i];
        c->token = 0x02000000u | ++typedef_rid[c->module];
    }
    for (uint32_t i = 0; i < COUNT_OF(builtin_names); i++)
        u->builtin[i] = i;
}

/* ---- Methods ---- */

static mg_type pick_type(mg_universe *u, mg_rng *r, bool is_return)
{
    mg_type t = {MCZ_TYPE_INT, MG_NONE};
    double x = mg_rng_unit(r);
    if (is_return && x < 0.42) {
        t.cor_type = MCZ_TYPE_VOID;
        return t;
    }
    if (is_return)
        x = mg_rng_unit(r);
    if (x < 0.46) {
        t.cor_type = MCZ_TYPE_CLASS;
        double y = mg_rng_unit(r);
        t.cls = y < 0.25   ? 5
                : y < 0.32 ? 0
                           : 8 + mg_rng_below(r, y < 0.7 ? 300 : u->class_count - 8);
        if (u->classes[t.cls].is_value)
            t.cor_type = MCZ_TYPE_VALUECLASS;
    } else if (x < 0.64) {
        t.cor_type = MCZ_TYPE_INT;
    } else if (x < 0.72) {
        t.cor_type = MCZ_TYPE_BOOL;
    } else if (x < 0.80) {
        t.cor_type = MCZ_TYPE_VALUECLASS;
        t.cls = 8 + mg_rng_below(r, u->class_count - 8);
    } else if (x < 0.85) {
        t.cor_type = MCZ_TYPE_LONG;
    } else if (x < 0.89) {
        t.cor_type = MCZ_TYPE_BYREF;
    } else if (x < 0.92) {
        t.cor_type = MCZ_TYPE_NATIVEINT;
    } else if (x < 0.94) {
        t.cor_type = MCZ_TYPE_DOUBLE;
    } else if (x < 0.96) {
        t.cor_type = MCZ_TYPE_CHAR;
    } else if (x < 0.98) {
        t.cor_type = MCZ_TYPE_UBYTE;
    } else {
        t.cor_type = MCZ_TYPE_UINT;
    }
    return t;
}

static uint8_t pick_arg_count(mg_rng *r)
{
    static const uint8_t counts[] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2,
                                     3, 3, 3, 4, 4, 5, 6, 8, 11};
    return counts[mg_rng_below(r, COUNT_OF(counts))];
}

static int method_name(mg_rng *r, const mg_class *c, const char *text, uint32_t idx,
                       uint32_t count, char *out, size_t cap)
{
    bool compiler_class = memchr(text + c->simple, '<', c->simple_len) != NULL;
    if (idx == 0 && !c->is_value)
        return snprintf(out, cap, ".ctor");
    if (idx == count - 1 && count > 3 && mg_rng_chance(r, 0.3))
        return snprintf(out, cap, ".cctor");
    const char *verb = PICK(r, verbs), *word = PICK(r, type_words), *suffix = PICK(r, suffixes);
    uint32_t n = mg_rng_below(r, 30);
    if (compiler_class) {
        if (memchr(text + c->simple, 'd', c->simple_len) && idx == 1)
            return snprintf(out, cap, "MoveNext");
        return snprintf(out, cap, "<%s%s>b__%u_%u", verb, word, n, idx);
    }
    double x = mg_rng_unit(r);
    if (x < 0.22)
        return snprintf(out, cap, "%s_%s", x < 0.15 ? "get" : "set", word);
    if (x < 0.3)
        return snprintf(out, cap, "%s", verb);
    return snprintf(out, cap, "%s%s%s", verb, word, suffix);
}

/* CorInfoFlag bits. */
enum {
    FLG_PROTECTED = 0x4,
    FLG_STATIC = 0x8,
    FLG_FINAL = 0x10,
    FLG_VIRTUAL = 0x40,
    FLG_INTRINSIC = 0x00400000,
    FLG_CONSTRUCTOR = 0x00800000,
    FLG_FORCEINLINE = 0x00010000,
    FLG_NOSECURITYWRAP = 0x04000000
};

static void build_methods(mg_universe *u, mg_rng *r)
{
    uint32_t cap = u->class_count * 8;
    u->methods = xcalloc(cap, sizeof *u->methods);
    uint32_t methoddef_rid[64] = {0}, blob_offset[64] = {0};
    for (uint32_t ci = 0; ci < u->class_count; ci++) {
        mg_class *c = &u->classes[ci];
        uint32_t want = 1 + (uint32_t)fmin(40.0, mg_rng_lognormal(r, 4.0, 0.8));
        if (u->method_count + want > cap) {
            cap = cap * 2 + want; /* doubling alone can stay short of want on few classes */
            mg_method *grown = realloc(u->methods, cap * sizeof *grown);
            if (!grown) {
                fprintf(stderr, "mchgen: out of memory\n");
                exit(1);
            }
            u->methods = grown;
            memset(u->methods + u->method_count, 0, (cap - u->method_count) * sizeof *grown);
        }
        c->first_method = u->method_count;
        c->method_count = want;
        for (uint32_t k = 0; k < want; k++) {
            mg_method *m = &u->methods[u->method_count++];
            char name[256];
            int n = method_name(r, c, u->text, k, want, name, sizeof name);
            m->cls = ci;
            m->name = text_add(u, name, (size_t)n);
            m->name_len = (uint32_t)n;
            m->token = 0x06000000u | ++methoddef_rid[c->module];
            bool ctor = name[0] == '.';
            bool cctor = ctor && name[1] == 'c' && name[2] == 'c';
            m->hasthis = !cctor && (ctor || mg_rng_chance(r, 0.68));
            m->ret = ctor ? (mg_type){MCZ_TYPE_VOID, MG_NONE} : pick_type(u, r, true);
            m->nargs = pick_arg_count(r);
            for (uint8_t a = 0; a < m->nargs; a++)
                m->args[a] = pick_type(u, r, false);
            if (cctor)
                m->nargs = 0; /* drawn all the same, so the stream of choices stays aligned */
            m->intrinsic = mg_rng_chance(r, ci < 400 ? 0.12 : 0.02);
            m->attribs = FLG_NOSECURITYWRAP | (m->hasthis ? 0 : FLG_STATIC) |
                         (ctor ? FLG_CONSTRUCTOR : 0) | (m->intrinsic ? FLG_INTRINSIC : 0) |
                         (m->hasthis && mg_rng_chance(r, 0.25) ? FLG_VIRTUAL : 0) |
                         (mg_rng_chance(r, 0.2) ? FLG_FINAL : 0) |
                         (mg_rng_chance(r, 0.03) ? FLG_FORCEINLINE : 0);
            double il = mg_rng_lognormal(r, 18.0, 1.58);
            m->il_target = (uint32_t)fmax(1.0, fmin(12000.0, il));
            m->nlocals = (uint8_t)fmin(MG_MAX_ARGS, m->il_target / 24 + mg_rng_below(r, 2));
            for (uint8_t a = 0; a < m->nlocals; a++)
                m->locals[a] = pick_type(u, r, false);
            m->sig_offset = blob_offset[c->module];
            blob_offset[c->module] += 4 + 2u * (m->nargs + m->nlocals) + 2;
        }
    }
}

/* Giant methods: the rare huge bodies (big switch dispatchers, generated initializers). */
static void add_giants(mg_universe *u, mg_rng *r)
{
    for (int i = 0; i < 24; i++) {
        mg_method *m = &u->methods[mg_rng_below(r, u->method_count)];
        m->il_target = 100000 + mg_rng_below(r, 40000);
        m->nlocals = MG_MAX_ARGS;
    }
}

/* Popularity: a random order of methods (framework first, roughly) drawn with power-law
 * weights, globally or within a module. */
/* Popularity order: a weighted random permutation (sort by -ln(U) / weight) in which small
 * methods with few arguments and framework methods come first, as hot callees do (getters,
 * constructors, throw helpers). The weighting also keeps a corpus's character from hanging on
 * whichever few methods happen to be drawn on top. */
static double hotness_key(const mg_universe *u, const mg_method *m, mg_rng *r)
{
    double weight = 1.0 / (1.0 + m->il_target / 24.0) / (1.0 + 0.6 * m->nargs);
    if (u->classes[m->cls].module == 0)
        weight *= 3.0;
    return -log(1.0 - mg_rng_unit(r)) / weight;
}

static double *hot_keys; /* qsort has no context argument */

static int cmp_hotness(const void *a, const void *b)
{
    double x = hot_keys[*(const uint32_t *)a], y = hot_keys[*(const uint32_t *)b];
    return (x > y) - (x < y);
}

static void build_popularity(mg_universe *u, mg_rng *r)
{
    uint32_t n = u->method_count;
    u->by_rank = xcalloc(n, sizeof *u->by_rank);
    hot_keys = xcalloc(n, sizeof *hot_keys);
    for (uint32_t i = 0; i < n; i++) {
        u->by_rank[i] = i;
        hot_keys[i] = hotness_key(u, &u->methods[i], r);
    }
    qsort(u->by_rank, n, sizeof *u->by_rank, cmp_hotness);
    free(hot_keys);
    hot_keys = NULL;
    for (uint32_t i = 0; i < n; i++)
        u->methods[u->by_rank[i]].popularity_rank = i;
}

/* Index in [0, n) drawn from a continuous power law x^-s on [offset, offset + n). */
static uint32_t zipf_index(mg_rng *r, uint32_t n, double s, double offset)
{
    double a = pow(offset, 1.0 - s), b = pow(offset + n, 1.0 - s);
    double x = pow(a + mg_rng_unit(r) * (b - a), 1.0 / (1.0 - s)) - offset;
    uint32_t k = (uint32_t)x;
    return k < n ? k : n - 1;
}

uint32_t mg_universe_popular_method(const mg_universe *u, mg_rng *r)
{
    return u->by_rank[zipf_index(r, u->method_count, POPULARITY_EXPONENT, POPULARITY_OFFSET)];
}

uint32_t mg_universe_module_method(const mg_universe *u, uint32_t module, mg_rng *r)
{
    uint32_t first = u->module_first[module], n = u->module_first[module + 1] - first;
    if (n == 0)
        return mg_universe_popular_method(u, r);
    return u->module_methods[first + zipf_index(r, n, POPULARITY_EXPONENT, POPULARITY_OFFSET)];
}

/* Methods grouped by module, each group in popularity order. */
static void build_module_index(mg_universe *u)
{
    u->module_first = xcalloc(u->module_count + 1, sizeof *u->module_first);
    u->module_methods = xcalloc(u->method_count, sizeof *u->module_methods);
    for (uint32_t i = 0; i < u->method_count; i++)
        u->module_first[u->classes[u->methods[i].cls].module + 1]++;
    for (uint32_t m = 0; m < u->module_count; m++)
        u->module_first[m + 1] += u->module_first[m];
    uint32_t *fill = xcalloc(u->module_count, sizeof *fill);
    for (uint32_t rank = 0; rank < u->method_count; rank++) {
        uint32_t method = u->by_rank[rank];
        uint32_t module = u->classes[u->methods[method].cls].module;
        u->module_methods[u->module_first[module] + fill[module]++] = method;
    }
    free(fill);
}

mg_universe *mg_universe_create(uint64_t seed)
{
    mg_universe *u = xcalloc(1, sizeof *u);
    mg_rng r;
    mg_rng_seed(&r, mg_hash2(seed, 0x554E4956ull));
    u->seed = seed;
    u->module_count = MODULE_COUNT;
    build_classes(u, &r);
    build_methods(u, &r);
    add_giants(u, &r);
    build_popularity(u, &r);
    build_module_index(u);
    return u;
}

void mg_universe_free(mg_universe *u)
{
    if (!u)
        return;
    for (uint32_t i = 0; i < u->method_count; i++) {
        free(u->methods[i].il);
        free(u->methods[i].refs);
    }
    free(u->methods);
    free(u->classes);
    free(u->by_rank);
    free(u->module_first);
    free(u->module_methods);
    free(u->text);
    free(u);
}

/* ---- Signatures ---- */

/* ECMA-335 element type of a CorInfoType, for the signature blob. */
static uint8_t element_type(mg_type t, const mg_universe *u)
{
    static const uint8_t by_cor[] = {
        [MCZ_TYPE_VOID] = 0x01,  [MCZ_TYPE_BOOL] = 0x02,      [MCZ_TYPE_CHAR] = 0x03,
        [MCZ_TYPE_BYTE] = 0x04,  [MCZ_TYPE_UBYTE] = 0x05,     [MCZ_TYPE_SHORT] = 0x06,
        [MCZ_TYPE_USHORT] = 0x07, [MCZ_TYPE_INT] = 0x08,      [MCZ_TYPE_UINT] = 0x09,
        [MCZ_TYPE_LONG] = 0x0A,  [MCZ_TYPE_ULONG] = 0x0B,     [MCZ_TYPE_NATIVEINT] = 0x18,
        [MCZ_TYPE_NATIVEUINT] = 0x19, [MCZ_TYPE_FLOAT] = 0x0C, [MCZ_TYPE_DOUBLE] = 0x0D,
        [MCZ_TYPE_STRING] = 0x0E, [MCZ_TYPE_PTR] = 0x0F,      [MCZ_TYPE_BYREF] = 0x10,
        [MCZ_TYPE_VALUECLASS] = 0x11, [MCZ_TYPE_CLASS] = 0x12,
    };
    if (t.cor_type == MCZ_TYPE_CLASS && t.cls == 5)
        return 0x0E; /* string */
    if (t.cor_type == MCZ_TYPE_CLASS && t.cls == 0)
        return 0x1C; /* object */
    (void)u;
    return t.cor_type < COUNT_OF(by_cor) && by_cor[t.cor_type] ? by_cor[t.cor_type] : 0x08;
}

/* Appends one type; classes as a compressed TypeDefOrRef coded index. */
static uint32_t put_type(const mg_universe *u, mg_type t, uint8_t *out)
{
    uint32_t n = 0;
    uint8_t et = element_type(t, u);
    if (t.cor_type == MCZ_TYPE_BYREF) {
        out[n++] = 0x10;
        et = 0x08;
    }
    out[n++] = et;
    if (et == 0x11 || et == 0x12) {
        uint32_t coded = ((u->classes[t.cls].token & 0xFFFFFF) << 2) | (t.cls % 3 == 0 ? 1 : 0);
        if (coded < 0x80) {
            out[n++] = (uint8_t)coded;
        } else if (coded < 0x4000) {
            out[n++] = (uint8_t)(0x80 | (coded >> 8));
            out[n++] = (uint8_t)coded;
        } else {
            out[n++] = (uint8_t)(0xC0 | (coded >> 24));
            out[n++] = (uint8_t)(coded >> 16);
            out[n++] = (uint8_t)(coded >> 8);
            out[n++] = (uint8_t)coded;
        }
    }
    return n;
}

uint32_t mg_sig_blob(const mg_universe *u, const mg_method *m, bool locals, uint8_t *out,
                     uint32_t *arg_offsets)
{
    uint32_t n = 0;
    uint8_t count = locals ? m->nlocals : m->nargs;
    const mg_type *types = locals ? m->locals : m->args;
    if (locals) {
        out[n++] = 0x07; /* LOCAL_SIG */
        out[n++] = count;
    } else {
        out[n++] = m->hasthis ? 0x20 : 0x00;
        out[n++] = count;
        n += put_type(u, m->ret, out + n);
    }
    for (uint8_t i = 0; i < count; i++) {
        arg_offsets[i] = n;
        n += put_type(u, types[i], out + n);
    }
    return n;
}

/* ---- IL ---- */

typedef struct il_op {
    uint8_t code;
    uint8_t operand; /* bytes */
    uint16_t weight;
} il_op;

/* Operand-free and short-operand opcodes, weighted roughly as in compiled C#. */
static const il_op plain_ops[] = {
    {0x02, 0, 150}, {0x03, 0, 80}, {0x04, 0, 30}, {0x05, 0, 12}, {0x06, 0, 60}, {0x07, 0, 40},
    {0x08, 0, 20},  {0x09, 0, 10}, {0x0A, 0, 50}, {0x0B, 0, 30}, {0x0C, 0, 12}, {0x0D, 0, 6},
    {0x16, 0, 50},  {0x17, 0, 40}, {0x15, 0, 8},  {0x18, 0, 10}, {0x14, 0, 30}, {0x25, 0, 20},
    {0x26, 0, 30},  {0x1F, 1, 40}, {0x0E, 1, 8},  {0x12, 1, 20}, {0x11, 1, 10}, {0x13, 1, 10},
    {0x2B, 1, 30},  {0x2C, 1, 30}, {0x2D, 1, 30}, {0x2E, 1, 8},  {0x32, 1, 8},  {0x33, 1, 8},
    {0x58, 0, 20},  {0x59, 0, 10}, {0x5A, 0, 5},  {0x5F, 0, 5},  {0x69, 0, 5},  {0x6A, 0, 3},
    {0x9A, 0, 5},   {0xA2, 0, 3},  {0x8E, 0, 5},  {0x4A, 0, 3},  {0x7A, 0, 3},  {0xDE, 1, 3},
    {0xDC, 0, 2},   {0x20, 4, 5},  {0x38, 4, 5},  {0x2A, 0, 5},  {0x23, 8, 1},  {0x62, 0, 2},
};

/* Token-bearing opcodes with the kind of token they take. */
typedef struct token_op {
    uint8_t code;
    uint8_t kind;
    uint16_t weight;
} token_op;

static const token_op token_ops[] = {
    {0x28, MG_REF_CALL, 350},  {0x6F, MG_REF_CALL, 170},  {0x73, MG_REF_CALL, 60},
    {0x7B, MG_REF_FIELD, 130}, {0x7D, MG_REF_FIELD, 60},  {0x7E, MG_REF_FIELD, 40},
    {0x80, MG_REF_FIELD, 10},  {0x72, MG_REF_STRING, 50}, {0x8C, MG_REF_TYPE, 30},
    {0x75, MG_REF_TYPE, 25},   {0x74, MG_REF_TYPE, 20},   {0x8D, MG_REF_TYPE, 20},
    {0xD0, MG_REF_TYPE, 10},   {0x79, MG_REF_TYPE, 5},
};

static uint32_t weighted(mg_rng *r, const void *table, size_t count, size_t stride,
                         size_t weight_offset, uint32_t total)
{
    uint32_t x = mg_rng_below(r, total);
    const uint8_t *p = table;
    for (size_t i = 0; i < count; i++) {
        uint16_t w;
        memcpy(&w, p + i * stride + weight_offset, sizeof w);
        if (x < w)
            return (uint32_t)i;
        x -= w;
    }
    return 0;
}

static uint32_t table_total(const void *table, size_t count, size_t stride, size_t off)
{
    uint32_t total = 0;
    const uint8_t *p = table;
    for (size_t i = 0; i < count; i++) {
        uint16_t w;
        memcpy(&w, p + i * stride + off, sizeof w);
        total += w;
    }
    return total;
}

/* A token for target as seen from the caller's class: a def when local, a ref otherwise.
 * Compilers add references in order of first use, so a class's references sit together: the
 * rid is the class's base plus a small offset. */
static uint32_t ref_token(uint32_t table, uint32_t caller_cls, uint64_t target, uint32_t rows)
{
    uint32_t base = (uint32_t)(mg_hash2(table, caller_cls) % rows);
    return table | (1 + base + (uint32_t)(mg_hash2(caller_cls, target) % 48));
}

static uint32_t member_token(const mg_universe *u, uint32_t caller_cls, uint32_t target_module,
                             uint32_t def_token, uint64_t key)
{
    if (u->classes[caller_cls].module == target_module)
        return def_token;
    return ref_token(0x0A000000u, caller_cls, key, 6000);
}

static void pick_ref(mg_universe *u, const mg_method *m, mg_rng *r, uint8_t kind, mg_ref *ref)
{
    uint32_t module = u->classes[m->cls].module;
    ref->kind = kind;
    ref->cls = MG_NONE;
    switch (kind) {
    case MG_REF_CALL: {
        const mg_class *own = &u->classes[m->cls];
        double x = mg_rng_unit(r);
        uint32_t t = own->method_count > 1 && x < CALL_OWN_CLASS
                         ? own->first_method + mg_rng_below(r, own->method_count)
                     : x < CALL_OWN_CLASS + CALL_OWN_MODULE
                         ? mg_universe_module_method(u, module, r)
                         : mg_universe_popular_method(u, r);
        const mg_method *callee = &u->methods[t];
        ref->target = t;
        ref->token = member_token(u, m->cls, u->classes[callee->cls].module, callee->token,
                                  0x100000000ull + t);
        break;
    }
    case MG_REF_FIELD: {
        uint32_t c =
            mg_rng_chance(r, 0.6) ? m->cls : u->methods[mg_universe_popular_method(u, r)].cls;
        const mg_class *fc = &u->classes[c];
        uint32_t idx = fc->field_count ? mg_rng_below(r, fc->field_count) : 0;
        ref->cls = c;
        ref->target = idx;
        ref->token = member_token(u, m->cls, fc->module,
                                  0x04000000u | ((fc->token & 0xFFFFF) * 4 + idx + 1),
                                  0x200000000ull + c * 64 + idx);
        break;
    }
    case MG_REF_TYPE: {
        uint32_t c = mg_rng_chance(r, 0.5) ? mg_rng_below(r, 400)
                                           : u->methods[mg_universe_popular_method(u, r)].cls;
        ref->target = c;
        ref->token = u->classes[c].generic_arity ? ref_token(0x1B000000u, m->cls, c, 900)
                     : u->classes[c].module == module ? u->classes[c].token
                                                      : ref_token(0x01000000u, m->cls, c, 2500);
        break;
    }
    default: {
        /* #US heap offsets: a class's literals are stored together */
        uint32_t s = mg_rng_below(r, 64);
        ref->target = m->cls * 64 + s;
        ref->token = 0x70000000u | (uint32_t)(1 + mg_hash2(module, m->cls) % 0x30000 + s * 0x1A);
        break;
    }
    }
}

typedef struct il_buf {
    uint8_t *code;
    uint32_t len, cap;
    mg_ref *refs;
    uint32_t ref_count, ref_cap;
} il_buf;

static void il_reserve(il_buf *b, uint32_t more)
{
    if (b->len + more <= b->cap)
        return;
    while (b->len + more > b->cap)
        b->cap = b->cap ? b->cap * 2 : 64;
    b->code = realloc(b->code, b->cap);
    if (!b->code) {
        fprintf(stderr, "mchgen: out of memory\n");
        exit(1);
    }
}

/* A token instruction: often preceded by ldarg.0 (instance fields and calls), and often a
 * repeat of an earlier reference (the same field or callee used again). */
static void il_emit_token_op(mg_universe *u, const mg_method *m, mg_rng *r, il_buf *b,
                             uint32_t total)
{
    mg_ref ref;
    bool repeat = b->ref_count > 0 && mg_rng_chance(r, IL_REPEAT_SHARE);
    if (repeat) {
        ref = b->refs[mg_rng_below(r, b->ref_count)];
    } else {
        const token_op *op = &token_ops[weighted(r, token_ops, COUNT_OF(token_ops),
                                                 sizeof token_ops[0], offsetof(token_op, weight),
                                                 total)];
        pick_ref(u, m, r, op->kind, &ref);
        ref.opcode = op->code;
    }
    il_reserve(b, 6);
    bool instance = ref.opcode == 0x7B || ref.opcode == 0x7D || ref.opcode == 0x6F;
    if (instance && m->hasthis && mg_rng_chance(r, 0.6))
        b->code[b->len++] = 0x02; /* ldarg.0 */
    b->code[b->len] = ref.opcode;
    mcz_put_le32(b->code + b->len + 1, ref.token);
    b->len += 5;
    if (repeat)
        return;
    if (b->ref_count == b->ref_cap) {
        b->ref_cap = b->ref_cap ? b->ref_cap * 2 : 8;
        b->refs = realloc(b->refs, b->ref_cap * sizeof *b->refs);
        if (!b->refs) {
            fprintf(stderr, "mchgen: out of memory\n");
            exit(1);
        }
    }
    b->refs[b->ref_count++] = ref;
}

static void il_emit_plain_op(mg_rng *r, il_buf *b, uint32_t total)
{
    const il_op *op = &plain_ops[weighted(r, plain_ops, COUNT_OF(plain_ops), sizeof plain_ops[0],
                                          offsetof(il_op, weight), total)];
    il_reserve(b, 9);
    b->code[b->len++] = op->code;
    for (uint8_t i = 0; i < op->operand; i++)
        b->code[b->len++] = i == 0 ? (uint8_t)(mg_rng_below(r, 24) + 2) : 0;
}

void mg_method_ensure_il(mg_universe *u, uint32_t method)
{
    mg_method *m = &u->methods[method];
    if (m->il)
        return;
    static uint32_t token_total, plain_total;
    if (!token_total) {
        token_total = table_total(token_ops, COUNT_OF(token_ops), sizeof token_ops[0],
                                  offsetof(token_op, weight));
        plain_total = table_total(plain_ops, COUNT_OF(plain_ops), sizeof plain_ops[0],
                                  offsetof(il_op, weight));
    }
    mg_rng r;
    mg_rng_seed(&r, mg_hash2(u->seed, 0x494C000000000000ull + method));
    il_buf b = {0};
    uint32_t target = m->il_target;
    while (b.len + 1 < target) {
        if (mg_rng_chance(&r, IL_TOKEN_SHARE) && b.len + 7 <= target)
            il_emit_token_op(u, m, &r, &b, token_total);
        else
            il_emit_plain_op(&r, &b, plain_total);
    }
    il_reserve(&b, 1);
    b.code[b.len++] = 0x2A; /* ret */
    m->il = b.code;
    m->il_len = b.len;
    m->refs = b.refs;
    m->ref_count = b.ref_count;
    m->max_stack = (uint16_t)(2 + m->nargs / 2 + (b.len > 40 ? mg_rng_below(&r, 6) : 0));
    m->eh_count = (uint8_t)(b.len > 120 && mg_rng_chance(&r, 0.15) ? 1 + mg_rng_below(&r, 2) : 0);
}
